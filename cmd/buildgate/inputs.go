package main

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/buildgate/buildgate/internal/safefile"
)

// inputs reads the run's own inputs — the configuration, the baseline,
// --data and --policy directories — from the working tree, or, with
// --config-from-rev, from a git revision, so that a pull request cannot
// rewrite the gate it is checked by.
type inputs interface {
	// ReadFile reads a user-named file (relative to the working
	// directory, or absolute) of at most limit bytes.
	ReadFile(name string, limit int64) ([]byte, error)
	// Exists reports whether a user-named file is there at all.
	Exists(name string) bool
	// Dir opens a user-named directory.
	Dir(name string) (fs.ReadFileFS, io.Closer, error)
	// Where names the source in messages ("" for the working tree).
	Where() string
}

// worktree reads inputs from disk: names inside root through the root.
type worktree struct{ root string }

func (w worktree) ReadFile(name string, limit int64) ([]byte, error) {
	return safefile.Named(w.root, name, limit)
}

// Exists looks at the name itself: a dangling link or a FIFO under it is
// there (and reading it then fails), so that it cannot silently stand for
// "no file".
func (w worktree) Exists(name string) bool {
	_, err := os.Lstat(name)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

func (w worktree) Dir(name string) (fs.ReadFileFS, io.Closer, error) {
	d, err := safefile.DirFS(w.root, name, safefile.PolicyLimit)
	if err != nil {
		return nil, nil, err
	}
	return d, d, nil
}

func (w worktree) Where() string { return "" }
