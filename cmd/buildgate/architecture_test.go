package main

import (
	"errors"
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestArchitectureEdges: docs/architecture.md lists, between its edges
// markers, every package of the module and the module's packages it
// imports (tests left out), exactly as the Go tool reads them.
func TestArchitectureEdges(t *testing.T) {
	t.Parallel()
	const module = "github.com/buildgate/buildgate/"
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "<!-- edges -->")
	block, _, ok := strings.Cut(rest, "<!-- /edges -->")
	if !ok {
		t.Fatal("docs/architecture.md has no edges block")
	}
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		pkgs, deps, ok := strings.Cut(strings.TrimPrefix(line, "- "), " → ")
		if !ok {
			t.Fatalf("not an edge line: %q", line)
		}
		deps = strings.ReplaceAll(deps, "(none)", "")
		for _, p := range strings.Split(pkgs, ", ") {
			want[strings.Trim(p, "`")] = deps
		}
	}
	got := map[string]string{}
	root := "../.."
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "tools" || rel == "scripts" || strings.HasPrefix(rel, "scripts/")) {
			return filepath.SkipDir
		}
		pkg, ierr := build.ImportDir(p, 0)
		var noGo *build.NoGoError
		if errors.As(ierr, &noGo) {
			return nil // no Go files (or only tests)
		}
		if ierr != nil {
			return ierr
		}
		var deps []string
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module) {
				deps = append(deps, strings.TrimPrefix(imp, module))
			}
		}
		sort.Strings(deps)
		got[rel] = strings.Join(deps, ", ")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, deps := range got {
		if w, ok := want[p]; !ok {
			t.Errorf("docs/architecture.md does not list %s (→ %s)", p, deps)
		} else if w != deps {
			t.Errorf("docs/architecture.md: %s → %s; go reads %s → %s", p, w, p, deps)
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is no package", p)
		}
	}
	if strings.Contains(got["cmd/buildgate"], "engine") || strings.Contains(got["cmd/buildgate"], "loader") ||
		strings.Contains(got["cmd/buildgate"], "discover") || strings.Contains(got["cmd/buildgate"], "policies") {
		t.Errorf("cmd/buildgate imports %s: it must not reach the engine, loaders, discovery or policies", got["cmd/buildgate"])
	}
}
