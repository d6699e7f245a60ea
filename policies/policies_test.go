package policies_test

import (
	"context"
	"testing"

	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/policies"
)

// TestRego runs every _test.rego of the pack.
func TestRego(t *testing.T) {
	mods, err := engine.ModulesFromFS(policies.FS, ".", true)
	if err != nil {
		t.Fatal(err)
	}
	results, err := engine.RunTests(context.Background(), mods, "test")
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
