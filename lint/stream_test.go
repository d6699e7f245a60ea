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
	// A tree whose facts cross files (fifth review of issue 16): a stage
	// built FROM a source-build stage, a bake target building it, a script
	// baking that target; padded so that each file is a batch of its own.
	pad := "# " + strings.Repeat("padding ", 2800) + "\n"
	cross := t.TempDir()
	for rel, text := range map[string]string{
		"docker/Dockerfile.rocm": "FROM rocm/dev AS base\nFROM base AS mooncake_build\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mc && cd /opt/mc && make -j8\n" +
			"FROM mooncake_build AS kv_export\nFROM base AS final\nCOPY requirements/rocm.txt /tmp/\nRUN pip install -r /tmp/rocm.txt\n" +
			"RUN --mount=type=bind,from=kv_export,target=/w pip install /w/x.whl\n" + pad,
		"docker/ci.hcl": "target \"kvbuild\" {\n  dockerfile = \"docker/Dockerfile.rocm\"\n  target = \"kv_export\"\n}\ngroup \"all\" {\n  targets = [\"kvbuild\"]\n}\n" + pad,
		"ci/build.sh":   "#!/bin/bash\nset -e\ndocker buildx bake kvbuild\nSTAGES=\"base kv_export\"\nfor t in kvbuild final; do echo $t; done\n" + pad,
		// Pipelines (issue 19): a target named in a command, a build
		// argument in env, a requirements file named by a script.
		".buildkite/release.yml":  "env:\n  MOONCAKE_BRANCH: main\n  OTHER: x\nsteps:\n  - commands:\n      - docker buildx bake kvbuild\n      - pip install -r requirements/rocm.txt\n" + pad,
		".gitlab-ci.yml":          "variables:\n  MOONCAKE_REPO: https://github.com/kvcache-ai/Mooncake\nbuild:\n  script:\n    - git clone $MOONCAKE_REPO mc\n    - cd mc && cmake -B b\n",
		"requirements/rocm.txt":   "-r common.txt\n",
		"requirements/common.txt": "mooncake-transfer-engine==0.3.0\n" + pad,
	} {
		p := filepath.Join(cross, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	roots = append(roots, cross)
	whole := *builtin(t)
	whole.OneEvaluation = true // whole documents, no stubs, the pack's own facts
	oneBatch := *builtin(t)
	oneBatch.BatchBytes = 1 << 40 // stubs and facts, one batch
	each := *builtin(t)
	each.BatchBytes = 1 // the smallest batches (one document each, within engine.maxStubReads)
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
			if root == cross {
				// The pipelines' findings are among those compared.
				all := strings.Join(a, "\n")
				for _, p := range []string{".buildkite/release.yml:2:3", ".buildkite/release.yml:6:", ".gitlab-ci.yml:2:3", ".gitlab-ci.yml:6:"} {
					if !strings.Contains(all, p) {
						t.Errorf("no finding at %s in\n%s", p, all)
					}
				}
			}
			for name, e := range map[string]engine.Engine{"one batch": oneBatch, "a document at a time": each, "16 KB batches": mid} {
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
