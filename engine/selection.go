// Selection: converting in full only the documents the policies read.

package engine

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// maxSelectRounds bounds the selection fixpoint: each round converts the
// documents the previous ones showed to matter (a stage named in one file
// makes another file that names it matter).
const maxSelectRounds = 8

// selectAndConvert converts in full only the documents the selector asks
// for, and gives the others as stubs: {kind, path, errors}. It runs the
// selector until it asks for nothing new.
func (e *Engine) selectAndConvert(ctx context.Context, in Input) (ast.Value, error) {
	terms := make([]*ast.Term, len(in.Documents))
	byPath := make(map[string]int, len(in.Documents))
	for i, d := range in.Documents {
		byPath[d.DocPath()] = i
		errs, err := toTerm(reflect.ValueOf(d.DocErrors()))
		if err != nil {
			return nil, err
		}
		if len(d.DocErrors()) == 0 {
			errs = ast.ArrayTerm()
		}
		terms[i] = ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("kind"), ast.StringTerm(string(d.DocKind()))},
			[2]*ast.Term{ast.StringTerm("path"), ast.StringTerm(d.DocPath())},
			[2]*ast.Term{ast.StringTerm("errors"), errs},
		)
	}
	cfg, err := ToValue(in.Config)
	if err != nil {
		return nil, err
	}
	build := func() ast.Value {
		return ast.NewObject(
			[2]*ast.Term{ast.StringTerm("documents"), ast.ArrayTerm(terms...)},
			[2]*ast.Term{ast.StringTerm("config"), ast.NewTerm(cfg)},
		)
	}
	full := make([]bool, len(in.Documents))
	for round := 0; round < maxSelectRounds; round++ {
		rs, err := e.selector.Eval(ctx, rego.EvalParsedInput(build()))
		if err != nil {
			return nil, fmt.Errorf("selecting documents: %w", err)
		}
		var todo []int
		if len(rs) > 0 {
			paths, _ := rs[0].Bindings["x"].([]any)
			for _, p := range paths {
				s, _ := p.(string)
				if i, ok := byPath[s]; ok && !full[i] {
					full[i] = true
					todo = append(todo, i)
				}
			}
		}
		if len(todo) == 0 {
			break
		}
		sort.Ints(todo)
		if err := convertDocs(in.Documents, todo, terms); err != nil {
			return nil, err
		}
	}
	return build(), nil
}
