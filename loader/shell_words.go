package loader

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// fields splits a word's value on white space, keeping each field's source
// span. Dynamic parts (expansions, substitutions) stay inside the field they
// touch, and make that field's Value absent.
func (x *shellExtractor) fields(w *syntax.Word) []Word {
	out := []Word{}
	start, end := -1, -1
	var val strings.Builder
	static := true
	flush := func() {
		if start >= 0 && x.countElement(w) {
			f := Word{Text: x.textAt(start, end), Pos: x.src.span(start, end)}
			if static {
				f.Value = strp(val.String())
			}
			out = append(out, f)
		}
		start, end, static = -1, -1, true
		val.Reset()
	}
	lit := func(raw string, at int, unescape func(string) string) {
		i := 0
		for i < len(raw) {
			if isShellSpace(raw[i]) {
				flush()
				i++
				continue
			}
			j := i
			for j < len(raw) && !isShellSpace(raw[j]) {
				if raw[j] == '\\' && j+1 < len(raw) {
					j++
				}
				j++
			}
			if start < 0 {
				start = at + i
			}
			end = at + j
			val.WriteString(unescape(raw[i:j]))
			i = j
		}
	}
	dynamic := func(n syntax.Node) {
		if start < 0 {
			start = x.off(n.Pos())
		}
		end = x.off(n.End())
		static = false
	}
	var parts func(ps []syntax.WordPart, quoted bool)
	parts = func(ps []syntax.WordPart, quoted bool) {
		for _, p := range ps {
			switch p := p.(type) {
			case *syntax.Lit:
				un := unescapeUnquoted
				if quoted {
					un = unescapeDouble
				}
				lit(p.Value, x.off(p.Pos()), un)
			case *syntax.SglQuoted:
				if p.Dollar {
					dynamic(p)
					continue
				}
				lit(p.Value, x.off(p.Left)+1, func(s string) string { return s })
			case *syntax.DblQuoted:
				parts(p.Parts, true)
			default:
				dynamic(p)
			}
		}
	}
	parts(w.Parts, false)
	flush()
	return out
}

func isShellSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// wordLiteral returns the value of a word that has no expansion in it.
func wordLiteral(w *syntax.Word) (string, bool) {
	var sb strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			sb.WriteString(unescapeUnquoted(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				sb.WriteString(unescapeDouble(l.Value))
			}
		default:
			return "", false
		}
	}
	return sb.String(), true
}

func unescapeUnquoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}
