package main

import (
	"errors"
	"strings"

	"github.com/buildgate/buildgate/lint"
	"github.com/buildgate/buildgate/report"
	"github.com/spf13/cobra"
)

func newParseCmd() *cobra.Command {
	var kind string
	var maxSize int64
	cmd := &cobra.Command{
		Use:   "parse [--kind KIND] FILE...",
		Short: "Print the JSON documents that policies see for the given files",
		Long: `Parse prints, as a JSON array, the document of each FILE, followed by the
documents of the requirements files it includes (-r, -c). Paths in the
documents are relative to the repository root: the nearest directory above
the file that holds .git; outside a repository, the working directory when
the file is below it, else the file's own directory.

The kind is taken from the file name (Dockerfile, *.hcl, requirements*.txt,
*.sh, ...) or a shell's shebang; --kind overrides it.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxSize <= 0 {
				return usageErr("--max-file-size %d: want a positive number of bytes", maxSize)
			}
			out, failed, err := lint.Parse(args, lint.ParseOptions{Kind: kind, MaxFileSize: maxSize})
			if errors.Is(err, lint.ErrUnknownKind) {
				return usageErr("unknown --kind %q (want dockerfile, hcl, requirements, shell or pipeline)", kind)
			}
			if err != nil {
				return err
			}
			// The documents quote the files' text: JSON no CI runner
			// reads a command in (report.RunnerSafe).
			rs := report.NewRunnerSafe(cmd.OutOrStdout(), report.JSONHash)
			if _, err := rs.Write(out); err != nil {
				return err
			}
			if err := rs.Flush(); err != nil {
				return err
			}
			if len(failed) > 0 {
				return &exitError{code: exitUsage, msg: strings.Join(failed, "\nbuildgate: ")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "", "parse every FILE as this kind: dockerfile, hcl, requirements, shell or pipeline")
	cmd.Flags().Int64Var(&maxSize, "max-file-size", lint.DefaultMaxFileSize, "files larger than this many bytes are not read (an error entry instead)")
	return cmd
}

// errText drops the operation and path that os errors repeat.
func errText(err error) string { return lint.ErrorText(err) }
