package loader

import (
	"bytes"
	"flag"
	"os"
	"regexp"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files and documentation examples")

var exampleBlock = regexp.MustCompile("(?s)(<!-- example: ([^ ]+) -->\n```json\n)(.*?)(```)")

// The examples in docs/documents.md are the real output for the files in
// testdata/examples; go test ./loader -update rewrites them.
func TestDocumentsExamples(t *testing.T) {
	const doc = "../docs/documents.md"
	text, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLoader("testdata/examples")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	n := 0
	out := exampleBlock.ReplaceAllFunc(text, func(m []byte) []byte {
		sm := exampleBlock.FindSubmatch(m)
		rel := string(sm[2])
		kind, ok := DetectName(rel)
		if !ok {
			t.Errorf("example %s: unknown kind", rel)
			return m
		}
		docs, err := l.Load(rel, kind)
		if err != nil {
			t.Errorf("example %s: %v", rel, err)
			return m
		}
		js, err := FormatJSON(docs[:1])
		if err != nil {
			t.Fatal(err)
		}
		n++
		if !bytes.Equal(sm[3], js) && !*update {
			t.Errorf("%s: the example for %s is stale; run go test ./loader -update", doc, rel)
		}
		return append(append(sm[1], js...), sm[4]...)
	})
	if n != len(Kinds) {
		t.Errorf("%d examples in %s, want one per kind (%d)", n, doc, len(Kinds))
	}
	if *update {
		if err := os.WriteFile(doc, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
