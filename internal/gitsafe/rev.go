package gitsafe

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"sync"
	"testing/fstest"
)

// Commit resolves rev to the commit it names in the repository at dir.
// A full hash must name that commit itself: reads of it are checked
// against the hash (ReadAt), so an object planted under a base commit's
// hash as a tag of another commit must not move them to that one. (A
// branch name is resolved through .git's refs, which are the pull
// request's: CI should pass the hash.)
func Commit(ctx context.Context, dir, rev string) (string, error) {
	out, err := Run(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("unknown revision %q: fetch it (git fetch origin %s) or check its name", rev, rev)
	}
	commit := strings.TrimSpace(string(out))
	if full := strings.ToLower(rev); hashRe.MatchString(full) && commit != full {
		return "", fmt.Errorf("%s is not a commit but resolves to %s: give the commit's own hash", rev, commit)
	}
	return commit, nil
}

var hashRe = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// ErrTooLarge is a blob over the limit.
type ErrTooLarge struct{ Size, Limit int64 }

func (e *ErrTooLarge) Error() string {
	return fmt.Sprintf("file is %d bytes, over the %d-byte limit: not read", e.Size, e.Limit)
}

// ReadAt reads the file rel (slash-separated, relative to dir) as it is
// at commit: its blob, as stored, with no filter or textconv applied,
// only when it is a regular file (not a link: its target would be read as
// the content) of at most limit bytes, every object on its way hashed
// against its name. A file the commit does not have is fs.ErrNotExist.
func ReadAt(ctx context.Context, dir, commit, rel string, limit int64) ([]byte, error) {
	o := newObjects(ctx, dir)
	defer o.Close()
	e, err := at(ctx, o, dir, commit, rel)
	if err != nil {
		return nil, err
	}
	switch {
	case e.mode == modeTree:
		return nil, fmt.Errorf("not a file at %s", short(commit))
	case !e.regular():
		return nil, fmt.Errorf("not a regular file at %s (mode %06o)", short(commit), e.mode)
	}
	return o.read(e.oid, "blob", limit)
}

// ExistsAt reports whether commit has anything at rel. What cannot be
// read (an altered object, git failing) is there: reading it then fails,
// and the run with it, rather than going on as if the commit had no such
// file (no configuration at the base would be the default's).
func ExistsAt(ctx context.Context, dir, commit, rel string) bool {
	o := newObjects(ctx, dir)
	defer o.Close()
	_, err := at(ctx, o, dir, commit, rel)
	return !errors.Is(err, fs.ErrNotExist)
}

// at is the entry of rel (relative to dir) at commit.
func at(ctx context.Context, o *objects, dir, commit, rel string) (entry, error) {
	prefix, err := cachedPrefix(ctx, dir)
	if err != nil {
		return entry{}, err
	}
	return o.lookup(commit, path.Join(prefix, rel))
}

// prefixes holds where each directory git ran in lies in its repository
// (dir -> "sub/dir/"): paths are relative to dir, trees to the top.
var prefixes sync.Map

func cachedPrefix(ctx context.Context, dir string) (string, error) {
	if p, ok := prefixes.Load(dir); ok {
		return p.(string), nil
	}
	out, err := Run(ctx, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return "", err
	}
	p := strings.TrimSuffix(string(out), "\n")
	prefixes.Store(dir, p)
	return p, nil
}

// TreeAt reads every regular file below the directory rel at commit into
// memory, each of at most limit bytes, at most maxFiles of them, every
// object hashed against its name: a --policy directory as the base
// branch has it.
func TreeAt(ctx context.Context, dir, commit, rel string, limit int64, maxFiles int) (fs.ReadFileFS, error) {
	o := newObjects(ctx, dir)
	defer o.Close()
	top, err := at(ctx, o, dir, commit, rel)
	if err != nil {
		return nil, err
	}
	if top.mode != modeTree {
		return nil, fs.ErrNotExist
	}
	m := fstest.MapFS{}
	type pending struct{ oid, dir string }
	stack := []pending{{oid: top.oid}}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		es, err := o.tree(t.oid)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			p := path.Join(t.dir, e.name)
			switch {
			case e.mode == modeTree:
				stack = append(stack, pending{oid: e.oid, dir: p})
				continue
			case !e.regular():
				continue // links and submodules are not read
			case len(m) >= maxFiles:
				return nil, fmt.Errorf("more than %d files at %s", maxFiles, short(commit))
			}
			b, err := o.read(e.oid, "blob", limit)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			m[p] = &fstest.MapFile{Data: b, Mode: 0o444}
		}
	}
	if len(m) == 0 {
		return nil, fs.ErrNotExist
	}
	return m, nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
