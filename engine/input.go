// The input: documents converted to Rego values, in parallel.

package engine

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"

	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
)

// convertDocs converts the documents at the given indexes into terms (at
// the same indexes), in parallel. A document waiting to be parsed is
// parsed now that the rules read it, and the parse is let go once
// converted.
func convertDocs(docs []loader.Document, idx []int, terms []*ast.Term) error {
	return parallel(idx, func(i int) error {
		t, err := toTerm(reflect.ValueOf(loader.Parsed(docs[i])))
		terms[i] = t
		return err
	})
}

// parallel runs fn for each index on GOMAXPROCS workers (each index is
// its own: fn may write a slice at it) and returns the errors joined.
func parallel(idx []int, fn func(int) error) error {
	errs := make([]error, len(idx))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(idx)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				errs[k] = fn(idx[k])
			}
		}()
	}
	for k := range idx {
		next <- k
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// ConvertInput turns an input into the Rego value Eval evaluates: callers
// that have time to spare before the engine is ready (it compiles while
// files load) convert early and call EvalConverted.
func ConvertInput(in Input) (ast.Value, error) {
	val, err := inputValue(in)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	return val, nil
}

// inputValue converts the input, documents in parallel (bounded by
// GOMAXPROCS); the result does not depend on the order they finish in.
func inputValue(in Input) (ast.Value, error) {
	terms := make([]*ast.Term, len(in.Documents))
	all := make([]int, len(in.Documents))
	for i := range all {
		all[i] = i
	}
	if err := convertDocs(in.Documents, all, terms); err != nil {
		return nil, err
	}
	cfg, err := ToValue(in.Config)
	if err != nil {
		return nil, err
	}
	return ast.NewObject(
		[2]*ast.Term{ast.StringTerm("documents"), ast.NewTerm(ast.NewArray(terms...))},
		[2]*ast.Term{ast.StringTerm("config"), ast.NewTerm(cfg)},
	), nil
}
