package fix

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/finding"
)

func TestOffsets(t *testing.T) {
	src := []byte("\ufeffab\r\nçd é\nlast")
	cases := []struct {
		pos        finding.Pos
		start, end int
		bad        bool
	}{
		{finding.Pos{Line: 1, Column: 1}, 3, 3, false},                             // after the BOM
		{finding.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 3}, 3, 5, false},   // "ab"
		{finding.Pos{Line: 2, Column: 2, EndLine: 2, EndColumn: 5}, 9, 13, false},  // "d é" (ç and é are two bytes)
		{finding.Pos{Line: 3, Column: 1, EndLine: 3, EndColumn: 5}, 14, 18, false}, // "last"
		{finding.Pos{Line: 1, Column: 4}, 0, 0, true},                              // past the line (before CR LF)
		{finding.Pos{Line: 4, Column: 1}, 0, 0, true},                              // past the file
		{finding.Pos{Line: 2, Column: 3, EndLine: 2, EndColumn: 2}, 0, 0, true},    // backwards
	}
	for _, c := range cases {
		s, e, err := Offsets(src, c.pos)
		if (err != nil) != c.bad || !c.bad && (s != c.start || e != c.end) {
			t.Errorf("%+v: %d-%d, %v; want %d-%d (bad %v)", c.pos, s, e, err, c.start, c.end, c.bad)
		}
	}
}

func TestApply(t *testing.T) {
	got, err := Apply([]byte("abcdef"), []Edit{{4, 5, "E"}, {0, 1, ""}, {0, 1, ""}, {2, 2, "+"}})
	if err != nil || string(got) != "b+cdEf" {
		t.Errorf("%q, %v", got, err)
	}
	if _, err := Apply([]byte("abcdef"), []Edit{{0, 3, "x"}, {2, 4, "y"}}); err == nil {
		t.Error("overlapping edits applied")
	}
	// The result's size is bounded before it is built; identical edits
	// count once, and a deletion after an insertion counts too.
	for _, c := range []struct {
		edits []Edit
		limit int
		ok    bool
	}{
		{[]Edit{{0, 0, "xyz"}}, 9, true},
		{[]Edit{{0, 0, "xyzw"}}, 9, false},
		{[]Edit{{0, 0, "xyz"}, {0, 0, "xyz"}, {0, 0, "xyz"}}, 9, true},
		{[]Edit{{0, 0, "xyzwv"}, {3, 6, ""}}, 8, true},
		{[]Edit{{0, 0, "xyzwv"}, {3, 6, ""}}, 7, false},
	} {
		got, err := ApplyWithin([]byte("abcdef"), c.edits, c.limit)
		if (err == nil) != c.ok || err == nil && len(got) > c.limit {
			t.Errorf("%v within %d: %q, %v", c.edits, c.limit, got, err)
		}
	}
	if LineEnding([]byte("a\r\nb\r\n"), "x\ny\n") != "x\r\ny\r\n" || LineEnding([]byte("a\nb\n"), "x\n") != "x\n" {
		t.Error("line endings")
	}
}

// For appends at the line after the last one, adding a missing final line
// break; anything else past the end still does not fit.
func TestForAppends(t *testing.T) {
	at := func(l int) finding.Pos { return finding.Pos{Line: l, Column: 1, EndLine: l, EndColumn: 1} }
	cases := []struct {
		src  string
		pos  finding.Pos
		want string
		bad  bool
	}{
		{"a\nb\n", at(3), "a\nb\nX\n", false},
		{"a\nb", at(3), "a\nb\nX\n", false},
		{"a\r\nb", at(3), "a\r\nb\r\nX\r\n", false},
		{"a\nb", at(4), "", true},
		{"a\nb", finding.Pos{Line: 3, Column: 2}, "", true},
		{"", at(1), "X\n", false},
		{"numpy \\\n", at(2), "", true},
		{"numpy \\", at(2), "", true},
		{"a\nnumpy \\\r\nb\n", at(3), "", true},
	}
	for _, c := range cases {
		e, err := For([]byte(c.src), c.pos, "X\n")
		if (err != nil) != c.bad {
			t.Errorf("%q %+v: %v", c.src, c.pos, err)
			continue
		}
		if c.bad {
			continue
		}
		got, err := Apply([]byte(c.src), []Edit{e})
		if err != nil || string(got) != c.want {
			t.Errorf("%q %+v: %q, %v; want %q", c.src, c.pos, got, err, c.want)
		}
	}
}

// PosOf is Offsets' inverse.
func TestPosOf(t *testing.T) {
	src := []byte("\ufeffab\r\nçd é\nlast")
	for _, r := range [][2]int{{3, 3}, {3, 5}, {9, 13}, {14, 18}, {3, 18}} {
		p := PosOf(src, r[0], r[1])
		s, e, err := Offsets(src, p)
		if err != nil || s != r[0] || e != r[1] {
			t.Errorf("%v: %+v gives %d-%d, %v", r, p, s, e, err)
		}
	}
}

// A diff applies with patch -p1 and gives the new text (issue 17).
func TestDiffAppliesWithPatch(t *testing.T) {
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch is not installed")
	}
	var a, b strings.Builder
	for i := 0; i < 40; i++ {
		a.WriteString("line " + string(rune('a'+i%26)) + "\n")
	}
	old := a.String()
	b.WriteString(strings.Replace(strings.Replace(old, "line c\n", "", 1), "line p\n", "line P\nnew\n", 1))
	// A nil old text is a file to create; "exists" marks an empty file
	// that is there (fourth review of issue 17: diffed from /dev/null, git
	// apply refused it); names with spaces and tabs are quoted.
	for name, pair := range map[string][2]string{
		"docker/Dockerfile":       {old, b.String()},
		"requirements/rocm.txt":   {"", "mooncake-transfer-engine-rocm >= 0.3.13\n"},
		"requirements/empty.txt":  {"exists", "mooncake-transfer-engine-rocm >= 0.3.13\n"},
		"no-newline.txt":          {"a\nb", "a\nc"},
		"scripts/a b.sh":          {"x\ny\n", "x\n"},
		"scripts/tab\tq\"uote.sh": {"x\ny\n", "y\n"},
	} {
		var before []byte
		switch pair[0] {
		case "":
		case "exists":
			before = []byte{}
		default:
			before = []byte(pair[0])
		}
		d := Diff(name, before, []byte(pair[1]))
		for _, tool := range [][]string{{patch, "-p1", "--quiet"}, {"git", "apply", "-p1"}} {
			if _, err := exec.LookPath(tool[0]); err != nil {
				continue
			}
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.FromSlash(name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if before != nil {
				os.WriteFile(p, before, 0o644)
			}
			cmd := exec.Command(tool[0], tool[1:]...)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(d)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %s: %v\n%s\n%s", name, tool[0], err, out, d)
			}
			got, _ := os.ReadFile(p)
			if string(got) != pair[1] {
				t.Errorf("%s: %s patched to %q, want %q\n%s", name, tool[0], got, pair[1], d)
			}
		}
	}
	if Diff("x", []byte("same\n"), []byte("same\n")) != "" {
		t.Error("no diff for equal texts")
	}
}
