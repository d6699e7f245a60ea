package loader

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Positional parameters (the build model's values): a function's $1 … are
// the words its calls pass (f() { git clone "$1"; }; f URL), when every
// call of it in the script passes the same static word there; a script
// run by sh -c 'SCRIPT' ARG0 ARG1 … has $0 = ARG0, $1 = ARG1 (shellFed).

// maxFuncCalls bounds the calls of functions a script's pre-scan keeps.
const maxFuncCalls = 4096

// positional reports whether a parameter name is $0 … $9 or ${10} ….
func positional(name string) bool {
	if name == "" {
		return false
	}
	_, err := strconv.Atoi(name)
	return err == nil
}

// funcArg is the value of positional parameter name inside function fn:
// the static word every call of fn passes there.
func (x *shellExtractor) funcArg(fn, name string) (string, bool) {
	if v, ok := x.src.values[name]; ok && x.depth > 0 {
		return v, true // a nested script's own (sh -c … ARG0 ARG1)
	}
	if x.callArgs == nil {
		x.scanCalls()
	}
	k, _ := strconv.Atoi(name)
	vals, ok := x.callArgs[fn]
	if !ok || k <= 0 || k > len(vals) || vals[k-1] == nil {
		return "", false
	}
	return *vals[k-1], true
}

// scanCalls finds the script's functions and the static words each call
// passes them (nil where calls disagree or a word is not static).
func (x *shellExtractor) scanCalls() {
	x.callArgs = map[string][]*string{}
	funcs := map[string]bool{}
	for _, p := range x.parses {
		for _, st := range p.stmts {
			syntax.Walk(st, func(n syntax.Node) bool {
				if f, ok := n.(*syntax.FuncDecl); ok && f.Name != nil {
					funcs[f.Name.Value] = true
				}
				return true
			})
		}
	}
	seen := map[string]bool{}
	calls := 0
	for _, p := range x.parses {
		for _, st := range p.stmts {
			syntax.Walk(st, func(n syntax.Node) bool {
				c, ok := n.(*syntax.CallExpr)
				if !ok || len(c.Args) == 0 || calls > maxFuncCalls {
					return true
				}
				name, lit := wordLiteral(c.Args[0])
				if !lit || !funcs[name] {
					return true
				}
				calls++
				var args []*string
				for _, a := range c.Args[1:] {
					if v, ok := wordLiteral(a); ok {
						args = append(args, strp(v))
					} else {
						args = append(args, nil)
					}
				}
				if !seen[name] {
					seen[name] = true
					x.callArgs[name] = args
					return true
				}
				old := x.callArgs[name]
				for i := range old {
					if i >= len(args) || args[i] == nil || old[i] == nil || *old[i] != *args[i] {
						old[i] = nil
					}
				}
				return true
			})
		}
	}
}

// wrapperVar reports whether a command's first word is an unquoted
// expansion of a variable every assignment of the script gives a
// wrapper's name or nothing (SUDO=sudo, SUDO=""): what runs is the
// command after it.
func (x *shellExtractor) wrapperVar(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	p, ok := w.Parts[0].(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Exp != nil || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Length || p.Excl {
		return false
	}
	name := p.Param.Value
	seen := false
	all := true
	for _, pr := range x.parses {
		for _, st := range pr.stmts {
			syntax.Walk(st, func(n syntax.Node) bool {
				a, ok := n.(*syntax.Assign)
				if !ok || a.Name == nil || a.Name.Value != name {
					return all
				}
				seen = true
				v := ""
				if a.Value != nil {
					var lit bool
					if v, lit = wordLiteral(a.Value); !lit {
						all = false
						return false
					}
				}
				f := strings.Fields(v)
				if len(f) > 1 || len(f) == 1 && !isWrapperName(f[0]) {
					all = false
				}
				return all
			})
		}
	}
	return seen && all
}

// isWrapperName reports whether a program is one of the wrappers.
func isWrapperName(p string) bool {
	_, ok := wrappers[path.Base(p)]
	return ok
}
