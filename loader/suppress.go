package loader

import (
	"bytes"
	"regexp"
	"strings"
)

// Suppression is a `buildgate:ignore` comment. An ignore applies to the
// findings that start on Line: its own line when it ends a line of code,
// else the next line that is neither blank nor a comment. An ignore-file
// applies to the whole file (Line 0). Rules are ids or names as written;
// Reason is the text after "--".
type Suppression struct {
	Kind   string   `json:"kind"`
	Rules  []string `json:"rules"`
	Reason string   `json:"reason"`
	Line   int      `json:"line"`
	Pos    Pos      `json:"pos"`
}

// The marker must open a comment: at the start of a line or after white
// space, so that a URL fragment or a string ("a#buildgate:ignore") is not
// one.
var (
	hashMarkerRe  = regexp.MustCompile(`(?:^|[ \t])(#[ \t]*buildgate:(ignore-file|ignore)\b(.*))$`)
	slashMarkerRe = regexp.MustCompile(`(?:^|[ \t])((?:#|//)[ \t]*buildgate:(ignore-file|ignore)\b(.*))$`)
	commentLineRe = regexp.MustCompile(`^[ \t]*(#|//)`)
)

// scanSuppressions finds the markers of one file. Cheap when there are
// none: one byte search.
func scanSuppressions(kind Kind, src []byte) []Suppression {
	if !bytes.Contains(src, []byte("buildgate:ignore")) {
		return nil
	}
	re := hashMarkerRe
	if !kinds[kind].hashComments {
		re = slashMarkerRe
	}
	x := newLineIndex(src)
	n := x.lines()
	var out []Suppression
	for line := 1; line <= n; line++ {
		text := x.lineText(line)
		if !strings.Contains(text, "buildgate:ignore") {
			continue
		}
		m := re.FindStringSubmatchIndex(text)
		if m == nil {
			continue
		}
		comment := text[m[2]:m[3]]
		s := Suppression{Kind: text[m[4]:m[5]], Rules: []string{}}
		rest := strings.TrimSpace(text[m[6]:m[7]])
		ids, reason, _ := strings.Cut(rest, "--")
		s.Reason = strings.TrimSpace(reason)
		s.Rules = append(s.Rules, strings.FieldsFunc(ids, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })...)
		start := x.lineStart(line) + m[2]
		s.Pos = x.span(start, start+len(comment))
		if s.Kind == "ignore" {
			s.Line = line
			if strings.TrimSpace(text[:m[2]]) == "" {
				s.Line = nextCodeLine(x, line+1, n)
			}
		}
		out = append(out, s)
	}
	return out
}

// nextCodeLine is the first line from `from` that is not blank and not a
// comment (0 when there is none).
func nextCodeLine(x *lineIndex, from, n int) int {
	for l := from; l <= n; l++ {
		t := x.lineText(l)
		if strings.TrimSpace(t) == "" || commentLineRe.MatchString(t) {
			continue
		}
		return l
	}
	return 0
}
