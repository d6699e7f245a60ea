package loader

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWaitingDocumentsReadAgain: with Again set, a document waiting to be
// parsed holds no text (issue 16: memory bounded by the files in flight,
// not the repository) and parses, read again, into exactly the document
// an eager load gives; requirements files too, with what following their
// includes found (missing includes, cycles, includes that cannot be
// read), and a byte order mark.
func TestWaitingDocumentsReadAgain(t *testing.T) {
	files := map[string]string{
		"requirements/rocm.txt":   "\ufeff-r common.txt\n-c ../constraints.txt\n-r missing.txt\n-r loop-a.txt\nmooncake-transfer-engine-rocm>=0.3.13 # buildgate:ignore BG202 -- x\n",
		"requirements/common.txt": "numpy\n",
		"constraints.txt":         "numpy<3\n",
		"requirements/loop-a.txt": "-r loop-b.txt\n-r ../docker\n",
		"requirements/loop-b.txt": "-r loop-a.txt\n",
		"docker/Dockerfile":       "\ufeffFROM base AS build\n# buildgate:ignore BG102 -- x\nARG MOONCAKE_BRANCH=main\nRUN git clone https://github.com/kvcache-ai/Mooncake && cd Mooncake && make\n",
		"ci.sh":                   "#!/bin/sh\ndocker build --build-arg MOONCAKE_BRANCH=main .\n",
		"docker-bake.hcl":         "target \"x\" {\n  args = { MOONCAKE_BRANCH = \"main\" }\n}\n",
	}
	dir := writeTree(t, files)
	load := func(lazy bool) map[string]Document {
		t.Helper()
		l, err := NewLoader(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		if lazy {
			again, err := NewLoader(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = again.Close() })
			l.Lazy, l.Again = true, again
		}
		out := map[string]Document{}
		for _, f := range []struct {
			path string
			kind Kind
		}{{"requirements/rocm.txt", KindRequirements}, {"docker/Dockerfile", KindDockerfile}, {"ci.sh", KindShell}, {"docker-bake.hcl", KindHCL}} {
			ds, err := l.Load(f.path, f.kind)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				out[d.DocPath()] = d
			}
		}
		return out
	}
	eager, lazy := load(false), load(true)
	if len(eager) != 8 || len(lazy) != 8 {
		t.Fatalf("%d and %d documents, want 8", len(eager), len(lazy))
	}
	for path, e := range eager {
		w, ok := lazy[path].(*Lazy)
		if !ok {
			t.Errorf("%s: %T, want a document waiting to be parsed", path, lazy[path])
			continue
		}
		if w.src != nil || w.from == nil {
			t.Errorf("%s: the waiting document holds its text", path)
		}
		if SourceSize(w) != len(files[path]) {
			t.Errorf("%s: SourceSize %d, want %d", path, SourceSize(w), len(files[path]))
		}
		// As a parsed document gives it: without a byte order mark (review:
		// with it, a comment on the first line read as code to the
		// builtins, and a BOM-led file's BG001 was dropped).
		if string(w.DocSource()) != strings.TrimPrefix(files[path], "\ufeff") || string(w.DocSource()) != string(e.DocSource()) {
			t.Errorf("%s: DocSource = %q, the eager document's %q", path, w.DocSource(), e.DocSource())
		}
		if held := Prepare(w.Kind, path, []byte(files[path])); string(held.DocSource()) != string(e.DocSource()) {
			t.Errorf("%s: a waiting document holding its text gives %q, want %q", path, held.DocSource(), e.DocSource())
		}
		want, _ := json.Marshal(e)
		got, _ := json.Marshal(Parsed(w))
		if string(got) != string(want) {
			t.Errorf("%s: read again and parsed:\n%s\nwant (loaded at once):\n%s", path, got, want)
		}
		wantErrs, _ := json.Marshal(e.DocErrors())
		gotErrs, _ := json.Marshal(w.DocErrors())
		if string(gotErrs) != string(wantErrs) {
			t.Errorf("%s: errors %s, want %s", path, gotErrs, wantErrs)
		}
		if len(e.DocSuppressions()) != len(w.DocSuppressions()) {
			t.Errorf("%s: %d suppressions, want %d", path, len(w.DocSuppressions()), len(e.DocSuppressions()))
		}
	}
	if rocm := eager["requirements/rocm.txt"].(*RequirementsDocument); !rocm.Includes[2].Missing {
		t.Error("the eager load lost the missing include: the comparison proves nothing")
	}

	// A file that changes (or goes) after it was first read is an error
	// entry of its document, never a silent gap and never the new text.
	for path, change := range map[string]func(string) error{
		"docker/Dockerfile": func(p string) error {
			return os.WriteFile(p, []byte(strings.Replace(files["docker/Dockerfile"], "main", "mine", 1)), 0o644)
		},
		"ci.sh":                 os.Remove,
		"requirements/rocm.txt": func(p string) error { return os.WriteFile(p, []byte("numpy\n"), 0o644) },
	} {
		if err := change(filepath.Join(dir, filepath.FromSlash(path))); err != nil {
			t.Fatal(err)
		}
		w := lazy[path]
		if src := w.DocSource(); src != nil {
			t.Errorf("%s changed: DocSource = %q, want nil", path, src)
		}
		d := Parsed(w)
		if errs := d.DocErrors(); len(errs) != 1 || !strings.Contains(errs[0].Message, "read") {
			t.Errorf("%s changed: errors %+v, want one saying it could not be read again", path, errs)
		}
		if errs := w.DocErrors(); len(errs) != 1 {
			t.Errorf("%s changed: the waiting document's errors %+v, want the one", path, errs)
		}
	}
}

// TestLargeRequirementsStayParsed: a requirements file past maxLazyBytes
// is held parsed, not read and parsed again (its parse is what a hostile
// file makes costly: parsing a 10 MB one twice more doubled its time).
func TestLargeRequirementsStayParsed(t *testing.T) {
	big := strings.Repeat("numpy\n", maxLazyBytes/6+1)
	dir := writeTree(t, map[string]string{"requirements.txt": big, "small.txt": "numpy\n"})
	l, err := NewLoader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	again, err := NewLoader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	l.Lazy, l.Again = true, again
	for path, wantWaiting := range map[string]bool{"requirements.txt": false, "small.txt": true} {
		ds, err := l.Load(path, KindRequirements)
		if err != nil {
			t.Fatal(err)
		}
		if _, waiting := ds[0].(*Lazy); waiting != wantWaiting {
			t.Errorf("%s: waiting %v, want %v", path, waiting, wantWaiting)
		}
	}
}
