package process

import (
	"strings"
	"testing"

	"github.com/buildgate/buildgate/finding"
)

func TestPolicyCheck(t *testing.T) {
	rules := []finding.Rule{{ID: "BG005", Name: "policy-error", Meta: true}, {ID: "U1", Name: "mine", Pack: "policies", File: "policies/mine.rego"}, {ID: "BG201", Name: "pin"}}
	fix := func(fd finding.Finding, path string) finding.Finding {
		fd.Path = path
		fd.Fix = &finding.Fix{Replacement: "x", Pos: finding.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1}}
		return fd
	}
	cases := []struct {
		name    string
		in      finding.Finding
		want    string // the kept finding's path and whether it keeps its fix
		meta    bool   // a BG005 finding is made
		message string
	}{
		{"a clean path inside the root", fix(f("U1", "", 1, "error"), "Dockerfile"), "Dockerfile fix", false, ""},
		{"a path out of the root", f("U1", "../etc/passwd", 1, "error"), "", true, `"../etc/passwd"`},
		{"an absolute path", f("U1", "/etc/passwd", 1, "error"), "", true, "not a path inside the repository root"},
		{"a fix of a file the run did not load", fix(f("U1", "", 1, "error"), "other.txt"), "other.txt", true, "not a build file this run loaded"},
		{"a fix under .git", fix(f("U1", "", 1, "error"), ".GIT/config"), ".GIT/config", true, "under .git"},
		{"the pack's fix of a required file that is missing", fix(f("BG201", "", 1, "error"), "requirements/rocm.txt"), "requirements/rocm.txt fix", false, ""},
		{"a user rule's fix of that file", fix(f("U1", "", 1, "error"), "requirements/rocm.txt"), "requirements/rocm.txt", true, "policies/mine.rego"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Run([]finding.Finding{c.in}, PolicyCheck([]string{"Dockerfile", ".GIT/config"}, []string{"requirements/rocm.txt"}, rules))
			var kept, made []finding.Finding
			for _, g := range got {
				if g.Rule == "BG005" {
					made = append(made, g)
				} else {
					kept = append(kept, g)
				}
			}
			s := ""
			for _, k := range kept {
				s = k.Path
				if k.Fix != nil {
					s += " fix"
				}
			}
			if s != c.want || (len(made) > 0) != c.meta {
				t.Fatalf("kept %q, made %d", s, len(made))
			}
			if c.meta && !strings.Contains(made[0].Message, c.message) {
				t.Errorf("message %q lacks %q", made[0].Message, c.message)
			}
		})
	}
}
