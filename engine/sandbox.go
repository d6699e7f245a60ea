package engine

import (
	"fmt"
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Sandbox lists what the modules may not do, each as file:line:col: the
// network builtins, and reading the environment through opa.runtime().
// The compiler would refuse the builtins too, as undefined functions; this
// says why.
func Sandbox(mods map[string]*ast.Module) []string {
	var errs []string
	at := func(loc *ast.Location) string {
		if loc == nil {
			return "?"
		}
		return fmt.Sprintf("%s:%d:%d", loc.File, loc.Row, loc.Col)
	}
	for _, m := range mods {
		runtimeVars := map[ast.Var]bool{}
		ast.WalkExprs(m, func(x *ast.Expr) bool {
			// rt := opa.runtime(), rt = opa.runtime()
			if (x.IsAssignment() || x.IsEquality()) && len(x.Operands()) == 2 {
				if v, ok := x.Operands()[0].Value.(ast.Var); ok && isRuntimeCall(x.Operands()[1]) {
					runtimeVars[v] = true
				}
			}
			return false
		})
		// Calls written as expressions of their own: http.send(x, r).
		ast.WalkExprs(m, func(x *ast.Expr) bool {
			if !x.IsCall() {
				return false
			}
			name := x.Operator().String()
			if Refused(name) {
				errs = append(errs, fmt.Sprintf("%s: %s is not allowed: policies run without network access", at(x.Location), name))
			}
			if ops := x.Operands(); name == "object.get" && len(ops) > 1 && readsEnv(ops[0], ops[1], runtimeVars) {
				errs = append(errs, fmt.Sprintf("%s: opa.runtime().env is not available: policies run without the environment", at(x.Location)))
			}
			return false
		})
		ast.WalkTerms(m, func(t *ast.Term) bool {
			switch v := t.Value.(type) {
			case ast.Call:
				name := v[0].Value.(ast.Ref).String()
				if Refused(name) {
					errs = append(errs, fmt.Sprintf("%s: %s is not allowed: policies run without network access", at(t.Location), name))
				}
				// object.get(opa.runtime(), "env", ...) and friends
				if name == "object.get" && len(v) > 2 && readsEnv(v[1], v[2], runtimeVars) {
					errs = append(errs, fmt.Sprintf("%s: opa.runtime().env is not available: policies run without the environment", at(t.Location)))
				}
			case ast.Ref:
				if len(v) > 1 && readsEnv(v[0], v[1], runtimeVars) {
					errs = append(errs, fmt.Sprintf("%s: opa.runtime().env is not available: policies run without the environment", at(t.Location)))
				}
			}
			return false
		})
	}
	sort.Strings(errs)
	return errs
}

func isRuntimeCall(t *ast.Term) bool {
	c, ok := t.Value.(ast.Call)
	return ok && c[0].Value.(ast.Ref).String() == "opa.runtime"
}

// readsEnv: head is opa.runtime() or a variable bound to it, key is "env".
func readsEnv(head, key *ast.Term, runtimeVars map[ast.Var]bool) bool {
	if k, ok := key.Value.(ast.String); !ok || k != "env" {
		return false
	}
	if isRuntimeCall(head) {
		return true
	}
	v, ok := head.Value.(ast.Var)
	return ok && runtimeVars[v]
}
