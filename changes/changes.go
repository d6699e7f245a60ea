// Package changes finds the lines a working tree added or changed since a
// git revision, for reporting only new findings. It runs git through
// gitsafe: nothing the repository or its configuration names runs.
package changes

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/buildgate/buildgate/internal/gitsafe"
)

// Set holds, per root-relative path, the lines added or changed.
type Set struct {
	files map[string]*lines
}

type lines struct {
	// whole: every line counts as changed: a file the revision does not
	// have, one the change removes lines from (a line removed changes
	// what the lines kept mean: a platform's flag, a guard), or one a
	// changed line of another file makes the build read (MarkWhole).
	whole bool
	set   map[int]bool
}

// MarkWhole counts every line of a file as changed: a file a changed line
// elsewhere newly runs, builds or includes (`bash tools/x.txt` added to a
// workflow) is new to the build, whatever its own diff.
func (s *Set) MarkWhole(path string) {
	if s == nil {
		return
	}
	s.files[path] = &lines{whole: true}
}

// Touches reports whether any line from..to of a file is new or changed.
func (s *Set) Touches(path string, from, to int) bool {
	f := s.lookup(path)
	if f == nil {
		return false
	}
	if f.whole {
		return true
	}
	if to < from {
		to = from
	}
	for l := from; l <= to; l++ {
		if f.set[l] {
			return true
		}
	}
	return false
}

// HasFile reports whether a file has any added or changed line.
func (s *Set) HasFile(path string) bool { return s.lookup(path) != nil }

// lookup is a file's changes, or those of a directory holding it that
// the change moved as a whole: a submodule whose commit changed (the diff
// names its path, a gitlink) counts every file below it as changed.
func (s *Set) lookup(p string) *lines {
	if f := s.files[p]; f != nil {
		return f
	}
	for d := path.Dir(p); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if f := s.files[d]; f != nil && f.whole {
			return f
		}
	}
	return nil
}

// Files is the number of files with changes.
func (s *Set) Files() int { return len(s.files) }

// Error is a revision that cannot be compared with, and what to do.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func git(root string, args ...string) ([]byte, error) {
	return gitsafe.Run(context.Background(), root, args...)
}

// resolve checks rev is a commit this clone has, with a message that says
// how to get it when it is not.
func resolve(root, rev string) (string, error) {
	if _, err := git(root, "rev-parse", "--show-toplevel"); err != nil {
		return "", &Error{fmt.Sprintf("%s is not in a git repository, so there is no revision to compare with", root)}
	}
	out, err := git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	if sh, _ := git(root, "rev-parse", "--is-shallow-repository"); strings.TrimSpace(string(sh)) == "true" {
		return "", &Error{fmt.Sprintf("revision %q is not in this shallow clone: fetch the history (actions/checkout with fetch-depth: 0, or git fetch --unshallow)", rev)}
	}
	return "", &Error{fmt.Sprintf("unknown revision %q: fetch it (git fetch origin %s) or check its name", rev, rev)}
}

// MergeBase is the merge base of HEAD and branch.
func MergeBase(root, branch string) (string, error) {
	if _, err := resolve(root, branch); err != nil {
		return "", err
	}
	out, err := git(root, "merge-base", "--end-of-options", branch, "HEAD")
	if err != nil {
		if sh, _ := git(root, "rev-parse", "--is-shallow-repository"); strings.TrimSpace(string(sh)) == "true" {
			return "", &Error{fmt.Sprintf("no merge base of HEAD and %s in this shallow clone: fetch the history (actions/checkout with fetch-depth: 0, or git fetch --unshallow)", branch)}
		}
		return "", &Error{fmt.Sprintf("HEAD and %s have no merge base: %v", branch, err)}
	}
	return strings.TrimSpace(string(out)), nil
}

// Since returns the lines of the working tree under root that are added
// or changed since rev. Renames are followed (a moved file's unchanged
// lines are not new); files rev lacks, untracked ones included, are new
// as a whole.
func Since(root, rev string) (*Set, error) {
	commit, err := resolve(root, rev)
	if err != nil {
		return nil, err
	}
	// --text: a "-diff" attribute must not turn a changed file into
	// "Binary files differ" and so hide its new lines.
	out, err := git(root, "diff", "--no-ext-diff", "--no-textconv", "--text", "--ignore-submodules=dirty", "--no-color",
		"--relative", "-M", "--unified=0", "--end-of-options", commit, "--")
	if err != nil {
		return nil, err
	}
	s := &Set{files: map[string]*lines{}}
	if err := s.parse(out); err != nil {
		return nil, err
	}
	untracked, err := git(root, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, err
	}
	for _, p := range strings.Split(string(untracked), "\x00") {
		if p != "" {
			s.files[p] = &lines{whole: true}
		}
	}
	return s, nil
}

// FromDiff is the set a unified diff with zero context adds or changes
// (git diff --unified=0), for callers that have the diff already.
func FromDiff(diff []byte) (*Set, error) {
	s := &Set{files: map[string]*lines{}}
	return s, s.parse(diff)
}

// parse reads a unified diff with zero context. A hunk's body is read by
// the line counts its header promises, so an added line whose text looks
// like a header ("++ b/decoy" shows as "+++ b/decoy") stays a line.
func (s *Set) parse(diff []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var cur *lines
	newFile := false
	oldLeft, newLeft := 0, 0
	for sc.Scan() {
		line := sc.Text()
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, "-") && oldLeft > 0:
				oldLeft--
			case strings.HasPrefix(line, "+") && newLeft > 0:
				newLeft--
			case strings.HasPrefix(line, `\`):
			default:
				return fmt.Errorf("unexpected line in a diff hunk: %q", line)
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			cur, newFile = nil, false
		case strings.HasPrefix(line, "--- "):
			newFile = strings.TrimSuffix(strings.TrimPrefix(line, "--- "), "\t") == "/dev/null"
		case strings.HasPrefix(line, "+++ "):
			// git ends a name holding a space with a tab.
			p := strings.TrimSuffix(strings.TrimPrefix(line, "+++ "), "\t")
			if p == "/dev/null" {
				cur = nil // deleted
				continue
			}
			if strings.HasPrefix(p, `"`) {
				if u, err := strconv.Unquote(p); err == nil {
					p = u
				}
			}
			p = strings.TrimPrefix(p, "b/")
			cur = &lines{whole: newFile, set: map[int]bool{}}
			s.files[p] = cur
		case strings.HasPrefix(line, "@@ "):
			// @@ -a[,b] +c[,d] @@
			fields := strings.Fields(line)
			if len(fields) < 3 || !strings.HasPrefix(fields[1], "-") || !strings.HasPrefix(fields[2], "+") {
				return fmt.Errorf("unexpected diff hunk header %q", line)
			}
			_, o, err1 := hunkRange(fields[1][1:])
			c, n, err2 := hunkRange(fields[2][1:])
			if err1 != nil || err2 != nil {
				return fmt.Errorf("unexpected diff hunk header %q", line)
			}
			oldLeft, newLeft = o, n
			if cur == nil {
				continue
			}
			// A file the change touches counts whole: a line added or
			// removed changes what the lines kept mean (a variable a
			// kept command expands, an ARG, a platform's flag), which no
			// line-by-line view can follow (issue 26's fifth and sixth
			// reviews).
			cur.whole = true
			for l := c; l < c+n; l++ {
				cur.set[l] = true
			}
		}
	}
	return sc.Err()
}

// hunkRange reads "start[,count]" of a hunk header.
func hunkRange(s string) (start, count int, err error) {
	count = 1
	if i := strings.IndexByte(s, ','); i >= 0 {
		if count, err = strconv.Atoi(s[i+1:]); err != nil {
			return 0, 0, err
		}
		s = s[:i]
	}
	start, err = strconv.Atoi(s)
	return start, count, err
}
