// Package discover finds the build files below a repository root that a
// loader claims, in a stable order.
package discover

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/loader"
)

// File is a build file to load: its slash-separated path relative to the
// root and its kind.
type File struct {
	Path string
	Kind loader.Kind
	// Errors are errors of the file found while discovering (a bound its
	// references passed): the loader adds them to its document.
	Errors []loader.Error
}

// SkippedDirs are directory names never descended into (loader's list:
// a build file named there is read only by reference).
var SkippedDirs = loader.SkippedDirs

// Skipped reports whether a directory of that name is never descended
// into: one of SkippedDirs, and .git in any case (on a case-insensitive
// file system .GIT is git's own directory).
func Skipped(name string) bool {
	return SkippedDirs[name] || safefile.UnderGit(name)
}

// Options control a walk.
type Options struct {
	// Excluded reports whether a root-relative path is excluded.
	Excluded func(rel string) bool
	// Kind is the kind the configuration gives a root-relative path
	// (`kinds:`), before its name or first line is looked at.
	Kind func(rel string) (loader.Kind, bool)
	// Context, when set, stops the walk and the references' globs when
	// it ends (--timeout covers discovery).
	Context context.Context
	// SkipUnknown passes over a file named as an argument whose kind
	// cannot be told, instead of refusing it (a pre-commit hook passes
	// every changed file; buildgate reads those discovery would).
	SkipUnknown bool
}

// detect is Detect after the configured kinds.
func (o Options) detect(root, rel string) (loader.Kind, bool, error) {
	if o.Kind != nil {
		if k, ok := o.Kind(rel); ok {
			return k, true, nil
		}
	}
	return Detect(root, rel)
}

// PathError is a path argument that cannot be linted.
type PathError struct {
	Arg string
	Msg string
}

func (e *PathError) Error() string { return e.Arg + ": " + e.Msg }

// Find returns the build files named by args (files or directories,
// relative to the working directory or absolute) below root. Excluded
// files are left out even when named (pre-commit and CI pass changed files
// by name); a named file no loader claims is an error.
func Find(root string, args []string, opts Options) ([]File, error) {
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	w := &walker{root: root, absRoot: absRoot, opts: opts, seen: map[string]bool{}}
	for _, arg := range args {
		if err := w.arg(arg); err != nil {
			return nil, err
		}
	}
	sort.Slice(w.files, func(i, j int) bool { return w.files[i].Path < w.files[j].Path })
	return w.files, nil
}

// walker gathers the files of Find's arguments, each path once.
type walker struct {
	root, absRoot string
	opts          Options
	seen          map[string]bool
	files         []File
}

func (w *walker) add(f File) {
	if !w.seen[f.Path] {
		w.seen[f.Path] = true
		w.files = append(w.files, f)
	}
}

func (w *walker) excluded(rel string) bool { return w.opts.Excluded != nil && w.opts.Excluded(rel) }

// arg adds the files of one argument: the file it names, or those below
// the directory.
func (w *walker) arg(arg string) error {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return &PathError{arg, err.Error()}
	}
	rel, err := filepath.Rel(w.absRoot, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &PathError{arg, fmt.Sprintf("is outside the repository root %s (use --root)", w.root)}
	}
	st, err := os.Stat(abs)
	if err != nil {
		return &PathError{arg, "does not exist or cannot be read: " + errText(err)}
	}
	if st.IsDir() {
		return w.dir(arg, abs)
	}
	relSlash := filepath.ToSlash(rel)
	if w.excluded(relSlash) {
		return nil
	}
	k, ok, err := w.opts.detect(w.absRoot, relSlash)
	if err != nil {
		return &PathError{arg, "cannot be read: " + errText(err)}
	}
	if !ok && w.opts.SkipUnknown {
		// A hook passes every changed file: it reads what discovery
		// would, by name.
		return nil
	}
	if !ok {
		// Named by the user: read whatever its name, as what its text
		// is (issue 32: docker/base.image named on the command line).
		k, ok, err = DetectText(w.absRoot, relSlash)
		if err != nil {
			return &PathError{arg, "cannot be read: " + errText(err)}
		}
	}
	if !ok {
		return &PathError{arg, "is not a build file buildgate knows, by its name or its text (a Dockerfile starts with FROM or ARG; a bake file with a target, group, variable or function block; a script with a shell's shebang; a pipeline's YAML with jobs, steps, stages or services; a requirements file with requirements). `kinds:` in .buildgate.yaml gives paths a kind, and `--stdin-filename` a kind to standard input"}
	}
	w.add(File{Path: relSlash, Kind: k})
	return nil
}

// dir adds the build files below the directory abs.
func (w *walker) dir(arg, abs string) error {
	ctx := w.opts.Context
	err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		r, rerr := filepath.Rel(w.absRoot, p)
		if rerr != nil {
			return rerr
		}
		relSlash := filepath.ToSlash(r)
		if err != nil {
			// An unreadable directory is reported by the caller as an
			// unreadable file would be: nothing below it is checked.
			if d != nil && d.IsDir() && p != abs {
				w.add(File{Path: relSlash, Kind: ""})
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() {
			if p != abs && (Skipped(d.Name()) || w.excluded(relSlash)) {
				return fs.SkipDir
			}
			return nil
		}
		w.entry(p, relSlash, d)
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &PathError{arg, errText(err)}
	}
	return nil
}

// entry adds one directory entry that is not a directory, when it is a
// build file (or might be one that cannot be read).
func (w *walker) entry(p, relSlash string, d fs.DirEntry) {
	if d.Type()&fs.ModeSymlink != 0 {
		switch linkTarget(w.absRoot, p) {
		case linkDirInside:
			return // its files are linted where they are
		case linkDirOutside:
			// Not followed; reported so that nothing passes unseen.
			w.add(File{Path: relSlash, Kind: ""})
			return
		case linkBroken:
			if _, ok := loader.DetectName(relSlash); ok {
				w.add(File{Path: relSlash, Kind: ""})
			}
			return
		}
	} else if !d.Type().IsRegular() {
		// A FIFO, socket or device under a build file's name is kept: the
		// loader refuses it without reading (a finding), so it cannot hang
		// the run nor pass unseen.
		if _, ok := loader.DetectName(relSlash); ok && !w.excluded(relSlash) {
			w.add(File{Path: relSlash, Kind: ""})
		}
		return
	}
	if w.excluded(relSlash) {
		return
	}
	// A file whose first line cannot be read is kept with no kind: the
	// loader then reports it as unreadable.
	k, ok, derr := w.opts.detect(w.absRoot, relSlash)
	if derr != nil || ok {
		w.add(File{Path: relSlash, Kind: k})
	}
}

type link int

const (
	linkFile link = iota
	linkDirInside
	linkDirOutside
	linkBroken
)

// linkTarget classifies a symbolic link without following it anywhere
// buildgate will read: a file (the loader decides, within the root), a
// directory inside or outside the root, or a link that resolves to
// nothing (dangling, or a loop).
func linkTarget(root, p string) link {
	st, err := os.Stat(p)
	if err != nil {
		return linkBroken
	}
	if !st.IsDir() {
		return linkFile
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return linkBroken
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return linkDirOutside
	}
	if rel, err := filepath.Rel(realRoot, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return linkDirInside
	}
	return linkDirOutside
}

// Detect tells the kind of the file rel below root by its name, or by its
// first line when the name has no extension.
func Detect(root, rel string) (loader.Kind, bool, error) {
	if k, ok := loader.DetectName(rel); ok {
		return k, true, nil
	}
	if !loader.NeedsContent(rel) {
		return "", false, nil
	}
	// Opened without blocking and only when regular: a FIFO must not
	// hang discovery.
	f, err := safefile.OpenNamed(root, filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	head, err := safefile.Head(f, 256)
	if err != nil {
		return "", false, err
	}
	k, ok := loader.DetectContent(head)
	return k, ok, nil
}

// DetectText tells the kind of the file rel below root by its text
// (loader.DetectText), for a file named on the command line that no name
// rule claims.
func DetectText(root, rel string) (loader.Kind, bool, error) {
	f, err := safefile.OpenNamed(root, filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	head, err := safefile.Head(f, loader.DetectHead)
	if err != nil {
		return "", false, err
	}
	k, ok := loader.DetectText(head)
	return k, ok, nil
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
