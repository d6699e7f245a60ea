package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
)

// WriteNamed writes data to a user-named file (a report, a baseline). A
// name inside rootDir is written through the root: a pull request that
// commits buildgate.sarif as a link to ~/.bashrc, or out/ as a link to
// /etc, gets neither written. The data goes to a new file beside the
// target, renamed over it, so a link at the name is replaced, not
// followed, and a failed write leaves the old file whole.
func WriteNamed(rootDir, name string, data []byte) error {
	return WriteNamedFunc(rootDir, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteNamedFunc is WriteNamed of what write writes, as it writes it (a
// report is written a finding at a time, never held whole): an error
// from write leaves the old file whole too, as does the end of the
// process before the rename once RemovePending has run.
func WriteNamedFunc(rootDir, name string, write func(io.Writer) error) error {
	if rel, ok := Inside(rootDir, name); ok {
		r, err := os.OpenRoot(rootDir)
		if err != nil {
			return err
		}
		defer func() { _ = r.Close() }()
		if dir := path.Dir(rel); dir != "." {
			if err := r.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
				return classify(err)
			}
		}
		return replace(func(n string, flag int) (*os.File, error) { return r.OpenFile(n, flag, 0o644) }, r.Rename, r.Remove, filepath.FromSlash(rel), write)
	}
	// Outside the root the name is the user's: a device, a FIFO or a link
	// to one (-o /dev/null, --format sarif=/dev/stdout, a named pipe) is
	// written in place. Renaming over it would replace /dev/null with a
	// regular file (found running as root in a container: every later
	// program that wrote to /dev/null failed).
	if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return fmt.Errorf("%s is a directory", name)
		}
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		werr := write(f)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return werr
	}
	if dir := filepath.Dir(name); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return replace(func(n string, flag int) (*os.File, error) { return os.OpenFile(n, flag, 0o644) }, os.Rename, os.Remove, name, write)
}

// pending are the temporary files being written (each key's value removes
// it): the process may have to end while one is (the watchdog of
// --timeout and --max-memory), and must not leave it behind.
var pending sync.Map

// RemovePending removes the temporary files still being written, before
// the process ends without renaming them.
func RemovePending() {
	pending.Range(func(k, v any) bool {
		v.(func())()
		pending.Delete(k)
		return true
	})
}

func replace(open func(string, int) (*os.File, error), rename func(string, string) error, remove func(string) error, name string, write func(io.Writer) error) error {
	tmp := fmt.Sprintf("%s.buildgate-%d.tmp", name, os.Getpid())
	f, err := open(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return classify(err)
	}
	key := new(int)
	pending.Store(key, func() { _ = remove(tmp) })
	defer pending.Delete(key)
	werr := write(f)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = rename(tmp, name)
	}
	if werr != nil {
		_ = remove(tmp)
		return classify(werr)
	}
	return nil
}

// Rewrite replaces the file rel (inside rootDir, slash-separated) with
// data, keeping its permission bits; a file that does not exist is created
// (0644). It never follows a symbolic link: a link under that name is an
// error, not a way to write elsewhere (buildgate fix rewrites files a pull
// request controls); nor rewrites a hard link to one of git's files.
func Rewrite(rootDir, rel string, data []byte) error {
	r, err := os.OpenRoot(rootDir)
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }()
	name := filepath.FromSlash(rel)
	perm := os.FileMode(0o644)
	if st, err := r.Lstat(name); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file (a link or special file is not rewritten)", rel)
		}
		// The new text goes to a new inode renamed over the name, so a
		// hard link to one of git's files is never written through; but
		// what replaces it was made from git's text, and showing or
		// keeping that is what the refusal is for.
		if err := notGit(rootDir, st); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		perm = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return classify(err)
	}
	if dir := path.Dir(rel); dir != "." {
		if err := r.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return classify(err)
		}
	}
	return replace(func(n string, flag int) (*os.File, error) {
		f, err := r.OpenFile(n, flag, perm)
		if err == nil {
			// The umask may have narrowed the bits: set them as they were.
			_ = f.Chmod(perm)
		}
		return f, err
	}, r.Rename, r.Remove, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
