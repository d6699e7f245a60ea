package engine

import (
	"context"
	"testing"

	"github.com/buildgate/buildgate/loader"
	"github.com/buildgate/buildgate/policies"
	"github.com/open-policy-agent/opa/v1/ast"
)

// counted is a document that counts how often its text is read.
type counted struct {
	loader.Document
	reads int
}

func (c *counted) DocSource() []byte { c.reads++; return c.Document.DocSource() }

// TestPrescanAnswersAsAsked: the answers the pre-scan gives for every
// document are those source_contains gives when asked one at a time
// (escapes decoded, any case, an empty needle matching nothing), and once
// given, asking reads no text again.
func TestPrescanAnswersAsAsked(t *testing.T) {
	srcs := map[string]string{
		"Dockerfile":      "FROM base\nRUN git clone https://github.com/kvcache-ai/Moon\"\"cake\n",
		"ci.sh":           "#!/bin/sh\nR=$'\\x6dooncake'\npip install -r requirements/rocm.txt\n",
		"other.sh":        "#!/bin/sh\necho hello\n",
		"docker-bake.hcl": "target \"x\" {\n  args = { MOONCAKE_BRANCH = \"main\" }\n}\n",
	}
	needles := []*ast.Array{
		ast.NewArray(ast.StringTerm("mooncake"), ast.StringTerm("MOONCAKE_BRANCH")),
		ast.NewArray(ast.StringTerm("requirements/rocm.txt")),
		ast.NewArray(ast.StringTerm(""), ast.StringTerm("HELLO")),
		ast.NewArray(ast.StringTerm("absent")),
	}
	var docs, plain []loader.Document
	for p, src := range srcs {
		kind := loader.KindShell
		switch p {
		case "Dockerfile":
			kind = loader.KindDockerfile
		case "docker-bake.hcl":
			kind = loader.KindHCL
		}
		docs = append(docs, &counted{Document: loader.Prepare(kind, p, []byte(src))})
		plain = append(plain, loader.Prepare(kind, p, []byte(src)))
	}
	pre := withSources(context.Background(), docs).Value(sourcesKey{}).(*sources)
	if err := pre.prescan(docs, needles); err != nil {
		t.Fatal(err)
	}
	asked := withSources(context.Background(), plain).Value(sourcesKey{}).(*sources)
	for _, d := range docs {
		c := d.(*counted)
		if c.reads != 1 {
			t.Errorf("%s: read %d times by the pre-scan, want once", d.DocPath(), c.reads)
		}
		for _, arr := range needles {
			got, ok, err := pre.answer(d.DocPath(), arr)
			want, wok, werr := asked.answer(d.DocPath(), arr)
			if err != nil || werr != nil || !ok || !wok || got != want {
				t.Errorf("%s %v: pre-scanned %v (%v, %v), asked %v (%v, %v)", d.DocPath(), arr, got, ok, err, want, wok, werr)
			}
		}
		if c.reads != 1 {
			t.Errorf("%s: read again (%d) for questions the pre-scan answered", d.DocPath(), c.reads)
		}
	}
	for path, want := range map[string]bool{"Dockerfile": true, "ci.sh": true, "other.sh": false} {
		if got, _, _ := pre.answer(path, needles[0]); got != want {
			t.Errorf("%s mentions the package: %v, want %v", path, got, want)
		}
	}
	if got, _, _ := pre.answer("other.sh", needles[2]); !got {
		t.Error("other.sh says hello in another case: want found")
	}
}

// TestBuiltinPackPrescans: the built-in pack defines the relevance
// questions, so the streaming evaluation pre-scans (a renamed rule would
// silently leave every question to the one-core selection).
func TestBuiltinPackPrescans(t *testing.T) {
	mods, err := ModulesFromFS(policies.FS, ".", false)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile(context.Background(), mods, "test")
	if err != nil {
		t.Fatal(err)
	}
	if e.selector == nil || e.facts == nil || e.needles == nil {
		t.Fatalf("selector %v, facts %v, needles %v: want all three", e.selector != nil, e.facts != nil, e.needles != nil)
	}
}
