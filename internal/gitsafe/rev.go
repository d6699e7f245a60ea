package gitsafe

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"testing/fstest"
)

// Commit resolves rev to the commit it names in the repository at dir.
func Commit(ctx context.Context, dir, rev string) (string, error) {
	out, err := Run(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("unknown revision %q: fetch it (git fetch origin %s) or check its name", rev, rev)
	}
	return strings.TrimSpace(string(out)), nil
}

// ErrTooLarge is a blob over the limit.
type ErrTooLarge struct{ Size, Limit int64 }

func (e *ErrTooLarge) Error() string {
	return fmt.Sprintf("file is %d bytes, over the %d-byte limit: not read", e.Size, e.Limit)
}

// ReadAt reads the file rel (slash-separated, relative to dir) as it is
// at commit: its blob, as stored, with no filter or textconv applied
// (cat-file applies none), only when it is a regular file (not a link:
// its target would be read as the content) of at most limit bytes. A file
// the commit does not have is fs.ErrNotExist.
func ReadAt(ctx context.Context, dir, commit, rel string, limit int64) ([]byte, error) {
	mode, size, err := entry(ctx, dir, commit, rel)
	if err != nil {
		return nil, err
	}
	if mode != "100644" && mode != "100755" {
		return nil, fmt.Errorf("not a regular file at %s (mode %s)", short(commit), mode)
	}
	if limit > 0 && size > limit {
		return nil, &ErrTooLarge{Size: size, Limit: limit}
	}
	return Run(ctx, dir, "cat-file", "blob", "--end-of-options", commit+":./"+rel)
}

// ExistsAt reports whether commit has anything at rel.
func ExistsAt(ctx context.Context, dir, commit, rel string) bool {
	_, _, err := entry(ctx, dir, commit, rel)
	return err == nil
}

// entry is the mode and size of rel at commit, from ls-tree.
func entry(ctx context.Context, dir, commit, rel string) (mode string, size int64, err error) {
	out, err := Run(ctx, dir, "ls-tree", "-z", "--long", "--end-of-options", commit, "--", "./"+rel)
	if err != nil {
		return "", 0, err
	}
	rec, _, _ := bytes.Cut(out, []byte{0})
	meta, name, ok := bytes.Cut(rec, []byte{'\t'})
	f := strings.Fields(string(meta))
	if !ok || len(f) != 4 || path.Base(string(name)) != path.Base(rel) {
		return "", 0, fs.ErrNotExist
	}
	if f[1] != "blob" {
		return f[0], 0, fmt.Errorf("not a file at %s", short(commit))
	}
	size, err = strconv.ParseInt(f[3], 10, 64)
	return f[0], size, err
}

// TreeAt reads every regular file below the directory rel at commit into
// memory, each of at most limit bytes, at most maxFiles of them: a
// --policy directory as the base branch has it.
func TreeAt(ctx context.Context, dir, commit, rel string, limit int64, maxFiles int) (fs.ReadFileFS, error) {
	out, err := Run(ctx, dir, "ls-tree", "-r", "-z", "--long", "--end-of-options", commit, "--", "./"+strings.TrimSuffix(rel, "/")+"/")
	if err != nil {
		return nil, err
	}
	m := fstest.MapFS{}
	prefix := strings.TrimSuffix(path.Clean(rel), "/") + "/"
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, name, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 4 || f[1] != "blob" {
			continue
		}
		p := strings.TrimPrefix(string(name), prefix)
		if f[0] != "100644" && f[0] != "100755" {
			continue // links and submodules are not read
		}
		if len(m) >= maxFiles {
			return nil, fmt.Errorf("more than %d files at %s", maxFiles, short(commit))
		}
		size, _ := strconv.ParseInt(f[3], 10, 64)
		if limit > 0 && size > limit {
			return nil, fmt.Errorf("%s: %w", p, &ErrTooLarge{Size: size, Limit: limit})
		}
		b, err := Run(ctx, dir, "cat-file", "blob", f[2])
		if err != nil {
			return nil, err
		}
		m[p] = &fstest.MapFile{Data: b, Mode: 0o444}
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
