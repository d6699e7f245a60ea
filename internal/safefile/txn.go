package safefile

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"
)

// Stamp is what a file was when it was read: whether it existed, its
// size, modification time and checksum. A file whose stamp differs when
// it is about to be replaced was changed by someone else meanwhile.
type Stamp struct {
	Exists  bool
	Size    int64
	ModTime time.Time
	Sum     [sha256.Size]byte
}

// InStamped is In with the stamp of what it read (the descriptor's stat,
// the data's checksum); a file that does not exist has the zero stamp and
// fs.ErrNotExist.
func InStamped(root *os.Root, rel string, limit int64) ([]byte, Stamp, error) {
	f, err := OpenIn(root, rel)
	if err != nil {
		return nil, Stamp{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, Stamp{}, err
	}
	data, err := readAll(f, limit)
	if err != nil {
		return nil, Stamp{}, err
	}
	return data, Stamp{Exists: true, Size: st.Size(), ModTime: st.ModTime(), Sum: sha256.Sum256(data)}, nil
}

// ErrChanged is a file changed since it was read: its fix is not written.
var ErrChanged = errors.New("changed since buildgate read it")

// Txn replaces several files inside one root all or nothing (buildgate
// fix): every new text is written to a temporary file beside its target
// first; only when all are written, and each target is still as it was
// read, are they renamed over the targets. A rename that fails puts back
// the files already renamed.
type Txn struct {
	rootDir string
	r       *os.Root
	items   []*txnItem
}

type txnItem struct {
	rel      string
	data     []byte
	old      []byte
	read     Stamp
	tmp      string
	perm     os.FileMode
	renamed  bool
	dropped  bool
	removeFn func()
}

// NewTxn starts a transaction below rootDir. Close it when done: it
// removes the temporary files of what was not committed.
func NewTxn(rootDir string) (*Txn, error) {
	r, err := os.OpenRoot(rootDir)
	if err != nil {
		return nil, err
	}
	return &Txn{rootDir: rootDir, r: r}, nil
}

// Add plans to replace rel (slash-separated) with data; old and read are
// its text and stamp when it was read (a zero stamp: it did not exist and
// is created, 0644).
func (t *Txn) Add(rel string, data, old []byte, read Stamp) {
	t.items = append(t.items, &txnItem{rel: rel, data: data, old: old, read: read, perm: 0o644})
}

// Prepare writes every new text to its temporary file. An error names
// the file and leaves nothing behind (no target is touched).
func (t *Txn) Prepare() error {
	for _, it := range t.items {
		if err := t.prepare(it); err != nil {
			t.removeTemps()
			return fmt.Errorf("%s: %w", it.rel, err)
		}
	}
	return nil
}

func (t *Txn) prepare(it *txnItem) error {
	name := filepath.FromSlash(it.rel)
	if st, err := t.r.Lstat(name); err == nil {
		if !st.Mode().IsRegular() {
			return errors.New("not a regular file (a link or special file is not rewritten)")
		}
		if err := notGit(t.rootDir, st); err != nil {
			return err
		}
		it.perm = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return classify(err)
	}
	if dir := path.Dir(it.rel); dir != "." {
		if err := t.r.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return classify(err)
		}
	}
	it.tmp = fmt.Sprintf("%s.buildgate-%d.tmp", name, os.Getpid())
	f, err := t.r.OpenFile(it.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, it.perm)
	if err != nil {
		it.tmp = ""
		return classify(err)
	}
	tmp := it.tmp
	key := new(int)
	it.removeFn = func() { _ = t.r.Remove(tmp); pending.Delete(key) }
	pending.Store(key, func() { _ = t.r.Remove(tmp) })
	_ = f.Chmod(it.perm) // the umask may have narrowed the bits
	_, werr := f.Write(it.data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return classify(werr)
}

// Changed are the targets that are no longer as they were read (size,
// modification time, checksum; or created or removed meanwhile).
func (t *Txn) Changed() []string {
	var out []string
	for _, it := range t.items {
		if !it.dropped && !t.same(it) {
			out = append(out, it.rel)
		}
	}
	return out
}

func (t *Txn) same(it *txnItem) bool {
	name := filepath.FromSlash(it.rel)
	st, err := t.r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return !it.read.Exists
	}
	if err != nil || !it.read.Exists || !st.Mode().IsRegular() || st.Size() != it.read.Size || !st.ModTime().Equal(it.read.ModTime) {
		return false
	}
	data, err := In(t.r, it.rel, st.Size()+1)
	return err == nil && sha256.Sum256(data) == it.read.Sum
}

// Drop takes rel out of the transaction: its temporary file goes, its
// target stays as it is.
func (t *Txn) Drop(rel string) {
	for _, it := range t.items {
		if it.rel == rel && !it.dropped {
			it.dropped = true
			if it.removeFn != nil {
				it.removeFn()
			}
		}
	}
}

// Commit renames every temporary file over its target. If one rename
// fails, the targets already replaced get their old text back (a created
// file is removed) and the error names the file.
func (t *Txn) Commit() error {
	for _, it := range t.items {
		if it.dropped {
			continue
		}
		// Checked again right before its rename: an edit made since
		// Changed ran is not lost either (the window is this check to
		// the rename).
		if !t.same(it) {
			t.rollback()
			t.removeTemps()
			return fmt.Errorf("%s: %w while buildgate was writing (no file was changed)", it.rel, ErrChanged)
		}
		if err := t.r.Rename(it.tmp, filepath.FromSlash(it.rel)); err != nil {
			t.rollback()
			t.removeTemps()
			return fmt.Errorf("%s: %w (no file was changed)", it.rel, classify(err))
		}
		it.renamed = true
		if it.removeFn != nil {
			it.removeFn = nil
		}
	}
	return nil
}

// rollback puts back the files already renamed.
func (t *Txn) rollback() {
	for _, it := range t.items {
		if !it.renamed {
			continue
		}
		name := filepath.FromSlash(it.rel)
		if !it.read.Exists {
			_ = t.r.Remove(name)
			continue
		}
		tmp := name + ".buildgate-restore.tmp"
		if f, err := t.r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, it.perm); err == nil {
			_, werr := f.Write(it.old)
			if cerr := f.Close(); werr == nil && cerr == nil {
				_ = t.r.Rename(tmp, name)
			} else {
				_ = t.r.Remove(tmp)
			}
		}
	}
}

func (t *Txn) removeTemps() {
	for _, it := range t.items {
		if !it.renamed && it.removeFn != nil {
			it.removeFn()
			it.removeFn = nil
		}
	}
}

// Close removes what was not committed and releases the root.
func (t *Txn) Close() error {
	t.removeTemps()
	return t.r.Close()
}
