//go:build unix

package safefile

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// tree makes a root holding each kind of thing a pull request can commit
// (or a runner can have) under a build file's name.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	w := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w("small", "hello\n")
	w("exact", "12345")
	w("big", "123456")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	for name, target := range map[string]string{
		"zero":      "/dev/zero",
		"stdin":     "/dev/stdin",
		"outside":   "/etc/hostname",
		"up":        "../x",
		"to-fifo":   "fifo",
		"to-small":  "small",
		"loop":      "loop",
		"dangling":  "nothere",
		"to-dir":    "dir",
		"to-socket": "sock",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestIn(t *testing.T) {
	dir := tree(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var sizeErr *SizeError
	for _, tt := range []struct {
		name string
		want string // content, or "" when an error is wanted
		is   func(error) bool
	}{
		{"small", "hello\n", nil},
		{"exact", "12345", nil},
		{"to-small", "hello\n", nil},
		{"big", "", func(err error) bool { return errors.As(err, &sizeErr) && sizeErr.Size == 6 && sizeErr.Limit == 5 }},
		{"fifo", "", func(err error) bool { return errors.Is(err, ErrNotRegular) }},
		{"to-fifo", "", func(err error) bool { return errors.Is(err, ErrNotRegular) }},
		{"sock", "", func(err error) bool { return err != nil }},
		{"to-socket", "", func(err error) bool { return err != nil }},
		{"dir", "", func(err error) bool { return errors.Is(err, ErrNotRegular) }},
		{"to-dir", "", func(err error) bool { return errors.Is(err, ErrNotRegular) }},
		{"zero", "", func(err error) bool { return errors.Is(err, ErrOutsideRoot) }},
		{"stdin", "", func(err error) bool { return errors.Is(err, ErrOutsideRoot) }},
		{"outside", "", func(err error) bool { return errors.Is(err, ErrOutsideRoot) }},
		{"up", "", func(err error) bool { return errors.Is(err, ErrOutsideRoot) }},
		{"../x", "", func(err error) bool { return errors.Is(err, ErrOutsideRoot) }},
		{"/etc/hostname", "", func(err error) bool { return errors.Is(err, ErrOutsideRoot) }},
		{"loop", "", func(err error) bool { return err != nil }},
		{"dangling", "", func(err error) bool { return errors.Is(err, os.ErrNotExist) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := In(root, tt.name, 5+boolInt(tt.name == "small" || tt.name == "to-small"))
			if tt.is == nil {
				if err != nil || string(b) != tt.want {
					t.Fatalf("got %q, %v; want %q", b, err, tt.want)
				}
				return
			}
			if !tt.is(err) {
				t.Fatalf("got %q, %v", b, err)
			}
			if Describe(err) == "" {
				t.Fatal("no description")
			}
		})
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestNamed(t *testing.T) {
	dir := tree(t)
	// Inside the root, a name is read through it: its links cannot leave.
	if _, err := Named(dir, filepath.Join(dir, "outside"), 0); !errors.Is(err, ErrOutsideRoot) {
		t.Fatalf("link out of the root: %v", err)
	}
	if _, err := Named(dir, filepath.Join(dir, "fifo"), 0); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("fifo: %v", err)
	}
	// Outside the root, the user's own file is read, still as a regular
	// file within the limit.
	other := tree(t)
	if b, err := Named(dir, filepath.Join(other, "small"), 10); err != nil || string(b) != "hello\n" {
		t.Fatalf("outside file: %q %v", b, err)
	}
	if _, err := Named(dir, filepath.Join(other, "fifo"), 10); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("outside fifo: %v", err)
	}
	if _, err := Named(dir, "/dev/zero", 10); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("/dev/zero: %v", err)
	}
	if _, err := Named("", filepath.Join(other, "big"), 5); err == nil {
		t.Fatal("over the limit read")
	}
}

// A file that grows past its stat size is still cut at the limit.
func TestReadAllLimit(t *testing.T) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc")
	}
	defer f.Close()
	var se *SizeError
	if _, err := readAll(f, 10); !errors.As(err, &se) {
		t.Fatalf("want a size error, got %v", err)
	}
}

// FuzzRead puts fuzzed content under a name as one of the things a pull
// request can commit and reads it: the read ends, and returns the content
// exactly when it is a regular file inside the root within the limit.
func FuzzRead(f *testing.F) {
	f.Add([]byte("FROM x\n"), uint8(0), uint16(100))
	f.Add(bytes.Repeat([]byte("a"), 300), uint8(0), uint16(299))
	f.Add([]byte(""), uint8(1), uint16(0))
	f.Add([]byte("x"), uint8(2), uint16(1))
	f.Add([]byte("x"), uint8(3), uint16(1))
	f.Add([]byte("x"), uint8(4), uint16(1))
	f.Add([]byte("x"), uint8(5), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, what uint8, limit uint16) {
		dir := t.TempDir()
		p := filepath.Join(dir, "Dockerfile")
		regularFile := false
		switch what % 6 {
		case 0:
			regularFile = true
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		case 1:
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		case 2:
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		case 3:
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case 4:
			regularFile = true
			if err := os.WriteFile(filepath.Join(dir, "real"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("real", p); err != nil {
				t.Fatal(err)
			}
		case 5:
			if err := os.Symlink("/dev/stdin", p); err != nil {
				t.Fatal(err)
			}
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		b, err := In(root, "Dockerfile", int64(limit))
		fits := limit == 0 || len(data) <= int(limit)
		switch {
		case regularFile && fits:
			if err != nil || !bytes.Equal(b, data) {
				t.Fatalf("regular file: %v", err)
			}
		case err == nil:
			t.Fatalf("read %d bytes of something it should refuse", len(b))
		}
	})
}

// -o /dev/null, --format sarif=/dev/stdout, a named pipe: outside the
// root, a name that is not a regular file is written in place, never
// renamed over (that replaced /dev/null with a regular file once). A FIFO
// and a link to one stand for the devices here.
func TestWriteNamedSpecialOutsideRoot(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	fifo := filepath.Join(out, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	link := filepath.Join(out, "stdout")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{fifo, link} {
		// The reading end is opened first, without blocking, so the write
		// finds a reader at once and the bytes wait in the pipe (a reader
		// blocked in open can be interrupted by the runtime's signals and
		// miss the writer).
		rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteNamed(root, name, []byte("report\n")); err != nil {
			rd.Close()
			t.Fatalf("%s: %v", name, err)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%s: the FIFO was replaced (%v)", name, err)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s: the link was replaced (%v)", name, err)
		}
		var b bytes.Buffer
		_, _ = b.ReadFrom(rd)
		rd.Close()
		if b.String() != "report\n" {
			t.Errorf("%s: the reader got %q", name, b.String())
		}
	}
	if err := WriteNamed(root, out, []byte("x")); err == nil {
		t.Error("a directory was written")
	}
}

// A report is written as it is made (WriteNamedFunc): a write that fails
// half way, or a process that must end half way (RemovePending, which
// buildgate's watchdog runs before it exits), leaves the old file whole
// and no temporary file, inside the root and outside it.
func TestWriteNamedFuncHalfWay(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	for _, name := range []string{filepath.Join(root, "out", "r.json"), filepath.Join(outside, "r.json")} {
		for _, tt := range []struct {
			what  string
			write func(w io.Writer) error
		}{
			{"an error", func(w io.Writer) error {
				_, _ = io.WriteString(w, "half")
				return errors.New("stopped")
			}},
			{"the process ends", func(w io.Writer) error {
				_, _ = io.WriteString(w, "half")
				RemovePending()
				_, err := io.WriteString(w, " and the rest")
				return err
			}},
		} {
			os.MkdirAll(filepath.Dir(name), 0o755)
			if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := WriteNamedFunc(root, name, tt.write); err == nil {
				t.Errorf("%s, %s: no error", name, tt.what)
			}
			if b, _ := os.ReadFile(name); string(b) != "old" {
				t.Errorf("%s, %s: the file holds %q", name, tt.what, b)
			}
			if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(name), "*.tmp")); len(tmps) > 0 {
				t.Errorf("%s, %s: %v left", name, tt.what, tmps)
			}
		}
	}
	if err := WriteNamedFunc(root, filepath.Join(root, "r.json"), func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "r.json")); string(b) != "new" {
		t.Errorf("written: %q", b)
	}
}
