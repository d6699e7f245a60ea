package fix

// Reading a script for the names a removal takes away: its words as bash
// joins and brace-expands them, its expansions, and what lists variables.

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellWords reads a script's syntax tree: every literal, quoted string
// and expansion (comments are not in the tree), and the prefixes it lists
// variables by.
func (u *universe) shellWords(m mentions, f *syntax.File) {
	u.values = knownValues(f)
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Word:
			// The word as the shell joins it: build_"moon"cake is one
			// word; {nixl,mooncake}-rocm-ci is two; an expansion in it
			// splits it, and a name it may complete counts.
			u.braceWords(m, x)
		case *syntax.ParamExp:
			if x.Param != nil {
				u.variable(m, x.Param.Value, int(x.Pos().Line()))
				if x.Excl && x.Names != 0 && u.prefix {
					u.byPrefix(m, x.Param.Value, int(x.Pos().Line()))
				}
			}
		case *syntax.CallExpr:
			u.listing(m, x)
		case *syntax.DeclClause:
			// declare -p NAME, export NAME, local NAME: a bare name is read
			// (printed, exported with its value) or still declared.
			for _, a := range x.Args {
				if a.Naked && a.Name != nil {
					u.variable(m, a.Name.Value, int(a.Pos().Line()))
				}
			}
			// export -p, declare -p / -x alone print every variable.
			if len(x.Args) == 1 && x.Args[0].Naked && x.Args[0].Name == nil && x.Args[0].Value != nil && strings.HasPrefix(x.Args[0].Value.Lit(), "-") || len(x.Args) == 0 && x.Variant != nil && x.Variant.Value != "local" {
				u.allListed = append(u.allListed, int(x.Pos().Line()))
			}
		}
		return true
	})
}

// maxBraceWords bounds a word's brace expansion; past it, every stage and
// target counts as named (the word could spell any of them).
const maxBraceWords = 1024

// braceWords reads a word as bash expands its braces, each expansion as a
// word of its own. Only a whole word names a stage or a target: the
// literal beside an expansion ("${dep}-rocm-ci", `build_${x}`) is a
// fragment, which names nothing (issue 30: "use source ${X}" is no
// reference to a stage `source`).
func (u *universe) braceWords(m mentions, w *syntax.Word) {
	line := int(w.Pos().Line())
	if vs, ok := u.substituted(w); ok {
		for _, v := range vs {
			u.words(m, []byte(v), line, false, true)
		}
	}
	cp := *w
	cp.Parts = append([]syntax.WordPart(nil), w.Parts...)
	if !syntax.SplitBraces(&cp) {
		u.words(m, []byte(joinedWord(w)), line, false, true)
		return
	}
	n := 0
	for x, err := range expand.BracesSeq(nil, &cp) {
		n++
		if err != nil || n > maxBraceWords {
			for _, class := range []string{"stage", "target"} {
				for _, names := range u.byClass[class] {
					for _, nm := range names {
						m.add(nm, line)
					}
				}
			}
			return
		}
		u.words(m, []byte(joinedWord(x)), line, false, true)
	}
}

// knownValues are the literal values a script gives its variables: the
// words of a `for NAME in …` list and plain literal assignments (NAME=v,
// local/export NAME=v, NAME=(a b)), all of them for a name set in several
// places (bash's scopes aside: more values, never fewer).
func knownValues(f *syntax.File) map[string][]string {
	vals := map[string][]string{}
	lits := func(name string, words []*syntax.Word) {
		for _, w := range words {
			if literalWord(w) {
				vals[name] = append(vals[name], strings.Fields(joinedWord(w))...)
			}
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ForClause:
			if it, ok := x.Loop.(*syntax.WordIter); ok && it.Name != nil {
				lits(it.Name.Value, it.Items)
			}
		case *syntax.Assign:
			if x.Name == nil {
				break
			}
			if x.Value != nil {
				lits(x.Name.Value, []*syntax.Word{x.Value})
			}
			if x.Array != nil {
				for _, e := range x.Array.Elems {
					if e.Value != nil {
						lits(x.Name.Value, []*syntax.Word{e.Value})
					}
				}
			}
		}
		return true
	})
	return vals
}

// substituted are the words a word built around expansions becomes with
// each value the script gives the variables it reads ("${dep}-rocm-ci"
// under `for dep in nixl mooncake` is mooncake-rocm-ci), when every
// expansion in it is a plain read of a variable with known values; at
// most maxBraceWords of them.
func (u *universe) substituted(w *syntax.Word) ([]string, bool) {
	out := []string{""}
	any := false
	var part func(p syntax.WordPart) bool
	part = func(p syntax.WordPart) bool {
		switch x := p.(type) {
		case *syntax.Lit:
			for i := range out {
				out[i] += strings.ReplaceAll(x.Value, "\\\n", "")
			}
		case *syntax.SglQuoted:
			for i := range out {
				out[i] += x.Value
			}
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if !part(q) {
					return false
				}
			}
		case *syntax.ParamExp:
			vs := u.values[paramName(x)]
			if paramName(x) == "" || len(vs) == 0 || len(out)*len(vs) > maxBraceWords {
				return false
			}
			any = true
			next := make([]string, 0, len(out)*len(vs))
			for _, o := range out {
				for _, v := range vs {
					next = append(next, o+v)
				}
			}
			out = next
		default:
			return false
		}
		return true
	}
	for _, p := range w.Parts {
		if !part(p) {
			return nil, false
		}
	}
	return out, any
}

// paramName is the variable a plain expansion reads ($x, ${x}, ${x:-v}
// reads x or its default: only the plain forms count), "" otherwise.
func paramName(x *syntax.ParamExp) string {
	if x.Param == nil || x.Excl || x.Length || x.Width || x.Index != nil || x.Slice != nil || x.Repl != nil || x.Names != 0 || x.Exp != nil {
		return ""
	}
	return x.Param.Value
}

// variable adds the removed variable a parameter expansion reads (an
// expansion names nothing else: not a stage, not a target).
func (u *universe) variable(m mentions, name string, line int) {
	for _, n := range u.byClass["variable"][name] {
		if n.Kind == "variable" {
			m.add(n, line)
		}
	}
}

// listing adds the variables a command may list: compgen -v / -A
// variable PREFIX by prefix; compgen, env, printenv, export -p, declare
// -p/-x, set without a name list them all: every removed variable whose
// prefix (up to its first '_') the script names counts.
func (u *universe) listing(m mentions, c *syntax.CallExpr) {
	if !u.prefix || len(c.Args) == 0 {
		return
	}
	line := int(c.Pos().Line())
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = joinedWord(a)
	}
	switch args[0] {
	case "compgen":
		for i := 1; i < len(args); i++ {
			if args[i] == "-v" || args[i] == "-A" && i+1 < len(args) && args[i+1] == "variable" {
				if args[i] == "-A" {
					i++
				}
				if i+1 < len(args) {
					u.byPrefix(m, args[i+1], line)
					return
				}
			}
		}
		u.allListed = append(u.allListed, line) // compgen -v: every name
	case "env", "printenv", "set":
		if len(args) == 1 { // alone they print every variable
			u.allListed = append(u.allListed, line)
		}
	}
}

// listedAll adds, where the script lists every variable (u.allListed),
// each removed variable whose prefix up to its first '_' (MOONCAKE_) the
// script's text names: `env | grep ^MOONCAKE_`, `compgen -v | grep ...`.
func (u *universe) listedAll(m mentions, text []byte) {
	if len(u.allListed) == 0 {
		return
	}
	for _, names := range u.byClass["variable"] {
		for _, n := range names {
			if n.Kind != "variable" {
				continue
			}
			pre := n.Name
			if k := strings.IndexByte(pre, '_'); k > 0 {
				pre = pre[:k+1]
			}
			if bytes.Contains(text, []byte(pre)) {
				m.add(n, u.allListed[0])
			}
		}
	}
}

// joinedWord is a word's literal text as the shell joins it; each
// expansion or substitution in it stands as a space.
func joinedWord(w *syntax.Word) string {
	var b strings.Builder
	var part func(p syntax.WordPart)
	part = func(p syntax.WordPart) {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(strings.ReplaceAll(x.Value, "\\\n", ""))
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				part(q)
			}
		default:
			b.WriteByte(' ')
		}
	}
	for _, p := range w.Parts {
		part(p)
	}
	return b.String()
}
