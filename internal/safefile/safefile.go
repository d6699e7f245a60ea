// Package safefile is the one way buildgate reads a file. Every input of a
// run — build files, includes, the configuration, baselines, data,
// policies, git metadata — may be written by the pull request under check,
// so a read must never hang (a FIFO, a terminal), never grow without bound
// (/dev/zero, a huge file), and never leave the repository root (a
// symbolic link committed to point at /etc or ~/.ssh).
//
// A file is opened without blocking, checked to be a regular file on the
// open descriptor (not by name first, which a swap could race), then read
// through a limit one byte past the allowed size.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrNotRegular is a FIFO, socket, device or directory where a file was
// expected: reading it could block forever or never end.
var ErrNotRegular = errors.New("not a regular file (a FIFO, socket, device or directory)")

// ErrOutsideRoot is a path, or a symbolic link on it, that leads out of
// the repository root.
var ErrOutsideRoot = errors.New("it leads out of the repository root (not followed)")

// SizeError is a file larger than the limit.
type SizeError struct {
	Size, Limit int64
	// Flag names the option that sets the limit, for the message.
	Flag string
}

func (e *SizeError) Error() string {
	where := ""
	if e.Flag != "" {
		where = " (" + e.Flag + ")"
	}
	if e.Size < 0 {
		return fmt.Sprintf("file is over the %d-byte limit%s: not read", e.Limit, where)
	}
	return fmt.Sprintf("file is %d bytes, over the %d-byte limit%s: not read", e.Size, e.Limit, where)
}

// Limits for the run's own inputs; build files use --max-file-size.
const (
	ConfigLimit   = 1 << 20  // .buildgate.yaml
	PolicyLimit   = 4 << 20  // one .rego or .md file
	DataLimit     = 64 << 20 // --data, --baseline
	GitMetaLimit  = 4 << 10  // .git, HEAD, a ref file
	PackedRefsMax = 16 << 20 // packed-refs, config
)

// In reads rel (slash-separated) below root, at most limit bytes (0: no
// limit). Neither "..", an absolute path nor a symbolic link can leave the
// root, and no hard link reads one of git's files (OpenIn).
func In(root *os.Root, rel string, limit int64) ([]byte, error) {
	f, err := OpenIn(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, limit)
}

// OpenIn opens rel below root as a regular file, without blocking, and
// never one of git's own files: a hard link to .git/config is ErrGitLink
// (the check is on the open descriptor, so a swap of the name cannot slip
// it through).
func OpenIn(root *os.Root, rel string) (*os.File, error) {
	f, err := openIn(root, rel)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = notGit(root.Name(), st)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// GitMeta reads rel below root, a git directory, as In does but without
// refusing git's own files, which are what it is for (HEAD, refs, config
// for provenance). Nothing it reads may reach a report as it is.
func GitMeta(root *os.Root, rel string, limit int64) ([]byte, error) {
	f, err := openIn(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, limit)
}

func openIn(root *os.Root, rel string) (*os.File, error) {
	if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return nil, ErrOutsideRoot
	}
	return openRegular(root.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|nonBlock, 0))
}

// Named reads a file the user named (a flag or argument), relative to the
// working directory or absolute. A name inside rootDir is read through the
// root, so a symbolic link the repository commits under that name cannot
// lead out of it; a name outside it (the user's own choice, such as a
// policy directory elsewhere) is read as it is, still only when it is a
// regular file within the limit. Inside the root it is never one of
// git's files, by name, symbolic link or hard link: the configuration,
// --data and the baseline are the pull request's names too, and their
// errors may quote them.
func Named(rootDir, name string, limit int64) ([]byte, error) {
	f, err := OpenNamed(rootDir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// After the open, so that what cannot be opened says why.
	if rel, ok := Inside(rootDir, name); ok && ReachesGit(rootDir, rel) {
		return nil, ErrGitDir
	}
	return readAll(f, limit)
}

// OpenNamed opens a user-named file as Named reads it.
func OpenNamed(rootDir, name string) (*os.File, error) {
	if rel, ok := Inside(rootDir, name); ok {
		r, err := os.OpenRoot(rootDir)
		if err != nil {
			return nil, err
		}
		defer func() { _ = r.Close() }()
		return OpenIn(r, rel)
	}
	return openRegular(os.OpenFile(name, os.O_RDONLY|nonBlock, 0))
}

// openRegular takes an open's result and keeps the file only when it is a
// regular file: the check is on the open descriptor, so a swap of the
// name between a check and the open cannot slip a FIFO through.
func openRegular(f *os.File, err error) (*os.File, error) {
	if err != nil {
		return nil, classify(err)
	}
	if err := regular(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// Inside returns name relative to rootDir (slash-separated) when it lies
// lexically inside it.
func Inside(rootDir, name string) (string, bool) {
	if rootDir == "" {
		return "", false
	}
	absRoot, err1 := filepath.Abs(rootDir)
	abs, err2 := filepath.Abs(name)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(absRoot, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// Head reads at most n bytes from the start of f.
func Head(f *os.File, n int) ([]byte, error) {
	buf := make([]byte, n)
	m, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return buf[:m], nil
}

func regular(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return ErrNotRegular
	}
	return nil
}

// readAll reads f, failing once it passes limit: the size a stat reports
// is not trusted (a file can grow while read, /proc files report 0).
func readAll(f *os.File, limit int64) ([]byte, error) {
	var size int64 = -1
	if st, err := f.Stat(); err == nil {
		size = st.Size()
		if limit > 0 && size > limit {
			return nil, &SizeError{Size: size, Limit: limit}
		}
	}
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	buf := make([]byte, 0, max(0, min(size, limit))+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
	}
	if limit > 0 && int64(len(buf)) > limit {
		return nil, &SizeError{Size: -1, Limit: limit}
	}
	return buf, nil
}

// classify turns os.Root's "path escapes from parent" into ErrOutsideRoot.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "path escapes from parent") {
		return ErrOutsideRoot
	}
	if errors.Is(err, syscall.ENXIO) {
		return ErrNotRegular // a socket: open(2) refuses it with ENXIO
	}
	return err
}

// Describe is a short reason for a read error, for a message that names
// the file itself.
func Describe(err error) string {
	var se *SizeError
	var ge gitError
	switch {
	case errors.As(err, &se):
		return se.Error()
	case errors.Is(err, ErrNotRegular):
		return ErrNotRegular.Error()
	case errors.Is(err, ErrOutsideRoot):
		return ErrOutsideRoot.Error()
	case errors.As(err, &ge):
		return ge.Error()
	case errors.Is(err, ErrGitDir):
		return ErrGitDir.Error()
	case errors.Is(err, fs.ErrNotExist):
		return "file does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
