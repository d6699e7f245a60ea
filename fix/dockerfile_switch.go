package fix

import (
	"strings"

	"github.com/buildgate/buildgate/loader"
	"mvdan.cc/sh/v3/syntax"
)

// switches are the switches of the source build the plan removes: an
// `ENV BUILD_MOONCAKE="1"` (the finding on the key), or an ARG name every
// declaration of which a finding names (`ARG INSTALL_MOONCAKE=1`). An ENV
// name some ARG also declares is left out: a build argument could still
// turn it on.
func (p *dockerPlan) switches() map[string]bool {
	flagged, kept := map[string]bool{}, map[string]bool{}
	note := func(a loader.ArgDef) {
		if p.onDef(a) {
			flagged[a.Name] = true
		} else {
			kept[a.Name] = true
		}
	}
	for _, a := range p.doc.GlobalArgs {
		note(a)
	}
	env := map[string]bool{}
	for _, st := range p.doc.Stages {
		for _, ins := range st.Instructions {
			for _, a := range ins.ArgDefs {
				note(a)
			}
			if ins.Cmd == "env" && len(ins.Env) == 1 && p.onKey(ins.Env[0]) {
				env[ins.Env[0].Key] = true
			}
		}
	}
	out := map[string]bool{}
	for k := range env {
		if !flagged[k] && !kept[k] {
			out[k] = true
		}
	}
	for k := range flagged {
		if !kept[k] && !env[k] {
			out[k] = true
		}
	}
	return out
}

// dormant reports whether a RUN is, as a whole, an if that only runs when
// a removed switch is on (`if [ "$BUILD_MOONCAKE" = "1" ]; then …; fi`):
// once the switch is gone its condition is false and the RUN does
// nothing, so it goes whole (sglang's rocm.Dockerfile and ROCm/ATOM's
// build Mooncake this way). An else may only print (`echo "skipped"`):
// the build log loses that line, nothing else changes.
func dormant(ins loader.Instruction, switches map[string]bool) bool {
	if ins.Cmd != "run" || len(switches) == 0 || ins.Shell == nil || len(ins.Args) != 1 || len(ins.Heredocs) > 0 {
		return false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(ins.Args[0].Text), "")
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	st := f.Stmts[0]
	ic, ok := st.Cmd.(*syntax.IfClause)
	if !ok || st.Negated || st.Background || len(st.Redirs) > 0 || len(ic.Cond) != 1 {
		return false
	}
	if e := ic.Else; e != nil && (len(e.Cond) > 0 || e.Else != nil || !printsOnly(e.Then)) {
		return false
	}
	return falseWhenUnset(ic.Cond[0], switches)
}

// printsOnly reports whether statements only print (echo, printf, :,
// true), without redirections.
func printsOnly(list []*syntax.Stmt) bool {
	for _, st := range list {
		c, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 || len(st.Redirs) > 0 || st.Background {
			return false
		}
		switch c.Args[0].Lit() {
		case "echo", "printf", ":", "true":
		default:
			return false
		}
	}
	return true
}

// falseWhenUnset reports whether a condition is a test that is false when
// its switch variable is empty: `[ "$X" = "1" ]`, `[[ $X == true ]]`,
// `test "$X" = yes`, `[ -n "$X" ]`.
func falseWhenUnset(cond *syntax.Stmt, switches map[string]bool) bool {
	if cond.Negated || len(cond.Redirs) > 0 {
		return false
	}
	isSwitch := func(w *syntax.Word) bool {
		var parts []syntax.WordPart
		if len(w.Parts) == 1 {
			if dq, ok := w.Parts[0].(*syntax.DblQuoted); ok {
				parts = dq.Parts
			} else {
				parts = w.Parts
			}
		}
		if len(parts) != 1 {
			return false
		}
		pe, ok := parts[0].(*syntax.ParamExp)
		return ok && pe.Param != nil && switches[pe.Param.Value] && pe.Exp == nil && pe.Index == nil && !pe.Excl && !pe.Length
	}
	nonEmpty := func(w *syntax.Word) bool {
		if !literalWord(w) || emptyWord(w) {
			return false
		}
		return true
	}
	switch c := cond.Cmd.(type) {
	case *syntax.TestClause:
		switch x := c.X.(type) {
		case *syntax.BinaryTest:
			l, lok := x.X.(*syntax.Word)
			r, rok := x.Y.(*syntax.Word)
			return lok && rok && (x.Op == syntax.TsMatchShort || x.Op == syntax.TsMatch) && isSwitch(l) && nonEmpty(r)
		case *syntax.UnaryTest:
			w, ok := x.X.(*syntax.Word)
			return ok && x.Op == syntax.TsNempStr && isSwitch(w)
		}
	case *syntax.CallExpr:
		a := c.Args
		if len(c.Assigns) > 0 || len(a) == 0 {
			return false
		}
		switch a[0].Lit() {
		case "[":
			if a[len(a)-1].Lit() != "]" {
				return false
			}
			a = a[1 : len(a)-1]
		case "test":
			a = a[1:]
		default:
			return false
		}
		switch {
		case len(a) == 3 && (a[1].Lit() == "=" || a[1].Lit() == "=="):
			return isSwitch(a[0]) && nonEmpty(a[2])
		case len(a) == 2 && a[0].Lit() == "-n":
			return isSwitch(a[1])
		}
	}
	return false
}
