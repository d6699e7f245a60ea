package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/buildgate/buildgate/internal/testfs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

type jsonReport struct {
	Tool     map[string]string `json:"tool"`
	Findings []struct {
		Rule      string `json:"rule"`
		Name      string `json:"name"`
		Severity  string `json:"severity"`
		Message   string `json:"message"`
		Path      string `json:"path"`
		Line      int    `json:"line"`
		Column    int    `json:"column"`
		EndLine   int    `json:"end_line"`
		EndColumn int    `json:"end_column"`
	} `json:"findings"`
	Summary map[string]int `json:"summary"`
}

func lintJSON(t *testing.T, dir string, args ...string) (jsonReport, result) {
	t.Helper()
	r := runBin(t, dir, append([]string{"lint", "--root", ".", "--format", "json"}, args...)...)
	var rep jsonReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("exit %d, not JSON: %v\nstdout: %s\nstderr: %s", r.code, err, r.stdout, r.stderr)
	}
	return rep, r
}

func corpusDir(t *testing.T, sub string) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("../../../shared/corpus", sub))
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/corpus is absent")
	}
	return dir
}

// Done means 1: the migrated files are clean; the files from before the
// pin landed have exactly the missing pin.
func TestLintVLLMCorpus(t *testing.T) {
	t.Parallel()
	rep, r := lintJSON(t, corpusDir(t, "vllm/after"))
	if r.code != 0 || len(rep.Findings) != 0 {
		t.Errorf("vllm/after: exit %d, findings %+v", r.code, rep.Findings)
	}
	if rep.Summary["files"] != 4 {
		t.Errorf("vllm/after: %d files, want 4", rep.Summary["files"])
	}
	rep, r = lintJSON(t, corpusDir(t, "vllm/latest"))
	if r.code != 1 || len(rep.Findings) != 1 || rep.Findings[0].Rule != "BG201" || rep.Findings[0].Path != "requirements/rocm.txt" {
		t.Errorf("vllm/latest: exit %d, findings %+v; want exactly BG201 on requirements/rocm.txt", r.code, rep.Findings)
	}
	if rep.Summary["files"] != 91 {
		t.Errorf("vllm/latest: %d files, want 91", rep.Summary["files"])
	}
}

// Done means 2: real Dockerfiles and scripts that build Mooncake from
// source are reported at the lines of its ARGs and of the commands that
// clone and build it, and at nothing else.
func TestLintSourceBuildCorpus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		dir, file string
		want      []string
	}{
		{"sglang", "docker/rocm.Dockerfile", []string{
			// ENV BUILD_MOONCAKE="1" in each ROCm variant stage: the switch
			// that turns the source build on (issue 13)
			"63 BG102", "73 BG102", "84 BG102", "108 BG102", "118 BG102", "129 BG102", "288 BG102", "302 BG102", "316 BG102",
			"381 BG102", "382 BG102", // ARG MOONCAKE_REPO, MOONCAKE_COMMIT
			"624 BG102", "624 BG104", // git clone ${MOONCAKE_REPO}
			"626 BG102", "626 BG104", // git checkout ${MOONCAKE_COMMIT}
			"627 BG104",              // git submodule update
			"628 BG104",              // bash dependencies.sh -y
			"635 BG104",              // cmake ..
			"636 BG104", "636 BG104", // make -j && make install
			// issue 29: the image installs no requirements/rocm.txt; the
			// pin finding is at its last plain, unconditional pip install
			// in the image of the source build's stage (Python tools)
			"843 BG201",
		}},
		{"ROCm-ATOM", "docker/atom_release.dockerfile", []string{
			"104 BG102", // ARG INSTALL_MOONCAKE=1, the switch
			"107 BG102", "108 BG102",
			"115 BG102", "115 BG104",
			"117 BG102", "117 BG104",
			"118 BG104",
			"133 BG104",
			"176 BG104", "192 BG104", "199 BG104",
			// issue 29: pip install --no-cache-dir msgpack msgspec quart
			"254 BG201",
		}},
		// A CUDA build (-DUSE_CUDA=ON): not the ROCm package's source
		// build, so nothing from the ROCm pack (issue 13). It clones and
		// builds at lines 5, 40-48; other_platforms keeps it silent.
		{"NVIDIA-TensorRT-LLM", "docker/common/install_mooncake.sh", nil},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			rep, r := lintJSON(t, corpusDir(t, tc.dir))
			if want := map[bool]int{true: 1, false: 0}[len(tc.want) > 0]; r.code != want {
				t.Errorf("exit %d, want %d", r.code, want)
			}
			var got []string
			for _, f := range rep.Findings {
				switch {
				case f.Path == tc.file:
					got = append(got, fmt.Sprintf("%d %s", f.Line, f.Rule))
				case f.Path == "requirements/rocm.txt" && f.Rule == "BG201":
				default:
					t.Errorf("unexpected finding %+v", f)
				}
			}
			sort.Strings(got)
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("findings\n got %v\nwant %v", got, want)
			}
		})
	}
}

// Done means 3: the reconstructed before-state is reported element by
// element, the after-state is clean, and both outputs are golden.
func TestLintFixtures(t *testing.T) {
	t.Parallel()
	for _, state := range []string{"before", "after"} {
		t.Run(state, func(t *testing.T) {
			dir, _ := filepath.Abs(filepath.Join("../../testdata/vllm-rocm", state))
			rep, r := lintJSON(t, dir)
			wantCode := map[string]int{"before": 1, "after": 0}[state]
			if r.code != wantCode {
				t.Errorf("exit %d, want %d: %s", r.code, wantCode, r.stderr)
			}
			// What the run finds; how each format writes it is report's
			// contract (report/contract_test.go).
			golden(t, filepath.Join("../../testdata/vllm-rocm", state+".golden.json"), r.stdout)
			if state == "after" {
				if len(rep.Findings) != 0 {
					t.Errorf("after-state findings: %+v", rep.Findings)
				}
				return
			}
			var got []string
			for _, f := range rep.Findings {
				got = append(got, fmt.Sprintf("%s:%d %s", f.Path, f.Line, f.Rule))
			}
			want := readExpected(t, "../../testdata/vllm-rocm/before.expected")
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("findings differ from before.expected\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func readExpected(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line != "" {
			out = append(out, line)
		}
	}
	sort.Strings(out)
	return out
}

// junitTime is JUnit's run time, the one part of a report that changes
// from run to run.
var junitTime = regexp.MustCompile(`time="[0-9.]+"`)

func golden(t *testing.T, path, got string) {
	t.Helper()
	got = junitTime.ReplaceAllString(got, `time="T"`)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/buildgate -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run go test ./cmd/buildgate -update and review the diff)\n got:\n%s", path, got)
	}
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	return testfs.Tree(t, files)
}

// Done means 5: exit codes and --fail-on through the binary.
func TestLintExitCodes(t *testing.T) {
	t.Parallel()
	clean := writeTree(t, map[string]string{"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.13\n"})
	// BG204 is an error since issue 29 (a sibling variant in the image is
	// no pin of its package); the configuration makes it the warning here.
	warnOnly := writeTree(t, map[string]string{
		"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.13\nmooncake-transfer-engine\n",
		".buildgate.yaml":       "rules:\n  BG204: warning\n",
	})
	failing := writeTree(t, map[string]string{
		"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.9\n",
		"Dockerfile":            "FROM a\nARG MOONCAKE_BRANCH\n",
		"README.md":             "not a build file\n",
	})
	tests := []struct {
		name   string
		dir    string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"clean", clean, nil, 0, "1 file checked, 0 findings", ""},
		{"errors fail", failing, nil, 1, "Dockerfile:2:5: error: `MOONCAKE_BRANCH` is a build argument", ""},
		{"errors with --fail-on never", failing, []string{"--fail-on", "never"}, 0, "2 errors", ""},
		{"warning passes by default", warnOnly, nil, 0, "warning: mooncake-transfer-engine is a different variant", ""},
		{"warning fails with --fail-on warning", warnOnly, []string{"--fail-on", "warning"}, 1, "", ""},
		{"warning fails with --fail-on note", warnOnly, []string{"--fail-on", "note"}, 1, "", ""},
		{"clean with --fail-on note", clean, []string{"--fail-on", "note"}, 0, "", ""},
		{"bad --fail-on", clean, []string{"--fail-on", "sometimes"}, 2, "", "--fail-on \"sometimes\""},
		{"bad --format", clean, []string{"--format", "xml"}, 2, "", "--format \"xml\""},
		{"unknown flag", clean, []string{"--nope"}, 2, "", "unknown flag"},
		{"missing path", clean, []string{"nope/"}, 2, "", "nope/: does not exist"},
		{"path outside the root", clean, []string{".."}, 2, "", "outside the repository root"},
		{"a file that is no build file", failing, []string{"README.md"}, 2, "", "not a build file"},
		{"one file still checks the pin", failing, []string{"Dockerfile"}, 1, "requirements/rocm.txt:1:", ""},
		{"missing config", clean, []string{"--config", "nope.yaml"}, 2, "", "nope.yaml: cannot read"},
		{"json", clean, []string{"--format", "json"}, 0, `"findings": []`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBin(t, tt.dir, append([]string{"lint", "--root", "."}, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant exit %d, stdout containing %q, stderr containing %q",
					r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
			if strings.Contains(r.stdout, "\x1b[") {
				t.Error("colour in a pipe")
			}
		})
	}
}

func TestLintConfig(t *testing.T) {
	t.Parallel()
	base := map[string]string{
		"requirements/rocm.txt":  "mooncake-transfer-engine-rocm>=0.3.13\nmooncake-transfer-engine\n",
		"third_party/Dockerfile": "FROM a AS mooncake_build\n",
	}
	tests := []struct {
		name   string
		config string
		code   int
		stdout string
		stderr string
	}{
		{"exclude glob", "exclude: [third_party/**]\n", 1, "1 error", ""},
		{"severity override", "exclude: [third_party]\nrules:\n  BG204: warning\n", 0, "warning: mooncake-transfer-engine is a different variant", ""},
		{"disable by name", "rules:\n  source-build-stage: off\n  BG204: {disabled: true}\n", 0, "0 findings", ""},
		{"other migration", "migrations:\n  - package: nixl\n    minimum: \"0.5\"\n    requirements: [requirements/rocm.txt]\n", 1, "requirements/rocm.txt does not require nixl", ""},
		{"no migrations", "migrations: []\n", 0, "0 findings", ""},
		{"unknown key", "migrations: []\nbogus: 1\n", 2, "", ".buildgate.yaml:2: unknown key \"bogus\""},
		{"unknown migration key", "migrations:\n  - package: x\n    minimum: \"1\"\n    minimal: 2\n", 2, "", ".buildgate.yaml:4: unknown key \"minimal\""},
		{"bad version", "migrations:\n  - package: x\n    minimum: one.two\n", 2, "", ".buildgate.yaml:3: minimum \"one.two\" is not a PEP 440 version"},
		{"bad glob", "exclude:\n  - \"docs/[\"\n", 2, "", ".buildgate.yaml:2: \"docs/[\" is not a valid glob"},
		{"unknown rule", "rules:\n  BG999: off\n", 2, "", ".buildgate.yaml:2: rules: \"BG999\" is not a rule id or name"},
		{"bad severity", "rules:\n  BG101: fatal\n", 2, "", ".buildgate.yaml:2: rule BG101: \"fatal\""},
		{"yaml syntax", "rules: [\n", 2, "", ".buildgate.yaml:"},
		{"missing package", "migrations:\n  - minimum: \"1.0\"\n", 2, "", ".buildgate.yaml:2: a migration needs a package"},
		// Issue 32: a migration that only stopped building the package
		// needs no minimum (any published version will do).
		{"no minimum", "migrations:\n  - package: x\n", 0, "0 findings", ""},
		{"bad allow entry", "allow: [\"a b\"]\n", 2, "", "allow entry \"a b\" is neither"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{".buildgate.yaml": tt.config}
			for k, v := range base {
				files[k] = v
			}
			r := runBin(t, writeTree(t, files), "lint", "--root", ".")
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant exit %d, stdout containing %q, stderr containing %q",
					r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

func TestLintOutputFileAndRules(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{"requirements/rocm.txt": "mooncake-transfer-engine-rocm\n"})
	r := runBin(t, dir, "lint", "--root", ".", "--format", "json", "--output", "out.json")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil || !strings.Contains(string(b), `"rule": "BG202"`) {
		t.Errorf("out.json: %v %s", err, b)
	}
	r = runBin(t, dir, "rules")
	for _, id := range []string{"BG001", "BG101", "BG102", "BG103", "BG104", "BG201", "BG202", "BG203", "BG204"} {
		if !strings.Contains(r.stdout, id) {
			t.Errorf("rules lacks %s:\n%s", id, r.stdout)
		}
	}
	r = runBin(t, dir, "rules", "--format", "json")
	var rules []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rules); err != nil || len(rules) != 13 {
		t.Errorf("rules --format json: %v, %d rules", err, len(rules))
	}
}

// Issue 13: a repository the built-in migration does not concern (moby,
// buildx, terraform: Dockerfiles, bake files and scripts, no
// requirements/rocm.txt, no Mooncake) gets a clean, quiet run, also on one
// file; the vLLM after-state with rocm.txt deleted, while its Dockerfile
// still installs it, gets BG201.
func TestBuiltInMigrationRelevance(t *testing.T) {
	t.Parallel()
	unrelated := writeTree(t, map[string]string{
		"Dockerfile":         "FROM golang:1.26\nRUN go build ./...\n",
		"docker-bake.hcl":    "target \"default\" {\n  dockerfile = \"Dockerfile\"\n}\n",
		"hack/test.sh":       "#!/bin/bash\ngo test ./...\n",
		"requirements-x.txt": "requests\n",
	})
	for _, args := range [][]string{{"lint", "--root", "."}, {"lint", "--root", ".", "hack/test.sh"}} {
		r := runBin(t, unrelated, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "0 findings") || !strings.Contains(r.stdout, "The built-in migration (Mooncake ROCm wheel) has nothing to guard here") {
			t.Errorf("%v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	os.WriteFile(filepath.Join(unrelated, ".buildgate.yaml"), []byte("exclude: [vendor/**]\n"), 0o644)
	if r := runBin(t, unrelated, "lint", "--root", "."); r.code != 0 || strings.Contains(r.stdout, "nothing to guard") {
		t.Errorf("with a configuration of its own: exit %d\n%s", r.code, r.stdout)
	}

	after := t.TempDir()
	if err := os.CopyFS(after, os.DirFS("../../testdata/vllm-rocm/after")); err != nil {
		t.Fatal(err)
	}
	if r := runBin(t, after, "lint", "--root", "."); r.code != 0 {
		t.Fatalf("after-state: exit %d\n%s", r.code, r.stdout)
	}
	os.Remove(filepath.Join(after, "requirements/rocm.txt"))
	for _, args := range [][]string{{"lint", "--root", "."}, {"lint", "--root", ".", "docker/ci-rocm.hcl"}} {
		r := runBin(t, after, args...)
		if r.code != 1 || !strings.Contains(r.stdout, "requirements/rocm.txt:1:1: error: requirements/rocm.txt does not exist") {
			t.Errorf("%v with rocm.txt deleted: exit %d\n%s", args, r.code, r.stdout)
		}
	}
}
