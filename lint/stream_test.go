package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/finding"
)

// TestStreamEquivalence: evaluating a document at a time, beside the other
// documents' stubs, gives the findings one evaluation of everything gives
// (issue 16). It holds engine.stubShapes to the pack: a field the pack
// reads across files that a stub lacks changes findings here. Every real
// tree in ../shared/corpus and the project's fixtures, with their own
// configuration where they have one.
func TestStreamEquivalence(t *testing.T) {
	roots := []string{"../testdata/vllm-rocm/before", "../testdata/vllm-rocm/after", "../loader/testdata/examples"}
	for _, glob := range []string{"../examples/*", "../../shared/corpus/*", "../../shared/corpus/vllm/*"} {
		ms, _ := filepath.Glob(glob)
		for _, m := range ms {
			if st, err := os.Stat(m); err == nil && st.IsDir() && filepath.Base(m) != "vllm" {
				roots = append(roots, m)
			}
		}
	}
	whole := *builtin(t)
	whole.BatchBytes = 1 << 40
	each := *builtin(t)
	each.BatchBytes = 1 // the smallest batches (one document each, up to engine.maxBatches)
	mid := *builtin(t)
	mid.BatchBytes = 16 << 10 // some kept from the selection, the rest in batches
	for _, root := range roots {
		t.Run(strings.TrimLeft(root, "./"), func(t *testing.T) {
			cfg := config.Default()
			if b, err := os.ReadFile(filepath.Join(root, ".buildgate.yaml")); err == nil {
				c, err := config.Parse(".buildgate.yaml", b, config.Default())
				if err != nil {
					t.Fatal(err)
				}
				cfg = c
			}
			run := func(e engine.Engine) []string {
				out, err := Run(context.Background(), Options{Root: root, Paths: []string{root}, Config: cfg, Engine: &e, LazyParse: true})
				if err != nil {
					t.Fatal(err)
				}
				return render(out.All)
			}
			a := run(whole)
			for name, e := range map[string]engine.Engine{"a document at a time": each, "16 KB batches": mid} {
				if b := run(e); strings.Join(a, "\n") != strings.Join(b, "\n") {
					t.Errorf("one evaluation: %d findings; %s: %d\n%s", len(a), name, len(b), firstDiff(a, b))
				}
			}
			if len(a) == 0 && strings.Contains(root, "before") {
				t.Errorf("no findings on a before-state: the test compares nothing")
			}
		})
	}
}

func render(fs []finding.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		fix := ""
		if f.Fix != nil {
			fix = fmt.Sprintf(" fix=%+v", *f.Fix)
		}
		out[i] = fmt.Sprintf("%s %s:%d:%d-%d:%d %s %s%s", f.Rule, f.Path, f.Pos.Line, f.Pos.Column, f.Pos.EndLine, f.Pos.EndColumn, f.Severity, f.Message, fix)
	}
	return out
}

func firstDiff(a, b []string) string {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("first difference at %d:\n  whole: %s\n  each:  %s", i, x, y)
		}
	}
	return ""
}
