package loader

import (
	"bytes"
	"github.com/buildgate/buildgate/finding"
	"sort"
	"unicode/utf8"
)

// Pos locates an element in its file (package finding has the contract).
type Pos = finding.Pos

// lineIndex converts byte offsets of one source into positions. Every loader
// goes through it, whatever its parser reports, so columns agree across kinds.
type lineIndex struct {
	src    []byte
	starts []int // byte offset of each line's first byte
	// wide marks the lines holding a byte outside ASCII, whose columns
	// are counted in code points; marks[line] are checkpoints on such a
	// line, so that a column costs O(log n + stride), not the line's
	// length (a 2 MB line of 80,000 specifiers would be quadratic).
	wide  map[int]bool
	marks map[int][]mark
}

// mark is a character boundary on a line and the code points before it.
type mark struct{ off, col int }

const markStride = 256

func newLineIndex(src []byte) *lineIndex {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	var wide map[int]bool
	for i, b := range src {
		switch {
		case b == '\n':
			starts = append(starts, i+1)
		case b >= utf8.RuneSelf:
			if wide == nil {
				wide = map[int]bool{}
			}
			wide[len(starts)] = true
		}
	}
	return &lineIndex{src: src, starts: starts, wide: wide}
}

// lines is the number of physical lines (a final newline does not open one).
func (x *lineIndex) lines() int {
	n := len(x.starts)
	if n > 1 && x.starts[n-1] == len(x.src) {
		n--
	}
	return n
}

// lineOf returns the 1-based line holding byte offset off.
func (x *lineIndex) lineOf(off int) int {
	return sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off })
}

// lineStart returns the byte offset of a 1-based line.
func (x *lineIndex) lineStart(line int) int {
	if line < 1 {
		return 0
	}
	if line > len(x.starts) {
		return len(x.src)
	}
	return x.starts[line-1]
}

// lineEnd returns the offset of the line's end, before "\r\n" or "\n".
func (x *lineIndex) lineEnd(line int) int {
	end := len(x.src)
	if line < len(x.starts) {
		end = x.starts[line] - 1
	}
	if end > 0 && end <= len(x.src) && end-1 >= x.lineStart(line) && x.src[end-1] == '\r' {
		end--
	}
	return end
}

// lineText returns a physical line without its line ending.
func (x *lineIndex) lineText(line int) string {
	s, e := x.lineStart(line), x.lineEnd(line)
	if e < s {
		return ""
	}
	return string(x.src[s:e])
}

// point returns the line and code-point column of a byte offset.
func (x *lineIndex) point(off int) (int, int) {
	if off < 0 {
		off = 0
	}
	if off > len(x.src) {
		off = len(x.src)
	}
	line := x.lineOf(off)
	start := x.starts[line-1]
	if !x.wide[line] {
		return line, off - start + 1
	}
	marks := x.lineMarks(line)
	i := sort.Search(len(marks), func(i int) bool { return marks[i].off > off }) - 1
	return line, marks[i].col + utf8.RuneCount(x.src[marks[i].off:off]) + 1
}

// lineMarks computes (once) the checkpoints of a line with wide bytes.
func (x *lineIndex) lineMarks(line int) []mark {
	if m, ok := x.marks[line]; ok {
		return m
	}
	start := x.starts[line-1]
	end := len(x.src)
	if line < len(x.starts) {
		end = x.starts[line]
	}
	marks := []mark{{start, 0}}
	col, next := 0, start+markStride
	for off := start; off < end; {
		if off >= next {
			marks = append(marks, mark{off, col})
			next = off + markStride
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

// snap moves an offset that falls inside a UTF-8 sequence to the start of
// the next character, so that columns and texts agree on invalid input.
func (x *lineIndex) snap(off int) int {
	if off <= 0 || off >= len(x.src) || utf8.RuneStart(x.src[off]) {
		return off
	}
	// Inside a valid multi-byte character only if a lead byte behind it
	// starts one that reaches past off; stray bytes count as characters.
	for p := off - 1; p >= 0 && p >= off-3; p-- {
		if utf8.RuneStart(x.src[p]) {
			if r, size := utf8.DecodeRune(x.src[p:]); r != utf8.RuneError && p+size > off {
				return p + size
			}
			break
		}
	}
	return off
}

// span returns the position of the bytes [start, end).
func (x *lineIndex) span(start, end int) Pos {
	start, end = x.snap(start), x.snap(end)
	if end < start {
		end = start
	}
	l, c := x.point(start)
	el, ec := x.point(end)
	return Pos{Line: l, Column: c, EndLine: el, EndColumn: ec}
}

// linesSpan covers whole physical lines first..last.
func (x *lineIndex) linesSpan(first, last int) Pos {
	if last < first {
		last = first
	}
	return x.span(x.lineStart(first), x.lineEnd(last))
}

// mappedText is text assembled from pieces of a source (a Dockerfile
// instruction with its continuations and comment lines removed), which keeps
// for every byte the source offset it came from, so that positions found in
// the assembled text map back to physical lines.
type mappedText struct {
	text []byte
	segs []segment
}

type segment struct {
	at  int // offset in text
	src int // offset in the source
}

func (m *mappedText) add(src []byte, srcOff int) {
	if len(src) == 0 {
		return
	}
	m.segs = append(m.segs, segment{at: len(m.text), src: srcOff})
	m.text = append(m.text, src...)
}

// source maps an offset of the assembled text to a source offset. An offset
// at the very end maps to just after the last byte.
func (m *mappedText) source(off int) int {
	if len(m.segs) == 0 {
		return 0
	}
	i := sort.Search(len(m.segs), func(i int) bool { return m.segs[i].at > off }) - 1
	if i < 0 {
		i = 0
	}
	return m.segs[i].src + off - m.segs[i].at
}

// offsetOf is the inverse of source: the offset in the assembled text of a
// source offset, if that byte was copied.
func (m *mappedText) offsetOf(src int) (int, bool) {
	for i, sg := range m.segs {
		end := len(m.text)
		if i+1 < len(m.segs) {
			end = m.segs[i+1].at
		}
		if src >= sg.src && src < sg.src+end-sg.at {
			return sg.at + src - sg.src, true
		}
	}
	return 0, false
}

// spanOf maps [start, end) of the assembled text to a source position; the
// end maps from the last byte so that a span never runs into a removed part.
func (m *mappedText) spanOf(x *lineIndex, start, end int) Pos {
	return x.span(m.sourceRange(start, end))
}

// sourceRange maps [start, end) of the assembled text to source offsets,
// the end from the last byte (as spanOf).
func (m *mappedText) sourceRange(start, end int) (int, int) {
	s := m.source(start)
	if end <= start {
		return s, s
	}
	return s, m.source(end-1) + 1
}

// sourceText is the file's text src at [start, end) of the assembled
// text (the assembled text's own when the range is not the file's).
func (m *mappedText) sourceText(src []byte, start, end int) string {
	a, b := m.sourceRange(start, end)
	if a < 0 || b > len(src) || a > b {
		return string(m.text[start:end])
	}
	return string(src[a:b])
}

// before reports whether position a starts before position b.
func before(a, b Pos) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Column < b.Column
}

// suffix returns the text from offset from on, keeping its map.
func (m *mappedText) suffix(from int) *mappedText {
	out := &mappedText{}
	for i, sg := range m.segs {
		end := len(m.text)
		if i+1 < len(m.segs) {
			end = m.segs[i+1].at
		}
		if end <= from {
			continue
		}
		s := max(sg.at, from)
		out.add(m.text[s:end], sg.src+s-sg.at)
	}
	return out
}
