package safefile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// DirFS is a read-only file system of the directory dir (a user-named
// one, such as a --policy directory): when dir lies inside rootDir it is
// opened through the root, so neither dir itself nor a link below it can
// lead out of the repository; otherwise below dir only. ReadFile reads a
// regular file of at most limit bytes.
func DirFS(rootDir, dir string, limit int64) (*Dir, error) {
	var r *os.Root
	var err error
	if rel, ok := Inside(rootDir, dir); ok {
		var top *os.Root
		if top, err = os.OpenRoot(rootDir); err != nil {
			return nil, err
		}
		r, err = top.OpenRoot(filepath.FromSlash(rel))
		_ = top.Close()
	} else {
		r, err = os.OpenRoot(dir)
	}
	if err != nil {
		return nil, classify(err)
	}
	return &Dir{root: r, limit: limit}, nil
}

// Dir is the file system DirFS returns. Close it when done.
type Dir struct {
	root  *os.Root
	limit int64
}

// Open implements fs.FS.
func (d *Dir) Open(name string) (fs.File, error) { return d.root.FS().Open(name) }

// ReadDir implements fs.ReadDirFS.
func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(d.root.FS(), name)
}

// ReadFile implements fs.ReadFileFS with the regular-file check and the
// limit.
func (d *Dir) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	b, err := In(d.root, name, d.limit)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return d.root.Close() }
