package h

import (
	"context"
	"testing"

	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/policies"
)

func TestCompile(t *testing.T) {
	mods, err := engine.ModulesFromFS(policies.FS, ".", false)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Compile(context.Background(), mods, "dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range e.Rules() {
		t.Logf("%+v", r)
	}
}
