package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// action.yml is a valid composite action: the keys GitHub requires, every
// run step with a shell, and every input it uses declared.
func TestActionYAML(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Inputs      map[string]struct {
			Description string  `yaml:"description"`
			Default     *string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]struct {
			Value string `yaml:"value"`
		} `yaml:"outputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID    string            `yaml:"id"`
				Name  string            `yaml:"name"`
				Run   string            `yaml:"run"`
				Shell string            `yaml:"shell"`
				Uses  string            `yaml:"uses"`
				With  map[string]string `yaml:"with"`
				If    string            `yaml:"if"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(false)
	if err := dec.Decode(&action); err != nil {
		t.Fatal(err)
	}
	if action.Name == "" || action.Description == "" || action.Runs.Using != "composite" || len(action.Runs.Steps) == 0 {
		t.Fatalf("action.yml: %+v", action)
	}
	for _, want := range []string{"paths", "config", "fail-on", "category"} {
		if in, ok := action.Inputs[want]; !ok || in.Description == "" || in.Default == nil {
			t.Errorf("input %s missing, undescribed or without a default", want)
		}
	}
	uploads := false
	for _, s := range action.Runs.Steps {
		if s.Run != "" && s.Shell == "" {
			t.Errorf("step %q runs without a shell", s.Name)
		}
		if s.Run != "" && strings.Contains(s.Run, "${{") {
			t.Errorf("step %q puts an expression into a script (inputs go through env)", s.Name)
		}
		if strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") {
			uploads = s.With["sarif_file"] != "" && s.With["category"] != ""
		}
	}
	if !uploads {
		t.Error("no upload-sarif step with sarif_file and category")
	}
	for _, m := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(string(raw), -1) {
		if _, ok := action.Inputs[m[1]]; !ok {
			t.Errorf("uses undeclared input %s", m[1])
		}
	}
	// The steps' scripts (action/*.sh) run with a faked GitHub environment
	// in action/action_test.go.
	for _, m := range regexp.MustCompile(`steps\.([a-z-]+)\.outputs`).FindAllStringSubmatch(string(raw), -1) {
		found := false
		for _, s := range action.Runs.Steps {
			found = found || s.ID == m[1]
		}
		if !found {
			t.Errorf("refers to step %s, which has no such id", m[1])
		}
	}
}

type hook struct {
	ID            string `yaml:"id"`
	Name          string `yaml:"name"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	PassFilenames *bool  `yaml:"pass_filenames"`
	AlwaysRun     bool   `yaml:"always_run"`
}

func readHooks(t *testing.T) []hook {
	t.Helper()
	raw, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []hook
	if err := yaml.Unmarshal(raw, &hooks); err != nil {
		t.Fatal(err)
	}
	return hooks
}

// .pre-commit-hooks.yaml: a golang hook that passes every changed text
// file, and buildgate reads exactly those its discovery reads (issue 31:
// the files pattern skipped CI pipelines and shebang-only scripts, which
// `buildgate lint` reads); the others are passed over, never refused.
func TestPreCommitHooks(t *testing.T) {
	t.Parallel()
	hooks := readHooks(t)
	if len(hooks) != 1 {
		t.Fatalf("%d hooks", len(hooks))
	}
	h := hooks[0]
	if h.ID != "buildgate" || h.Language != "golang" || !strings.HasPrefix(h.Entry, "buildgate lint") || !strings.Contains(h.Entry, "--skip-unknown") || h.PassFilenames == nil || !*h.PassFilenames || !h.AlwaysRun || h.Files != "" {
		t.Errorf("hook %+v", h)
	}
	files := map[string]string{
		"requirements/rocm.txt":     "mooncake-transfer-engine-rocm >= 0.3.13\n",
		".buildkite/pipeline.yml":   "steps:\n  - command: docker build --build-arg MOONCAKE_BRANCH=v1 .\n",
		"tools/run":                 "#!/bin/bash\ngit clone https://github.com/kvcache-ai/Mooncake.git /opt/mc\n",
		"docker/Containerfile.rocm": "FROM x\nARG MOONCAKE_REPO=y\n",
		"README.md":                 "hello\n",
		"docs/notes.txt":            "notes\n",
	}
	dir := writeTree(t, files)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	r := runBin(t, dir, append(append(strings.Fields(h.Entry)[1:], "--root", ".", "--format", "json"), names...)...)
	if r.code != 1 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{".buildkite/pipeline.yml", "tools/run", "docker/Containerfile.rocm"} {
		if !strings.Contains(r.stdout, `"path": "`+want+`"`) {
			t.Errorf("no finding in %s:\n%s", want, r.stdout)
		}
	}
}

// What pre-commit does: run the hook's entry at the top level with the
// staged files the pattern takes. Whole-repository rules must not fire
// falsely on an unrelated change, and must not be skipped when the
// configured requirements file changes or goes away.
func TestPreCommitChangedFiles(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	h := readHooks(t)[0]
	re := regexp.MustCompile(h.Files)
	entry := strings.Fields(h.Entry)[1:]
	dir := writeTree(t, map[string]string{
		"requirements/rocm.txt": "numpy\nmooncake-transfer-engine-rocm >= 0.3.13\n",
		"docker/Dockerfile":     "FROM base\nRUN pip install -r requirements/rocm.txt\n",
		"ci/build.sh":           "#!/bin/bash\ndocker build -f docker/Dockerfile .\n",
		"README.md":             "hello\n",
	})
	gitCmd(t, dir, "init", "-q", "-b", "main")
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "commit", "-q", "-m", "init")
	hookRun := func(change func()) result {
		change()
		gitCmd(t, dir, "add", "-A")
		var files []string
		for _, f := range strings.Fields(gitCmd(t, dir, "diff", "--cached", "--name-only", "--diff-filter=d")) {
			if re.MatchString(f) {
				files = append(files, f)
			}
		}
		// always_run: the hook runs even when no file matches.
		r := runBin(t, dir, append(entry, files...)...)
		gitCmd(t, dir, "commit", "-q", "--allow-empty", "-m", "step")
		return r
	}
	write := func(name, content string) func() {
		return func() {
			if err := os.WriteFile(dir+"/"+name, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := []struct {
		name   string
		change func()
		code   int
		want   string
	}{
		{"unrelated script change: no false BG201", write("ci/build.sh", "#!/bin/bash\necho building\n"), 0, "2 files checked, 0 findings"},
		{"only README: only the pin is checked", write("README.md", "changed\n"), 0, "1 file checked, 0 findings"},
		{"the pin dropped", write("requirements/rocm.txt", "numpy\n"), 1, "requirements/rocm.txt:1:1: error: requirements/rocm.txt does not require"},
		{"a Dockerfile change while the pin is gone: still reported", write("docker/Dockerfile", "FROM base\nRUN pip install -r requirements/rocm.txt && echo x\n"), 1, "[BG201 wheel-pin-missing]"},
		{"the pin back, too low", write("requirements/rocm.txt", "mooncake-transfer-engine-rocm>0.3.12\n"), 1, "[BG202 wheel-pin-too-low]"},
		{"the file deleted while the Dockerfile installs it (not among the files passed)", func() { os.Remove(dir + "/requirements/rocm.txt") }, 1, "requirements/rocm.txt does not exist"},
		{"the Dockerfile stops installing it: nothing to guard", write("docker/Dockerfile", "FROM base\n"), 0, "1 file checked, 0 findings"},
		{"a source build added in a script", write("ci/build.sh", "#!/bin/bash\ngit clone https://github.com/kvcache-ai/Mooncake.git\n"), 1, "ci/build.sh:2:1: error:"},
	}
	for _, s := range steps {
		r := hookRun(s.change)
		if r.code != s.code || !strings.Contains(r.stdout, s.want) {
			t.Errorf("%s: exit %d\nstdout: %s\nstderr: %s\nwant exit %d and %q", s.name, r.code, r.stdout, r.stderr, s.code, s.want)
		}
	}
}

// The house rule that no non-test Go file is over 600 lines (DEVELOPERS:
// small packages, each file one job), held by a test: two files had grown
// past it unnoticed (fix/across.go, fix/dockerfile.go).
func TestGoFilesAreSmall(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("git", "-C", "../..", "ls-files", "*.go").Output()
	if err != nil {
		t.Skip("not a git checkout:", err)
	}
	for _, f := range strings.Fields(string(out)) {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "tools/") {
			continue
		}
		b, err := os.ReadFile("../../" + f)
		if err != nil {
			continue // listed but not in the working tree
		}
		if n := strings.Count(string(b), "\n"); n > 600 {
			t.Errorf("%s has %d lines, over 600: split it by job", f, n)
		}
	}
}

// Issue 31: pre-commit installs a golang hook with `go install ./...`:
// the only command it builds is buildgate's (the benchmark harness needs
// -tags bench).
func TestPreCommitBuildsOnlyBuildgate(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", "{{.Name}} {{.ImportPath}}", "../../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var mains []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if name, path, _ := strings.Cut(l, " "); name == "main" {
			mains = append(mains, path)
		}
	}
	if len(mains) != 1 || !strings.HasSuffix(mains[0], "/cmd/buildgate") {
		t.Errorf("go install ./... builds %v", mains)
	}
}
