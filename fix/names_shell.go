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
			if len(x.Args) == 1 && x.Args[0].Naked && x.Args[0].Name == nil || len(x.Args) == 0 && x.Variant != nil && x.Variant.Value != "local" {
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
// word of its own, and the names an expansion inside it may complete.
func (u *universe) braceWords(m mentions, w *syntax.Word) {
	line := int(w.Pos().Line())
	cp := *w
	cp.Parts = append([]syntax.WordPart(nil), w.Parts...)
	if !syntax.SplitBraces(&cp) {
		u.words(m, []byte(joinedWord(w)), line, false, true)
		u.completed(m, w, line)
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
		u.completed(m, x, line)
	}
}

// completed adds the stages and targets a word built around an expansion
// may spell: "${dep}-rocm-ci" may be mooncake-rocm-ci, "build_${x}" may
// be build_mooncake. The literal next to the expansion must be a whole
// end of the name, and hold a letter or digit.
func (u *universe) completed(m mentions, w *syntax.Word, line int) {
	joined := joinedWord(w)
	if !strings.Contains(joined, " ") {
		return
	}
	segs := strings.Split(joined, " ")
	for _, class := range []string{"stage", "target"} {
		in := wordClass(class)
		for k, seg := range segs {
			if class == "stage" {
				seg = strings.ToLower(seg)
			}
			var after, before string // a run after an expansion, before one
			if k > 0 {
				e := 0
				for e < len(seg) && in(seg[e]) {
					e++
				}
				after = seg[:e]
			}
			if k < len(segs)-1 {
				b := len(seg)
				for b > 0 && in(seg[b-1]) {
					b--
				}
				before = seg[b:]
			}
			for word, names := range u.byClass[class] {
				if after != "" && hasAlnum(after) && strings.HasSuffix(word, after) || before != "" && hasAlnum(before) && strings.HasPrefix(word, before) {
					for _, nm := range names {
						m.add(nm, line)
					}
				}
			}
		}
	}
}

func hasAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i] | 0x20) { // lower case letters; digits keep the bit
			return true
		}
	}
	return false
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
