package main

// `buildgate lint -`: one file read from standard input (an editor's
// buffer, a generated Dockerfile piped in), linted as the file
// --stdin-filename names would be, with the repository's configuration
// and policies. It is written to a private temporary root at that path,
// never into the repository, and only its own findings are reported.

import (
	"io"
	"os"
	"path/filepath"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/lint"
)

// stdinName is the path a file read from standard input has in reports
// when --stdin-filename is not given (its kind is then told by its text).
const stdinName = "-"

// stdinArgs reports whether the PATHs ask for standard input, and refuses
// "-" beside other paths.
func stdinArgs(args []string) (bool, error) {
	for _, a := range args {
		if a == "-" {
			if len(args) > 1 {
				return false, usageErr("`-` (standard input) is the only PATH of its run")
			}
			return true, nil
		}
	}
	return false, nil
}

// stdinRoot writes what standard input holds (at most max+1 bytes: a file
// over --max-file-size is a BG001 finding, as on disk) to a new temporary
// root at name, and returns the root, the file's root-relative path and
// the function that removes the root.
func stdinRoot(in io.Reader, name string, max int64) (root, rel string, cleanup func(), err error) {
	rel = stdinName
	if name != "" {
		rel = filepath.ToSlash(name)
		if rel == "" || !lint.CleanPath(rel) {
			return "", "", nil, usageErr("--stdin-filename %q: want a clean relative path inside the repository (docker/Dockerfile-base)", name)
		}
	}
	if in == nil {
		in = os.Stdin
	}
	data, err := io.ReadAll(io.LimitReader(in, max+1))
	if err != nil {
		return "", "", nil, usageErr("reading standard input: %v", err)
	}
	root, err = os.MkdirTemp("", "buildgate-stdin-")
	if err != nil {
		return "", "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(root) }
	file := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		cleanup()
		return "", "", nil, err
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		cleanup()
		return "", "", nil, err
	}
	return root, rel, cleanup, nil
}

// onlyStdin keeps the findings of the file read from standard input: the
// temporary root holds nothing else of the repository (a configured
// requirements file that is not there is not missing).
func onlyStdin(out *lint.Outcome, rel string) {
	keep := func(fs []finding.Finding) []finding.Finding {
		var kept []finding.Finding
		for _, f := range fs {
			if f.Path == rel {
				kept = append(kept, f)
			}
		}
		return kept
	}
	out.Findings, out.All, out.Suppressed = keep(out.Findings), keep(out.All), keep(out.Suppressed)
	var paths []string
	for _, p := range out.Paths {
		if p == rel { // not when the configuration excludes it
			paths = append(paths, p)
		}
	}
	out.Paths = paths
	var fixes []*lint.FixFile
	for _, f := range out.Fixes {
		if f.Path == rel {
			fixes = append(fixes, f)
		}
	}
	out.Fixes = fixes
}

// stdinUsage refuses the flags that read the repository's history or
// write where a file from standard input has no place.
func stdinUsage(f lintFlags) error {
	switch {
	case f.newFromRev != "" || f.newFromBase != "":
		return usageErr("--new-from-rev and --new-from-merge-base compare files of the repository; standard input has no history")
	case f.writeBaseline != "" || f.baseline != "":
		return usageErr("--baseline and --write-baseline record the repository's findings, not standard input's")
	}
	return nil
}
