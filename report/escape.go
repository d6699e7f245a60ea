package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Every string a pull request controls — a path, a policy's message, a
// user rule's id and name — reaches a terminal, a CI log or a job summary
// through these reports, each of which acts on some text rather than show
// it: a terminal on ESC and OSC sequences (OSC 8 hyperlinks, title
// changes, BEL), a GitHub runner on a log line that starts with "::" or
// "##[" (::add-mask::, ::stop-commands::, ::error), Markdown on links,
// images and HTML. Each format escapes them for what reads it.

// Visible makes a string show as what it is: C0 control characters (tab
// aside), DEL, C1 controls, the Unicode line and paragraph separators and
// the bidirectional controls (which reorder what a reader sees) are
// written as \xNN or \u{NNNN}; a line break as \n. A byte that is not
// UTF-8 is \xNN.
func Visible(s string) string { return visible(s, false) }

// runnerCommand neutralises what a GitHub runner reads as a command
// anywhere in a line: its older form, "##[" (actions/runner's legacy
// parser looks for it anywhere, not only at the start).
func runnerCommand(s string) string {
	if !strings.Contains(s, "##[") {
		return s
	}
	return strings.ReplaceAll(s, "##[", `##\[`)
}

// visible is Visible, keeping line breaks as they are when keepBreaks is
// set (a format that encodes them itself).
func visible(s string, keepBreaks bool) string {
	s = runnerCommand(s)
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case (r == '\n' || r == '\r') && keepBreaks:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case hidden(r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u{%04X}`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' || c == 0x7f || c >= 0x80 {
			return hasHidden(s)
		}
	}
	return false
}

func hasHidden(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || r == '\n' || r == '\r' || hidden(r) {
			return true
		}
		i += n
	}
	return false
}

// hidden are the characters a reader does not see as themselves.
func hidden(r rune) bool {
	switch {
	case r < 0x20 && r != '\t', r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e || r == 0x200f || r == 0x061c:
		return true // bidirectional controls
	}
	return false
}

// SafeLine is Visible text that also cannot start a CI log line a runner
// reads as a command: a "::" (a workflow command) at its start, after any
// white space (the runner trims it), gets "./" before it when it is a
// path, "| " otherwise: a visible character the runner does not trim.
func SafeLine(s string, path bool) string {
	s = Visible(s)
	if strings.HasPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), "::") {
		if path {
			return "./" + s
		}
		return "| " + s
	}
	return s
}

// SafeText is text of several lines (a rule's page, a policy's print
// output) as a terminal or CI log may show it: each line as SafeLine has
// it, the line breaks kept.
func SafeText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = SafeLine(l, false)
	}
	return strings.Join(lines, "\n")
}

// SafePath is a path as text reports and messages print it.
func SafePath(p string) string { return SafeLine(p, true) }

// mdText is text Markdown shows as it is: no emphasis, link, image,
// HTML, table cell break or autolink. Line breaks are spaces. A code span
// the text holds (`x`, paired backticks) stays one: inside it nothing
// acts, and the built-in rules write names that way. Outside code spans
// the characters Markdown acts on are backslash-escaped, and a scheme's
// :// and a www. (which GitHub turns into links) get a zero-width space,
// which breaks the autolink and shows nothing.
func mdText(s string) string {
	s = Visible(strings.Join(strings.Fields(s), " "))
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '`' {
			if end := codeSpanEnd(s, i); end > 0 {
				b.WriteString(strings.ReplaceAll(s[i:end], "|", `\|`))
				i = end
				continue
			}
			for i < len(s) && s[i] == '`' {
				b.WriteString("\\`")
				i++
			}
			continue
		}
		j := i
		for j < len(s) && s[j] != '`' {
			j++
		}
		b.WriteString(mdPlain(s[i:j]))
		i = j
	}
	return b.String()
}

// codeSpanEnd is the end of the code span that opens at s[i] (a run of
// backticks closed by a run of the same length), or -1.
func codeSpanEnd(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	for j := i + n; j < len(s); {
		if s[j] != '`' {
			j++
			continue
		}
		m := 0
		for j+m < len(s) && s[j+m] == '`' {
			m++
		}
		if m == n {
			return j + m
		}
		j += m
	}
	return -1
}

// mdPlain escapes text outside code spans.
func mdPlain(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`\*_[]<>&|!~`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	out := b.String()
	out = strings.ReplaceAll(out, "://", ":\u200b//")
	out = strings.ReplaceAll(out, "@", "@\u200b") // an e-mail address is linked too
	for _, w := range []string{"www.", "WWW.", "Www."} {
		out = strings.ReplaceAll(out, w, w[:1]+"\u200b"+w[1:])
	}
	return out
}

// mdCode is a code span of s: shown verbatim, with no Markdown inside
// (the fence is longer than any run of backticks in s); a pipe is escaped
// so that a table cell does not end in it.
func mdCode(s string) string {
	s = Visible(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// SafeDiff is a unified diff as a terminal or a CI log may show it: each
// line's text Visible (control characters escaped), with a "::" at the
// start of its text (after the diff's own first character and white
// space) written "\::", so that no line acts on the terminal or the
// runner. Such a line no longer applies as a patch: buildgate fix applies
// the change itself (docs/fix.md).
func SafeDiff(d string) string {
	lines := strings.SplitAfter(d, "\n")
	for i, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		nl := len(body) < len(l)
		if body == "" {
			continue
		}
		// A CR before the line break is the file's CR LF: kept, so that
		// the patch still applies to such a file.
		cr := strings.HasSuffix(body, "\r")
		body = strings.TrimSuffix(body, "\r")
		if body == "" {
			continue
		}
		head, rest := body[:1], body[1:]
		rest = Visible(rest)
		if t := strings.TrimLeftFunc(rest, unicode.IsSpace); strings.HasPrefix(t, "::") {
			rest = rest[:len(rest)-len(t)] + `\` + t
		}
		if strings.HasPrefix(strings.TrimLeftFunc(head+rest, unicode.IsSpace), "::") {
			rest = `\` + rest
		}
		lines[i] = head + rest
		if cr {
			lines[i] += "\r"
		}
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}
