package policies_test

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"

	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/policies"
	"github.com/buildgate/buildgate/report"
)

var fix = flag.Bool("fix", false, "rewrite Rego files that are not opa fmt clean")

// TestRego runs every _test.rego of the pack.
func TestRego(t *testing.T) {
	mods, err := engine.ModulesFromFS(policies.FS, ".", true)
	if err != nil {
		t.Fatal(err)
	}
	results, _, err := engine.RunTests(context.Background(), mods, engine.TestOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) == 0 {
		t.Fatal("no Rego tests ran")
	}
	for _, r := range results {
		if r.Fail || r.Error != nil {
			t.Error(r.String())
		}
	}
	t.Logf("%d Rego tests", len(results))
}

// TestFormatted keeps the pack `opa fmt` clean (v1 syntax).
func TestFormatted(t *testing.T) {
	mods, err := engine.ModulesFromFS(policies.FS, ".", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mods {
		got, err := format.SourceWithOpts(m.Name, []byte(m.Src), format.Opts{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Errorf("%s: %v", m.Name, err)
			continue
		}
		if string(got) != m.Src {
			if *fix {
				if err := os.WriteFile(m.Name, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s is not opa fmt clean (go test ./policies -run Formatted -fix rewrites it)", m.Name)
		}
	}
}

// TestRuleFolders: one folder per rule with its policy, its tests and its
// doc page, whose heading repeats the METADATA id, name and title.
func TestRuleFolders(t *testing.T) {
	e := builtin(t)
	if len(e.Rules()) != 13 {
		t.Errorf("%d rules", len(e.Rules()))
	}
	for _, r := range e.Rules() {
		dir := path.Dir(r.File)
		base := path.Base(dir)
		if r.File != dir+"/"+base+".rego" {
			t.Errorf("%s: rule file is %s, want %s/%s.rego", r.ID, r.File, dir, base)
		}
		// Meta rules are reported by the Go code that applies suppressions
		// and tested there (lint/suppress_test.go).
		if _, err := fs.Stat(policies.FS, dir+"/"+base+"_test.rego"); err != nil && !r.Meta {
			t.Errorf("%s: no tests: %v", r.ID, err)
		}
		doc, err := fs.ReadFile(policies.FS, dir+"/"+base+".md")
		if err != nil {
			t.Errorf("%s: no doc page: %v", r.ID, err)
			continue
		}
		want := "# " + r.ID + " " + r.Name + ": " + r.Title + "\n"
		if !strings.HasPrefix(string(doc), want) {
			t.Errorf("%s: doc page must start with %q", r.ID, want)
		}
		for _, section := range []string{"## What it catches", "## Why", "## How to fix"} {
			if !strings.Contains(string(doc), section) {
				t.Errorf("%s: doc page lacks %q", r.ID, section)
			}
		}
	}
}

var update = flag.Bool("update", false, "regenerate docs/rules.md's table and the pages in docs/rules/")

func builtin(t *testing.T) *engine.Engine {
	t.Helper()
	mods, err := engine.ModulesFromFS(policies.FS, ".", false)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Compile(context.Background(), mods, "test")
	if err != nil {
		t.Fatal(err)
	}
	e.AttachDocs(policies.FS)
	return e
}

// TestRulePages keeps docs/rules/<id>.md equal to what METADATA and the
// rule folders' pages generate (the same text is SARIF's help.markdown).
func TestRulePages(t *testing.T) {
	const dir = "../docs/rules"
	want := map[string]string{}
	for _, r := range builtin(t).Rules() {
		page := report.RulePage(r)
		for _, section := range []string{"## What it catches", "## Why", "## How to fix"} {
			if !strings.Contains(page, section) {
				t.Errorf("%s: page lacks %q", r.ID, section)
			}
		}
		want[r.ID+".md"] = page
	}
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, ok := want[e.Name()]; !ok {
			if *update {
				os.Remove(dir + "/" + e.Name())
				continue
			}
			t.Errorf("docs/rules/%s belongs to no rule (go test ./policies -update)", e.Name())
		}
	}
	for name, page := range want {
		got, err := os.ReadFile(dir + "/" + name)
		if err == nil && string(got) == page {
			continue
		}
		if *update {
			if err := os.WriteFile(dir+"/"+name, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("docs/rules/%s is stale or missing (go test ./policies -update)", name)
	}
}

// TestRulesDoc keeps the table in docs/rules.md in step with METADATA.
func TestRulesDoc(t *testing.T) {
	e := builtin(t)
	var b strings.Builder
	b.WriteString("<!-- rules: generated from METADATA by `go test ./policies -update` -->\n")
	b.WriteString("| id | name | default | title |\n|---|---|---|---|\n")
	for _, r := range e.Rules() {
		fmt.Fprintf(&b, "| [%s](rules/%s.md) | %s | %s | %s |\n", r.ID, r.ID, r.Name, r.Severity, r.Title)
	}
	const docPath = "../docs/rules.md"
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(doc), "<!-- rules:")
	end := strings.Index(string(doc), "<!-- end rules -->")
	if start < 0 || end < start {
		t.Fatal("docs/rules.md lacks the rules markers")
	}
	got := string(doc[:start]) + b.String() + string(doc[end:])
	if got == string(doc) {
		return
	}
	if *update {
		if err := os.WriteFile(docPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Error("docs/rules.md is out of date: go test ./policies -update")
}

// TestPackPassesSandbox: the embedded pack uses nothing the sandbox
// withholds, which is why a run skips checking it (engine.compileModules).
func TestPackPassesSandbox(t *testing.T) {
	mods, err := engine.ModulesFromFS(policies.FS, ".", false)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := engine.ParseModules(mods)
	if err != nil {
		t.Fatal(err)
	}
	if errs := engine.Sandbox(parsed); len(errs) > 0 {
		t.Errorf("the pack fails the sandbox: %v", errs)
	}
}
