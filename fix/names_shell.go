package fix

// Reading a script for the names a removal takes away: its words as bash
// joins and brace-expands them, its expansions, and what lists variables.

import (
	"bytes"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellWords reads a script's syntax tree: every literal, quoted string
// and expansion (comments are not in the tree), and the prefixes it lists
// variables by.
func (u *universe) shellWords(m mentions, f *syntax.File) {
	u.values = knownValues(f)
	for k, v := range u.yamlValues {
		u.values[k] = append(u.values[k], v...)
	}
	// A command's name names no stage or target (the `source` builtin is
	// no stage `source`), nor do the words echo and printf print: they
	// are messages, not references (issue 30).
	notRef := map[*syntax.Word]bool{}
	consumed := consumedCalls(f)
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			notRef[c.Args[0]] = true
			// What echo prints is a message, unless something reads it
			// (a pipe, a substitution, a redirection to a file).
			if name := c.Args[0].Lit(); (name == "echo" || name == "printf") && !consumed[c] {
				for _, a := range c.Args[1:] {
					notRef[a] = true
				}
			}
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Word:
			// The word as the shell joins it: build_"moon"cake is one
			// word; {nixl,mooncake}-rocm-ci is two; a word around an
			// expansion of a variable with known values is each of them.
			if !notRef[x] {
				u.braceWords(m, x)
			}
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

// consumedCalls are the commands whose output something reads: inside a
// command or process substitution, on the left of a pipe, or with their
// output redirected to anything but the terminal's streams.
func consumedCalls(f *syntax.File) map[*syntax.CallExpr]bool {
	out := map[*syntax.CallExpr]bool{}
	markAll := func(n syntax.Node) {
		syntax.Walk(n, func(m syntax.Node) bool {
			if c, ok := m.(*syntax.CallExpr); ok {
				out[c] = true
			}
			return true
		})
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			markAll(x)
		case *syntax.ProcSubst:
			markAll(x)
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				markAll(x.X)
			}
		case *syntax.Stmt:
			for _, r := range x.Redirs {
				if r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.RdrAll || r.Op == syntax.AppAll || r.Op == syntax.RdrClob {
					if w := r.Word.Lit(); w != "/dev/stderr" && w != "/dev/stdout" && w != "/dev/null" && w != "2" && w != "1" {
						markAll(x)
					}
				}
			}
		}
		return true
	})
	return out
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
	var loops []*syntax.WordIter
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ForClause:
			if it, ok := x.Loop.(*syntax.WordIter); ok && it.Name != nil {
				loops = append(loops, it)
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
	// A loop's list: its literal words, and the values of the variables
	// it expands (for dep in "${DEPS[@]}", for dep in $DEPS).
	for _, it := range loops {
		lits(it.Name.Value, it.Items)
		for _, w := range it.Items {
			if len(w.Parts) == 1 {
				if dq, ok := w.Parts[0].(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
					if pe, ok := dq.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil {
						vals[it.Name.Value] = append(vals[it.Name.Value], vals[pe.Param.Value]...)
					}
				} else if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil {
					vals[it.Name.Value] = append(vals[it.Name.Value], vals[pe.Param.Value]...)
				}
			}
		}
	}
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
			if d, ok := defaultOf(x); ok {
				// ${dep:-mooncake}: its default is among its values.
				vs = append(append([]string(nil), u.values[x.Param.Value]...), d)
			}
			if len(vs) == 0 || len(out)*len(vs) > maxBraceWords {
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

// defaultOf is the literal default of ${x:-v} or ${x-v}.
func defaultOf(x *syntax.ParamExp) (string, bool) {
	if x.Param == nil || x.Exp == nil || x.Excl || x.Length || x.Index != nil || x.Slice != nil || x.Repl != nil {
		return "", false
	}
	switch x.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
	default:
		return "", false
	}
	if x.Exp.Word == nil {
		return "", false
	}
	if literalWord(x.Exp.Word) {
		return joinedWord(x.Exp.Word), true
	}
	// ${a:-${b:-mooncake}}: the innermost literal default.
	if len(x.Exp.Word.Parts) == 1 {
		if inner, ok := x.Exp.Word.Parts[0].(*syntax.ParamExp); ok {
			return defaultOf(inner)
		}
	}
	return "", false
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
	var part func(p syntax.WordPart, quoted bool)
	part = func(p syntax.WordPart, quoted bool) {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, quoted))
		case *syntax.SglQuoted:
			if x.Dollar {
				b.WriteString(ansiC(x.Value))
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				part(q, true)
			}
		case *syntax.CmdSubst:
			// $(echo mooncake): what the command prints, when it only
			// prints literals.
			if v, ok := echoed(x); ok {
				b.WriteString(v)
				return
			}
			b.WriteByte(' ')
		default:
			b.WriteByte(' ')
		}
	}
	for _, p := range w.Parts {
		part(p, false)
	}
	return b.String()
}

// unescape is a literal as bash reads it: a line continuation is nothing;
// outside quotes a backslash quotes the next character (mooncake\-rocm-ci
// is mooncake-rocm-ci); inside double quotes it does so only before $, `,
// ", \ and a newline.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			next := s[i+1]
			switch {
			case next == '\n':
				i++
				continue
			case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
				b.WriteByte(next)
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the escapes of a $'…' string (\xHH, \n, \t, \\, \', octal).
func ansiC(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
				j++
			}
			if v, err := strconv.ParseUint(s[i+1:j], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i = j - 1
			}
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '0', '1', '2', '3':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// echoed is what a command substitution prints when it is one echo or
// printf of literal words ($(echo mooncake), `printf %s x`).
func echoed(x *syntax.CmdSubst) (string, bool) {
	if len(x.Stmts) != 1 {
		return "", false
	}
	c, ok := x.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) < 2 || len(x.Stmts[0].Redirs) > 0 {
		return "", false
	}
	args := c.Args[1:]
	switch c.Args[0].Lit() {
	case "echo":
		if strings.HasPrefix(args[0].Lit(), "-") {
			return "", false
		}
	case "printf":
		if f := literalText(args[0]); f != "%s" || len(args) != 2 {
			return "", false
		}
		args = args[1:]
	default:
		return "", false
	}
	var out []string
	for _, a := range args {
		if !literalWord(a) {
			return "", false
		}
		out = append(out, joinedWord(a))
	}
	return strings.Join(out, " "), true
}
