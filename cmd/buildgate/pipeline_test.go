package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Issue 19, Done means 1: with the CUDA example configuration, the
// release pipeline of vLLM's PR #51067 before-state reports its three env
// keys (from the key, 23:3-25:3) and every --build-arg MOONCAKE_WHEEL_…
// word (from NAME in --build-arg NAME=value: 222:27 …): the issue names
// the first six of sixteen, the pipeline has eight such pairs, all
// removed by the PR. The after-state is clean.
func TestCUDAPipelineMigration(t *testing.T) {
	t.Parallel()
	cuda := mustAbs(t, "../../examples/cuda-mooncake-wheel/.buildgate.yaml")
	rep, res := lintJSON(t, corpusDir(t, "vllm/analog-pr51067-cuda/before"), "--config", cuda)
	if res.code != 1 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var env, passed, read []string
	for _, f := range rep.Findings {
		if f.Path != ".buildkite/release-pipeline.yaml" {
			continue
		}
		at := fmt.Sprintf("%d:%d", f.Line, f.Column)
		switch {
		case f.Line <= 25:
			env = append(env, at)
		case f.Column == 27:
			passed = append(passed, at)
		default:
			read = append(read, at)
		}
		if f.Rule != "BG102" {
			t.Errorf("%s: %s, want BG102", at, f.Rule)
		}
	}
	wantPassed := []string{}
	for _, l := range []int{222, 250, 276, 304, 330, 359, 387, 416} {
		wantPassed = append(wantPassed, fmt.Sprintf("%d:27", l), fmt.Sprintf("%d:27", l+1))
	}
	sort.Strings(wantPassed)
	sort.Strings(passed)
	if strings.Join(env, " ") != "23:3 24:3 25:3" {
		t.Errorf("env findings %v, want 23:3 24:3 25:3", env)
	}
	if strings.Join(passed, " ") != strings.Join(wantPassed, " ") {
		t.Errorf("--build-arg findings\n got %v\nwant %v", passed, wantPassed)
	}
	// The value "${MOONCAKE_WHEEL_AARCH64_2_35}" reads another of the
	// build arguments: one finding more on each AARCH64 line (on the
	// X86_64 lines the name read is the one passed: the same message,
	// deduplicated).
	if len(read) != 8 {
		t.Errorf("expansions read: %v, want 8", read)
	}
	rep, res = lintJSON(t, corpusDir(t, "vllm/analog-pr51067-cuda/after"), "--config", cuda)
	if res.code != 0 || len(rep.Findings) != 0 {
		t.Errorf("after-state: exit %d, %+v", res.code, rep.Findings)
	}
}

// buildgate fix gives back the real after-state of the CUDA pipeline: the
// env entries and the sixteen --build-arg lines go; the after-state
// differs only by the author's comment about the wheels (lines 19-22 of
// the before-state, which the fix leaves).
func TestFixCUDAPipeline(t *testing.T) {
	t.Parallel()
	cuda := mustAbs(t, "../../examples/cuda-mooncake-wheel/.buildgate.yaml")
	before := corpusDir(t, "vllm/analog-pr51067-cuda/before")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(before)); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, dir, "fix", "--root", ".", "--config", cuda)
	if r.code != 1 || !strings.Contains(r.stdout, "1 file changed") {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, ".buildkite/release-pipeline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(corpusDir(t, "vllm/analog-pr51067-cuda/after"), ".buildkite/release-pipeline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(got), "\n")
	if len(lines) < 22 || !strings.HasPrefix(strings.TrimSpace(lines[19]), "# pre-built mooncake wheels") {
		t.Fatalf("line 20 of the fixed file: %q", lines[19])
	}
	gotLess := strings.Join(append(append([]string{}, lines[:18]...), lines[22:]...), "")
	if gotLess != string(want) {
		t.Errorf("the fixed pipeline is not the after-state (the author's comment aside)")
	}
	// Idempotent: a second run changes nothing more in the pipeline.
	runBin(t, dir, "fix", "--root", ".", "--config", cuda)
	again, _ := os.ReadFile(filepath.Join(dir, ".buildkite/release-pipeline.yaml"))
	if string(again) != string(got) {
		t.Errorf("a second fix changed the pipeline again")
	}
}

// Suppressions in a pipeline: a comment line above an env key and a shell
// comment inside a block scalar apply to the next line, as in scripts.
func TestPipelineSuppressions(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		".buildkite/p.yml":      "env:\n  # buildgate:ignore BG102 -- kept for the old release branch\n  MOONCAKE_BRANCH: main\n  OTHER: x\nsteps:\n  - commands:\n      - |\n        # buildgate:ignore BG102 -- the same\n        docker build --build-arg MOONCAKE_REPO=x .\n        docker build --build-arg MOONCAKE_COMMIT=y .\n",
		"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.13\n",
	})
	rep, res := lintJSON(t, dir)
	if res.code != 1 || len(rep.Findings) != 1 || rep.Findings[0].Line != 10 || rep.Findings[0].Column != 34 {
		t.Errorf("exit %d, findings %+v; want the one at 10:34", res.code, rep.Findings)
	}
}

// User policies see pipelines: lib.scripts holds their scripts (the
// curl rule of policy_test.go fires in a workflow's run:), and a rule
// may read kind "pipeline" documents' env.
func TestUserPoliciesOnPipelines(t *testing.T) {
	t.Parallel()
	_, pol := policyRepo(t)
	if err := os.WriteFile(filepath.Join(pol, "acme", "no_literal_secret.rego"), []byte(`# METADATA
# title: No secret written into a pipeline
# custom:
#   id: ACME002
#   name: no-literal-secret
#   severity: error
package buildgate.rules.acme.no_literal_secret

deny contains {"msg": sprintf("%s is written into the pipeline; use the CI system's secrets", [e.name]), "loc": e} if {
	some d in input.documents
	d.kind == "pipeline"
	some e in d.env
	endswith(e.name, "_TOKEN")
	not contains(e.value_text, "secrets.")
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := writeTree(t, map[string]string{
		"requirements/rocm.txt":    "mooncake-transfer-engine-rocm>=0.3.13\n",
		".github/workflows/ci.yml": "env:\n  HF_TOKEN: hf_abc\n  GH_TOKEN: ${{ secrets.GH }}\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          curl -sSL https://example.com/x.sh | sh\n",
	})
	r := runBin(t, repo, "lint", "--root", ".", "--policy", pol)
	for _, want := range []string{
		".github/workflows/ci.yml:2:3: error: HF_TOKEN is written into the pipeline; use the CI system's secrets [ACME002 no-literal-secret]",
		".github/workflows/ci.yml:9:11: warning: curl pipes a download into a shell [ACME001 no-curl-pipe]",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lint output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "GH_TOKEN") {
		t.Errorf("a secret reference reported:\n%s", r.stdout)
	}
}
