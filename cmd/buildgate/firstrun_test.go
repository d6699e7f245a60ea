package main

import (
	"strings"
	"testing"
)

// Issue 18: what a new user types first.
func TestFirstRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v := runBin(t, dir, "version")
	r := runBin(t, dir, "--version")
	if r.code != 0 || r.stdout != v.stdout || !strings.HasPrefix(r.stdout, "buildgate ") {
		t.Errorf("--version: exit %d %q; version says %q", r.code, r.stdout, v.stdout)
	}
	for _, args := range [][]string{{"--help"}, {"lint", "--help"}, {"fix", "--help"}} {
		h := runBin(t, dir, args...)
		if h.code != 0 || strings.Contains(h.stdout, "[=true|false]") || !strings.Contains(h.stdout, "      --debug ") {
			t.Errorf("%v: boolean flags not shown as --name:\n%s", args, h.stdout)
		}
	}
	p := runBin(t, dir, "rules", "bg201", "source-build-stage")
	if p.code != 0 || !strings.HasPrefix(p.stdout, "BG201 wheel-pin-missing\n") || !strings.Contains(p.stdout, "\nBG101 source-build-stage\n") || !strings.Contains(p.stdout, "How to fix") {
		t.Errorf("rules BG201 source-build-stage: exit %d\n%s", p.code, p.stdout)
	}
	if u := runBin(t, dir, "rules", "BG999"); u.code != 2 || !strings.Contains(u.stderr, "not a rule id or name") {
		t.Errorf("rules BG999: exit %d %s", u.code, u.stderr)
	}
}
