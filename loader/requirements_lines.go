package loader

import (
	"unicode/utf8"
)

// How pip 23's req_file reads a requirements file into logical lines,
// step for step (preprocess): str.splitlines, join_lines, ignore_comments.
// Positions stay those of the file (lines end at LF, as editors and
// GitHub count them); only what is one line to pip follows pip.

// pipLines are the physical lines of str.splitlines as [start, end) byte
// offsets, line breaks excluded: LF, CR LF, a lone CR, VT, FF, FS, GS, RS,
// NEL (U+0085), LS (U+2028) and PS (U+2029) each end a line.
func pipLines(src []byte) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(src); {
		n := lineBreakAt(src, i)
		if n == 0 {
			i++
			continue
		}
		out = append(out, [2]int{start, i})
		i += n
		start = i
	}
	if start < len(src) {
		out = append(out, [2]int{start, len(src)})
	}
	return out
}

// lineBreakAt is the length of the line break str.splitlines sees at i,
// or 0.
func lineBreakAt(src []byte, i int) int {
	switch c := src[i]; c {
	case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e:
		return 1
	case '\r':
		if i+1 < len(src) && src[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xc2:
		if i+1 < len(src) && src[i+1] == 0x85 {
			return 2
		}
	case 0xe2:
		if i+2 < len(src) && src[i+1] == 0x80 && (src[i+2] == 0xa8 || src[i+2] == 0xa9) {
			return 3
		}
	}
	return 0
}

// pySpace is the length of the character at s[i] when Python's
// str.isspace (and re's \s) holds for it, else 0.
func pySpace(s []byte, i int) int {
	c := s[i]
	if c < utf8.RuneSelf {
		if c == ' ' || c >= '\t' && c <= '\r' || c >= 0x1c && c <= 0x1f {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRune(s[i:])
	switch {
	case r == 0x85, r == 0xa0, r == 0x1680, r >= 0x2000 && r <= 0x200a,
		r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return n
	}
	return 0
}

// pyTrimLeft is the offset of the first non-white-space character of s.
func pyTrimLeft(s []byte) int {
	i := 0
	for i < len(s) {
		n := pySpace(s, i)
		if n == 0 {
			break
		}
		i += n
	}
	return i
}

// pyTrimRight is the length of s without white space at its end.
func pyTrimRight(s []byte) int {
	e := len(s)
	for e > 0 {
		// Step back over one character.
		j := e - 1
		for j > 0 && s[j]&0xc0 == 0x80 && e-j < utf8.UTFMax {
			j--
		}
		if n := pySpace(s, j); n == 0 || j+n != e {
			break
		}
		e = j
	}
	return e
}

// isCommentLine is COMMENT_RE.match: the line starts, after white space,
// with '#'. Only such a line stops a trailing backslash from joining the
// next one: `torch  # ROCm build \` joins it, and the comment then
// swallows the next line (issue 14).
func isPipCommentLine(s []byte) bool {
	i := pyTrimLeft(s)
	return i < len(s) && s[i] == '#'
}

// commentStart is where COMMENT_RE, (^|\s+)#.*$, first matches: the start
// of the white space before the first '#' that begins the line or follows
// white space; -1 when there is none.
func commentStart(s []byte) int {
	ws := -1 // start of the current run of white space
	for i := 0; i < len(s); {
		if s[i] == '#' && (i == 0 || ws >= 0) {
			if i == 0 {
				return 0
			}
			return ws
		}
		if n := pySpace(s, i); n > 0 {
			if ws < 0 {
				ws = i
			}
			i += n
			continue
		}
		ws = -1
		i++
	}
	return -1
}

// joinLines mirrors pip's join_lines: a line ending in a backslash goes on
// on the next line (all its leading and trailing backslashes dropped),
// unless it is a comment line; a comment line gets a space in front so the
// comment is still stripped after joining.
//
// It stops after limit logical lines that hold more than white space (the
// caller reports the cap): a file of a million lines is not made into a
// million entries first.
func joinLines(idx *lineIndex, limit int) []reqLine {
	var out []reqLine
	var cur *reqLine
	full := 0
	src := idx.src
	line := func(off int) int { return idx.lineOf(off) }
	for _, pl := range pipLines(src) {
		if full > limit {
			return out
		}
		s, e := pl[0], pl[1]
		raw := src[s:e]
		comment := isPipCommentLine(raw)
		if len(raw) == 0 || raw[len(raw)-1] != '\\' || comment {
			if cur == nil {
				cur = &reqLine{m: &mappedText{}, first: line(s)}
			}
			if comment {
				// pip prefixes a space so the comment is still stripped.
				cur.m.text = append(cur.m.text, ' ')
				cur.m.segs = append(cur.m.segs, segment{at: len(cur.m.text) - 1, src: s})
			}
			cur.m.add(raw, s)
			cur.last = line(max(e-1, s))
			if pyTrimLeft(cur.m.text) < len(cur.m.text) && !comment {
				full++
			}
			out = append(out, *cur)
			cur = nil
			continue
		}
		if cur == nil {
			cur = &reqLine{m: &mappedText{}, first: line(s)}
		}
		lead := 0
		for lead < len(raw) && raw[lead] == '\\' {
			lead++
		}
		end := len(raw)
		for end > lead && raw[end-1] == '\\' {
			end--
		}
		cur.m.add(raw[lead:end], s+lead)
		cur.last = line(max(e-1, s))
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}
