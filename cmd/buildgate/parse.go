package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/buildgate/buildgate/discover"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/loader"
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
*.sh, ...) or a sh/bash shebang; --kind overrides it.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxSize <= 0 {
				return usageErr("--max-file-size %d: want a positive number of bytes", maxSize)
			}
			var forced loader.Kind
			if kind != "" {
				k, ok := loader.ParseKind(kind)
				if !ok {
					return usageErr("unknown --kind %q (want dockerfile, hcl, requirements, shell or pipeline)", kind)
				}
				forced = k
			}
			docs := []loader.Document{}
			var failed []string
			for _, arg := range args {
				d, err := parseOne(arg, forced, maxSize)
				if err != nil {
					failed = append(failed, err.Error())
					continue
				}
				docs = append(docs, d...)
			}
			out, err := loader.FormatJSON(docs)
			if err != nil {
				return err
			}
			if _, err := cmd.OutOrStdout().Write(out); err != nil {
				return err
			}
			if len(failed) > 0 {
				return &exitError{code: exitUsage, msg: strings.Join(failed, "\nbuildgate: ")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "", "parse every FILE as this kind: dockerfile, hcl, requirements, shell or pipeline")
	cmd.Flags().Int64Var(&maxSize, "max-file-size", loader.DefaultMaxFileSize, "files larger than this many bytes are not read (an error entry instead)")
	return cmd
}

func parseOne(arg string, forced loader.Kind, maxSize int64) ([]loader.Document, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %v", arg, errText(err))
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory (parse takes files)", arg)
	}
	root := repoRoot(filepath.Dir(abs))
	if root == "" {
		// Outside a repository the working directory is the root when it
		// holds the file, so that paths read as the user wrote them.
		root = filepath.Dir(abs)
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(r, "..") {
				root = wd
			}
		}
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	rel = filepath.ToSlash(rel)
	kind := forced
	if kind == "" {
		k, ok := loader.DetectName(rel)
		if !ok && loader.NeedsContent(rel) {
			kk, found, err := discover.Detect(root, rel)
			if err != nil {
				return nil, fmt.Errorf("%s: cannot read: %v", arg, safefile.Describe(err))
			}
			k, ok = kk, found
		}
		if !ok {
			return nil, fmt.Errorf("%s: cannot tell the file's kind from its name or shebang; pass --kind", arg)
		}
		kind = k
	}
	l, err := loader.NewLoader(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", arg, errText(err))
	}
	defer l.Close()
	l.MaxFileSize = maxSize
	docs, err := l.Load(rel, kind)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %v", arg, errText(err))
	}
	return docs, nil
}

// repoRoot is the nearest directory at or above dir holding .git, or "".
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// errText drops the operation and path that os errors repeat.
func errText(err error) string {
	var pe *os.PathError
	if ok := asPathError(err, &pe); ok {
		return pe.Err.Error()
	}
	var re *loader.ReadError
	if ok := asReadError(err, &re); ok {
		return errText(re.Err)
	}
	return err.Error()
}
