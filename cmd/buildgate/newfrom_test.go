package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func findingsOf(t *testing.T, dir string, args ...string) ([]string, result) {
	t.Helper()
	rep, r := lintJSON(t, dir, args...)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Path+":"+strconv.Itoa(f.Line)+" "+f.Rule)
	}
	return got, r
}

// Done means 3: only findings in files the change touches (whole: issue
// 26), repository-level ones always, renames followed; a shallow clone
// gets a clear error.
func TestNewFromRev(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := writeTree(t, map[string]string{
		"requirements/rocm.txt": "numpy\n", // the pin is missing from the start
		"docker/Dockerfile":     "FROM a\nARG MOONCAKE_BRANCH\n",
		"ci/old.sh":             "#!/bin/bash\nexport MOONCAKE_REPO=x\n",
	})
	gitCmd(t, dir, "init", "-q", "-b", "main")
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "commit", "-q", "-m", "one")
	// Second commit: a new finding in an old file, an old file renamed, a
	// new file; plus an uncommitted change and an untracked file.
	os.WriteFile(filepath.Join(dir, "docker/Dockerfile"), []byte("FROM a\n# a comment moves the old finding\nARG MOONCAKE_BRANCH\nARG MOONCAKE_COMMIT\n"), 0o644)
	gitCmd(t, dir, "mv", "ci/old.sh", "ci/renamed.sh")
	os.WriteFile(filepath.Join(dir, "ci/new.sh"), []byte("#!/bin/bash\ngit clone https://github.com/kvcache-ai/Mooncake.git\n"), 0o644)
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "commit", "-q", "-m", "two")
	os.WriteFile(filepath.Join(dir, "docker/untracked.Dockerfile"), []byte("FROM a AS mooncake_build\n"), 0o644)

	all, _ := findingsOf(t, dir)
	if len(all) != 6 {
		t.Fatalf("all findings: %v", all)
	}
	got, r := findingsOf(t, dir, "--new-from-rev", "HEAD~1")
	// docker/Dockerfile is touched: all its findings count (an added line
	// may change what a kept one means); ci/renamed.sh, only moved, is not.
	want := "ci/new.sh:2 BG104,docker/Dockerfile:3 BG102,docker/Dockerfile:4 BG102,docker/untracked.Dockerfile:1 BG101,requirements/rocm.txt:1 BG201"
	if strings.Join(got, ",") != want || r.code != 1 {
		t.Errorf("--new-from-rev HEAD~1: exit %d\n got %v\nwant %s", r.code, got, want)
	}
	if !strings.Contains(runBin(t, dir, "lint", "--root", ".", "--new-from-rev", "HEAD~1").stdout, "1 on unchanged lines") {
		t.Error("the text summary does not count the findings left out")
	}
	gitCmd(t, dir, "branch", "base", "HEAD~1")
	if got, _ := findingsOf(t, dir, "--new-from-merge-base", "base"); strings.Join(got, ",") != want {
		t.Errorf("--new-from-merge-base: %v", got)
	}
	if r := runBin(t, dir, "lint", "--root", ".", "--new-from-rev", "nope"); r.code != 2 || !strings.Contains(r.stderr, `unknown revision "nope"`) {
		t.Errorf("unknown revision: exit %d %s", r.code, r.stderr)
	}
	shallow := filepath.Join(t.TempDir(), "shallow")
	gitCmd(t, dir, "clone", "-q", "--depth", "1", "file://"+dir, shallow)
	r = runBin(t, shallow, "lint", "--root", ".", "--new-from-rev", "HEAD~1")
	if r.code != 2 || !strings.Contains(r.stderr, "shallow clone: fetch the history (actions/checkout with fetch-depth: 0") {
		t.Errorf("shallow clone: exit %d %s", r.code, r.stderr)
	}
	r = runBin(t, shallow, "lint", "--root", ".", "--new-from-merge-base", "origin/base")
	if r.code != 2 || !strings.Contains(r.stderr, "fetch") {
		t.Errorf("shallow clone, merge base: exit %d %s", r.code, r.stderr)
	}
	if r := runBin(t, t.TempDir(), "lint", "--root", ".", "--new-from-rev", "HEAD"); r.code != 2 || !strings.Contains(r.stderr, "not in a git repository") {
		t.Errorf("outside git: exit %d %s", r.code, r.stderr)
	}
}

// Done means 4: write a baseline, move lines, run again: only what is
// really new.
func TestBaselineRoundTrip(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"requirements/rocm.txt": pinned,
		"docker/Dockerfile":     "FROM a\nARG MOONCAKE_BRANCH\nRUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && make && make\n",
	})
	r := runBin(t, dir, "lint", "--root", ".", "--write-baseline", "baseline.json")
	if r.code != 1 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "baseline.json"))
	if err != nil || strings.Count(string(raw), `"fingerprint"`) != 3 {
		t.Fatalf("baseline: %v\n%s", err, raw)
	}
	if got, r := findingsOf(t, dir, "--baseline", "baseline.json"); len(got) != 0 || r.code != 0 {
		t.Errorf("same tree against its baseline: exit %d %v", r.code, got)
	}
	// Unrelated lines move everything down; one finding is new.
	os.WriteFile(filepath.Join(dir, "docker/Dockerfile"), []byte("# header\n\nFROM a\nLABEL x=1\nARG MOONCAKE_BRANCH\nRUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && make && make\nARG MOONCAKE_COMMIT\n"), 0o644)
	got, r := findingsOf(t, dir, "--baseline", "baseline.json")
	if strings.Join(got, ",") != "docker/Dockerfile:7 BG102" || r.code != 1 {
		t.Errorf("after moving lines: exit %d, %v (want only the new ARG)", r.code, got)
	}
	if !strings.Contains(runBin(t, dir, "lint", "--root", ".", "--baseline", "baseline.json").stdout, "3 in the baseline") {
		t.Error("the text summary does not count baselined findings")
	}
	// A second identical `make` (on a line of its own) is new even though
	// one is in the baseline.
	os.WriteFile(filepath.Join(dir, "docker/Dockerfile"), []byte("FROM a\nARG MOONCAKE_BRANCH\nRUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && make && make\nRUN cd Mooncake && make\n"), 0o644)
	if got, _ := findingsOf(t, dir, "--baseline", "baseline.json"); len(got) != 1 {
		t.Errorf("a third make: %v", got)
	}
	// A plain JSON report works as a baseline too (matched by message).
	os.WriteFile(filepath.Join(dir, "docker/Dockerfile"), []byte("FROM a\nARG MOONCAKE_BRANCH\n"), 0o644)
	out := runBin(t, dir, "lint", "--root", ".", "--format", "json=report.json")
	if out.code != 1 {
		t.Fatal(out.stderr)
	}
	if got, _ := findingsOf(t, dir, "--baseline", "report.json"); len(got) != 0 {
		t.Errorf("JSON report as baseline: %v", got)
	}
	if r := runBin(t, dir, "lint", "--root", ".", "--baseline", "nope.json"); r.code != 2 {
		t.Errorf("missing baseline: exit %d", r.code)
	}
}
