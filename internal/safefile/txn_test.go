package safefile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// txnTree writes files under a new root and reads each back with its
// stamp, as fix plans them.
func txnTree(t *testing.T, files map[string]string) (string, map[string]Stamp) {
	t.Helper()
	dir := t.TempDir()
	stamps := map[string]Stamp{}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for rel, s := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o640); err != nil {
			t.Fatal(err)
		}
		_, st, err := InStamped(r, rel, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		stamps[rel] = st
	}
	return dir, stamps
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, rel))
	return string(b)
}

// Issue 30, item 3: all files or none.
func TestTxnAllOrNothing(t *testing.T) {
	// A temporary file that cannot be made for the second file: nothing
	// is written, no temporary file is left.
	dir, st := txnTree(t, map[string]string{"a.txt": "a\n", "b/b.txt": "b\n"})
	if err := os.Mkdir(filepath.Join(dir, "b", fmt.Sprintf("b.txt.buildgate-%d.tmp", os.Getpid())), 0o755); err != nil {
		t.Fatal(err)
	}
	txn, err := NewTxn(dir)
	if err != nil {
		t.Fatal(err)
	}
	txn.Add("a.txt", []byte("A\n"), []byte("a\n"), st["a.txt"])
	txn.Add("b/b.txt", []byte("B\n"), []byte("b\n"), st["b/b.txt"])
	if err := txn.Prepare(); err == nil {
		t.Fatal("prepare succeeded")
	}
	txn.Close()
	if read(t, dir, "a.txt") != "a\n" || read(t, dir, "b/b.txt") != "b\n" {
		t.Error("a file was written")
	}
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("a.txt.buildgate-%d.tmp", os.Getpid()))); err == nil {
		t.Error("a temporary file was left")
	}

	// A rename that fails (the target became a directory) puts back the
	// file already renamed.
	dir, st = txnTree(t, map[string]string{"a.txt": "a\n", "c.txt": "c\n"})
	txn, _ = NewTxn(dir)
	txn.Add("a.txt", []byte("A\n"), []byte("a\n"), st["a.txt"])
	txn.Add("c.txt", []byte("C\n"), []byte("c\n"), st["c.txt"])
	if err := txn.Prepare(); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "c.txt"))
	os.MkdirAll(filepath.Join(dir, "c.txt", "x"), 0o755)
	if err := txn.Commit(); err == nil {
		t.Fatal("commit succeeded")
	}
	txn.Close()
	if read(t, dir, "a.txt") != "a\n" {
		t.Errorf("a.txt = %q, want it put back", read(t, dir, "a.txt"))
	}
	if fi, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("a.txt mode: %v %v", fi, err)
	}
}

// Issue 30, item 3: a file changed between the read and the rename is
// told apart (size, time, checksum), and dropped it stays as the other
// writer left it; a file created meanwhile where none was counts too.
func TestTxnChanged(t *testing.T) {
	dir, st := txnTree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	txn, _ := NewTxn(dir)
	defer txn.Close()
	txn.Add("a.txt", []byte("A\n"), []byte("a\n"), st["a.txt"])
	txn.Add("b.txt", []byte("B\n"), []byte("b\n"), st["b.txt"])
	txn.Add("new.txt", []byte("N\n"), nil, Stamp{})
	if err := txn.Prepare(); err != nil {
		t.Fatal(err)
	}
	if c := txn.Changed(); len(c) != 0 {
		t.Fatalf("changed before any change: %v", c)
	}
	// Same size, same second: only the checksum tells.
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("x\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(dir, "b.txt"), st["b.txt"].ModTime, st["b.txt"].ModTime)
	os.WriteFile(filepath.Join(dir, "new.txt"), []byte("mine\n"), 0o644)
	c := txn.Changed()
	if len(c) != 2 || c[0] != "b.txt" || c[1] != "new.txt" {
		t.Fatalf("changed: %v", c)
	}
	txn.Drop("b.txt")
	txn.Drop("new.txt")
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	if read(t, dir, "a.txt") != "A\n" || read(t, dir, "b.txt") != "x\n" || read(t, dir, "new.txt") != "mine\n" {
		t.Errorf("a=%q b=%q new=%q", read(t, dir, "a.txt"), read(t, dir, "b.txt"), read(t, dir, "new.txt"))
	}
}
