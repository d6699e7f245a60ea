package loader

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// How pip 23 reads one logical line (get_line_parser, break_args_options,
// handle_line): the comment is cut, the line split on spaces only (a tab
// does not start options), everything before the first token starting
// with "-" is the requirement, the rest is split by shlex (POSIX quoting)
// and read by optparse (unambiguous abbreviations of long options, -rVALUE,
// -r=base.txt meaning the file "=base.txt").

// tok is a token of a logical line: [s, e) in the line's text, and its
// value (for shlex tokens, with quotes and escapes removed).
type tok struct {
	s, e int
	text string
}

// pipOption is an option of pip's requirements-file parser.
type pipOption struct {
	long  string // canonical long name, without dashes
	value bool   // takes a value
	req   bool   // applies to the requirement on its line
}

// pipOptions are build_parser's options, by every name optparse accepts
// in full (pip 23.2: SUPPORTED_OPTIONS and SUPPORTED_OPTIONS_REQ).
var pipOptions = map[string]pipOption{
	"--index-url": {"index-url", true, false}, "--pypi-url": {"index-url", true, false}, "-i": {"index-url", true, false},
	"--extra-index-url": {"extra-index-url", true, false},
	"--no-index":        {"no-index", false, false},
	"--constraint":      {"constraint", true, false}, "-c": {"constraint", true, false},
	"--requirement": {"requirement", true, false}, "-r": {"requirement", true, false},
	"--editable": {"editable", true, false}, "-e": {"editable", true, false},
	"--find-links": {"find-links", true, false}, "-f": {"find-links", true, false},
	"--no-binary":       {"no-binary", true, false},
	"--only-binary":     {"only-binary", true, false},
	"--prefer-binary":   {"prefer-binary", false, false},
	"--require-hashes":  {"require-hashes", false, false},
	"--pre":             {"pre", false, false},
	"--trusted-host":    {"trusted-host", true, false},
	"--use-feature":     {"use-feature", true, false},
	"--global-option":   {"global-option", true, true},
	"--hash":            {"hash", true, true},
	"--config-settings": {"config-settings", true, true}, "-C": {"config-settings", true, true},
}

// longNames are the long option names, sorted, for abbreviations.
var longNames = func() []string {
	var out []string
	for n := range pipOptions {
		if strings.HasPrefix(n, "--") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}()

// matchLong is optparse's _match_abbrev: the long option s names, in full
// or as the prefix of exactly one.
func matchLong(s string) (string, error) {
	if _, ok := pipOptions[s]; ok {
		return s, nil
	}
	var hits []string
	for _, n := range longNames {
		if strings.HasPrefix(n, s) {
			hits = append(hits, n)
		}
	}
	switch len(hits) {
	case 0:
		return "", fmt.Errorf("no such option: %s", s)
	case 1:
		return hits[0], nil
	}
	return "", fmt.Errorf("ambiguous option: %s (%s?)", s, strings.Join(hits, ", "))
}

func (r *reqLoad) word(l reqLine, s, e int) Word {
	t := string(l.m.text[s:e])
	return Word{Text: t, Value: strp(t), Pos: r.span(l, s, e)}
}

// line reads one logical line.
func (r *reqLoad) line(l reqLine) {
	text := l.m.text
	if c := commentStart(text); c >= 0 {
		text = text[:c]
	}
	end := pyTrimRight(text)
	start := pyTrimLeft(text[:end])
	if start >= end {
		return
	}
	// A line of a million options would be a million elements before the
	// cap is checked after it: count its tokens (at most one per blank)
	// first.
	if n := bytes.Count(text[start:end], []byte(" ")) + bytes.Count(text[start:end], []byte("\t")) + 1; n > maxReqElements {
		r.spans += n
		return
	}
	// break_args_options: tokens split on " " alone.
	optAt := -1
	for i := start; i < end; {
		if text[i] == '-' {
			optAt = i
			break
		}
		j := bytes.IndexByte(text[i:end], ' ')
		if j < 0 {
			break
		}
		i += j + 1
	}
	argsEnd := end
	if optAt >= 0 {
		argsEnd = pyTrimRight(text[:max(optAt-1, start)])
	}
	span := r.idx.span(l.m.source(start), r.idx.lineEnd(l.last))
	var opts []parsedOption
	if optAt >= 0 {
		toks, err := shlexSplit(text[optAt:end], optAt)
		if err != nil {
			r.syntaxError(l, optAt, end, fmt.Sprintf("options %q: %s (pip splits options as a POSIX shell does)", string(text[optAt:end]), err))
			return
		}
		opts = r.options(l, toks)
	}
	if argsEnd > start {
		before := len(r.doc.Errors)
		req := r.requirement(l, start, argsEnd, span)
		if !r.valid(before) {
			return
		}
		req.Options, req.Hashes = []Flag{}, []Word{}
		for _, o := range opts {
			// Only --hash, --global-option and --config-settings apply to
			// a requirement; pip reads the others and ignores them.
			req.Options = append(req.Options, o.flag)
			if o.flag.Name == "hash" {
				req.Hashes = append(req.Hashes, Word{Text: o.flag.Text, Value: strp(o.flag.Value), Pos: o.flag.Pos})
			}
		}
		r.doc.Requirements = append(r.doc.Requirements, req)
		return
	}
	include, editable := -1, -1
	for i, o := range opts {
		switch o.flag.Name {
		case "editable":
			if editable < 0 {
				editable = i
			}
		case "requirement":
			if include < 0 || opts[include].flag.Name == "constraint" {
				include = i
			}
		case "constraint":
			if include < 0 {
				include = i
			}
		}
		r.doc.Options = append(r.doc.Options, o.flag)
	}
	switch {
	case editable >= 0:
		// pip reads only the first -e of a line, and a line with one is a
		// requirement: its -r is not followed.
		o := opts[editable]
		vs, ve := unquotedSpan(text, o.vs, o.ve)
		before := len(r.doc.Errors)
		req := r.requirement(l, vs, ve, span)
		if !r.valid(before) {
			return
		}
		req.Editable = true
		if req.VCS != "" && req.Name == "" {
			r.syntaxError(l, o.vs, o.ve, fmt.Sprintf("pip cannot tell the project of the editable %q: add #egg=NAME", o.flag.Value))
		}
		req.Options, req.Hashes = []Flag{}, []Word{}
		r.doc.Requirements = append(r.doc.Requirements, req)
	case include >= 0:
		// Only the first -r (else -c) of a line is followed.
		r.include(l, opts[include])
	}
}

// parsedOption is an option with the span of its value in the line.
type parsedOption struct {
	flag   Flag
	vs, ve int
}

// options reads shlex tokens as optparse does; an error stops the line as
// pip's OptionParsingError stops the file. Positional words among the
// options are ignored, as pip ignores them.
func (r *reqLoad) options(l reqLine, toks []tok) []parsedOption {
	var out []parsedOption
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.text == "--" {
			break
		}
		var name, val string
		hasVal := false
		vs, ve := t.e, t.e
		switch {
		case strings.HasPrefix(t.text, "--"):
			n, v, eq := strings.Cut(t.text, "=")
			full, err := matchLong(n)
			if err != nil {
				r.syntaxError(l, t.s, t.e, err.Error())
				return out
			}
			name, val, hasVal = full, v, eq
			if eq {
				vs = t.e - len(v)
			}
			if eq && !pipOptions[name].value {
				r.syntaxError(l, t.s, t.e, fmt.Sprintf("%s option does not take a value", name))
				return out
			}
		case strings.HasPrefix(t.text, "-") && len(t.text) > 1:
			name = t.text[:2]
			if _, ok := pipOptions[name]; !ok {
				r.syntaxError(l, t.s, t.e, "no such option: "+name)
				return out
			}
			// Every short option of pip's takes a value: the rest of the
			// word is it (-r=base.txt is the file "=base.txt").
			if len(t.text) > 2 {
				val, hasVal = t.text[2:], true
				vs = t.e - len(val)
			}
		default:
			continue
		}
		o := pipOptions[name]
		e := t.e
		if o.value && !hasVal {
			if i+1 >= len(toks) {
				r.syntaxError(l, t.s, t.e, fmt.Sprintf("%s option requires 1 argument", name))
				return out
			}
			i++
			val, vs, ve, e = toks[i].text, toks[i].s, toks[i].e, toks[i].e
		} else if hasVal {
			ve = t.e
		}
		if o.long == "hash" {
			algo, _, ok := strings.Cut(val, ":")
			if !ok || (algo != "sha256" && algo != "sha384" && algo != "sha512") {
				r.syntaxError(l, t.s, e, fmt.Sprintf("--hash %q: pip takes sha256:, sha384: or sha512: followed by the digest", val))
				return out
			}
		}
		f := Flag{Name: o.long, Value: val, Text: string(l.m.text[t.s:e]), Pos: r.span(l, t.s, e)}
		out = append(out, parsedOption{flag: f, vs: vs, ve: ve})
	}
	return out
}

func (r *reqLoad) syntaxError(l reqLine, s, e int, msg string) {
	r.doc.Errors = append(r.doc.Errors, Error{Message: msg, Syntax: true, Pos: r.span(l, s, e)})
}

// shlexSplit is Python's shlex.split (POSIX mode, no comments) over b,
// whose offset in the line is base: each token with the span it came from.
func shlexSplit(b []byte, base int) ([]tok, error) {
	var out []tok
	var cur strings.Builder
	in := false // in a token
	start := 0
	flush := func(end int) {
		if in {
			out = append(out, tok{s: base + start, e: base + end, text: cur.String()})
		}
		cur.Reset()
		in = false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			flush(i)
			continue
		case !in:
			in, start = true, i
		}
		switch c {
		case '\\':
			if i+1 >= len(b) {
				return nil, fmt.Errorf("no escaped character")
			}
			i++
			cur.WriteByte(b[i])
		case '\'':
			j := bytes.IndexByte(b[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("no closing quotation")
			}
			cur.Write(b[i+1 : i+1+j])
			i += j + 1
		case '"':
			i++
			for ; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' && i+1 < len(b) && (b[i+1] == '"' || b[i+1] == '\\') {
					i++
				}
				cur.WriteByte(b[i])
			}
			if i >= len(b) {
				return nil, fmt.Errorf("no closing quotation")
			}
		default:
			cur.WriteByte(c)
		}
	}
	flush(len(b))
	return out, nil
}

// unquotedSpan is [vs, ve) without one pair of surrounding quotes: pip
// splits the options as a shell does, so -e 'git+https://…' is the URL.
func unquotedSpan(text []byte, vs, ve int) (int, int) {
	if ve-vs >= 2 && (text[vs] == '\'' || text[vs] == '"') && text[ve-1] == text[vs] {
		return vs + 1, ve - 1
	}
	return vs, ve
}
