package fix

import (
	"bytes"
	"strings"
)

// lineCut removes whole lines of a file: the instructions, stages or
// blocks a fix takes out. It knows only lines, which keeps what a removal
// does to the rest of the file (comments, blank lines) the same for every
// kind of file.
type lineCut struct {
	src    []byte
	starts []int  // byte offset of each line's first byte; line n is starts[n-1]
	cut    []bool // cut[n] for line n (1-based)
	keep   []bool // keep[n]: never cut (a parser directive)
	// comment reports whether a line (its text without the line break) is
	// a comment of the file's language.
	comment func(line []byte) bool
}

func newLineCut(src []byte, comment func([]byte) bool) *lineCut {
	c := &lineCut{src: src, comment: comment}
	c.starts = append(c.starts, 0)
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			c.starts = append(c.starts, i+1)
		}
	}
	if len(src) == 0 {
		c.starts = nil
	}
	c.cut = make([]bool, len(c.starts)+2)
	c.keep = make([]bool, len(c.starts)+2)
	// A #! line says which program runs the file: it always stays.
	if c.lines() > 0 && bytes.HasPrefix(c.text(1), []byte("#!")) {
		c.keep[1] = true
	}
	// A suppression comment is the user's word about some line: tidying
	// never takes it (a removal that covers it is refused by the caller
	// when it holds a suppressed finding).
	for n := 1; n <= c.lines(); n++ {
		if c.isComment(n) && bytes.Contains(c.text(n), []byte("buildgate:ignore")) {
			c.keep[n] = true
		}
	}
	return c
}

func (c *lineCut) lines() int { return len(c.starts) }

// text is line n without its line break (LF or CR LF).
func (c *lineCut) text(n int) []byte {
	end := len(c.src)
	if n < len(c.starts) {
		end = c.starts[n]
	}
	return bytes.TrimRight(c.src[c.starts[n-1]:end], "\r\n")
}

func (c *lineCut) blank(n int) bool { return len(bytes.TrimSpace(c.text(n))) == 0 }

func (c *lineCut) isComment(n int) bool {
	return !c.blank(n) && c.comment(bytes.TrimSpace(c.text(n)))
}

// remove marks lines from..to (inclusive) to be cut.
func (c *lineCut) remove(from, to int) {
	for n := max(from, 1); n <= to && n <= c.lines(); n++ {
		c.cut[n] = true
	}
}

// tidy extends the cut to what the removed lines leave behind:
//   - a paragraph (lines between blank lines) whose every line that is not
//     a comment is cut loses its comments too: they described what went;
//   - so does a block of comments right above lines that are all cut (up
//     to the next blank line): it heads them;
//   - where a cut leaves two blank lines meeting (or a blank line at the
//     start or end of the file), one goes, so blank lines do not pile up.
//
// Comments in a paragraph that keeps a line stay: they may describe it.
// The passes run in this order: a paragraph's comments go before the
// headings are looked for, and the seams are those of the final cut.
func (c *lineCut) tidy() {
	c.tidyParagraphs()
	c.tidyHeadings()
	// Seams: two blank lines that a cut brings together (or a blank line it
	// brings to the start or the end of the file) become one; repeated,
	// since each cut line can bring the next blank line up.
	for changed := true; changed; {
		changed = c.closeSeams()
	}
}

// tidyParagraphs cuts the comments of each paragraph that loses every
// line that is not a comment.
func (c *lineCut) tidyParagraphs() {
	n := c.lines()
	for start := 1; start <= n; {
		if c.blank(start) {
			start++
			continue
		}
		end := start
		for end+1 <= n && !c.blank(end+1) {
			end++
		}
		if lastCut, goes := c.paragraphGoes(start, end); goes {
			// Comments after the last cut line stay: they may be about
			// what follows the paragraph.
			c.cutUnkept(start, lastCut)
		}
		start = end + 1
	}
}

// paragraphGoes reports whether the paragraph start..end loses some line
// and every line that is not a comment (a comment that is never cut counts
// as a line that stays), and which line is the last one cut.
func (c *lineCut) paragraphGoes(start, end int) (lastCut int, goes bool) {
	anyCut, allCut := false, true
	for l := start; l <= end; l++ {
		switch {
		case c.cut[l]:
			anyCut, lastCut = true, l
		case !c.isComment(l) || c.keep[l]:
			allCut = false
		}
	}
	return lastCut, anyCut && allCut
}

// tidyHeadings cuts a block of comments right above lines that are all
// cut, up to the next blank line (comments between them aside): it heads
// them and goes with them. One that also heads a line that stays stays.
func (c *lineCut) tidyHeadings() {
	n := c.lines()
	for start := 1; start <= n; {
		if !c.isComment(start) || c.cut[start] {
			start++
			continue
		}
		end := start
		for end+1 <= n && c.isComment(end+1) && !c.cut[end+1] {
			end++
		}
		if c.headsOnlyCut(end + 1) {
			c.cutUnkept(start, end)
		}
		start = end + 1
	}
}

// headsOnlyCut reports whether the lines from line from to the next blank
// line or the end of the enclosing block (comments that stay aside) are at
// least one and all cut: a block of comments right above them heads only
// what goes.
func (c *lineCut) headsOnlyCut(from int) bool {
	body, allCut := 0, true
	// A line that closes the block (`}`, `fi`, `done`) ends what the
	// comments head, as a blank line does: a commented unit at the end
	// of a function goes with its comment.
	for l := from; l <= c.lines() && !c.blank(l) && (c.cut[l] || !c.closes(l) || l == from); l++ {
		if c.isComment(l) && !c.cut[l] {
			continue
		}
		body++
		allCut = allCut && c.cut[l]
	}
	return body > 0 && allCut
}

// cutUnkept cuts lines from..to, but those that are never cut.
func (c *lineCut) cutUnkept(from, to int) {
	for l := from; l <= to; l++ {
		if !c.keep[l] {
			c.cut[l] = true
		}
	}
}

// closeSeams makes one pass over the lines, cutting a blank line where a
// cut brings it next to another, to the start or the end of the file, or
// right after a line that opens a block or before one that closes it. It
// reports whether it cut anything (the next pass may find more).
func (c *lineCut) closeSeams() bool {
	changed := false
	prev, cutSince := 0, false // the last kept line, and whether lines were cut after it
	for l := 1; l <= c.lines(); l++ {
		if c.cut[l] {
			cutSince = true
			continue
		}
		if cutSince && c.blank(l) && !c.keep[l] && (prev == 0 || c.blank(prev) || c.opens(prev)) {
			c.cut[l], changed = true, true
			continue
		}
		if cutSince && prev > 0 && c.blank(prev) && !c.keep[prev] && c.closes(l) {
			c.cut[prev], changed = true, true
		}
		prev, cutSince = l, false
	}
	if cutSince && prev > 0 && c.blank(prev) && !c.keep[prev] {
		c.cut[prev], changed = true, true
	}
	return changed
}

// closes reports whether line n closes a block (`}`, `fi`, `done`, `esac`,
// `)`, `]`): a blank line a cut leaves right before it goes.
func (c *lineCut) closes(n int) bool {
	t := string(bytes.TrimSpace(c.text(n)))
	for _, w := range []string{"}", ")", "]", "fi", "done", "esac", ";;"} {
		if t == w || strings.HasPrefix(t, w) && len(t) > len(w) && strings.ContainsRune(" ;)}]", rune(t[len(w)])) {
			return true
		}
	}
	return false
}

// opens reports whether line n opens a block (ends in `{`, `(`, `[`,
// `then`, `do`, `in`): a blank line a cut leaves right after it goes.
func (c *lineCut) opens(n int) bool {
	t := string(bytes.TrimSpace(c.text(n)))
	for _, w := range []string{"{", "(", "[", " then", " do", " in", ";then", ";do"} {
		if strings.HasSuffix(t, w) || t == strings.TrimSpace(w) {
			return true
		}
	}
	return false
}

// edits are the byte ranges of the cut lines, one per run of lines.
func (c *lineCut) edits() []Edit {
	var es []Edit
	n := c.lines()
	for l := 1; l <= n; {
		if !c.cut[l] {
			l++
			continue
		}
		end := l
		for end+1 <= n && c.cut[end+1] {
			end++
		}
		stop := len(c.src)
		if end < n {
			stop = c.starts[end]
		}
		start := c.starts[l-1]
		if start == 0 && bytes.HasPrefix(c.src, bom) {
			start = len(bom) // the byte order mark stays
		}
		es = append(es, Edit{Start: start, End: stop})
		l = end + 1
	}
	return es
}
