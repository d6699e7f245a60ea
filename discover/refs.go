package discover

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/loader"
)

// Bounds of following references (docs/robustness.md). Each passed is an
// error of the file whose reference passed it, at that reference (BG001):
// never a silent drop. References are counted once per file they name,
// so that repeating a benign one cannot use up a bound.
const (
	// maxIncludes bounds the files references add, as GitLab bounds
	// includes (150 per pipeline).
	maxIncludes = 150
	// maxGlobs bounds the distinct glob patterns matched; globWork the
	// directory entries all of them may read together (a glob walks the
	// tree: 150 of them over 20,000 files took a minute).
	maxGlobs = 150
	globWork = 200_000
)

// errGlobWork stops a glob past globWork.
var errGlobWork = errors.New("glob work bound")

// countingFS counts the directory entries globs read and stops them at
// the bound or when the run's time is up.
type countingFS struct {
	*safefile.Dir
	ctx  context.Context
	read int
}

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	es, err := c.Dir.ReadDir(name)
	c.read += len(es)
	if c.read > globWork {
		return nil, errGlobWork
	}
	return es, err
}

// refState is what following references has done so far.
type refState struct {
	root  string
	opts  Options
	fsys  *countingFS
	seen  map[string]bool // files found or added
	pats  map[string]bool // glob patterns matched
	added int
	out   []File
	notes map[string][]loader.Error
}

// pipelineRefs are the local files the pipelines among found (and the
// scripts that upload Buildkite pipelines) have their CI system read or
// run (loader.References: GitLab includes and child pipelines, GitHub
// local actions and reusable workflows, uploaded Buildkite pipelines),
// and those these name in turn: pipelines though their names do not say
// so. Each is read through the root; a glob is matched below it; what
// does not exist is the CI system's error, not one of buildgate's; a link
// is kept for the loader to refuse (BG001) when it leads out of the root.
// It returns the files added, and the errors of the files whose
// references passed a bound (by path).
func pipelineRefs(ctx context.Context, root string, found []File, opts Options) ([]File, map[string][]loader.Error, error) {
	st := &refState{root: root, opts: opts, seen: map[string]bool{}, pats: map[string]bool{}, notes: map[string][]loader.Error{}}
	var queue []File
	for _, f := range found {
		st.seen[f.Path] = true
		if f.Kind == loader.KindPipeline || f.Kind == loader.KindShell {
			queue = append(queue, f)
		}
	}
	if len(queue) == 0 {
		return nil, nil, nil
	}
	dir, err := safefile.DirFS(root, root, loader.DefaultMaxFileSize)
	if err != nil {
		return nil, nil, nil
	}
	defer func() { _ = dir.Close() }()
	st.fsys = &countingFS{Dir: dir, ctx: ctx}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		f := queue[0]
		queue = queue[1:]
		for _, g := range st.follow(f) {
			queue = append(queue, g)
		}
	}
	return st.out, st.notes, ctx.Err()
}

// follow reads one file's references and adds the files they name.
func (st *refState) follow(f File) []File {
	src, err := st.fsys.ReadFile(f.Path)
	if err != nil {
		return nil
	}
	if f.Kind == loader.KindShell && !bytes.Contains(src, []byte("upload")) {
		return nil // parsing every script for an upload it cannot hold
	}
	refs := loader.References(loader.Parse(f.Kind, f.Path, src))
	var added []File
	mine := map[string]bool{}
	for _, r := range refs {
		if err := st.fsys.ctx.Err(); err != nil {
			return added
		}
		if mine[r.Path] {
			continue // the same file named again uses up nothing
		}
		mine[r.Path] = true
		for _, m := range st.expand(f, r) {
			if st.seen[m] {
				continue
			}
			if st.added >= maxIncludes {
				st.note(f, r, fmt.Sprintf("this reference is past the %d files buildgate follows from pipelines (as GitLab bounds includes): %s is not read (see docs/robustness.md)", maxIncludes, m))
				return added
			}
			st.seen[m] = true
			st.added++
			g := File{Path: m, Kind: loader.KindPipeline}
			st.out = append(st.out, g)
			added = append(added, g)
		}
	}
	return added
}

// expand is the files a reference names that exist below the root: the
// path itself, or what its glob matches.
func (st *refState) expand(f File, r loader.FileRef) []string {
	matches := []string{r.Path}
	if doublestar.ValidatePattern(r.Path) && strings.ContainsAny(r.Path, "*?[{") {
		if !st.pats[r.Path] {
			if len(st.pats) >= maxGlobs {
				st.note(f, r, fmt.Sprintf("this glob is past the %d glob patterns buildgate matches for pipelines: what it names is not read (see docs/robustness.md)", maxGlobs))
				return nil
			}
			st.pats[r.Path] = true
		}
		var err error
		matches, err = doublestar.Glob(st.fsys, r.Path, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors())
		switch {
		case errors.Is(err, errGlobWork):
			st.note(f, r, fmt.Sprintf("matching this glob reads more than the %d directory entries buildgate reads for pipeline globs: what it names is not read (see docs/robustness.md)", globWork))
			return nil
		case err != nil && st.fsys.ctx.Err() != nil:
			return nil
		}
	}
	var out []string
	for _, m := range matches {
		m = path.Clean(m)
		if m == "." || m == ".." || strings.HasPrefix(m, "../") || !fs.ValidPath(m) || safefile.UnderGit(m) {
			continue
		}
		if st.opts.Excluded != nil && st.opts.Excluded(m) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(st.root, filepath.FromSlash(m))); err != nil {
			continue
		}
		out = append(out, m)
	}
	return out
}

// note records that a reference of f passed a bound, once per message.
func (st *refState) note(f File, r loader.FileRef, msg string) {
	for _, e := range st.notes[f.Path] {
		if e.Message == msg {
			return
		}
	}
	st.notes[f.Path] = append(st.notes[f.Path], loader.Error{Message: msg, Pos: r.Pos})
}
