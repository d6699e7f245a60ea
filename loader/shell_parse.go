package loader

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// parsedStmts is one recovered parse: the statements and the comments.
type shellParse struct {
	stmts    []*syntax.Stmt
	comments []syntax.Comment
}

// parseShell parses src, recovering from errors by blanking everything up to
// the failing line (offsets stay the same) and parsing the rest again, so that
// one bad line does not hide the remainder of a script.
//
// Past a bound (maxParseFrames) it stops, and the bound is the third result:
// not a syntax error of the script, but a part buildgate did not read.
func parseShell(src shellSource) ([]shellParse, []Error, []Error) {
	var parses []shellParse
	var errs []Error
	r := &shellRetry{text: src.text}
	for attempt := 0; ; attempt++ {
		var p shellParse
		parser := src.parser
		if parser == nil {
			parser = newShellParser()
		}
		guard := &depthGuard{r: bytes.NewReader(r.text)}
		f, err := parser.Parse(guard, "")
		if guard.tripped {
			p, bound := tooDeep(src, r.text, f, guard)
			return append(parses, p), errs, []Error{bound}
		}
		if err != nil && r.again(err) {
			attempt--
			continue
		}
		p = keptBefore(f, err)
		parses = append(parses, p)
		if err == nil {
			return parses, errs, nil
		}
		off, e := syntaxError(src, r.text, err)
		errs = append(errs, e)
		nl := bytes.IndexByte(r.text[off:], '\n')
		// Each recovery parses the whole text again: bound the bytes
		// parsed, not only the attempts (50 errors early in a 4 MB script
		// would be 200 MB of parsing).
		if nl >= 0 && (attempt+2)*len(r.text) > maxRecoveryBytes {
			return parses, errs, []Error{{Message: fmt.Sprintf("shell: %d syntax errors in %d bytes, more than buildgate re-parses to recover (%d bytes in all): the rest is not read", attempt+1, len(r.text), maxRecoveryBytes), Pos: src.span(off, off)}}
		}
		if nl < 0 || attempt >= maxShellErrors || src.once {
			if attempt >= maxShellErrors {
				// A bound, not a syntax error: what follows is not read
				// at all, whatever the file mentions (an upload or a
				// `bash FILE` after 50 lines bash runs and mvdan/sh does
				// not read must not go unseen).
				return parses, errs, []Error{{Message: fmt.Sprintf("shell: more than %d syntax errors, more than buildgate recovers from: the rest of the script is not read (see docs/robustness.md)", maxShellErrors), Pos: src.span(off, off)}}
			}
			return parses, errs, nil
		}
		r.text = blankBefore(r.text, off+nl+1)
	}
}

// shellRetry is the text parseShell parses, and the rewrites it tried
// that are no recovery from an error (the same attempt again).
type shellRetry struct {
	text     []byte
	assoc    bool
	heredocs int
}

// again rewrites the text for a parse error that is not the script's,
// and reports whether it did: bash's associative-array keys, which
// mvdan/sh reads as arithmetic (tried once), and a here-document that
// never meets its delimiter, which bash reads to the end of the file (a
// warning, not an error): it is ended there.
func (r *shellRetry) again(err error) bool {
	if !r.assoc {
		r.assoc = true
		if t, changed := assocKeys(r.text); changed {
			r.text = t
			return true
		}
	}
	if r.heredocs < 16 {
		if _, msg, ok := errorAt(err); ok && strings.HasPrefix(msg, "unclosed here-document `") {
			delim := strings.TrimSuffix(strings.TrimPrefix(msg, "unclosed here-document `"), "`")
			r.heredocs++
			r.text = append(append(bytes.Clone(r.text), '\n'), delim+"\n"...)
			return true
		}
	}
	return false
}

// tooDeep is what is kept of a parse that went past maxParseFrames: the
// statements complete before the last 1 KB read (the one that went too
// deep starts after them), and the bound passed.
func tooDeep(src shellSource, text []byte, f *syntax.File, guard *depthGuard) (shellParse, Error) {
	off := min(max(guard.consumed-1024, 0), len(text))
	var kept []*syntax.Stmt
	at := 0
	if f != nil {
		for _, s := range f.Stmts {
			if s.End().IsValid() && int(s.End().Offset()) <= off {
				kept = append(kept, s)
				at = int(s.End().Offset())
			}
		}
	}
	for at < len(text) && isShellSpace(text[at]) {
		at++
	}
	if len(kept) == 0 {
		// The parser gave nothing back: the point of the last read, which
		// the nesting reached, is as close as known.
		at = min(guard.consumed, len(text))
	}
	return shellParse{stmts: kept}, Error{Message: fmt.Sprintf("shell: nested deeper than buildgate reads (the parser's stack passed %d frames: some %d levels of nesting, or %d consecutive comment lines): the rest is not read", maxParseFrames, maxParseFrames/5, maxParseFrames), Pos: src.span(at, at)}
}

// keptBefore is a parse's statements and comments; after an error, only
// the statements that ended before it (the one in progress is
// incomplete), and no comments.
func keptBefore(f *syntax.File, err error) shellParse {
	var p shellParse
	if f != nil {
		p.stmts, p.comments = f.Stmts, f.Last
	}
	if err == nil {
		return p
	}
	if at, _, ok := errorAt(err); ok {
		kept := p.stmts[:0]
		for _, s := range p.stmts {
			if s.End().IsValid() && int(s.End().Offset()) <= at {
				kept = append(kept, s)
			}
		}
		p.stmts = kept
	}
	p.comments = nil
	return p
}

// syntaxError is the error a parse stopped at, and where in text.
func syntaxError(src shellSource, text []byte, err error) (int, Error) {
	off, msg, ok := errorAt(err)
	if !ok {
		off, msg = len(text), err.Error()
	}
	if off > len(text) {
		off = len(text)
	}
	at := off
	if strings.HasPrefix(msg, "reached EOF without matching") || strings.Contains(msg, "must end with") {
		// bash finds these at the end of the file, and names that line:
		// so does buildgate, naming where the construct opened.
		at = len(bytes.TrimRight(src.text, " \t\r\n"))
		msg += fmt.Sprintf(" (it opens at line %d)", src.span(off, off).Line)
	}
	return off, Error{Message: "shell: " + msg, Syntax: true, Pos: src.span(at, at)}
}

func newShellParser() *syntax.Parser {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}

// blankBefore returns a copy of text with every byte before end, except
// newlines, replaced by a space: offsets and lines stay where they were.
func blankBefore(text []byte, end int) []byte {
	out := bytes.Clone(text)
	for i := 0; i < end && i < len(out); i++ {
		if out[i] != '\n' {
			out[i] = ' '
		}
	}
	return out
}

// onlyRange returns a copy of text blanked outside [start, end).
func onlyRange(text []byte, start, end int) []byte {
	out := bytes.Clone(text)
	for i := range out {
		if (i < start || i >= end) && out[i] != '\n' {
			out[i] = ' '
		}
	}
	return out
}

// errorAt is where a parse error is and what it says: a syntax error, or a
// construct of another shell (mvdan/sh's LangError, e.g. "floating point
// arithmetic is a zsh feature" for bash's `declare -A a=([3.14]=x)`), which
// has a position too, so that recovery goes on after its line instead of
// losing the rest of the script.
func errorAt(err error) (int, string, bool) {
	var perr syntax.ParseError
	if errors.As(err, &perr) {
		return int(perr.Pos.Offset()), perr.Text, true
	}
	var lerr syntax.LangError
	if errors.As(err, &lerr) && lerr.Pos.IsValid() {
		msg := lerr.Error()
		if i := strings.Index(msg, ": "); i >= 0 && strings.Count(msg[:i], ":") <= 1 {
			msg = msg[i+2:] // drop "line:col: ", the position is the finding's
		}
		return int(lerr.Pos.Offset()), msg, true
	}
	return 0, "", false
}
