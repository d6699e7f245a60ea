package fix

// The script units issue 30 added: an if that runs only when the source
// build is configured, a for over only the source build's names, and
// what their safety depends on (is the body only about the source build).

import (
	"fmt"
	"regexp"
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// countSets calls f with "function NUL name" for each assignment in n that
// gives a variable a value (a declaration without one, `local x` or
// `local x=""`, only declares it), in the function it is in.
func countSets(n syntax.Node, fn string, f func(string)) {
	syntax.Walk(n, func(m syntax.Node) bool {
		switch x := m.(type) {
		case *syntax.FuncDecl:
			if m != n {
				countSets(x.Body, x.Name.Value, f)
				return false
			}
		case *syntax.DeclClause:
			for _, a := range x.Args {
				if a.Name != nil && !a.Naked && (a.Array != nil || a.Value != nil && !emptyWord(a.Value)) {
					f(fn + "\x00" + a.Name.Value)
				}
			}
			return false
		case *syntax.Assign:
			if x.Name != nil && !x.Naked {
				f(fn + "\x00" + x.Name.Value)
			}
		}
		return true
	})
}

// namedVars are the variables a finding names somewhere in the script:
// at an expansion or an assignment of it.
func namedVars(f *syntax.File, offs []int) map[string]bool {
	out := map[string]bool{}
	hit := func(n syntax.Node) bool {
		s, e := int(n.Pos().Offset()), int(n.End().Offset())
		for _, o := range offs {
			if o >= s && o < e {
				return true
			}
		}
		return false
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if x.Param != nil && hit(x) {
				out[x.Param.Value] = true
			}
		case *syntax.Assign:
			if x.Name != nil && hit(x.Name) {
				out[x.Name.Value] = true
			}
		}
		return true
	})
	return out
}

// srcVar reports whether a variable is the source build's: a finding
// names it, only removed commands set it, or it is the variable of a loop
// over the source build's names.
func (p *shPlan) srcVar(name string) bool {
	return p.named[name] || p.vars[p.fn+"\x00"+name] || p.vars["\x00"+name] || p.loopVar[name]
}

// sourceOnly reports whether a word is nothing but reads of the source
// build's variables ("${MC_KEY:-}", $mc_branch): empty once they are.
func (p *shPlan) sourceOnly(w *syntax.Word) bool {
	if w == nil || len(w.Parts) == 0 {
		return false
	}
	var part func(syntax.WordPart) bool
	part = func(wp syntax.WordPart) bool {
		switch x := wp.(type) {
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if !part(q) {
					return false
				}
			}
			return len(x.Parts) > 0
		case *syntax.ParamExp:
			if x.Param == nil || x.Excl || x.Length || x.Index != nil || x.Slice != nil || x.Repl != nil || x.Names != 0 || !p.srcVar(x.Param.Value) {
				return false
			}
			// ${X:-} and ${X-} are empty too; another default is not.
			return x.Exp == nil || (x.Exp.Op == syntax.DefaultUnset || x.Exp.Op == syntax.DefaultUnsetOrNull) && (x.Exp.Word == nil || emptyWord(x.Exp.Word))
		}
		return false
	}
	for _, wp := range w.Parts {
		if !part(wp) {
			return false
		}
	}
	return true
}

// falseUnset reports whether a condition is false once the source build's
// variables are empty: `[[ -n $X ]]`, `[[ $X ]]`, `[[ $X == lit ]]` with a
// literal that is not empty and matches no empty string, `[ -n "$X" ]`,
// and && of anything with one of those (|| needs both sides).
func (p *shPlan) falseUnset(cond []*syntax.Stmt) bool {
	if len(cond) != 1 || cond[0].Negated || len(cond[0].Redirs) > 0 {
		return false
	}
	switch c := cond[0].Cmd.(type) {
	case *syntax.TestClause:
		return p.testFalse(c.X)
	case *syntax.BinaryCmd:
		x, y := p.falseUnset([]*syntax.Stmt{c.X}), p.falseUnset([]*syntax.Stmt{c.Y})
		switch c.Op {
		case syntax.AndStmt:
			return x || y
		case syntax.OrStmt:
			return x && y
		}
	case *syntax.CallExpr:
		args := make([]string, len(c.Args))
		for i, a := range c.Args {
			args[i] = a.Lit()
		}
		if len(c.Assigns) > 0 || len(args) == 0 {
			return false
		}
		switch {
		case args[0] == "[" && len(args) == 4 && args[1] == "-n" && args[3] == "]":
			return p.sourceOnly(c.Args[2])
		case args[0] == "test" && len(args) == 3 && args[1] == "-n":
			return p.sourceOnly(c.Args[2])
		case args[0] == "[" && len(args) == 5 && (args[2] == "=" || args[2] == "==") && args[4] == "]":
			return p.sourceOnly(c.Args[1]) && nonEmptyLit(c.Args[3]) || p.sourceOnly(c.Args[3]) && nonEmptyLit(c.Args[1])
		}
	}
	return false
}

func (p *shPlan) testFalse(x syntax.TestExpr) bool {
	switch t := x.(type) {
	case *syntax.Word:
		return p.sourceOnly(t)
	case *syntax.ParenTest:
		return p.testFalse(t.X)
	case *syntax.UnaryTest:
		w, ok := t.X.(*syntax.Word)
		return ok && t.Op == syntax.TsNempStr && p.sourceOnly(w)
	case *syntax.BinaryTest:
		switch t.Op {
		case syntax.AndTest:
			return p.testFalse(t.X) || p.testFalse(t.Y)
		case syntax.OrTest:
			return p.testFalse(t.X) && p.testFalse(t.Y)
		case syntax.TsMatch, syntax.TsMatchShort:
			l, lok := t.X.(*syntax.Word)
			r, rok := t.Y.(*syntax.Word)
			return lok && rok && p.sourceOnly(l) && nonEmptyLit(r)
		}
	}
	return false
}

// nonEmptyLit reports whether a word is a literal no empty string matches
// as a pattern (no * or ?).
func nonEmptyLit(w *syntax.Word) bool {
	if !literalWord(w) {
		return false
	}
	t := literalText(w)
	for _, c := range t {
		if c == '*' || c == '?' || c == '[' {
			return false
		}
	}
	return t != ""
}

// sourceIf reports whether an if runs only when the source build is
// configured: no plain else, and every condition only tests and is false
// once the source build's variables are empty.
func (p *shPlan) sourceIf(c *syntax.IfClause) bool {
	for b := c; b != nil; b = b.Else {
		if len(b.Cond) == 0 || !testsOnly(b.Cond) && !p.pureCond(b.Cond) || !p.falseUnset(b.Cond) {
			return false
		}
	}
	return true
}

// sourceCase reports whether a case runs only when the source build is
// configured: its word is only the source build's variables, and no
// pattern matches the empty string they are once it is gone (no `*`, `?`,
// `[…]`, `""`).
func (p *shPlan) sourceCase(c *syntax.CaseClause) bool {
	if !p.sourceOnly(c.Word) || len(c.Items) == 0 {
		return false
	}
	for _, it := range c.Items {
		for _, pat := range it.Patterns {
			if !nonEmptyLit(pat) {
				return false
			}
		}
	}
	return true
}

// pureCond reports whether conditions run only pure commands.
func (p *shPlan) pureCond(cond []*syntax.Stmt) bool {
	return p.pureStmts(cond, 0)
}

// sourceLoop reports whether a for loop's list holds only the source
// build's names: literal words, each named by a finding.
func (p *shPlan) sourceLoop(wi *syntax.WordIter) bool {
	if len(wi.Items) == 0 || wi.Name == nil {
		return false
	}
	for _, w := range wi.Items {
		if !literalWord(w) || len(p.in(w)) == 0 {
			return false
		}
	}
	return true
}

// unit removes a statement that runs only for the source build (an if on
// its variables, a loop over its names). When its body is only about the
// source build the fix is safe; otherwise it changes what the build does
// beyond the findings (a step that names no part of the source build
// stops running), and only --unsafe-fixes removes it: its findings are
// declined with why.
func (p *shPlan) unit(st *syntax.Stmt, why string) bool {
	var body []*syntax.Stmt
	loopVar := ""
	switch c := st.Cmd.(type) {
	case *syntax.IfClause:
		for b := c; b != nil; b = b.Else {
			body = append(body, b.Then...)
		}
	case *syntax.ForClause:
		body = c.Do
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			loopVar = wi.Name.Value
		}
	case *syntax.CaseClause:
		for _, it := range c.Items {
			body = append(body, it.Stmts...)
		}
	case *syntax.BinaryCmd:
		body = []*syntax.Stmt{c.Y}
	}
	if loopVar != "" {
		p.loopVar[loopVar] = true
		defer delete(p.loopVar, loopVar)
	}
	p.unitSites = map[string]int{}
	countSets(st, p.fn, func(k string) { p.unitSites[k]++ })
	p.inUnit = len(p.in(st)) > 0
	p.scope = p.buildScope(st)
	about := p.about(body)
	p.inUnit, p.scope = false, nil
	if about || p.opt.Unsafe {
		return p.remove(st)
	}
	kind := "if"
	switch st.Cmd.(type) {
	case *syntax.ForClause:
		kind = "for loop"
	case *syntax.CaseClause:
		kind = "case"
	case *syntax.BinaryCmd:
		kind = "&& list"
	}
	for _, i := range p.in(st) {
		p.unsafe[i] = fmt.Sprintf("unsafe fix: the %s at line %d %s; `buildgate fix --unsafe-fixes` removes it", kind, st.Pos().Line(), why)
	}
	return false
}

// about reports whether statements are only about the source build: each
// has a finding, prints, declares or assigns, runs only pure commands or
// the script's functions that only print or record, or reads the source
// build's variables; an if or a list of such.
func (p *shPlan) about(list []*syntax.Stmt) bool {
	for _, st := range list {
		if !p.stmtAbout(st) {
			return false
		}
	}
	return true
}

func (p *shPlan) stmtAbout(st *syntax.Stmt) bool {
	if p.setsOther(st) {
		return false // it changes what the rest of the script sees
	}
	if len(p.in(st)) > 0 || p.readsSource(st) {
		return true
	}
	switch c := st.Cmd.(type) {
	case *syntax.TestClause:
		return p.pureSubst(st, 0)
	case *syntax.DeclClause:
		return p.pureSubst(st, 0) && p.ownAssigns(c.Args)
	case *syntax.CallExpr:
		return p.callAbout(st, c)
	case *syntax.BinaryCmd:
		return p.stmtAbout(c.X) && p.stmtAbout(c.Y)
	case *syntax.ForClause:
		// A loop (over the PostgreSQL versions) whose body is only the
		// source build's steps.
		return len(st.Redirs) == 0 && p.pureSubst(st, 0) && len(c.Do) > 0 && p.about(c.Do)
	case *syntax.IfClause:
		for b := c; b != nil; b = b.Else {
			if !p.about(b.Cond) || !p.about(b.Then) {
				return false
			}
		}
		return true
	}
	return false
}

// callAbout is stmtAbout for a simple command: an assignment of the
// unit's own, a command that prints or returns, a preparation of the
// build inside a unit, a function of the script that only records, or a
// pure command.
func (p *shPlan) callAbout(st *syntax.Stmt, c *syntax.CallExpr) bool {
	if len(c.Args) == 0 {
		return p.pureSubst(st, 0) && p.ownAssigns(c.Assigns)
	}
	name := c.Args[0].Lit()
	switch {
	case name == "echo" || name == "printf" || name == ":" || name == "true" || name == "return" || name == "continue" || name == "break":
		return len(st.Redirs) == 0 && p.pureSubst(st, 0)
	case prepCmds[name] && p.inUnit:
		// cd into the clone, mkdir, rm of it: in a unit that runs only
		// with the source build, they prepare its steps (issue 32:
		// timescaledb-docker-ha's `cd /build/pgvector` between the
		// clone and make install), when they work on what it works on.
		return len(st.Redirs) == 0 && p.pureSubst(st, 0) && p.prepares(c)
	case p.funcs[name]:
		return len(st.Redirs) == 0 && (p.recordsOnly(name, 0) || p.pureStmts([]*syntax.Stmt{st}, 0))
	}
	return p.pureStmts([]*syntax.Stmt{st}, 0)
}

// ownAssigns reports whether assignments in a unit set only the source
// build's variables or variables no statement outside the unit sets (a
// counter the rest of the script keeps, `count=$((count+1))`, is not the
// unit's own).
func (p *shPlan) ownAssigns(as []*syntax.Assign) bool {
	for _, a := range as {
		if a.Name == nil || a.Naked || p.srcVar(a.Name.Value) {
			continue
		}
		k := p.fn + "\x00" + a.Name.Value
		if p.unitSites[k] < p.sites[k] || p.sites["\x00"+a.Name.Value] > 0 && p.fn != "" {
			return false
		}
	}
	return true
}

// readsSource reports whether a statement reads one of the source build's
// variables (its work is then the source build's).
func (p *shPlan) readsSource(st *syntax.Stmt) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		if x, ok := n.(*syntax.ParamExp); ok && x.Param != nil && p.srcVar(x.Param.Value) {
			found = true
		}
		return !found
	})
	return found
}

var fixedLine = regexp.MustCompile(`line (\d+)( of the fixed script)?`)

// oldLines rewrites the lines an error about a fixed text cites into the
// lines of the user's file they come from (a reason cites the file the
// user has, not a text nobody sees).
func oldLines(err error, src []byte, edits []Edit) string {
	return fixedLine.ReplaceAllStringFunc(err.Error(), func(s string) string {
		m := fixedLine.FindStringSubmatch(s)
		n, _ := strconv.Atoi(m[1])
		return "line " + strconv.Itoa(OldLine(src, edits, n))
	})
}
