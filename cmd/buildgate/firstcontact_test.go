package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flashAttnConfig is a migration configured as issue 32's user did: the
// package, its minimum, its requirements file and repository.
const flashAttnConfig = `migrations:
  - package: flash-attn
    minimum: "2.0.8"
    requirements: [requirements.txt]
    repositories: [github.com/Dao-AILab/flash-attention]
`

// flashAttnStage is a Dockerfile whose source build is a stage named after
// the package (axolotl's docker/Dockerfile-base, PR #426).
const flashAttnStage = "FROM python:3.11 AS base\n\nFROM base AS flash-attn-builder\n" +
	"RUN git clone https://github.com/Dao-AILab/flash-attention.git && cd flash-attention && python3 setup.py bdist_wheel\n\n" +
	"FROM base\nCOPY --from=flash-attn-builder /flash-attention/dist/ /wheels/\nRUN pip install /wheels/*.whl\n"

// Issue 32, first contact: a file named on the command line is read
// whatever its name, its kind told by its text; a file of no kind is
// refused, saying what buildgate reads.
func TestNamedFilesReadByTheirText(t *testing.T) {
	t.Parallel()
	repo := writeTree(t, map[string]string{
		".buildgate.yaml":     flashAttnConfig,
		"requirements.txt":    "flash-attn>=2.0.8\n",
		"docker/base.image":   "# syntax=docker/dockerfile:1\n" + flashAttnStage,
		"ci/build":            "set -e\ngit clone https://github.com/Dao-AILab/flash-attention.git fa\ncd fa && python3 setup.py install\n",
		"deps/cuda.in":        "flash-attn==2.0.4 ; sys_platform == 'linux'\n--extra-index-url https://pypi.org/simple\n",
		"bake/images.build":   "variable \"TAG\" {\n  default = \"x\"\n}\ntarget \"wheels\" {\n  dockerfile = \"docker/base.image\"\n  target = \"flash-attn-builder\"\n}\n",
		"notes/readme.txt.md": "Flash attention is fast.\n",
	})
	for _, c := range []struct {
		path, want string
	}{
		{"docker/base.image", "docker/base.image:4:14: error: stage `flash-attn-builder`"},
		{"deps/cuda.in", "deps/cuda.in:1:11: error:"},
		{"bake/images.build", "bake/images.build:4:8: error: bake target `wheels`"},
	} {
		r := runBin(t, repo, "lint", c.path)
		if r.code != 1 || !strings.Contains(r.stdout, c.want) {
			t.Errorf("lint %s: exit %d, want %q\n%s%s", c.path, r.code, c.want, r.stdout, r.stderr)
		}
	}
	// No shebang, no extension: a script by a `kinds:` entry only; its
	// text alone (set -e, git) is no kind buildgate can tell.
	if r := runBin(t, repo, "lint", "ci/build"); r.code != 2 || !strings.Contains(r.stderr, "is not a build file buildgate knows, by its name or its text") {
		t.Errorf("lint ci/build: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBin(t, repo, "lint", "notes/readme.txt.md"); r.code != 2 || !strings.Contains(r.stderr, "`kinds:`") {
		t.Errorf("lint a note: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The pre-commit hook passes every changed file: what no name
	// claims is passed over, as discovery would.
	if r := runBin(t, repo, "lint", "--skip-unknown", "--no-default-path", "docker/base.image", "notes/readme.txt.md"); r.code != 0 {
		t.Errorf("--skip-unknown: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Issue 32: a file typed through `kinds:` gets what its kind gets, fixes
// included; and PATHs are taken from --root.
func TestKindsFilesAreFixed(t *testing.T) {
	t.Parallel()
	repo := writeTree(t, map[string]string{
		".buildgate.yaml":   flashAttnConfig + "kinds:\n  dockerfile: [\"docker/*.image\"]\n",
		"requirements.txt":  "flash-attn>=2.0.8\n",
		"docker/base.image": flashAttnStage,
	})
	parent := filepath.Dir(repo)
	// The wheels the stage built go to /wheels/ with its dist directory's
	// contents: their install is likely the stage's, an unsafe fix.
	r := runBin(t, parent, "fix", "--root", filepath.Base(repo), "--unsafe-fixes", "docker/base.image")
	if r.code != 0 || !strings.Contains(r.stdout, "fixed, 0 remaining") {
		t.Fatalf("fix --root DIR docker/base.image: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got, _ := os.ReadFile(filepath.Join(repo, "docker/base.image"))
	if want := "FROM python:3.11 AS base\n\nFROM base\nRUN pip install \"flash-attn>=2.0.8\"\n"; string(got) != want {
		t.Errorf("the typed Dockerfile was not fixed as one:\n%s\nwant:\n%s", got, want)
	}
	if r := runBin(t, parent, "lint", "--root", filepath.Base(repo), "docker/nope.image"); r.code != 2 || !strings.Contains(r.stderr, "docker/nope.image: does not exist") {
		t.Errorf("a missing PATH under --root: exit %d\n%s", r.code, r.stderr)
	}
}

func runStdin(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	return runWith(t, dir, nil, strings.NewReader(stdin), args...)
}

// Issue 32: `lint -` reads one file from standard input, linted with the
// repository's configuration as the file --stdin-filename names (its kind
// from that name, else from its text); only its findings are reported,
// nothing is written into the repository.
func TestLintStandardInput(t *testing.T) {
	t.Parallel()
	repo := writeTree(t, map[string]string{".buildgate.yaml": flashAttnConfig})
	r := runStdin(t, repo, flashAttnStage, "lint", "-", "--stdin-filename", "docker/Dockerfile-base")
	if r.code != 1 || !strings.Contains(r.stdout, "docker/Dockerfile-base:3:14: error: stage `flash-attn-builder`") ||
		strings.Contains(r.stdout, "\nrequirements.txt:") || !strings.Contains(r.stdout, "1 file checked") {
		t.Errorf("lint - --stdin-filename: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runStdin(t, repo, flashAttnStage, "lint", "-", "--format", "json"); r.code != 1 || !strings.Contains(r.stdout, `"path": "-"`) {
		t.Errorf("lint - (kind from the text): exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runStdin(t, repo, "flash-attn==2.0.4\n", "lint", "-", "--stdin-filename", "requirements.txt"); r.code != 1 || !strings.Contains(r.stdout, "BG202") {
		t.Errorf("a requirements file from standard input: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"fix", "-"},
		{"lint", "-", "docker"},
		{"lint", "-", "--stdin-filename", "../x"},
		{"lint", "-", "--new-from-rev", "HEAD"},
	} {
		if r := runStdin(t, repo, flashAttnStage, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want a usage error\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	if entries, _ := os.ReadDir(repo); len(entries) != 1 {
		t.Errorf("standard input left files in the repository: %v", entries)
	}
}

// Issue 32: a user rule that fails at run time fails alone, as an error
// finding at its policy's line; the other rules' findings stay; a bound
// passed still stops the run.
func TestUserRuleFailsAlone(t *testing.T) {
	t.Parallel()
	repo := writeTree(t, map[string]string{
		"Dockerfile":      "FROM ubuntu:latest\nRUN echo $HOME\nRUN git clone https://github.com/kvcache-ai/Mooncake\n",
		".buildgate.yaml": "rules:\n  U001: note\n",
		"policies/bad.rego": `# METADATA
# title: Words starting with x
# custom:
#   id: U001
#   name: no-x-words
#   severity: warning
package buildgate.rules.user.no_x_words

import data.buildgate.lib

deny contains "a word starts with x" if {
	some s in lib.scripts
	some c in s.script.commands
	some w in c.words
	startswith(w.value, "x")
}
`,
	})
	policy := filepath.Join(repo, "policies")
	r := runBin(t, repo, "lint", "--policy", policy, "--policy", mustAbs(t, "../../examples/policies"))
	if r.code != 1 ||
		!strings.Contains(r.stdout, "policies/bad.rego:15:2: error: the rule failed at run time") ||
		!strings.Contains(r.stdout, "eval_type_error: startswith: operand 1 must be string but got null") ||
		!strings.Contains(r.stdout, "[BG104 source-build-step]") || !strings.Contains(r.stdout, "[EX001 no-latest-tag]") {
		t.Errorf("a failing user rule: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Outside the repository the failure is the repository's, with the
	// policy's file and line in its message.
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "bad.rego"), []byte(strings.ReplaceAll(mustRead(t, filepath.Join(policy, "bad.rego")), "no_x_words", "no_x")), 0o644)
	r = runBin(t, repo, "lint", "--policy", outside, "--format", "json")
	if r.code != 1 || !strings.Contains(r.stdout, `"path": ""`) || !strings.Contains(r.stdout, "bad.rego:15: eval_type_error") {
		t.Errorf("a failing policy outside the root: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A rule that gives no set of findings (Rego v1's `deny[msg]` builds
	// an object) or an element that is no finding fails alone; an error
	// inside the built-in library it calls is placed at the rule's file.
	shapes := writeTree(t, map[string]string{
		"object.rego": "package buildgate.rules.user.object\n\ndeny[msg] if {\n\tmsg := \"x\"\n}\n",
		"number.rego": "package buildgate.rules.user.number\n\ndeny contains 42 if true\n",
		"lib.rego":    "package buildgate.rules.user.inlib\n\nimport data.buildgate.lib\n\ndeny contains \"x\" if {\n\tsome d in input.documents\n\tsome st in d.stages\n\tcount(lib.name_parts(st.platform)) > 0\n}\n",
	})
	r = runBin(t, repo, "lint", "--policy", policy, "--policy", shapes, "--format", "json")
	for _, want := range []string{"deny is an object, not a set of findings", "a finding must be a string or an object with msg, got 42", `(in lib/buildgate.rego:`} {
		if r.code != 1 || !strings.Contains(r.stdout, want) {
			t.Errorf("a rule of the wrong shape: exit %d, want %q\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	if strings.Contains(r.stdout, `"path": "lib/buildgate.rego"`) {
		t.Errorf("a failure placed in the built-in library:\n%s", r.stdout)
	}
	// conftest's `package main` would never run: an error, not a pass.
	main := writeTree(t, map[string]string{"p/main.rego": "package main\n\ndeny contains \"x\" if {\n\tfalse\n}\n"})
	if r := runBin(t, repo, "lint", "--policy", filepath.Join(main, "p")); r.code != 2 || !strings.Contains(r.stderr, "buildgate evaluates only the rules under data.buildgate.rules") {
		t.Errorf("package main: exit %d\n%s", r.code, r.stderr)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Issue 32: verify --threshold is the user's policies' to meet; the
// built-in pack has its own figure.
func TestVerifyThresholdIsTheUsers(t *testing.T) {
	t.Parallel()
	full := writeTree(t, map[string]string{
		"p/full.rego":      "# METADATA\n# title: Full\n# custom:\n#   id: F001\npackage buildgate.rules.full\n\ndeny contains \"a\" if input.a\n",
		"p/full_test.rego": "package buildgate.rules.full_test\n\nimport data.buildgate.rules.full\n\ntest_a if {\n\tfull.deny == {\"a\"} with input as {\"a\": true}\n}\n",
	})
	r := runBin(t, ".", "verify", "--policy", filepath.Join(full, "p"), "--coverage", "--threshold", "99")
	if r.code != 0 || !strings.Contains(r.stdout, "%  built-in pack (") || !strings.Contains(r.stdout, "100.0%  your policies (") {
		t.Errorf("verify --threshold 99 with fully tested user policies: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	half := writeTree(t, map[string]string{
		"p/half.rego":      "# METADATA\n# title: Half\n# custom:\n#   id: H001\npackage buildgate.rules.half\n\ndeny contains \"a\" if input.a\n\ndeny contains \"b\" if input.b\n",
		"p/half_test.rego": "package buildgate.rules.half_test\n\nimport data.buildgate.rules.half\n\ntest_a if {\n\thalf.deny == {\"a\"} with input as {\"a\": true}\n}\n",
	})
	r = runBin(t, ".", "verify", "--policy", filepath.Join(half, "p"), "--threshold", "90")
	if r.code != 1 || !strings.Contains(r.stderr, "your policies' coverage") {
		t.Errorf("verify --threshold 90 with half-tested user policies: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Issue 32: `buildgate lint` in buildgate's own clone is clean: its
// .buildgate.yaml leaves the test inputs to the tests.
func TestOwnCloneLintsClean(t *testing.T) {
	t.Parallel()
	r := runBin(t, "../..", "lint", "--root", ".")
	if r.code != 0 || !strings.Contains(r.stdout, " 0 findings") {
		t.Errorf("lint in the clone: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Review of issue 32: a short name token is a word, not a substring: `fa`
// (flash-attn's) inside "default" or "false" does not make an unrelated
// script the migration's, so what it sources at run time is no BG001
// there (vLLM's TPU docker_run_bm.sh under a flash-attn configuration).
func TestShortTokensAreWords(t *testing.T) {
	t.Parallel()
	repo := writeTree(t, map[string]string{
		".buildgate.yaml":  strings.Replace(flashAttnConfig, "requirements: [requirements.txt]", "requirements: [requirements.txt]\n    names: [fa]", 1),
		"requirements.txt": "flash-attn>=2.0.8\n",
		"ci/run_bm.sh":     "#!/bin/bash\nENV_FILE=$1\n# default: false\nsource \"$ENV_FILE\"\n",
		"ci/build_fa.sh":   "#!/bin/bash\nFA_ENV=$1\nsource \"$FA_ENV\"\n",
	})
	r := runBin(t, repo, "lint", "--root", ".")
	if strings.Contains(r.stdout, "ci/run_bm.sh") || !strings.Contains(r.stdout, "ci/build_fa.sh:3") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
