// Command buildgate is a policy-as-code linter for build files.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/buildgate/buildgate/lint"
	"github.com/buildgate/buildgate/report"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes are a public interface: CI systems branch on them.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

// exitError carries an exit code up to main with its message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "buildgate",
		Short:         "Policy-as-code linter for Dockerfiles, bake files, requirements files, shell scripts and CI pipelines",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: exitUsage, msg: err.Error()}
	})
	root.PersistentFlags().BoolVar(&debugFlag, "debug", false, "print the Go stack of internal errors (a loader that panicked, ...) on stderr")
	root.PersistentPreRun = func(*cobra.Command, []string) {
		if debugFlag {
			// A loader's panic names the file, and its value may quote it.
			lint.SetDebug(safeLinesWriter{stderr})
		}
	}
	root.AddCommand(newLintCmd(), newFixCmd(), newRulesCmd(), newVerifyCmd(), newParseCmd(), newVersionCmd())
	// --version prints what `buildgate version` prints (issue 18).
	root.Version = Version()
	root.SetVersionTemplate("buildgate {{.Version}}\n")
	root.Flags().Bool("version", false, "print buildgate's version (as buildgate version does)")
	conventionalFlagHelp(root)
	return root
}

// conventionalFlagHelp shows boolean flags as --name, as most command-line
// tools do: pflag 1.1 (which OPA requires) writes --name[=true|false]. The
// suffix becomes spaces of the same width, so the descriptions stay in one
// column; cobra's own usage template is kept, only its flag lists go
// through this.
func conventionalFlagHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("flagUsages", func(fs *pflag.FlagSet) string {
		return strings.ReplaceAll(fs.FlagUsages(), "[=true|false]", strings.Repeat(" ", len("[=true|false]")))
	})
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, "{{.LocalFlags.FlagUsages", "{{flagUsages .LocalFlags")
	t = strings.ReplaceAll(t, "{{.InheritedFlags.FlagUsages", "{{flagUsages .InheritedFlags")
	root.SetUsageTemplate(t)
}

var debugFlag bool

func run(args []string, stdout, stderr io.Writer) (code int) {
	// Whatever happens, the process ends with an exit status CI can read,
	// never with a Go panic: an internal error is exit 2.
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "buildgate: internal error: %s (please report it; --debug prints the stack)\n", safeLines(fmt.Sprint(r)))
			if debugFlag {
				fmt.Fprintf(stderr, "%s", debug.Stack())
			}
			code = exitUsage
		}
	}()
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "buildgate: "+safeLines(ee.msg))
		}
		return ee.code
	}
	// Cobra's own errors (unknown command, bad arguments) are usage errors.
	fmt.Fprintln(stderr, "buildgate: "+safeLines(err.Error()))
	return exitUsage
}

// safeLines makes an error message safe to print on stderr, which a CI
// runner reads for commands too: a message may quote a file or policy of
// the pull request (a name, a parse error's text). Each line is shown as
// report.SafeLine has it.
func safeLines(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = report.SafeLine(l, false)
	}
	return strings.Join(lines, "\n")
}

// safeLinesWriter writes each write's text as safeLines has it.
type safeLinesWriter struct{ w io.Writer }

func (s safeLinesWriter) Write(p []byte) (int, error) {
	text := strings.TrimSuffix(string(p), "\n")
	if _, err := io.WriteString(s.w, safeLines(text)+"\n"); err != nil {
		return 0, err
	}
	return len(p), nil
}

func main() {
	setMemoryLimit(os.Getenv)
	stop := startProfile(os.Getenv)
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
