package discover

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/loader"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"docker/Dockerfile.rocm":     "FROM a\n",
		"docker/ci.hcl":              "x = 1\n",
		"requirements/rocm.txt":      "numpy\n",
		"requirements/sub/extra.txt": "numpy\n",
		"scripts/build.sh":           "echo\n",
		"scripts/run":                "#!/usr/bin/env bash\necho\n",
		"scripts/notes":              "plain text\n",
		"README.md":                  "# x\n",
		"node_modules/x/Dockerfile":  "FROM a\n",
		".git/hooks/pre-commit.sh":   "echo\n",
		"third_party/lib/Dockerfile": "FROM a\n",
		"app.Dockerfile":             "FROM a\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := Find(dir, []string{dir}, Options{Excluded: func(rel string) bool { return strings.HasPrefix(rel, "third_party") }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path+"="+string(f.Kind))
	}
	want := "app.Dockerfile=dockerfile docker/Dockerfile.rocm=dockerfile docker/ci.hcl=hcl requirements/rocm.txt=requirements " +
		"requirements/sub/extra.txt=requirements scripts/build.sh=shell scripts/run=shell"
	if strings.Join(got, " ") != want {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	// An excluded file stays out even when named.
	files, err = Find(dir, []string{filepath.Join(dir, "third_party/lib/Dockerfile")}, Options{Excluded: func(string) bool { return true }})
	if err != nil || len(files) != 0 {
		t.Errorf("excluded explicit file: %v %v", files, err)
	}
	files, err = Find(dir, []string{filepath.Join(dir, "third_party/lib/Dockerfile")}, Options{})
	if err != nil || len(files) != 1 {
		t.Errorf("explicit file: %v %v", files, err)
	}
	for _, bad := range []string{filepath.Join(dir, "README.md"), filepath.Join(dir, "nope"), filepath.Dir(dir)} {
		if _, err := Find(dir, []string{bad}, Options{}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// CI pipelines by their places, GitLab CI's local includes (globs, nested,
// never outside the root), and kinds the configuration gives.
func TestFindPipelines(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		".buildkite/release.yaml":       "steps: []\n",
		".github/workflows/ci.yml":      "on: push\n",
		".github/actions/a/action.yml":  "runs: {using: composite}\n",
		".github/other.yml":             "x: 1\n",
		".gitlab-ci.yml":                "include:\n  - local: /ci/build.yml\n  - '/ci/jobs/*.yml'\n  - remote: https://x/y.yml\n  - ../outside.yml\n  - /missing.yml\n  - ci/spec.yml\n  - ci/link.yml\n",
		"ci/build.yml":                  "include: ci/nested.yml\n",
		"ci/nested.yml":                 "job: {script: [make]}\n",
		"ci/jobs/a.yml":                 "a: {script: [make]}\n",
		"ci/jobs/b.yml":                 "b: {script: [make]}\n",
		"ci/unrelated.yml":              "x: 1\n",
		"ci/spec.yml":                   "spec:\n  inputs: {}\n---\ninclude: ci/second-doc.yml\nchild:\n  trigger:\n    include:\n      - local: ci/child.yml\n",
		"ci/second-doc.yml":             "a: {script: [make]}\n",
		"ci/child.yml":                  "c: {script: [make]}\n",
		".github/workflows/uses.yml":    "jobs:\n  j:\n    steps:\n      - uses: ./ci/actions/img\n",
		"ci/actions/img/action.yml":     "runs: {using: composite, steps: []}\n",
		".buildkite/up.yml":             "steps:\n  - command: buildkite-agent pipeline upload ci/rocm-pipeline.yml\n",
		"ci/rocm-pipeline.yml":          "steps: []\n",
		".buildkite/docker-compose.yml": "services: {}\n",
		".buildkite/pipeline.json":      "{\"steps\": []}\n",
		"deploy/pipeline.yaml":          "steps: []\n",
		"docker-compose.yml":            "services: {}\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(filepath.Dir(dir), "outside.yml"), []byte("x: 1\n"), 0o644)
	// A link out of the root is kept, for the loader to refuse (BG001).
	if err := os.Symlink(filepath.Join(filepath.Dir(dir), "outside.yml"), filepath.Join(dir, "ci", "link.yml")); err != nil {
		t.Fatal(err)
	}
	kind := func(rel string) (loader.Kind, bool) {
		if rel == "deploy/pipeline.yaml" {
			return loader.KindPipeline, true
		}
		return "", false
	}
	files, err := Find(dir, []string{dir}, Options{Kind: kind})
	if err != nil {
		t.Fatal(err)
	}
	// The runner follows the references of what it loads (Refs); here
	// each file is parsed from disk as it does.
	refs, err := NewRefs(context.Background(), dir, files, Options{Kind: kind})
	if err != nil {
		t.Fatal(err)
	}
	defer refs.Close()
	queue := files
	for len(queue) > 0 {
		var more []File
		for _, f := range queue {
			src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
			if err != nil {
				continue
			}
			add, _ := refs.Follow(f.Path, loader.References(loader.Parse(f.Kind, f.Path, src)))
			more = append(more, add...)
		}
		files = append(files, more...)
		queue = more
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	var got []string
	for _, f := range files {
		got = append(got, f.Path+"="+string(f.Kind))
	}
	// Compose files are read for their builds (system "compose"), in
	// .buildkite/ too (the docker-compose plugin's).
	want := ".buildkite/docker-compose.yml=pipeline .buildkite/pipeline.json=pipeline .buildkite/release.yaml=pipeline .buildkite/up.yml=pipeline .github/actions/a/action.yml=pipeline " +
		".github/workflows/ci.yml=pipeline .github/workflows/uses.yml=pipeline .gitlab-ci.yml=pipeline " +
		"ci/actions/img/action.yml=pipeline ci/build.yml=pipeline ci/child.yml=pipeline ci/jobs/a.yml=pipeline ci/jobs/b.yml=pipeline ci/link.yml=pipeline " +
		"ci/nested.yml=pipeline ci/rocm-pipeline.yml=pipeline ci/second-doc.yml=pipeline ci/spec.yml=pipeline deploy/pipeline.yaml=pipeline docker-compose.yml=pipeline"
	if strings.Join(got, " ") != want {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}

// A file is read as one kind: a reference that has it read as another
// (docker build -f of a file found as a script by its name, or run by sh
// before) is said at the reference, as a part not read (issue 26).
func TestRefKindConflict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "ci"), 0o755)
	os.WriteFile(filepath.Join(dir, "ci", "image.sh"), []byte("FROM x\n"), 0o644)
	files := []File{{Path: "ci/image.sh", Kind: loader.KindShell}}
	refs, err := NewRefs(context.Background(), dir, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer refs.Close()
	at := loader.Pos{Line: 3, Column: 1, EndLine: 3, EndColumn: 5}
	add, notes := refs.Follow("ci.yml", []loader.FileRef{
		{Path: "ci/image.sh", Via: "runs", Kind: loader.KindShell, Pos: at},
		{Path: "ci/image.sh", Via: "build", Kind: loader.KindDockerfile, Pos: at},
	})
	if len(add) != 0 || len(notes["ci.yml"]) != 1 {
		t.Fatalf("added %v, notes %+v", add, notes)
	}
	n := notes["ci.yml"][0]
	if n.Syntax || n.Pos != at || !strings.Contains(n.Message, "reads ci/image.sh as a Dockerfile, but buildgate reads that file as a shell script") {
		t.Errorf("note: %+v", n)
	}
}
