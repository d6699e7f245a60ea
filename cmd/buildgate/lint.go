package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/buildgate/buildgate/finding"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/buildgate/buildgate/changes"
	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/internal/gitsafe"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/lint"
	"github.com/buildgate/buildgate/report"
	"github.com/buildgate/buildgate/vcs"
	"github.com/spf13/cobra"
)

type lintFlags struct {
	config      string
	root        string
	formats     []string
	output      string
	failOn      string
	maxSize     int64
	helpURIBase string
	category    string
	noDefault   bool
	skipUnknown bool
	policy      policyFlags
	timeout     time.Duration

	noInline       bool
	showSuppressed bool
	sarifSuppr     bool
	newFromRev     string
	newFromBase    string
	baseline       string
	writeBaseline  string
	configFromRev  string
	// configFromRevSet: --config-from-rev was given, even as "".
	configFromRevSet bool
	maxMemoryMB      int64
	maxReportMB      int64
	// stdin is standard input (`lint -`), stdinName --stdin-filename.
	stdin     io.Reader
	stdinName string
}

// output is one report to write: a format and its file ("" for stdout).
type output struct {
	format string
	file   string
}

func newLintCmd() *cobra.Command {
	var f lintFlags
	cmd := &cobra.Command{
		Use:   "lint [PATH...]",
		Short: "Check build files against the policies (the CI gate)",
		Long: `Lint finds the build files under each PATH (default: the current directory,
or the root when --root is given),
loads them and reports what the policies find.

The repository root is --root, else the git top level above the current
directory, else the current directory. Paths in reports are relative to it,
the configuration is read from its .buildgate.yaml (unless --config is given;
without either, the built-in Mooncake ROCm migration applies), and the
requirements files the configuration names are checked whatever PATHs are
given.

A PATH relative to --root (when given) is taken from the root. The PATH
- reads one file from standard input: --stdin-filename gives its path in
reports and its kind (else its text does); it is linted with the
repository's configuration and policies, and only its own findings are
reported.

Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 for a
usage, configuration or policy error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.configFromRevSet = cmd.Flags().Changed("config-from-rev")
			f.stdin = cmd.InOrStdin()
			return runLint(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "configuration file (default: .buildgate.yaml at the root, else the built-in default)")
	fl.StringVar(&f.root, "root", "", "repository root (default: the git top level, else the current directory)")
	fl.StringArrayVar(&f.formats, "format", []string{"text"}, "output format, repeatable as FORMAT[=FILE]: "+strings.Join(report.FormatNames, ", "))
	fl.StringVarP(&f.output, "output", "o", "", "write the report of the --format without =FILE to FILE instead of standard output")
	fl.StringVar(&f.helpURIBase, "help-uri-base", "", "sarif: each rule's helpUri is this URL with {id} replaced by the rule id, or URL/<id>.md")
	f.policy.register(fl)
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "time limit for the whole run (loading and evaluating); past it the run stops with exit 2")
	fl.BoolVar(&f.noInline, "no-inline-ignores", false, "ignore buildgate:ignore comments (config ignores still apply)")
	fl.BoolVar(&f.showSuppressed, "show-suppressed", false, "list suppressed findings too, with their reasons (text, JSON, markdown, JUnit as skipped test cases; never SARIF)")
	fl.BoolVar(&f.sarifSuppr, "sarif-include-suppressed", false, "sarif: include suppressed findings, marked with suppressions (GitHub code scanning shows them as open alerts unless the repository treats suppressed findings as dismissed)")
	fl.StringVar(&f.newFromRev, "new-from-rev", "", "report only findings on lines added or changed since the git revision REV (repository-level findings always)")
	fl.StringVar(&f.newFromBase, "new-from-merge-base", "", "like --new-from-rev, from the merge base of HEAD and BRANCH")
	fl.StringVar(&f.baseline, "baseline", "", "leave out findings recorded in FILE (a JSON report from --write-baseline)")
	fl.StringVar(&f.configFromRev, "config-from-rev", "", "read .buildgate.yaml (or --config), --baseline, --data and --policy directories as they are at the git revision REV (the pull request's base), not from the working tree")
	fl.StringVar(&f.writeBaseline, "write-baseline", "", "record every current finding (with fingerprints) in FILE for --baseline")
	fl.BoolVar(&f.noDefault, "no-default-path", false, "without PATHs, check only the configured requirements files (for hooks that pass the changed files, and none when none changed)")
	fl.StringVar(&f.stdinName, "stdin-filename", "", "with the PATH `-`: the path (inside the root) the file read from standard input has; its kind comes from it (or from `kinds:`), else from the text")
	fl.BoolVar(&f.skipUnknown, "skip-unknown", false, "pass over the PATHs that are no build file buildgate knows instead of refusing them (for hooks that pass every changed file)")
	fl.StringVar(&f.category, "category", "", "sarif: automationDetails.id, which tells runs of one repository apart in code scanning (default: none, so that upload-sarif's own default, which tells matrix jobs apart, applies)")
	fl.StringVar(&f.failOn, "fail-on", "error", "lowest severity that makes the exit status 1: error, warning, note or never")
	fl.Int64Var(&f.maxSize, "max-file-size", lint.DefaultMaxFileSize, "files larger than this many bytes are not read (a BG001 finding instead)")
	fl.Int64Var(&f.maxMemoryMB, "max-memory", 1024, "megabytes of memory the run may use; past it the run stops with exit 2 (0: no bound)")
	fl.Int64Var(&f.maxReportMB, "max-report-size", defaultMaxReportMB, "megabytes each report may hold; past it the run stops with exit 2 and that report's file is not written (0: no bound)")
	return cmd
}

func runLint(ctx context.Context, stdout, stderr io.Writer, f lintFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	started := time.Now()
	// --timeout covers the whole run, reading its own inputs included.
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	maxMemory = f.maxMemoryMB << 20
	dog := startWatchdog(stderr, f.timeout)
	defer dog.stop()
	failRank, ok := failOnRank(f.failOn)
	if !ok {
		return usageErr("--fail-on %q: want error, warning, note or never", f.failOn)
	}
	outputs, err := parseOutputs(f)
	if err != nil {
		return err
	}
	run, err := prepare(ctx, f, args, stderr, dog)
	if err != nil {
		return err
	}
	if run.cleanup != nil {
		defer run.cleanup()
	}
	root, cfg, opts := run.root, run.cfg, run.opts
	prog := newProgress(stderr)
	opts.Progress = func(stage string, done, total int) {
		dog.set(stage + " the files")
		if prog != nil {
			prog.update(stage, done, total)
		}
	}
	dog.set("finding the build files")
	out, err := lint.Run(ctx, opts)
	if prog != nil {
		prog.done()
	}
	if err != nil {
		var pe *lint.PathError
		var ce *config.Error
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		if errors.As(err, &pe) || errors.As(err, &ce) {
			return usageErr("%v", run.userArgs(err))
		}
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	if run.stdin != "" {
		onlyStdin(out, run.stdin)
	}
	if err := checkOutputs(outputs, f, root, out.Paths); err != nil {
		return err
	}
	pol, err := opts.PoliciesReady()
	if err != nil {
		return err
	}
	note := ""
	if cfg.Source == config.DefaultSource && len(out.Findings) == 0 && !anyExists(root, cfg.RequiredFiles()) {
		note = "The built-in migration (Mooncake ROCm wheel) has nothing to guard here: no " + strings.Join(cfg.RequiredFiles(), ", ") +
			" and no source build of it. To guard a migration of your own, write a .buildgate.yaml (docs/configuration.md)."
	}
	if len(out.Findings) > 0 {
		note = nextSteps(out.Findings, pol.Rules())
	}
	res := &report.Result{
		Tool:     report.Tool{Name: "buildgate", Version: Version()},
		Rules:    pol.Rules(),
		Findings: out.Findings,
		Paths:    out.Paths,
		Category: f.category,
		Note:     note,

		Suppressed:      out.Suppressed,
		ShowSuppressed:  f.showSuppressed,
		SARIFSuppressed: f.sarifSuppr,
		Baselined:       out.Baselined,
		NotNew:          out.NotNew,
		UnsafeFixable:   out.UnsafeFixes,
		FailOn:          f.failOn,
	}
	countFixable(res)
	// The watchdog keeps watching while the reports are written: their
	// size is not the run's (findings that share one long fix text cost
	// one string, each report writes every copy), so --timeout and
	// --max-memory hold here too; --max-report-size bounds each report.
	w := reportWriter{ctx: ctx, stdout: stdout, root: root, helpBase: f.helpURIBase, maxBytes: f.maxReportMB << 20, timeout: f.timeout, dog: dog}
	if f.writeBaseline != "" {
		all := *res
		all.Findings = out.All
		all.ShowSuppressed = false
		if err := w.write(output{format: "baseline", file: f.writeBaseline}, &all); err != nil {
			return err
		}
	}
	for _, u := range out.Unreadable {
		res.Notifications = append(res.Notifications, report.Notification{
			Level: "error", Path: u.Path, Message: fmt.Sprintf("%s could not be read: %s", u.Path, u.Reason),
		})
	}
	if p, ok := vcs.Read(root); ok {
		res.VersionControl = &report.VersionControl{RepositoryURI: p.RepositoryURI, RevisionID: p.Revision, Branch: p.Branch}
	}
	res.Elapsed = time.Since(started)
	read := fileLines(root)
	res.ByteColumn = byteColumns(read)
	res.SourceLine = sourceLines(read)
	for _, o := range outputs {
		n := len(res.Findings)
		if f.sarifSuppr {
			n += len(res.Suppressed)
		}
		if o.format == "sarif" && n > report.MaxSARIFResults {
			fmt.Fprintf(stderr, "buildgate: %d results, more than the %d GitHub accepts in a SARIF run: the SARIF report holds the %d most severe\n",
				n, report.MaxSARIFResults, report.MaxSARIFResults)
		}
		if err := w.write(o, res); err != nil {
			return err
		}
	}
	dog.stop()
	for _, fd := range out.Findings {
		if finding.SeverityRank(fd.Severity) >= failRank {
			return &exitError{code: exitFindings}
		}
	}
	return nil
}

// runInputs is where the run's own inputs come from: the working tree, or
// with --config-from-rev the revision (its drift from the working tree
// noted on stderr when stderr is not nil). An empty --config-from-rev is
// an error, not "no flag": an unset CI variable must not quietly hand the
// gate to the pull request's own configuration.
func runInputs(ctx context.Context, f lintFlags, root string, stderr io.Writer) (inputs, error) {
	if f.configFromRevSet && strings.TrimSpace(f.configFromRev) == "" {
		return nil, usageErr("--config-from-rev is empty (an unset variable?): give the revision whose configuration, baseline, data and policies the run uses, or leave the flag out")
	}
	if f.configFromRev == "" {
		return worktree{root: root}, nil
	}
	commit, err := gitsafe.Commit(ctx, root, f.configFromRev)
	if err != nil {
		return nil, usageErr("--config-from-rev: %v", err)
	}
	rev := revision{root: root, rev: f.configFromRev, commit: commit}
	if stderr != nil {
		noteConfigDrift(stderr, rev, root, f.config)
	}
	return rev, nil
}

// parseOutputs reads the --format values (FORMAT or FORMAT=FILE) and
// --output, which names the file of the one format given without =FILE.
func parseOutputs(f lintFlags) ([]output, error) {
	var outs []output
	toStdout := 0
	for _, v := range f.formats {
		name, file, _ := strings.Cut(v, "=")
		if _, ok := report.New(name, report.Options{}); !ok {
			return nil, usageErr("--format %q: want one of %s, optionally as FORMAT=FILE", name, strings.Join(report.FormatNames, ", "))
		}
		if strings.Contains(v, "=") && file == "" {
			return nil, usageErr("--format %q: no file after =", v)
		}
		if file == "" {
			file = f.output
		}
		if file == "" {
			toStdout++
		}
		outs = append(outs, output{format: name, file: file})
	}
	if toStdout > 1 {
		return nil, usageErr("only one --format can go to standard output; give the others a file (--format sarif=buildgate.sarif)")
	}
	seen := map[string]bool{}
	for _, o := range outs {
		if o.file != "" && seen[o.file] {
			return nil, usageErr("two reports to one file: %s", o.file)
		}
		seen[o.file] = true
	}
	return outs, nil
}

// coversRoot reports whether the paths cover the whole root.
func coversRoot(root string, args []string) bool {
	for _, a := range args {
		abs, err := filepath.Abs(a)
		if err == nil && abs == root {
			return true
		}
	}
	return false
}

// newFrom sets the changed lines for --new-from-rev / --new-from-merge-base.
func newFrom(o *lint.Options, f lintFlags) error {
	rev := f.newFromRev
	if f.newFromBase != "" {
		if rev != "" {
			return usageErr("give --new-from-rev or --new-from-merge-base, not both")
		}
		base, err := changes.MergeBase(o.Root, f.newFromBase)
		if err != nil {
			return usageErr("--new-from-merge-base: %v", err)
		}
		rev = base
	}
	if rev == "" {
		return nil
	}
	set, err := changes.Since(o.Root, rev)
	if err != nil {
		return usageErr("%v", err)
	}
	o.Changed = set
	return nil
}

func failOnRank(s string) (int, bool) {
	switch s {
	case "never":
		return 99, true
	case finding.SeverityError, finding.SeverityWarning, finding.SeverityNote:
		return finding.SeverityRank(s), true
	}
	return 0, false
}

// lintRoot is --root, else the git top level, else the working directory.
func lintRoot(flag string) (string, error) {
	if flag != "" {
		abs, err := filepath.Abs(flag)
		if err != nil {
			return "", err
		}
		st, err := os.Stat(abs)
		if err != nil || !st.IsDir() {
			return "", fmt.Errorf("--root %s: not a directory", flag)
		}
		return abs, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if r := lint.RepoRoot(wd); r != "" {
		return r, nil
	}
	return wd, nil
}

// loadConfig reads --config, else .buildgate.yaml at the root, else the
// built-in default. A file that is there under that name but cannot be
// read (a FIFO, a link out of the root, too large) is an error, never the
// default.
func loadConfig(in inputs, root, flag string) (*config.Config, error) {
	name, shown := flag, flag
	if name == "" {
		name, shown = filepath.Join(root, config.FileName), config.FileName
		if !in.Exists(name) {
			return config.Default(), nil
		}
	}
	shown += in.Where()
	data, err := in.ReadFile(name, safefile.ConfigLimit)
	if err != nil {
		return nil, &config.Error{File: shown, Msg: "cannot read: " + safefile.Describe(err)}
	}
	return config.Parse(shown, data, config.Default())
}

// useColor: colour only on a terminal, and never with NO_COLOR set to
// anything (no-color.org).
func useColor(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// anyExists reports whether one of the root-relative paths is there.
func anyExists(root string, rels []string) bool {
	for _, r := range rels {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(r))); err == nil {
			return true
		}
	}
	return false
}

// nextSteps is the text report's last line when there are findings: what
// to do now (issue 18): the fixes buildgate can make, where a rule is
// explained, how to suppress one.
func nextSteps(fs []finding.Finding, rules []finding.Rule) string {
	canFix := false
	for _, f := range fs {
		canFix = canFix || lint.Fixable(f, rules)
	}
	var b strings.Builder
	b.WriteString("next: ")
	if canFix {
		b.WriteString("`buildgate fix --diff` shows the fixes buildgate can make (`buildgate fix` applies them); ")
	}
	// The id is a word (the engine refuses others) and the text report
	// prints this line as SafeLine has it; escaped here too, so that the
	// line is safe whoever prints it.
	fmt.Fprintf(&b, "`buildgate rules %s` explains a rule and how to fix it; `# buildgate:ignore ID -- reason` on the line suppresses one (docs/suppressions.md)", report.Visible(fs[0].Rule))
	return b.String()
}

// countFixable counts the findings fix fixes, and those only
// --unsafe-fixes fixes (ruff's "N fixable").
func countFixable(res *report.Result) {
	for _, fd := range res.Findings {
		switch {
		case fd.Fix != nil && fd.Fix.Unsafe:
			res.UnsafeFixable++
		case fd.Fix != nil:
			res.Fixable++
		}
	}
}
