package fix

// Words of a script as the shell planner weighs them: literals, lists,
// deletions of words side by side, what a redirection keeps.

import (
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// listValue reports whether an assignment's value is a literal of several
// words (a list).
func listValue(a *syntax.Assign) bool {
	return a.Value != nil && literalWord(a.Value) && strings.ContainsAny(literalText(a.Value), " \t\n")
}

// literalText is the text a literal word spells (its quotes removed).
func literalText(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				}
			}
		}
	}
	return b.String()
}

// emptyWord reports whether a word is "" or ” (or nothing).
func emptyWord(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.SglQuoted:
			if x.Value != "" {
				return false
			}
		case *syntax.DblQuoted:
			if len(x.Parts) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func literalWord(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// tidyDeletion keeps one space between the words a deletion leaves
// side by side, and none before a closing quote or the end of a list.
func tidyDeletion(src []byte, e Edit) Edit {
	if e.Text != "" || e.Start == 0 {
		return e
	}
	space := func(b byte) bool { return b == ' ' || b == '\t' }
	if space(src[e.Start-1]) {
		switch {
		case e.End < len(src) && space(src[e.End]):
			for e.End < len(src) && space(src[e.End]) {
				e.End++
			}
		case e.End >= len(src) || strings.IndexByte("\"';\n\r", src[e.End]) >= 0:
			for e.Start > 0 && space(src[e.Start-1]) {
				e.Start--
			}
		}
	}
	return e
}

// mergeDeletions joins deletions that overlap or touch (two words of one
// list, side by side), so that they apply as one.
func mergeDeletions(es []Edit) []Edit {
	if len(es) < 2 {
		return es
	}
	sorted := append([]Edit(nil), es...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	out := []Edit{sorted[0]}
	for _, e := range sorted[1:] {
		last := &out[len(out)-1]
		if e.Text == "" && last.Text == "" && e.Start <= last.End {
			last.End = max(last.End, e.End)
			continue
		}
		out = append(out, e)
	}
	return out
}

// appendsOnly reports whether every redirection appends output to a file
// (>>, &>>): a command that writes so adds lines, and removing it removes
// only its own.
func appendsOnly(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		if r.Op != syntax.AppOut && r.Op != syntax.AppAll || r.N != nil && r.N.Value != "1" {
			return false
		}
	}
	return true
}
