package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// WriteNamed writes data to a user-named file (a report, a baseline). A
// name inside rootDir is written through the root: a pull request that
// commits buildgate.sarif as a link to ~/.bashrc, or out/ as a link to
// /etc, gets neither written. The data goes to a new file beside the
// target, renamed over it, so a link at the name is replaced, not
// followed, and a failed write leaves the old file whole.
func WriteNamed(rootDir, name string, data []byte) error {
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
		return replace(func(n string, flag int) (*os.File, error) { return r.OpenFile(n, flag, 0o644) }, r.Rename, r.Remove, filepath.FromSlash(rel), data)
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
		_, werr := f.Write(data)
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
	return replace(func(n string, flag int) (*os.File, error) { return os.OpenFile(n, flag, 0o644) }, os.Rename, os.Remove, name, data)
}

func replace(open func(string, int) (*os.File, error), rename func(string, string) error, remove func(string) error, name string, data []byte) error {
	tmp := fmt.Sprintf("%s.buildgate-%d.tmp", name, os.Getpid())
	f, err := open(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return classify(err)
	}
	_, werr := f.Write(data)
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
// request controls).
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
	}, r.Rename, r.Remove, name, data)
}
