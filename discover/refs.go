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
	"regexp"
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

// Refs follows the references of the files a run loads (loader.References:
// GitLab includes and child pipelines, GitHub local actions and
// reusable workflows, uploaded Buildkite pipelines, the Dockerfiles,
// bake files and scripts commands name): the files they name are read as
// the kind the reference gives, whatever their names. Each is read
// through the root; a glob is matched below it; what does not exist is
// the CI system's error, not one of buildgate's; a link is kept for the
// loader to refuse (BG001) when it leads out of the root.
type Refs struct {
	root  string
	opts  Options
	fsys  *countingFS
	seen  map[string]loader.Kind // files found or added, as the kind they are read as
	pats  map[string]bool        // glob patterns matched
	added int
}

// NewRefs starts following references from the files found by name.
func NewRefs(ctx context.Context, root string, found []File, opts Options) (*Refs, error) {
	dir, err := safefile.DirFS(root, root, loader.DefaultMaxFileSize)
	if err != nil {
		return nil, err
	}
	r := &Refs{root: root, opts: opts, fsys: &countingFS{Dir: dir, ctx: ctx}, seen: map[string]loader.Kind{}, pats: map[string]bool{}}
	for _, f := range found {
		r.seen[f.Path] = f.Kind
	}
	return r, nil
}

// Close releases the root.
func (r *Refs) Close() error { return r.fsys.Close() }

// Follow gives the files one file's references add, and the errors of
// files they bring (by path): a bound passed is an error of the
// referring file at the reference; a reference's note (a program whose
// output is uploaded) is an error of the file it names, or of the
// referring file when that file is not read.
func (r *Refs) Follow(from string, refs []loader.FileRef) ([]File, map[string][]loader.Error) {
	var added []File
	notes := map[string][]loader.Error{}
	note := func(p string, e loader.Error) {
		for _, x := range notes[p] {
			if x.Message == e.Message {
				return
			}
		}
		notes[p] = append(notes[p], e)
	}
	mine := map[string]bool{}
	for _, ref := range refs {
		if r.fsys.ctx.Err() != nil {
			break
		}
		key := string(ref.Kind) + "\x00" + ref.Path + "\x00" + ref.Note
		if mine[key] {
			continue // the same file named again uses up nothing
		}
		mine[key] = true
		matches, bound := r.expand(ref)
		if bound != "" {
			note(from, loader.Error{Message: bound, Pos: ref.Pos})
			continue
		}
		if ref.Note != "" {
			where := from
			if len(matches) > 0 {
				where = matches[0]
			}
			note(where, loader.Error{Message: ref.Note, Syntax: !ref.Unread, Pos: notePos(where, from, ref.Pos)})
		}
		kind := ref.Kind
		if kind == "" {
			kind = loader.KindPipeline
		}
		for _, m := range matches {
			if ref.Shebang && !r.shellShebang(m) || ref.NotForeign && r.foreignShebang(m) {
				continue // another language's program: not a build file
			}
			if had, ok := r.seen[m]; ok {
				if had != kind && ref.Note == "" && !ref.Glob {
					note(from, kindConflict(m, had, kind, ref.Pos))
				}
				continue
			}
			if r.added >= maxIncludes {
				note(from, loader.Error{Message: fmt.Sprintf("this reference is past the %d files buildgate follows from pipelines and scripts (as GitLab bounds includes): %s is not read (see docs/robustness.md)", maxIncludes, m), Pos: ref.Pos})
				return added, notes
			}
			r.seen[m] = kind
			r.added++
			added = append(added, File{Path: m, Kind: kind})
		}
	}
	return added, notes
}

// shellShebang reports whether a file's first line is a shell's #!.
func (r *Refs) shellShebang(rel string) bool {
	f, err := safefile.OpenNamed(r.root, filepath.Join(r.root, filepath.FromSlash(rel)))
	if err != nil {
		return true // read, so that opening it fails as a BG001
	}
	defer f.Close()
	head, err := safefile.Head(f, 256)
	if err != nil {
		return true
	}
	k, ok := loader.DetectContent(head)
	return ok && k == loader.KindShell
}

// foreignShebang reports whether a file's first line is the #! of a
// program that is not a shell.
func (r *Refs) foreignShebang(rel string) bool {
	f, err := safefile.OpenNamed(r.root, filepath.Join(r.root, filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	defer f.Close()
	head, err := safefile.Head(f, 256)
	if err != nil || !bytes.HasPrefix(head, []byte("#!")) {
		return false
	}
	k, ok := loader.DetectContent(head)
	return !ok || k != loader.KindShell
}

// kindConflict is said at a reference that has a file read as another kind
// than the one it is already read as (`docker build -f ci/image.sh` of a
// file found as a script by its name, or run by `sh` before): buildgate
// reads a file as one kind, so what the other would see is not checked.
// It is a part not read, reported whatever the file's relevance.
func kindConflict(path string, had, want loader.Kind, at loader.Pos) loader.Error {
	return loader.Error{Message: fmt.Sprintf("this command reads %s as a %s, but buildgate reads that file as a %s (its name, or an earlier command, says so) and reads a file as one kind only: what it holds as a %s is not checked; name it for what it is (see docs/robustness.md)", path, kindName(want), kindName(had), kindName(want)), Pos: at}
}

// kindName is a kind as the user knows it.
func kindName(k loader.Kind) string {
	switch k {
	case loader.KindDockerfile:
		return "Dockerfile"
	case loader.KindHCL:
		return "bake file"
	case loader.KindShell:
		return "shell script"
	case loader.KindPipeline:
		return "CI pipeline"
	case loader.KindRequirements:
		return "requirements file"
	}
	return string(k)
}

// notePos is where a reference's note goes: at the reference in the
// referring file, at the start of the file it names.
func notePos(where, from string, at loader.Pos) loader.Pos {
	if where == from {
		return at
	}
	return loader.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1}
}

// expand is the files a reference names that exist below the root (the
// path itself, or what its glob matches), or the bound it passes.
func (r *Refs) expand(ref loader.FileRef) ([]string, string) {
	matches := []string{path.Clean(ref.Path)}
	if ref.Glob && doublestar.ValidatePattern(ref.Path) {
		if !r.pats[ref.Path] {
			if len(r.pats) >= maxGlobs {
				return nil, fmt.Sprintf("this glob is past the %d glob patterns buildgate matches for references: what it names is not read (see docs/robustness.md)", maxGlobs)
			}
			r.pats[ref.Path] = true
		}
		matches = nil
		for _, pat := range globsOf(ref) {
			ms, err := doublestar.Glob(r.fsys, pat, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors())
			switch {
			case errors.Is(err, errGlobWork):
				return nil, fmt.Sprintf("matching this glob reads more than the %d directory entries buildgate reads for references: what it names is not read (see docs/robustness.md)", globWork)
			case err != nil && r.fsys.ctx.Err() != nil:
				return nil, ""
			}
			matches = append(matches, ms...)
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range matches {
		m = path.Clean(m)
		if seen[m] || m == "." || m == ".." || strings.HasPrefix(m, "../") || !fs.ValidPath(m) || safefile.UnderGit(m) {
			continue
		}
		seen[m] = true
		if r.opts.Excluded != nil && r.opts.Excluded(m) {
			continue
		}
		if st, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(m))); err != nil || st.IsDir() {
			continue
		}
		out = append(out, m)
	}
	return out, ""
}

// nonComponentStars is a ** that is not a whole path component.
var nonComponentStars = regexp.MustCompile(`(^|[^/])\*\*|\*\*([^/]|$)`)

// globsOf are the doublestar patterns a reference's glob stands for. A
// GitLab include's ** crosses directories wherever it stands (ci/**.yml
// reads ci/sub/x.yml: GitLab turns ** into .*), where doublestar reads a
// ** inside a component as *: both readings are matched.
func globsOf(ref loader.FileRef) []string {
	out := []string{ref.Path}
	if ref.Via == "include" && nonComponentStars.MatchString(ref.Path) {
		out = append(out, strings.ReplaceAll(ref.Path, "**", "**/*"))
	}
	return out
}
