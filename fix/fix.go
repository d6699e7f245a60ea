// Package fix turns findings' fixes into byte-range edits of the original
// text, applies them, and shows them as a unified diff (issue 17). It
// never re-prints a file: the bytes outside the edits stay as they are.
package fix

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
)

// Edit replaces src[Start:End] with Text.
type Edit struct {
	Start, End int
	Text       string
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Offsets turns a position (1-based lines, code-point columns, the end
// column exclusive; a byte order mark is no column) into byte offsets of
// src. A position past the end of a line or of the file is an error: a
// fix that does not fit the file is not applied.
func Offsets(src []byte, p finding.Pos) (int, int, error) {
	start, err := offset(src, p.Line, p.Column)
	if err != nil {
		return 0, 0, err
	}
	endLine, endCol := p.EndLine, p.EndColumn
	if endLine == 0 {
		endLine, endCol = p.Line, p.Column
	}
	end, err := offset(src, endLine, endCol)
	if err != nil {
		return 0, 0, err
	}
	if end < start {
		return 0, 0, fmt.Errorf("position %d:%d-%d:%d ends before it starts", p.Line, p.Column, endLine, endCol)
	}
	return start, end, nil
}

func offset(src []byte, line, col int) (int, error) {
	if line < 1 || col < 1 {
		return 0, fmt.Errorf("position %d:%d is not in the file", line, col)
	}
	i := 0
	if bytes.HasPrefix(src, bom) {
		i = len(bom)
	}
	for l := 1; l < line; l++ {
		nl := bytes.IndexByte(src[i:], '\n')
		if nl < 0 {
			return 0, fmt.Errorf("line %d is past the end of the file", line)
		}
		i += nl + 1
	}
	for c := 1; c < col; c++ {
		if i >= len(src) || src[i] == '\n' || src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n' {
			return 0, fmt.Errorf("column %d is past the end of line %d", col, line)
		}
		_, n := utf8.DecodeRune(src[i:])
		i += n
	}
	return i, nil
}

// Apply applies edits to src. Identical edits count once; overlapping
// ones are an error (two fixes that disagree about the same text).
func Apply(src []byte, edits []Edit) ([]byte, error) { return ApplyWithin(src, edits, 0) }

// ApplyWithin is Apply of edits whose result is at most limit bytes (0:
// any): a policy's fixes could make a file of any size (40,000 findings
// each inserting 60 KB on its own line), which the next run would not
// read anyway. Past the limit it is an error, before the text is built.
func ApplyWithin(src []byte, edits []Edit, limit int) ([]byte, error) {
	es := append([]Edit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Start != es[j].Start {
			return es[i].Start < es[j].Start
		}
		return es[i].End < es[j].End
	})
	// First the edits are checked and the result's size counted, so that
	// a result past the limit is never built.
	kept := es[:0]
	at, size := 0, len(src)
	for i, e := range es {
		if i > 0 && e == es[i-1] {
			continue
		}
		if e.Start < at || e.End > len(src) || e.Start > e.End {
			return nil, fmt.Errorf("edits overlap or leave the file (%d-%d after %d)", e.Start, e.End, at)
		}
		size += len(e.Text) - (e.End - e.Start)
		kept = append(kept, e)
		at = e.End
	}
	if limit > 0 && size > limit {
		return nil, fmt.Errorf("the fixed file would be %d bytes, more than the %d buildgate reads", size, limit)
	}
	out := make([]byte, 0, size)
	at = 0
	for _, e := range kept {
		out = append(out, src[at:e.Start]...)
		out = append(out, e.Text...)
		at = e.End
	}
	return append(out, src[at:]...), nil
}

// LineEnding adapts inserted text to the file's line endings: LF becomes
// CR LF in a file that uses CR LF.
func LineEnding(src []byte, text string) string {
	if !bytes.Contains(src, []byte("\r\n")) {
		return text
	}
	var b bytes.Buffer
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && (i == 0 || text[i-1] != '\r') {
			b.WriteByte('\r')
		}
		b.WriteByte(text[i])
	}
	return b.String()
}

// For makes the edit of one fix on src: its position as byte offsets, its
// text in the file's line endings. An insertion at the start of the line
// after the last one of a file that does not end in a line break (where a
// rule appends a line) appends to the file, adding that line break first.
func For(src []byte, p finding.Pos, text string) (Edit, error) {
	text = LineEnding(src, text)
	empty := p.EndLine == 0 || p.EndLine == p.Line && p.EndColumn == p.Column
	s, e, err := Offsets(src, p)
	if err == nil {
		// A new line put after one that ends in a backslash would be
		// joined to it (pip, bash and buildkit all continue such lines).
		if empty && p.Column == 1 && s > 0 && continued(src[:s]) {
			return Edit{}, fmt.Errorf("the line before %d ends with a continuation backslash", p.Line)
		}
		return Edit{Start: s, End: e, Text: text}, nil
	}
	if empty && p.Column == 1 && continued(src) {
		return Edit{}, fmt.Errorf("the last line ends with a continuation backslash")
	}
	if empty && p.Column == 1 && len(src) > 0 && src[len(src)-1] != '\n' && p.Line == lineCount(src)+1 {
		return Edit{Start: len(src), End: len(src), Text: LineEnding(src, "\n") + text}, nil
	}
	return Edit{}, err
}

// continued reports whether the last line of src (up to its line break)
// ends with a backslash.
func continued(src []byte) bool {
	t := bytes.TrimSuffix(src, []byte("\n"))
	t = bytes.TrimSuffix(t, []byte("\r"))
	return len(t) > 0 && t[len(t)-1] == '\\'
}

// lineCount is the number of lines of src, a last line without a line
// break included.
func lineCount(src []byte) int {
	n := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// PosOf is the position (1-based lines, code-point columns past a byte
// order mark, the end exclusive) of src[start:end]: Offsets' inverse, for
// reports that carry an edit as a region.
func PosOf(src []byte, start, end int) finding.Pos {
	at := func(off int) (int, int) {
		line, col, i := 1, 1, 0
		if bytes.HasPrefix(src, bom) {
			i = len(bom)
		}
		for i < off && i < len(src) {
			if src[i] == '\n' {
				line, col = line+1, 1
				i++
				continue
			}
			_, n := utf8.DecodeRune(src[i:])
			i += n
			col++
		}
		return line, col
	}
	l, c := at(start)
	el, ec := at(end)
	return finding.Pos{Line: l, Column: c, EndLine: el, EndColumn: ec}
}

// Covering is the edit of edits whose range holds offset off.
func Covering(edits []Edit, off int) (Edit, bool) {
	for _, e := range edits {
		if off >= e.Start && off < e.End {
			return e, true
		}
	}
	return Edit{}, false
}

// OldLine is the line of src that line n of src with edits applied comes
// from (a line an edit inserted: the line the edit is at).
func OldLine(src []byte, edits []Edit, n int) int {
	sorted := append([]Edit(nil), edits...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	line, pos := 1, 0 // the fixed text's line at src[pos]
	for _, e := range sorted {
		if e.Start < pos {
			continue
		}
		seg := src[pos:e.Start]
		if k := bytes.Count(seg, []byte("\n")); line+k >= n {
			return lineAt(src, pos, n-line)
		} else {
			line += k
		}
		if k := strings.Count(e.Text, "\n"); line+k >= n {
			return lineAt(src, e.Start, 0)
		} else {
			line += k
		}
		pos = e.End
	}
	return lineAt(src, pos, n-line)
}

// lineAt is the line of src k lines after the one offset off is on.
func lineAt(src []byte, off, k int) int {
	return bytes.Count(src[:off], []byte("\n")) + 1 + k
}

// Options are a fix run's choices: Unsafe applies the fixes that change
// what the build does beyond the findings' own elements (ruff's
// --unsafe-fixes); without it they are declined, with why.
type Options struct {
	Unsafe bool
	// OwnOnly applies only findings' own fixes (pins), no removal: fix's
	// later passes, so that a pass never removes what an earlier one
	// kept as unsafe or added.
	OwnOnly bool
	// Writing: the plan is for buildgate fix to write (not a report's
	// suggestion): a read-only file is refused then.
	Writing bool
	// Packages are the migrations' packages: a removal that would take
	// away an install of one refuses its file (the image would lose the
	// wheel a fix, or the user, put there).
	Packages []string
	// Kinds are the kinds the run gave its files (by `kinds:` in the
	// configuration, or by their content when named on the command
	// line): a file's removal is planned as its kind's, whatever its
	// name says (issue 32). A path not in it is known by its name.
	Kinds map[string]loader.Kind
	// OwnEdits are the file's findings' own edits (a pin BG201 adds to an
	// install command): a removal leaves the command they edit standing,
	// taking only its other words.
	OwnEdits []Edit
	// endsShell: the script planned is a RUN's, whose shell ends with its
	// last statement (dockerfile_script.go).
	endsShell bool
}

// KindOf is the kind of a file to fix: the run's, else its name's.
func (o Options) KindOf(path string) (loader.Kind, bool) {
	if k, ok := o.Kinds[path]; ok && k != "" {
		return k, true
	}
	return loader.DetectName(path)
}
