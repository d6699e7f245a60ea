package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/internal/gitsafe"
	"github.com/buildgate/buildgate/internal/safefile"
	"go.yaml.in/yaml/v3"
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

// revision reads inputs as they are at a commit (--config-from-rev): the
// configuration, baseline, data and policies of the base branch, so that a
// pull request is checked by the gate it is merging into.
type revision struct {
	root, rev, commit string
}

// maxPolicyFiles bounds a --policy directory read from a revision.
const maxPolicyFiles = 10000

func (r revision) rel(name string) (string, error) {
	rel, ok := safefile.Inside(r.root, name)
	if !ok {
		return "", fmt.Errorf("it is outside the repository, so %s has no version of it", r.rev)
	}
	return rel, nil
}

func (r revision) ReadFile(name string, limit int64) ([]byte, error) {
	rel, err := r.rel(name)
	if err != nil {
		return nil, err
	}
	return gitsafe.ReadAt(context.Background(), r.root, r.commit, rel, limit)
}

func (r revision) Exists(name string) bool {
	rel, err := r.rel(name)
	return err == nil && gitsafe.ExistsAt(context.Background(), r.root, r.commit, rel)
}

func (r revision) Dir(name string) (fs.ReadFileFS, io.Closer, error) {
	rel, err := r.rel(name)
	if err != nil {
		return nil, nil, err
	}
	fsys, err := gitsafe.TreeAt(context.Background(), r.root, r.commit, rel, safefile.PolicyLimit, maxPolicyFiles)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("no such directory at %s", r.rev)
	}
	if err != nil {
		return nil, nil, err
	}
	return fsys, io.NopCloser(nil), nil
}

func (r revision) Where() string { return " at " + r.rev }

// noteConfigDrift says on stderr which top-level keys of the working
// tree's configuration differ from the revision's, which this run uses:
// a pull request that edits its own gate sees that the edit is not in
// force until it is merged.
func noteConfigDrift(stderr io.Writer, rev revision, root, flag string) {
	name, shown := flag, flag
	if name == "" {
		name, shown = filepath.Join(root, config.FileName), config.FileName
	}
	tree, errTree := safefile.Named(root, name, safefile.ConfigLimit)
	at, errAt := rev.ReadFile(name, safefile.ConfigLimit)
	switch {
	case errAt != nil && !errors.Is(errAt, fs.ErrNotExist):
		return // the run stops reading it, and says why
	case errTree != nil && errAt != nil:
		return
	case errAt != nil:
		fmt.Fprintf(stderr, "buildgate: note: %s has no %s; the working tree's is not used (--config-from-rev)\n", rev.rev, shown)
		return
	case errTree != nil:
		fmt.Fprintf(stderr, "buildgate: note: the working tree has no readable %s; %s's is used (--config-from-rev)\n", shown, rev.rev)
		return
	}
	var a, b map[string]any
	_ = yaml.Unmarshal(tree, &a)
	_ = yaml.Unmarshal(at, &b)
	var changed []string
	for k := range a {
		if !reflect.DeepEqual(a[k], b[k]) {
			changed = append(changed, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			changed = append(changed, k)
		}
	}
	if len(changed) == 0 && !bytes.Equal(tree, at) && (a == nil) != (b == nil) {
		changed = append(changed, "(the whole file)")
	}
	if len(changed) == 0 {
		return
	}
	// The working tree's file is the pull request's: its keys are named
	// only when they are the configuration's own (a key of any other
	// text could carry a workflow command or a terminal escape).
	sort.Strings(changed)
	var named []string
	other := 0
	for _, k := range changed {
		if configKeys[k] || k == "(the whole file)" {
			named = append(named, k)
		} else {
			other++
		}
	}
	if other > 0 {
		named = append(named, fmt.Sprintf("%d %s that the configuration does not have", other, plural(other, "key")))
	}
	fmt.Fprintf(stderr, "buildgate: note: %s in the working tree changes %s from %s; this run uses %s's (--config-from-rev)\n",
		shown, strings.Join(named, ", "), rev.rev, rev.rev)
}

// configKeys are the top-level keys of .buildgate.yaml.
var configKeys = map[string]bool{"migrations": true, "rules": true, "exclude": true, "kinds": true, "ignore": true}
