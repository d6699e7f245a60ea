package loader

import (
	"github.com/buildgate/buildgate/internal/testfs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	return testfs.Tree(t, files)
}

func TestLoadIncludes(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"requirements/rocm.txt":   "-r common.txt\n-c ../constraints.txt\n-r missing.txt\n-r loop-a.txt\nmooncake-transfer-engine-rocm>=0.3.13\n",
		"requirements/common.txt": "numpy\n",
		"constraints.txt":         "numpy<3\n",
		"requirements/loop-a.txt": "-r loop-b.txt\n",
		"requirements/loop-b.txt": "-r loop-a.txt\n",
	})
	l, err := NewLoader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	docs, err := l.Load("requirements/rocm.txt", KindRequirements)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, d := range docs {
		paths = append(paths, d.DocPath())
	}
	want := "requirements/rocm.txt requirements/common.txt constraints.txt requirements/loop-a.txt requirements/loop-b.txt"
	if strings.Join(paths, " ") != want {
		t.Errorf("documents = %v", paths)
	}
	var errs []string
	for _, d := range docs {
		for _, e := range d.DocErrors() {
			errs = append(errs, d.DocPath()+":"+e.Message)
		}
	}
	joined := strings.Join(errs, "\n")
	rocm := docs[0].(*RequirementsDocument)
	if inc := rocm.Includes[2]; !inc.Missing || inc.Path != "requirements/missing.txt" {
		t.Errorf("-r missing.txt: %+v, want missing", inc)
	}
	// pip stops at a -r it cannot open; buildgate does not (a deliberate
	// difference, docs/documents.md).
	if strings.Contains(joined, "missing.txt") {
		t.Errorf("a missing include is an error entry:\n%s", joined)
	}
	for _, sub := range []string{
		"requirements/loop-b.txt:include cycle: requirements/loop-a.txt -> requirements/loop-b.txt -> requirements/loop-a.txt",
	} {
		if !strings.Contains(joined, sub) {
			t.Errorf("missing error %q in\n%s", sub, joined)
		}
	}
}

func TestLoaderStaysInRoot(t *testing.T) {
	outside := writeTree(t, map[string]string{"secret.txt": "x\n"})
	dir := writeTree(t, map[string]string{"requirements.txt": "-r ../secret.txt\n"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Skip(err)
	}
	l, err := NewLoader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Load("link.txt", KindRequirements); err == nil {
		t.Error("a symbolic link out of the root was read")
	}
	if _, err := l.Load("../secret.txt", KindRequirements); err == nil {
		t.Error("a path out of the root was read")
	}
	docs, err := l.Load("requirements.txt", KindRequirements)
	if err != nil || len(docs) != 1 || len(docs[0].DocErrors()) != 1 {
		t.Errorf("include out of the root: %v %+v", err, docs)
	}
}

func TestLoaderSizeLimit(t *testing.T) {
	dir := writeTree(t, map[string]string{"Dockerfile": "FROM a\n" + strings.Repeat("# pad\n", 100)})
	l, err := NewLoader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.MaxFileSize = 100
	docs, err := l.Load("Dockerfile", KindDockerfile)
	if err != nil || len(docs[0].DocErrors()) != 1 || !strings.Contains(docs[0].DocErrors()[0].Message, "limit") {
		t.Fatalf("oversized file: %v %+v", err, docs)
	}
}

// A loader that panics becomes an error entry naming the file, with the
// stack only for --debug.
func TestParseRecoversPanics(t *testing.T) {
	var stack strings.Builder
	Debug = &stack
	defer func() { Debug = nil }()
	doc := Parse(Kind("bogus"), "x/Dockerfile", []byte("FROM a\n"))
	errs := doc.DocErrors()
	if doc.DocPath() != "x/Dockerfile" || len(errs) != 1 || !strings.Contains(errs[0].Message, "internal error while parsing") {
		t.Errorf("document %+v, errors %+v", doc, errs)
	}
	if !strings.Contains(stack.String(), "x/Dockerfile: panic while parsing") || !strings.Contains(stack.String(), "goroutine") {
		t.Errorf("debug output: %q", stack.String())
	}
}

// No error points past the end of the file, whatever the parser says
// (issue 13: a BG001 at line 170 of a 169-line script).
func TestErrorsInsideTheFile(t *testing.T) {
	for _, src := range []string{"x=$((\n", "echo \"a\n", "f() {\n", "if true; then\n", "x=(\n", "\n\n", ""} {
		d := Parse(KindShell, "a.sh", []byte(src+"echo \"\n"))
		lines := strings.Count(src+"echo \"\n", "\n")
		for _, e := range d.DocErrors() {
			if e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.EndLine > lines {
				t.Errorf("%q: error at %+v, file has %d lines", src, e.Pos, lines)
			}
		}
	}
}
