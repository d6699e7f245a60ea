// Package changes finds the lines a working tree added or changed since a
// git revision, for reporting only new findings. It runs git, with the
// repository's hooks, fsmonitor, external diff and textconv drivers turned
// off: nothing configured in the repository runs.
package changes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Set holds, per root-relative path, the lines added or changed.
type Set struct {
	files map[string]*lines
}

type lines struct {
	whole bool // a file the revision does not have
	set   map[int]bool
}

// Touches reports whether any line from..to of a file is new or changed.
func (s *Set) Touches(path string, from, to int) bool {
	f := s.files[path]
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

// Files is the number of files with changes.
func (s *Set) Files() int { return len(s.files) }

// Error is a revision that cannot be compared with, and what to do.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func git(root string, args ...string) ([]byte, error) {
	full := append([]string{"-C", root,
		"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=",
		"-c", "core.quotePath=false", "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_EXTERNAL_DIFF=", "GIT_PAGER=cat")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out, fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(stderr.String()))
		}
		return out, fmt.Errorf("running git: %w", err)
	}
	return out, nil
}

// resolve checks rev is a commit this clone has, with a message that says
// how to get it when it is not.
func resolve(root, rev string) (string, error) {
	if _, err := git(root, "rev-parse", "--show-toplevel"); err != nil {
		return "", &Error{fmt.Sprintf("%s is not in a git repository, so there is no revision to compare with", root)}
	}
	out, err := git(root, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
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
	out, err := git(root, "merge-base", branch, "HEAD")
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
	out, err := git(root, "diff", "--no-ext-diff", "--no-textconv", "--no-color", "--relative", "-M", "--unified=0", commit, "--")
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

// parse reads a unified diff with zero context.
func (s *Set) parse(diff []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var cur *lines
	newFile := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			cur, newFile = nil, false
		case strings.HasPrefix(line, "--- "):
			newFile = strings.TrimPrefix(line, "--- ") == "/dev/null"
		case strings.HasPrefix(line, "+++ "):
			p := strings.TrimPrefix(line, "+++ ")
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
		case strings.HasPrefix(line, "@@ ") && cur != nil:
			// @@ -a[,b] +c[,d] @@
			fields := strings.Fields(line)
			if len(fields) < 3 || !strings.HasPrefix(fields[2], "+") {
				return fmt.Errorf("unexpected diff hunk header %q", line)
			}
			start, count := fields[2][1:], "1"
			if i := strings.IndexByte(start, ','); i >= 0 {
				start, count = start[:i], start[i+1:]
			}
			c, err1 := strconv.Atoi(start)
			n, err2 := strconv.Atoi(count)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("unexpected diff hunk header %q", line)
			}
			for l := c; l < c+n; l++ {
				cur.set[l] = true
			}
		}
	}
	return sc.Err()
}
