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
		got := Run(all, Fixes(context.Background(), root, rules, o, &all, &suppressed, &planned))
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
