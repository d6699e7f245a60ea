package h

import (
	"context"
	"os"
	"testing"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/loader"
	"github.com/buildgate/buildgate/policies"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

func TestDbg(t *testing.T) {
	src, _ := os.ReadFile(os.Getenv("F"))
	doc := loader.Parse(loader.Kind(os.Getenv("K")), "x", src)
	mods, _ := engine.ModulesFromFS(policies.FS, ".", false)
	pm, _ := engine.ParseModules(mods)
	c := engine.NewCompiler()
	c.Compile(pm)
	in, _ := ast.InterfaceToValue(engine.Input{Documents: []loader.Document{doc}, Config: config.Default().PolicyInput()})
	rs, err := rego.New(rego.Compiler(c), rego.Query(os.Getenv("Q")), rego.ParsedInput(in), rego.StrictBuiltinErrors(true)).Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if v := os.Getenv("V"); v != "" {
			t.Logf("%v", r.Bindings[v])
			continue
		}
		t.Logf("%v", r.Bindings)
		for _, e := range r.Expressions {
			t.Logf("%v", e.Value)
		}
	}
}
