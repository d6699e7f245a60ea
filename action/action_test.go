// Package action_test runs the GitHub Action's steps (action.yml and the
// scripts beside this file) with a faked GITHUB_* environment: output and
// summary files, same-repository, fork and Dependabot runs — everything
// short of GitHub itself (issue 15).
package action_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "buildgate-action")
	if err != nil {
		panic(err)
	}
	binDir = dir
	out, err := exec.Command("go", "build", "-ldflags=-X main.version=test", "-o", filepath.Join(dir, "buildgate"), "../cmd/buildgate").CombinedOutput()
	if err != nil {
		panic("go build: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type step struct {
	stdout, stderr string
	code           int
	outputs        map[string]string
	summary        string
}

// runStep runs one of the action's scripts as the runner would: bash, in
// dir, with GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files and the env given.
func runStep(t *testing.T, script, dir string, env map[string]string) step {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	tmp := t.TempDir()
	outFile, sumFile := filepath.Join(tmp, "output"), filepath.Join(tmp, "summary")
	for _, f := range []string{outFile, sumFile} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs, _ := filepath.Abs(script)
	cmd := exec.Command(bash, abs)
	cmd.Dir = dir
	path := binDir + string(os.PathListSeparator) + os.Getenv("PATH")
	if p, ok := env["PATH"]; ok {
		path = p
	}
	cmd.Env = []string{
		"PATH=" + path,
		"HOME=" + os.Getenv("HOME"),
		"RUNNER_TEMP=" + tmp,
		"GITHUB_OUTPUT=" + outFile,
		"GITHUB_STEP_SUMMARY=" + sumFile,
		"GITHUB_PATH=" + filepath.Join(tmp, "path"),
	}
	for k, v := range env {
		if k != "PATH" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err = cmd.Run()
	s := step{stdout: so.String(), stderr: se.String(), outputs: map[string]string{}}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		s.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(outFile)
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			s.outputs[k] = v
		}
	}
	sum, _ := os.ReadFile(sumFile)
	s.summary = string(sum)
	return s
}

func TestUploadCheck(t *testing.T) {
	cases := []struct {
		name   string
		env    map[string]string
		upload string
		notice bool
	}{
		{"push", map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r"}, "true", false},
		{"pull request from a branch", map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "o/r", "BG_HEAD_REPO": "o/r"}, "true", false},
		{"pull request from a fork", map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "o/r", "BG_HEAD_REPO": "someone/r"}, "false", true},
		{"Dependabot", map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "o/r", "BG_HEAD_REPO": "o/r", "GITHUB_ACTOR": "dependabot[bot]"}, "false", true},
		{"upload off", map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r", "BG_UPLOAD": "false"}, "false", false},
		// Issue 31: booleans in any case.
		{"upload True", map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r", "BG_UPLOAD": "True"}, "true", false},
		{"upload FALSE", map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r", "BG_UPLOAD": "FALSE"}, "false", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := runStep(t, "upload-check.sh", t.TempDir(), c.env)
			if s.code != 0 || s.outputs["upload"] != c.upload {
				t.Errorf("exit %d, upload=%q, want %q\n%s%s", s.code, s.outputs["upload"], c.upload, s.stdout, s.stderr)
			}
			if got := strings.Contains(s.stdout, "::notice title=buildgate::not uploading"); got != c.notice {
				t.Errorf("notice %v, want %v: %s", got, c.notice, s.stdout)
			}
		})
	}
}

// Issue 31: a boolean input that is neither true nor false, in any case,
// is an error, never a silent "off".
func TestBooleanInputs(t *testing.T) {
	s := runStep(t, "upload-check.sh", t.TempDir(), map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "o/r", "BG_UPLOAD": "yes"})
	if s.code != 2 || !strings.Contains(s.stderr, `input upload is "yes": want true or false`) {
		t.Errorf("upload yes: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	before := copyTree(t, "../testdata/vllm-rocm/before")
	s = runStep(t, "lint.sh", before, map[string]string{"BG_PATHS": ".", "BG_FAIL_ON": "error", "BG_SARIF": "b.sarif", "BG_FROM_BASE": "off"})
	if s.code != 2 || !strings.Contains(s.stderr, "input config-from-base") {
		t.Errorf("config-from-base off: exit %d\n%s%s", s.code, s.stdout, s.stderr)
	}
}

// copyTree copies a fixture so that reports can be written beside it.
func copyTree(t *testing.T, from string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLintStep(t *testing.T) {
	before := copyTree(t, "../testdata/vllm-rocm/before")
	base := map[string]string{"BG_PATHS": ".", "BG_FAIL_ON": "error", "BG_SARIF": "buildgate.sarif", "BG_FROM_BASE": "false"}
	env := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	// Uploading: no annotations in the log (code scanning has them).
	s := runStep(t, "lint.sh", before, env(map[string]string{"BG_ANNOTATE": "false"}))
	want := map[string]string{"exit-code": "1", "sarif-file": "buildgate.sarif", "errors": "62", "warnings": "0", "notes": "0", "findings": "62"}
	for k, v := range want {
		if s.outputs[k] != v {
			t.Errorf("output %s=%q, want %q (outputs %v)\n%s", k, s.outputs[k], v, s.outputs, s.stderr)
		}
	}
	if s.code != 0 {
		t.Errorf("the lint step exits %d; the finish step fails the job", s.code)
	}
	if _, err := os.Stat(filepath.Join(before, "buildgate.sarif")); err != nil {
		t.Errorf("no SARIF report: %v", err)
	}
	if !strings.HasPrefix(s.summary, "### buildgate: 62 findings in 4 files") {
		t.Errorf("job summary: %.200s", s.summary)
	}
	if strings.Contains(s.stdout, "::error ") {
		t.Error("annotations while uploading: code scanning annotates the same lines")
	}
	if s.outputs["sarif-written"] != "true" || !strings.Contains(s.stdout, "findings go to code scanning") {
		t.Errorf("sarif-written %q, notice:\n%.300s", s.outputs["sarif-written"], s.stdout)
	}
	// Issue 31: a sarif-file outside the workspace (runner.temp) is
	// uploaded too: the step says there is one, whatever hashFiles sees.
	outside := filepath.Join(t.TempDir(), "b.sarif")
	s = runStep(t, "lint.sh", before, env(map[string]string{"BG_ANNOTATE": "false", "BG_SARIF": outside, "BG_FROM_BASE": "False"}))
	if s.outputs["sarif-written"] != "true" {
		t.Errorf("sarif outside the workspace: outputs %v\n%s", s.outputs, s.stderr)
	}
	// Not uploading (a fork): annotations instead; a category is passed.
	s = runStep(t, "lint.sh", before, env(map[string]string{"BG_ANNOTATE": "true", "BG_CATEGORY": "rocm"}))
	if !strings.Contains(s.stdout, "::error file=docker/Dockerfile.rocm,") {
		t.Errorf("no annotations without the upload:\n%.300s", s.stdout)
	}
	sarif, _ := os.ReadFile(filepath.Join(before, "buildgate.sarif"))
	if !strings.Contains(string(sarif), `"id": "rocm/"`) {
		t.Error("the category input does not reach automationDetails")
	}
	// A clean tree, paths one per line, one of them with a space.
	clean := copyTree(t, "../testdata/vllm-rocm/after")
	if err := os.MkdirAll(filepath.Join(clean, "ci scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(clean, "ci scripts", "build.sh"), []byte("#!/bin/sh\ntrue\n"), 0o644)
	s = runStep(t, "lint.sh", clean, env(map[string]string{"BG_PATHS": "ci scripts/build.sh\ndocker requirements", "BG_ANNOTATE": "false"}))
	if s.outputs["exit-code"] != "0" || s.outputs["findings"] != "0" || !strings.Contains(s.summary, "no findings in 4 files") {
		t.Errorf("clean tree: outputs %v, summary %q\n%s", s.outputs, s.summary, s.stderr)
	}
}

func TestFinishStep(t *testing.T) {
	for _, c := range []struct {
		status, outcome string
		code            int
		warn            bool
	}{
		{"0", "success", 0, false},
		{"0", "failure", 0, true}, // a failed upload never fails a clean lint
		{"1", "success", 1, false},
		{"2", "", 2, false},
		{"", "", 2, false}, // lint did not run
	} {
		s := runStep(t, "finish.sh", t.TempDir(), map[string]string{"BG_STATUS": c.status, "BG_UPLOAD_OUTCOME": c.outcome})
		if s.code != c.code || strings.Contains(s.stdout, "::warning") != c.warn {
			t.Errorf("status %q, upload %q: exit %d, want %d\n%s", c.status, c.outcome, s.code, c.code, s.stdout)
		}
	}
}

// install.sh with a stand-in for go that records its arguments and
// writes a buildgate that prints the version it was given: the script's
// choices without a minute of compiling (CI builds the real thing).
func TestInstallStep(t *testing.T) {
	fake := t.TempDir()
	log := filepath.Join(fake, "go.log")
	os.WriteFile(filepath.Join(fake, "go"), []byte(`#!/bin/sh
echo "$PWD $*" >> "`+log+`"
out=""; ver=devel
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    "-ldflags=-X main.version="*) ver="${1#-ldflags=-X main.version=}" ;;
    *@v*) ver="${1##*@}" ;;
  esac
  shift
done
[ -n "$out" ] || out="$GOBIN/buildgate"
printf '#!/bin/sh\necho "buildgate %s"\n' "$ver" > "$out"
chmod +x "$out"
`), 0o755)
	root, _ := filepath.Abs("..")
	path := fake + string(os.PathListSeparator) + os.Getenv("PATH")
	cases := []struct {
		name string
		env  map[string]string
		code int
		out  string
		cmd  string
	}{
		{"the action's ref", map[string]string{"BG_ACTION_REF": "v9.8.7"}, 0, "buildgate v9.8.7", root + " build -trimpath -ldflags=-X main.version=v9.8.7 -o"},
		{"uses: ./ (no ref)", map[string]string{}, 0, "buildgate devel", root + " build -trimpath -ldflags= -o"},
		{"a release", map[string]string{"BG_VERSION": "v1.2.3"}, 0, "buildgate v1.2.3", "install github.com/buildgate/buildgate/cmd/buildgate@v1.2.3"},
		{"not a release", map[string]string{"BG_VERSION": "latest"}, 2, "want a release tag", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(log)
			env := map[string]string{"BG_ACTION_PATH": root, "PATH": path}
			for k, v := range c.env {
				env[k] = v
			}
			s := runStep(t, "install.sh", t.TempDir(), env)
			calls, _ := os.ReadFile(log)
			if s.code != c.code || !strings.Contains(s.stdout, c.out) || !strings.Contains(string(calls), c.cmd) {
				t.Errorf("exit %d, want %d\nstdout: %s\ngo: %s\nstderr: %s", s.code, c.code, s.stdout, calls, s.stderr)
			}
		})
	}
}

// The metadata: every action used is pinned by commit with its tag in a
// comment, every script a step runs exists, every input a step reads is
// declared.
func TestActionMetadata(t *testing.T) {
	raw, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`(?m)uses: ([^@\s]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+$`)
	uses := regexp.MustCompile(`(?m)uses: (\S+)`)
	if n, p := len(uses.FindAllString(string(raw), -1)), len(pinned.FindAllString(string(raw), -1)); n == 0 || n != p {
		t.Errorf("%d uses, %d pinned by commit with the tag in a comment", n, p)
	}
	if !strings.Contains(string(raw), "github/codeql-action/upload-sarif@") || strings.Contains(string(raw), "upload-sarif@v3") {
		t.Error("upload-sarif v4 expected")
	}
	var meta struct {
		Inputs map[string]any `yaml:"inputs"`
		Runs   struct {
			Steps []struct {
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	script := regexp.MustCompile(`\$GITHUB_ACTION_PATH/(action/[a-z-]+\.sh)`)
	input := regexp.MustCompile(`inputs\.([a-z-]+)`)
	for _, s := range meta.Runs.Steps {
		for _, m := range script.FindAllStringSubmatch(s.Run, -1) {
			if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
				t.Errorf("step runs %s: %v", m[1], err)
			}
		}
	}
	for _, m := range input.FindAllStringSubmatch(string(raw), -1) {
		if _, ok := meta.Inputs[m[1]]; !ok {
			t.Errorf("inputs.%s is not declared", m[1])
		}
	}
}

// The workflows docs/ci shows are the files actionlint checks.
func TestDocsShowWorkflows(t *testing.T) {
	marker := regexp.MustCompile("(?s)<!-- workflow: (\\S+) -->\n```yaml\n(.*?)```\n")
	docs, _ := filepath.Glob("../docs/ci/*.md")
	shown := map[string]bool{}
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range marker.FindAllStringSubmatch(string(b), -1) {
			want, err := os.ReadFile(filepath.Join("..", m[1]))
			if err != nil {
				t.Errorf("%s shows %s: %v", d, m[1], err)
				continue
			}
			if m[2] != string(want) {
				t.Errorf("%s does not show %s as it is", d, m[1])
			}
			shown[m[1]] = true
		}
	}
	files, _ := filepath.Glob("../docs/ci/workflows/*.yml")
	for _, f := range files {
		if rel := strings.TrimPrefix(f, "../"); !shown[rel] {
			t.Errorf("%s is not shown in docs/ci", rel)
		}
	}
}
