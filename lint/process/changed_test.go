package process

import (
	"testing"

	"github.com/buildgate/buildgate/changes"
	"github.com/buildgate/buildgate/finding"
)

func TestChangedLines(t *testing.T) {
	diff := "diff --git a/p b/p\n--- a/p\n+++ b/p\n@@ -2,0 +3,2 @@\n+x\n+y\n"
	set, err := changes.FromDiff([]byte(diff))
	if err != nil {
		t.Fatal(err)
	}
	rules := []finding.Rule{{ID: "R", RepositoryLevel: true}, {ID: "L", Locked: true}, {ID: "A"}}
	in := []finding.Finding{
		f("A", "p", 3, "error"), // on an added line
		f("A", "p", 9, "error"), // on a line the change left alone, in a file it touches
		f("A", "q", 1, "error"), // in a file the change left alone
		f("R", "", 0, "error"),  // repository-level: always
		f("L", "p", 1, "error"), // locked, in a file the change touches
		f("L", "q", 1, "error"), // locked, in a file it does not
	}
	n := 0
	got := Run(in, ChangedLines(set, rules, &n))
	// A file the change touches counts whole (an added line may change
	// what a kept one means); only files it leaves alone are set aside.
	if ids(got) != "A@p:3/error A@p:9/error R@:0/error L@p:1/error " || n != 2 {
		t.Errorf("kept %s, set aside %d", ids(got), n)
	}
	n = 0
	if got := Run(in, ChangedLines(nil, rules, &n)); len(got) != len(in) || n != 0 {
		t.Errorf("without a change every finding stays: %s", ids(got))
	}
}

// Issue 32 (red team): a user rule that failed at run time checked
// nothing; neither a change's lines nor a baseline hides its failure.
func TestFailedRulesAreNeverSetAside(t *testing.T) {
	diff := "diff --git a/p b/p\n--- a/p\n+++ b/p\n@@ -2,0 +3,2 @@\n+x\n+y\n"
	set, err := changes.FromDiff([]byte(diff))
	if err != nil {
		t.Fatal(err)
	}
	failed := f("U", "policies/u.rego", 7, "error")
	failed.Failed = true
	n := 0
	if got := Run([]finding.Finding{failed}, ChangedLines(set, nil, &n)); len(got) != 1 || n != 0 {
		t.Errorf("changed lines: kept %s, set aside %d", ids(got), n)
	}
	failed.Fingerprint = "fp"
	b := &Baseline{fingerprints: map[string]bool{"fp": true}, byMessage: map[[3]string]bool{{failed.Rule, failed.Path, failed.Message}: true}}
	if got := Run([]finding.Finding{failed}, InBaseline(b, &n)); len(got) != 1 {
		t.Errorf("baseline: kept %s", ids(got))
	}
}
