package fix

// The words of a script's lists a removal takes out: a word of a string
// that is a list (`STAGES="a mc_src b"`) and a word of a for loop's list.

import (
	"bytes"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// lists removes the list words findings name in the strings of a simple
// command (`STAGES="a mc_src b"`) and reports whether it found any.
func (p *shPlan) lists(st *syntax.Stmt) bool {
	// Only in the value of an assignment: a word in a command's string
	// (bash -c "… bake mooncake-rocm-ci") is the command's, not a list's.
	var values []*syntax.Word
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		for _, a := range c.Assigns {
			if a.Value != nil {
				values = append(values, a.Value)
			}
		}
	case *syntax.DeclClause:
		for _, a := range c.Args {
			if a.Value != nil {
				values = append(values, a.Value)
			}
		}
	}
	found := false
	for _, w := range values {
		for _, i := range p.in(w) {
			o := p.offs[i]
			e, ok := p.listWord(o)
			if !ok {
				continue
			}
			p.inline = append(p.inline, e)
			p.fixed[i], found = true, true
		}
	}
	return found
}

// listWord is the edit removing the token starting at o from a
// space-separated list in a quoted string: the token must be a literal
// with a space on at least one side, inside quotes on the same line.
func (p *shPlan) listWord(o int) (Edit, bool) {
	src := p.src
	if o <= 0 || o >= len(src) || (src[o-1] != ' ' && src[o-1] != '"' && src[o-1] != '\'') {
		return Edit{}, false
	}
	end := o
	for end < len(src) && !strings.ContainsRune(" \t\n\"'", rune(src[end])) {
		if src[end] == '$' || src[end] == '\\' || src[end] == '`' {
			return Edit{}, false
		}
		end++
	}
	if end == o || end >= len(src) {
		return Edit{}, false
	}
	quoted := func(q byte) bool {
		ls := bytes.LastIndexByte(src[:o], '\n') + 1
		le := bytes.IndexByte(src[end:], '\n')
		if le < 0 {
			le = len(src) - end
		}
		return bytes.Count(src[ls:o], []byte{q})%2 == 1 && bytes.IndexByte(src[end:end+le], q) >= 0
	}
	if !quoted('"') && !quoted('\'') {
		return Edit{}, false
	}
	switch {
	case src[end] == ' ':
		stop := end
		for stop < len(src) && src[stop] == ' ' {
			stop++
		}
		return Edit{Start: o, End: stop}, true
	case src[o-1] == ' ':
		start := o
		for start > 0 && src[start-1] == ' ' {
			start--
		}
		return Edit{Start: start, End: end}, true
	}
	return Edit{}, false // the only word of its string
}

// loopWords removes the words of a for loop's list that findings name.
func (p *shPlan) loopWords(wi *syntax.WordIter) {
	if len(wi.Items) < 2 || p.sourceLoop(wi) {
		return // a list left empty (`for var in; do`) loops over nothing: the loop goes whole or stays
	}
	for k, w := range wi.Items {
		is := p.in(w)
		if len(is) == 0 || !literalWord(w) {
			continue
		}
		s, e := int(w.Pos().Offset()), int(w.End().Offset())
		if k > 0 {
			s = int(wi.Items[k-1].End().Offset())
		} else {
			e = int(wi.Items[1].Pos().Offset())
		}
		if lineOf(p.src, s) != lineOf(p.src, e) {
			continue
		}
		p.inline = append(p.inline, Edit{Start: s, End: e})
		for _, i := range is {
			p.fixed[i] = true
		}
	}
}
