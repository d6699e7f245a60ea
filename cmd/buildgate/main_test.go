package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var binary string

// TestMain builds the real binary once: exit codes and output are tested the
// way users and CI see them.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "buildgate-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "buildgate")
	// A fixed version: reports (SARIF's tool.driver.version) stay golden.
	out, err := exec.Command("go", "build", "-ldflags=-X main.version=dev", "-o", binary, ".").CombinedOutput()
	if err != nil {
		panic("go build: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

func runBin(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return runEnv(t, dir, nil, args...)
}

func TestParseExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM a\nRUN git clone x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.Dockerfile"), []byte("FROM a\nBOGUS x\n"), 0o644)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"a Dockerfile", []string{"parse", "Dockerfile"}, 0, ""},
		{"a parse error is data, not a failure", []string{"parse", "broken.Dockerfile"}, 0, ""},
		{"kind forced", []string{"parse", "--kind", "shell", "notes.txt"}, 0, ""},
		{"missing file", []string{"parse", "nope.sh"}, 2, "nope.sh: cannot read: no such file or directory"},
		{"directory", []string{"parse", "."}, 2, "is a directory"},
		{"unknown kind of file", []string{"parse", "notes.txt"}, 2, "pass --kind"},
		{"bad --kind", []string{"parse", "--kind", "yaml", "Dockerfile"}, 2, "unknown --kind"},
		{"no arguments", []string{"parse"}, 2, "requires at least 1 arg"},
		{"unknown flag", []string{"parse", "--nope", "Dockerfile"}, 2, "unknown flag"},
		{"unknown command", []string{"bogus"}, 2, "unknown command"},
		{"version", []string{"version"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBin(t, dir, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d, stderr containing %q", r.code, r.stderr, tt.code, tt.stderr)
			}
			if tt.args[0] == "parse" && r.code == 0 {
				var docs []map[string]any
				if err := json.Unmarshal([]byte(r.stdout), &docs); err != nil || len(docs) != 1 {
					t.Errorf("stdout is not one document: %v\n%s", err, r.stdout)
				}
			}
		})
	}
}

// Done means of the loaders: every build file of the corpus parses, exit 0.
func TestParseWholeCorpus(t *testing.T) {
	t.Parallel()
	corpus, _ := filepath.Abs("../../../shared/corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("../shared/corpus is absent")
	}
	var files []string
	filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".yaml") {
			rel, _ := filepath.Rel(corpus, p)
			files = append(files, rel)
		}
		return nil
	})
	r := runBin(t, corpus, append([]string{"parse"}, files...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var docs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) < len(files) {
		t.Errorf("%d documents for %d files", len(docs), len(files))
	}
	kinds := map[string]int{}
	for _, d := range docs {
		kinds[d["kind"].(string)]++
	}
	t.Logf("%d files, documents by kind: %v", len(files), kinds)
}
