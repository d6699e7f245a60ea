package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// rdjsonTree has findings with and without fixes, a non-ASCII line and a
// repository-level finding.
func rdjsonTree(t *testing.T) string {
	return writeTree(t, map[string]string{
		// The ARG between two kept lines: its removal is that line alone
		// (issue 31: a suggestion lies on its diagnostic's lines).
		"docker/Dockerfile":     "FROM base\n# é comment\nRUN true\nARG MOONCAKE_REPO=ü\nRUN echo hi\n",
		"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.9\n",
	})
}

func rdjsonSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	path, _ := filepath.Abs(filepath.Join("../../../shared/schemas/reviewdog-rdf", name))
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("%s is absent", path)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///"+name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("file:///" + name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Issue 15: --format rdjson validates against reviewdog's own schema
// (DiagnosticResult), rdjsonl line by line against Diagnostic; columns
// are UTF-8 bytes, as reviewdog counts them; fixes are suggestions.
func TestRDJSON(t *testing.T) {
	t.Parallel()
	dir := rdjsonTree(t)
	r := runBin(t, dir, "lint", "--root", ".", "--format", "rdjson", "--help-uri-base", "https://example.com/rules")
	if r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if err := rdjsonSchema(t, "DiagnosticResult.json").Validate(inst); err != nil {
		t.Errorf("rdjson does not validate: %v", err)
	}
	for _, w := range []string{
		// ARG MOONCAKE_REPO=ü: 15 characters, 16 bytes, from column 5.
		`"start": {
            "line": 4,
            "column": 5
          },
          "end": {
            "line": 4,
            "column": 21
          }`,
		`"value": "BG102",
        "url": "https://example.com/rules/BG102.md"`,
		`"suggestions": [`,
		`"text": "\u003e=0.3.13"`,
	} {
		if !strings.Contains(r.stdout, w) && !strings.Contains(r.stdout, strings.ReplaceAll(w, `\u003e`, ">")) {
			t.Errorf("rdjson lacks %s\n%s", w, r.stdout)
		}
	}
	r = runBin(t, dir, "lint", "--root", ".", "--format", "rdjsonl")
	diag := rdjsonSchema(t, "Diagnostic.json")
	n := 0
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		n++
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(sc.Text()))
		if err != nil {
			t.Fatal(err)
		}
		if err := diag.Validate(inst); err != nil {
			t.Errorf("rdjsonl line %d: %v", n, err)
		}
	}
	if n != 2 {
		t.Errorf("%d rdjsonl lines, want 2:\n%s", n, r.stdout)
	}
}

// reviewdog itself (v0.21.0, built from tools/reviewdog/go.mod) reads
// buildgate's rdjson with -reporter=local.
func TestReviewdogReadsRDJSON(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds reviewdog")
	}
	out := reviewdogLocal(t, "rdjson")
	for _, w := range []string{
		`location:{path:"docker/Dockerfile"  range:{start:{line:4  column:5}  end:{line:4  column:21}}}  severity:ERROR`,
		`code:{value:"BG202"}  suggestions:{range:{start:{line:1  column:30}  end:{line:1  column:37}}  text:">=0.3.13"}`,
	} {
		if !strings.Contains(string(out), w) {
			t.Errorf("reviewdog's output lacks %s:\n%s", w, out)
		}
	}
}

// reviewdogBin builds reviewdog (v0.21.0, tools/reviewdog/go.mod) from
// the module cache only: tests never touch the network (.ci/run
// downloads the tools' modules first).
func reviewdogBin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "reviewdog")
	build := exec.Command("go", "build", "-modfile=tools/reviewdog/go.mod", "-o", bin, "github.com/reviewdog/reviewdog/cmd/reviewdog")
	build.Dir = "../.."
	build.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly")
	if out, err := build.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "GOPROXY=off") || strings.Contains(string(out), "module lookup disabled") {
			t.Skipf("reviewdog's modules are not in the module cache (go mod download -modfile=tools/reviewdog/go.mod): %s", out)
		}
		t.Fatalf("building reviewdog: %v\n%s", err, out)
	}
	return bin
}

// gitCommitAll makes dir a git repository with one commit of its files
// (reviewdog reads the diff against it).
func gitCommitAll(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "x"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// Issue 31: reviewdog -f=checkstyle reads buildgate's checkstyle and
// keeps every finding.
func TestReviewdogReadsCheckstyle(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds reviewdog")
	}
	rep, _ := lintJSON(t, rdjsonTree(t))
	out := reviewdogLocal(t, "checkstyle")
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "(BG") {
			n++
		}
	}
	if len(rep.Findings) == 0 || n < len(rep.Findings) {
		t.Errorf("reviewdog kept %d of %d findings:\n%s", n, len(rep.Findings), out)
	}
}

// reviewdogLocal is what reviewdog -reporter=local prints of buildgate's
// report in format (rdjson, checkstyle) on rdjsonTree, committed to git.
func reviewdogLocal(t *testing.T, format string) []byte {
	t.Helper()
	bin := reviewdogBin(t)
	dir := rdjsonTree(t)
	gitCommitAll(t, dir)
	r := runBin(t, dir, "lint", "--root", ".", "--format", format)
	rd := exec.Command(bin, "-f="+format, "-reporter=local", "-filter-mode=nofilter", "-fail-level=none")
	rd.Dir = dir
	rd.Stdin = strings.NewReader(r.stdout)
	out, err := rd.CombinedOutput()
	if err != nil {
		t.Fatalf("reviewdog: %v\n%s", err, out)
	}
	return out
}
