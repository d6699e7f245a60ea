package process

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/finding"
)

func TestFixes(t *testing.T) {
	root := t.TempDir()
	src := "FROM a AS base\nRUN true\n\nFROM base AS mc_src\nRUN git clone x\n\nFROM base\nRUN echo\n"
	if err := os.WriteFile(filepath.Join(root, "Dockerfile"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	stage := finding.Finding{Rule: "BG101", Name: "source-build-stage", Severity: "error", Path: "Dockerfile", Message: "stage mc_src",
		Pos: finding.Pos{Line: 4, Column: 14, EndLine: 4, EndColumn: 20}}
	builtin := []finding.Rule{{ID: "BG101", Name: "source-build-stage"}}
	user := []finding.Rule{{ID: "BG101", Name: "source-build-stage", Pack: "policies"}}
	step := func(rules []finding.Rule, o *FixOptions, suppressed []finding.Finding) ([]finding.Finding, Planned) {
		all := []finding.Finding{stage}
		var planned Planned
		got := Run(all, Fixes(context.Background(), root, rules, o, &all, &suppressed, &planned, nil))
		return got, planned
	}

	t.Run("a report offers the removal fix makes", func(t *testing.T) {
		got, planned := step(builtin, nil, nil)
		if got[0].Fix == nil || got[0].Fix.Pos.Line != 4 || got[0].Fix.Replacement != "" || planned.Files != nil {
			t.Fatalf("fix %+v, planned %d", got[0].Fix, len(planned.Files))
		}
	})
	t.Run("fix plans the edit", func(t *testing.T) {
		_, planned := step(builtin, &FixOptions{}, nil)
		if planned.Err != nil || len(planned.Files) != 1 {
			t.Fatalf("%v %d", planned.Err, len(planned.Files))
		}
		if got := string(planned.Files[0].New); got != "FROM a AS base\nRUN true\n\nFROM base\nRUN echo\n" {
			t.Errorf("fixed file:\n%s", got)
		}
	})
	t.Run("only the rules asked for", func(t *testing.T) {
		if _, planned := step(builtin, &FixOptions{Rules: map[string]bool{"BG201": true}}, nil); len(planned.Files) != 0 {
			t.Errorf("planned %d files", len(planned.Files))
		}
	})
	t.Run("a user rule with the pack's name gets no removal", func(t *testing.T) {
		if got, _ := step(user, nil, nil); got[0].Fix != nil {
			t.Errorf("offered %+v", got[0].Fix)
		}
	})
	t.Run("a removal over a suppressed finding is refused", func(t *testing.T) {
		sup := finding.Finding{Rule: "BG102", Path: "Dockerfile", Pos: finding.Pos{Line: 5, Column: 5, EndLine: 5, EndColumn: 8}}
		got, _ := step(builtin, nil, []finding.Finding{sup})
		if got[0].Fix != nil {
			t.Errorf("offered %+v", got[0].Fix)
		}
		_, planned := step(builtin, &FixOptions{}, []finding.Finding{sup})
		if len(planned.Files) != 1 || !strings.Contains(planned.Files[0].Refused, "suppressed") {
			t.Errorf("not refused: %+v", planned.Files)
		}
	})
}

// A report offers a finding's own fix only when buildgate fix would apply
// it: fix leaves a whole file unchanged when one of its fixes does not fit
// or overlaps another, so every finding of that file loses its fix and
// says why (red-team case 6); the fixes of other files stay.
func TestFixesOfferOnlyWhatFixApplies(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{"a.txt": "numpy\n", "b.txt": "scipy\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := func(l, c, el, ec int) finding.Pos { return finding.Pos{Line: l, Column: c, EndLine: el, EndColumn: ec} }
	mk := func(path, msg string, p finding.Pos) finding.Finding {
		return finding.Finding{Rule: "X1", Name: "x", Severity: "error", Path: path, Message: msg, Pos: at(1, 1, 1, 1),
			Fix: &finding.Fix{Replacement: "R", Pos: p}}
	}
	good := mk("b.txt", "fits", at(1, 1, 1, 3))
	huge := mk("a.txt", "m0", at(1, 1, 1, 1))
	huge.Fix.Replacement = strings.Repeat("x", 10<<20)
	tests := []struct {
		name   string
		fds    []finding.Finding
		reason string // in the messages of a.txt's findings; "" when they keep their fixes
	}{
		{"fixes that fit are offered", []finding.Finding{mk("a.txt", "m0", at(1, 1, 1, 3)), mk("a.txt", "m1", at(1, 4, 1, 6))}, ""},
		{"identical fixes are one edit", []finding.Finding{mk("a.txt", "m0", at(1, 1, 1, 3)), mk("a.txt", "m1", at(1, 1, 1, 3))}, ""},
		{"a fix past the end of the file", []finding.Finding{mk("a.txt", "m0", at(1, 1, 1, 3)), mk("a.txt", "m1", at(99, 1, 99, 1))}, "line 99 is past the end of the file"},
		{"overlapping fixes", []finding.Finding{mk("a.txt", "m0", at(1, 1, 1, 4)), mk("a.txt", "m1", at(1, 2, 1, 6))}, "edits overlap"},
		{"a column past the end of the line", []finding.Finding{mk("a.txt", "m0", at(1, 1, 1, 40))}, "column 40 is past the end of line 1"},
		{"a fix that makes the file larger than buildgate reads", []finding.Finding{huge, mk("a.txt", "m1", at(1, 4, 1, 6))}, "more than the 10485760 buildgate reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := append(append([]finding.Finding(nil), tt.fds...), good)
			var suppressed []finding.Finding
			var planned Planned
			got := Run(all, Fixes(context.Background(), root, nil, nil, &all, &suppressed, &planned, nil))
			for _, fd := range got {
				if fd.Path == "b.txt" {
					if fd.Fix == nil || fd.Message != "fits" {
						t.Errorf("b.txt lost its fix: %+v", fd)
					}
					continue
				}
				switch {
				case tt.reason == "" && (fd.Fix == nil || strings.Contains(fd.Message, "no fix")):
					t.Errorf("%s: fix not offered: %q", fd.Message, fd.Message)
				case tt.reason != "" && fd.Fix != nil:
					t.Errorf("%s: offers the fix %+v, which fix refuses", fd.Message, fd.Fix)
				case tt.reason != "" && !strings.Contains(fd.Message, "(no fix offered: buildgate fix leaves this file unchanged: ") || !strings.Contains(fd.Message, tt.reason):
					t.Errorf("message %q does not say why (want %q)", fd.Message, tt.reason)
				}
			}
		})
	}
}
