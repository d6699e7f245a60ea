package loader

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// scalarMap is a YAML scalar's value as the CI system reads it, with, for
// every byte of the value, the bytes of the file it comes from: [from,
// to). go.yaml.in/yaml/v3 gives a node's start only, so the value is
// walked against the source here, the decoded value (yaml's) leading the
// way: an escape, a folded line break or a block scalar's indentation is
// stepped over in the file where the value says it must be. When the two
// cannot be matched the scalar is not mapped (an error of the document,
// never a guessed position).
type scalarMap struct {
	text     []byte
	from, to []int32
}

func (m *scalarMap) emit(b byte, from, to int) {
	m.text = append(m.text, b)
	m.from = append(m.from, int32(from))
	m.to = append(m.to, int32(to))
}

// span is the position of the value's bytes [s, e).
func (m *scalarMap) span(idx *lineIndex, s, e int) Pos {
	if len(m.text) == 0 {
		return idx.span(0, 0)
	}
	s = min(max(s, 0), len(m.text)-1)
	if e <= s {
		return idx.span(int(m.from[s]), int(m.from[s]))
	}
	e = min(e, len(m.text))
	return idx.span(int(m.from[s]), max(int(m.to[e-1]), int(m.from[s])))
}

// source is the file's text for the value's bytes [s, e).
func (m *scalarMap) source(src []byte, s, e int) string {
	if len(m.text) == 0 || e <= s {
		return ""
	}
	s = min(max(s, 0), len(m.text)-1)
	e = min(e, len(m.text))
	a, b := int(m.from[s]), max(int(m.to[e-1]), int(m.from[s]))
	return string(src[a:b])
}

// join appends another map, with a line break between (a list of
// commands is one script to the CI system, a command a line). The break
// is of no width, at the end of what it follows.
func (m *scalarMap) join(o *scalarMap) {
	if len(m.text) > 0 {
		at := int(m.to[len(m.to)-1])
		m.emit('\n', at, at)
	}
	m.text = append(m.text, o.text...)
	m.from = append(m.from, o.from...)
	m.to = append(m.to, o.to...)
}

// yamlIndex turns yaml's lines and columns into byte offsets: yaml
// breaks lines at CR LF, CR, LF and also NEL, LS and PS (YAML 1.1, which
// the library follows), and counts columns in characters. A line with a
// byte outside ASCII keeps checkpoints (marks, by column), so that an
// offset costs O(log n + stride), not the line's length: a one-line flow
// mapping of 100 KB has thousands of scalars (issue 26: 46 s before).
type yamlIndex struct {
	src    []byte
	starts []int
	wide   map[int]bool
	marks  map[int][]mark
}

func newYAMLIndex(src []byte) *yamlIndex {
	x := &yamlIndex{src: src, starts: []int{0}}
	for i := 0; i < len(src); {
		if n := yamlBreakAt(src, i); n > 0 {
			i += n
			x.starts = append(x.starts, i)
			continue
		}
		if src[i] >= utf8.RuneSelf {
			if x.wide == nil {
				x.wide = map[int]bool{}
			}
			x.wide[len(x.starts)] = true
		}
		i++
	}
	return x
}

// lineEnd is where line's text ends: its break, or the end of the file.
func (x *yamlIndex) lineEnd(line int) int {
	end := len(x.src)
	if line < len(x.starts) {
		end = x.starts[line]
	}
	for i := x.starts[line-1]; i < end; {
		if yamlBreakAt(x.src, i) > 0 {
			return i
		}
		_, n := utf8.DecodeRune(x.src[i:end])
		i += n
	}
	return end
}

// offsetAt is the byte offset of yaml's 1-based line and column.
func (x *yamlIndex) offsetAt(line, col int) int {
	if line < 1 {
		line = 1
	}
	if line > len(x.starts) {
		return len(x.src)
	}
	start := x.starts[line-1]
	if !x.wide[line] {
		// ASCII: one byte a column, up to the line's break (a CR or LF,
		// the only breaks an ASCII line can end in).
		end := len(x.src)
		if line < len(x.starts) {
			end = x.starts[line]
		}
		for end > start && (x.src[end-1] == '\n' || x.src[end-1] == '\r') {
			end--
		}
		return min(start+max(col-1, 0), end)
	}
	marks := x.lineMarks(line)
	k := sort.Search(len(marks), func(i int) bool { return marks[i].col+1 > col }) - 1
	off, c := marks[max(k, 0)].off, marks[max(k, 0)].col+1
	for ; c < col && off < len(x.src) && yamlBreakAt(x.src, off) == 0; c++ {
		_, n := utf8.DecodeRune(x.src[off:])
		off += n
	}
	return off
}

// lineMarks computes (once) the checkpoints of a line with wide bytes:
// every markStride characters, the offset and the characters before it.
func (x *yamlIndex) lineMarks(line int) []mark {
	if m, ok := x.marks[line]; ok {
		return m
	}
	start, end := x.starts[line-1], x.lineEnd(line)
	marks := []mark{{start, 0}}
	col := 0
	for off := start; off < end; {
		if col > 0 && col%markStride == 0 {
			marks = append(marks, mark{off, col})
		}
		_, n := utf8.DecodeRune(x.src[off:end])
		off += n
		col++
	}
	if x.marks == nil {
		x.marks = map[int][]mark{}
	}
	x.marks[line] = marks
	return marks
}

// mapScalar maps a scalar node's value to the file, or reports that it
// cannot.
func mapScalar(yx *yamlIndex, n *yaml.Node) (*scalarMap, bool) {
	src := yx.src
	i := skipProperties(src, yx.offsetAt(n.Line, n.Column))
	v := n.Value
	if n.Tag == "!!binary" {
		// The value a system reads is the decoded base64, not this
		// text: nothing of it can be placed.
		return &scalarMap{}, false
	}
	m := &scalarMap{text: make([]byte, 0, len(v)), from: make([]int32, 0, len(v)), to: make([]int32, 0, len(v))}
	style := n.Style &^ (yaml.TaggedStyle | yaml.FlowStyle)
	var ok bool
	switch style {
	case yaml.DoubleQuotedStyle:
		ok = i < len(src) && src[i] == '"' && flowScalar(src, i+1, v, m, '"')
	case yaml.SingleQuotedStyle:
		ok = i < len(src) && src[i] == '\'' && flowScalar(src, i+1, v, m, '\'')
	case yaml.LiteralStyle, yaml.FoldedStyle:
		ok = i < len(src) && (src[i] == '|' || src[i] == '>') && blockScalar(src, i, v, m, style == yaml.FoldedStyle)
	default:
		ok = flowScalar(src, i, v, m, 0)
	}
	return m, ok && string(m.text) == v
}

// skipProperties steps over a node's anchor and tag (and the white space,
// line breaks and comments after them): yaml's position of a node is that
// of its properties.
func skipProperties(src []byte, i int) int {
	for i < len(src) && (src[i] == '&' || src[i] == '!') {
		// As yaml scans them: an anchor's name is letters, digits, _
		// and -; a tag is !<verbatim> or a run of URI characters.
		switch {
		case src[i] == '&':
			i++
			for i < len(src) && isAnchorChar(src[i]) {
				i++
			}
		case i+1 < len(src) && src[i+1] == '<':
			for i < len(src) && src[i] != '>' {
				i++
			}
			i++
		default:
			i++
			for i < len(src) && (isAnchorChar(src[i]) || strings.IndexByte(";/?:@&=+$,.!~*'()[]%", src[i]) >= 0) {
				i++
			}
		}
	blanks:
		for i < len(src) {
			switch {
			case isYAMLSpace(src[i]) || yamlBreakAt(src, i) > 0:
				i += max(yamlBreakAt(src, i), 1)
			case src[i] == '#':
				for i < len(src) && yamlBreakAt(src, i) == 0 {
					i++
				}
			default:
				break blanks
			}
		}
	}
	return i
}

func isAnchorChar(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_' || b == '-'
}

func isYAMLSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

func isBlank(b byte) bool { return b == ' ' || b == '\t' }

// yamlBreakAt is the length of a line break at src[i] (0 when none).
func yamlBreakAt(src []byte, i int) int {
	n, _ := yamlBreak(src, i)
	return n
}

// yamlBreak is the length of a line break at src[i] and what it is in a
// value: CR LF, CR and NEL are a line feed, LS and PS themselves.
func yamlBreak(src []byte, i int) (int, string) {
	if i >= len(src) {
		return 0, ""
	}
	switch src[i] {
	case '\n':
		return 1, "\n"
	case '\r':
		if i+1 < len(src) && src[i+1] == '\n' {
			return 2, "\n"
		}
		return 1, "\n"
	case 0xC2:
		if i+1 < len(src) && src[i+1] == 0x85 {
			return 2, "\n"
		}
	case 0xE2:
		if i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xA8 || src[i+2] == 0xA9) {
			return 3, string(src[i : i+3])
		}
	}
	return 0, ""
}

// emitBreak maps the line break at src[b] as the value has it at v[j].
func emitBreak(src []byte, b int, v string, j int, m *scalarMap) (int, bool) {
	n, val := yamlBreak(src, b)
	if n == 0 || j+len(val) > len(v) || v[j:j+len(val)] != val {
		return j, false
	}
	for k := 0; k < len(val); k++ {
		m.emit(val[k], b, b+n)
	}
	return j + len(val), true
}

// flowScalar walks a plain (quote 0), single- or double-quoted scalar
// from i, its opening quote behind it.
func flowScalar(src []byte, i int, v string, m *scalarMap, quote byte) bool {
	j := 0
	for j < len(v) {
		if i >= len(src) {
			return false
		}
		c := src[i]
		switch {
		case quote == '"' && c == '\\':
			var ok bool
			if i, j, ok = escape(src, i, v, j, m); !ok {
				return false
			}
			continue
		case quote == '\'' && c == '\'':
			if i+1 < len(src) && src[i+1] == '\'' && v[j] == '\'' {
				m.emit('\'', i, i+2)
				i, j = i+2, j+1
				continue
			}
			return false
		case isBlank(c):
			k := i
			for k < len(src) && isBlank(src[k]) {
				k++
			}
			if yamlBreakAt(src, k) > 0 {
				i = k // white space before a line break is not the value's
				continue
			}
		case yamlBreakAt(src, i) > 0:
			var ok bool
			if i, j, ok = fold(src, i, v, j, m); !ok {
				return false
			}
			continue
		}
		if v[j] != c {
			return false
		}
		m.emit(c, i, i+1)
		i, j = i+1, j+1
	}
	return true
}

// fold steps over the line breaks of a flow scalar from i: one break is a
// space of the value, each further (empty) line a line break; the
// indentation of the next line is not the value's.
func fold(src []byte, i int, v string, j int, m *scalarMap) (int, int, bool) {
	var breaks []int
	for {
		n := yamlBreakAt(src, i)
		if n == 0 {
			break
		}
		breaks = append(breaks, i)
		i += n
		for i < len(src) && isBlank(src[i]) {
			i++
		}
	}
	if len(breaks) == 1 {
		if j < len(v) && v[j] == ' ' {
			m.emit(' ', breaks[0], breaks[0]+yamlBreakAt(src, breaks[0]))
			return i, j + 1, true
		}
		if j2, ok := emitBreak(src, breaks[0], v, j, m); ok {
			return i, j2, true // LS and PS are kept, not folded
		}
		// A break the value does not have: the end of the scalar's
		// last line before its closing quote, or an escaped break.
		return i, j, true
	}
	for k, b := range breaks {
		if k == 0 {
			// The first break is folded away, unless it is LS or PS.
			if _, val := yamlBreak(src, b); val == "\n" {
				continue
			}
		}
		var ok bool
		if j, ok = emitBreak(src, b, v, j, m); !ok {
			return i, j, false
		}
	}
	return i, j, true
}

// simpleEscapes are yaml's one-character escapes (\' too, which yaml
// accepts), hexEscapes the widths of \x, \u and \U.
var (
	simpleEscapes = map[byte]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v", 'f': "\f",
		'r': "\r", 'e': "\x1b", ' ': " ", '"': "\"", '\'': "'", '/': "/", '\\': "\\", 'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029"}
	hexEscapes = map[byte]int{'x': 2, 'u': 4, 'U': 8}
)

// escape decodes the escape sequence of a double-quoted scalar at src[i]
// (a backslash): every byte it stands for maps to the whole sequence.
func escape(src []byte, i int, v string, j int, m *scalarMap) (int, int, bool) {
	if i+1 >= len(src) {
		return i, j, false
	}
	c := src[i+1]
	if n := yamlBreakAt(src, i+1); n > 0 {
		// An escaped line break: neither it nor the next line's
		// indentation is the value's; each empty line after it is a
		// line break of the value.
		k := i + 1 + n
		for {
			for k < len(src) && isBlank(src[k]) {
				k++
			}
			if yamlBreakAt(src, k) == 0 {
				return k, j, true
			}
			var ok bool
			if j, ok = emitBreak(src, k, v, j, m); !ok {
				return k, j, false
			}
			k += yamlBreakAt(src, k)
		}
	}
	var out string
	end := i + 2
	if s, ok := simpleEscapes[c]; ok {
		out = s
	} else {
		width := hexEscapes[c]
		if width == 0 || i+2+width > len(src) {
			return i, j, false
		}
		code, err := strconv.ParseUint(string(src[i+2:i+2+width]), 16, 32)
		if err != nil {
			return i, j, false
		}
		out = string(rune(code))
		end = i + 2 + width
	}
	if j+len(out) > len(v) || v[j:j+len(out)] != out {
		return i, j, false
	}
	for k := 0; k < len(out); k++ {
		m.emit(out[k], i, end)
	}
	return end, j + len(out), true
}

// blockScalar walks a literal (|) or folded (>) scalar whose indicator is
// at src[i]. Its indentation is what the first line with content has more
// than the value gives that line (an explicit indentation indicator is
// relative to the parent, which the value makes unnecessary to know).
func blockScalar(src []byte, i int, v string, m *scalarMap, folded bool) bool {
	for i < len(src) && yamlBreakAt(src, i) == 0 {
		i++
	}
	i += yamlBreakAt(src, i)
	if len(v) == 0 {
		return true
	}
	indent, ok := blockIndent(src, i, v)
	if !ok {
		return false
	}
	j := 0
	for j < len(v) && i < len(src) {
		// The line's indentation (unknown in a scalar of blank lines
		// alone: the spaces the value does not keep).
		skip := indent
		if indent < 0 {
			n, k := 0, 0
			for i+n < len(src) && src[i+n] == ' ' {
				n++
			}
			for j+k < len(v) && v[j+k] == ' ' {
				k++
			}
			skip = max(n-k, 0)
		}
		for k := 0; k < skip && i < len(src) && src[i] == ' '; k++ {
			i++
		}
		for i < len(src) && yamlBreakAt(src, i) == 0 && j < len(v) {
			if v[j] != src[i] {
				return false
			}
			m.emit(src[i], i, i+1)
			i, j = i+1, j+1
		}
		n := yamlBreakAt(src, i)
		if n == 0 {
			break
		}
		if j < len(v) && folded && v[j] == ' ' {
			m.emit(' ', i, i+n)
			j++
		} else if j2, ok := emitBreak(src, i, v, j, m); ok {
			j = j2
		} else if !folded && j < len(v) {
			return false
		}
		i += n
	}
	return j == len(v)
}

// blockIndent is a block scalar's indentation: the leading spaces of its
// first line with content, less those the value keeps on that line (the
// value's line as many lines down: lines of spaces only before it are
// lines of the value too, which an indentation indicator may keep
// spaces of).
func blockIndent(src []byte, i int, v string) (int, bool) {
	if strings.Trim(v, " \n") == "" {
		// No line with content in the value (the next non-blank line
		// of the file is not the scalar's): unknown.
		return -1, true
	}
	lines := strings.Split(v, "\n")
	for line := 0; i < len(src); line++ {
		k := i
		for k < len(src) && src[k] == ' ' {
			k++
		}
		if n := yamlBreakAt(src, k); n > 0 {
			i = k + n
			continue
		}
		if line >= len(lines) {
			return 0, false
		}
		kept := len(lines[line]) - len(strings.TrimLeft(lines[line], " "))
		if k-i < kept {
			return 0, false
		}
		return k - i - kept, true
	}
	return 0, false
}
