package loader

import (
	"bytes"
	"fmt"
	"github.com/buildgate/buildgate/pep440"
	"path"
	"regexp"
	"strings"
)

// RequirementsDocument is a pip requirements (or constraints) file.
type RequirementsDocument struct {
	Header
	Requirements []Requirement `json:"requirements"`
	Options      []Flag        `json:"options"`
	Includes     []Include     `json:"includes"`
	Errors       []Error       `json:"errors"`
}

// DocErrors implements Document.
func (d *RequirementsDocument) DocErrors() []Error { return d.Errors }

// Requirement is one requirement line, continuations joined. Pos spans its
// physical lines; Name, specifiers and the rest point at their own text.
// Exactly one of a name-and-specifier form, URL (with VCS for vcs+ URLs) or
// LocalPath is used, as pip reads the line.
type Requirement struct {
	Raw        string      `json:"raw"`
	Name       string      `json:"name"`
	NameWord   *Word       `json:"name_word"`
	Normalized string      `json:"normalized"`
	Extras     []Word      `json:"extras"`
	Specifier  string      `json:"specifier"`
	Specifiers []Specifier `json:"specifiers"`
	Marker     *Word       `json:"marker"`
	URL        *Word       `json:"url"`
	VCS        string      `json:"vcs"`
	LocalPath  *Word       `json:"local_path"`
	Editable   bool        `json:"editable"`
	Options    []Flag      `json:"options"`
	Hashes     []Word      `json:"hashes"`
	Pos        Pos         `json:"pos"`
}

// Specifier is one version clause, e.g. ">=" "0.3.13".
type Specifier struct {
	Op      string `json:"op"`
	Version string `json:"version"`
	Text    string `json:"text"`
	Pos     Pos    `json:"pos"`
}

// Include is a -r (requirement) or -c (constraint) line. Path is the target
// relative to the repository root, empty when it is not followed (a URL, a
// path that leaves the root). Missing is set when the file does not exist:
// that is not a read error (nothing is hidden from the policies, which see
// an include that adds nothing), but policies can still report it.
type Include struct {
	Kind    string `json:"kind"`
	Target  Word   `json:"target"`
	Path    string `json:"path"`
	Missing bool   `json:"missing"`
	Pos     Pos    `json:"pos"`
}

var (
	pepNameRe  = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?`)
	normRe     = regexp.MustCompile(`[-_.]+`)
	specOpRe   = regexp.MustCompile(`^(===|~=|==|!=|<=|>=|<|>)`)
	urlSchemes = []string{"http://", "https://", "file:", "ftp://"}
	vcsSchemes = []string{"git+", "hg+", "svn+", "bzr+"}
)

// NormalizeName is PEP 503 normalisation: lower case, runs of -_. become -.
func NormalizeName(name string) string {
	return strings.ToLower(normRe.ReplaceAllString(name, "-"))
}

// reqLine is one logical line with its map to the source.
type reqLine struct {
	m     *mappedText
	first int
	last  int
}

// joinLines mirrors pip's join_lines: a line ending in a backslash goes on
// on the next line, unless it holds a comment.
//
// It stops after limit logical lines that hold more than white space (the
// caller reports the cap): a file of a million lines is not made into a
// million entries first.
func joinLines(idx *lineIndex, limit int) []reqLine {
	var out []reqLine
	var cur *reqLine
	full := 0
	for line := 1; line <= idx.lines(); line++ {
		if full > limit {
			return out
		}
		s, e := idx.lineStart(line), idx.lineEnd(line)
		raw := idx.src[s:e]
		isComment := commentStart(string(raw)) >= 0
		if !strings.HasSuffix(string(raw), `\`) || isComment {
			if cur == nil {
				cur = &reqLine{m: &mappedText{}, first: line}
			}
			if isComment && len(cur.m.text) > 0 {
				// pip prefixes a space so the comment is still stripped.
				cur.m.text = append(cur.m.text, ' ')
				cur.m.segs = append(cur.m.segs, segment{at: len(cur.m.text) - 1, src: s})
			}
			cur.m.add(raw, s)
			cur.last = line
			if len(bytes.TrimSpace(cur.m.text)) > 0 && !isComment {
				full++
			}
			out = append(out, *cur)
			cur = nil
			continue
		}
		if cur == nil {
			cur = &reqLine{m: &mappedText{}, first: line}
		}
		trimmed := strings.TrimRight(string(raw), `\`)
		trimmed = strings.TrimLeft(trimmed, `\`)
		lead := len(raw) - len(strings.TrimLeft(string(raw), `\`))
		cur.m.add([]byte(trimmed), s+lead)
		cur.last = line
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// commentStart is where pip's (^|\s+)#.*$ matches, or -1.
func commentStart(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') {
			j := i
			for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
				j--
			}
			return j
		}
	}
	return -1
}

type reqLoad struct {
	idx *lineIndex
	doc *RequirementsDocument
	dir string
	// spans counts the positioned elements made (names, specifiers,
	// hashes, options …), for maxReqElements.
	spans int
	// flagEnd is where each option (by position) ends in its line.
	flagEnd map[Pos]int
}

// span is l.m.spanOf, counted.
func (r *reqLoad) span(l reqLine, s, e int) Pos {
	r.spans++
	return l.m.spanOf(r.idx, s, e)
}

func loadRequirements(p string, src []byte) *RequirementsDocument {
	doc := &RequirementsDocument{
		Header:       Header{Kind: KindRequirements, Path: p},
		Requirements: []Requirement{}, Options: []Flag{}, Includes: []Include{}, Errors: []Error{},
	}
	r := &reqLoad{idx: newLineIndex(src), doc: doc, dir: path.Dir(p)}
	for _, l := range joinLines(r.idx, maxRequirementsLines) {
		r.line(l)
		n := len(doc.Requirements) + len(doc.Options) + len(doc.Includes)
		if n > maxRequirementsLines || r.spans > maxReqElements {
			what, count, limit := "requirement and option lines", n, maxRequirementsLines
			if r.spans > maxReqElements {
				what, count, limit = "elements (names, specifiers, hashes, options)", r.spans, maxReqElements
			}
			pos := l.m.spanOf(r.idx, 0, 0)
			*doc = RequirementsDocument{Header: doc.Header, Requirements: []Requirement{}, Options: []Flag{}, Includes: []Include{},
				Errors: []Error{{Message: capError(what, count, limit) + fmt.Sprintf(" (stopped at line %d)", pos.Line), Pos: pos}}}
			return doc
		}
	}
	return doc
}

// tok is a space-separated token of a logical line (pip splits on " ").
type tok struct {
	s, e int
	text string
}

func (r *reqLoad) word(l reqLine, s, e int) Word {
	t := string(l.m.text[s:e])
	return Word{Text: t, Value: strp(t), Pos: r.span(l, s, e)}
}

func (r *reqLoad) line(l reqLine) {
	text := string(l.m.text)
	if c := commentStart(text); c >= 0 {
		text = text[:c]
	}
	// Offsets stay those of l.m.text: trim only on the right and skip left.
	text = strings.TrimRight(text, " \t\r\n\f\v")
	start := len(text) - len(strings.TrimLeft(text, " \t\r\n\f\v"))
	if start >= len(text) {
		return
	}
	// A line of a million options would be a million elements before the
	// cap is checked after it: count its tokens (at most one per blank)
	// first.
	if n := strings.Count(text, " ") + strings.Count(text, "\t") + 1; n > maxReqElements {
		r.spans += n
		return
	}
	var toks []tok
	for i := start; i < len(text); {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		j := i
		for j < len(text) && text[j] != ' ' && text[j] != '\t' {
			j++
		}
		if j > i {
			toks = append(toks, tok{i, j, text[i:j]})
		}
		i = j
	}
	// pip: everything before the first token starting with "-" is the
	// requirement, the rest its options.
	nargs := 0
	for nargs < len(toks) && !strings.HasPrefix(toks[nargs].text, "-") {
		nargs++
	}
	span := r.idx.span(l.m.source(start), r.idx.lineEnd(l.last))
	if nargs > 0 {
		req := r.requirement(l, toks[0].s, toks[nargs-1].e, span)
		req.Options, req.Hashes = r.options(l, toks[nargs:], true)
		r.doc.Requirements = append(r.doc.Requirements, req)
		return
	}
	opts, _ := r.options(l, toks, false)
	for _, o := range opts {
		switch o.Name {
		case "r", "requirement", "c", "constraint":
			r.include(l, o)
		case "e", "editable":
			vs := r.valueSpan(l, o)
			req := r.requirement(l, vs[0], vs[1], span)
			req.Editable = true
			req.Options, req.Hashes = []Flag{}, []Word{}
			r.doc.Requirements = append(r.doc.Requirements, req)
		}
		r.doc.Options = append(r.doc.Options, o)
	}
}

// options reads "--name=value", "--name value" and "-xvalue" forms. Pos spans
// name and value.
func (r *reqLoad) options(l reqLine, toks []tok, perReq bool) ([]Flag, []Word) {
	flags, hashes := []Flag{}, []Word{}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		name, val := "", ""
		s, e := t.s, t.e
		hasVal := false
		switch {
		case strings.HasPrefix(t.text, "--"):
			n, v, ok := strings.Cut(t.text[2:], "=")
			name, val, hasVal = n, v, ok
		case strings.HasPrefix(t.text, "-") && len(t.text) > 1:
			name = t.text[1:2]
			if len(t.text) > 2 {
				val, hasVal = strings.TrimPrefix(t.text[2:], "="), true
			}
		default:
			r.doc.Errors = append(r.doc.Errors, Error{Message: fmt.Sprintf("unexpected text %q in options", t.text), Syntax: true, Pos: l.m.spanOf(r.idx, t.s, t.e)})
			continue
		}
		if !hasVal && optionTakesValue(name) && i+1 < len(toks) {
			i++
			val, e = toks[i].text, toks[i].e
			hasVal = true
		}
		if !knownOption(name, perReq) {
			r.doc.Errors = append(r.doc.Errors, Error{Message: fmt.Sprintf("unknown option %q", "-"+strings.TrimPrefix(t.text, "-")), Syntax: true, Pos: r.span(l, s, e)})
		}
		if optionTakesValue(name) && !hasVal {
			r.doc.Errors = append(r.doc.Errors, Error{Message: fmt.Sprintf("option %q needs a value", t.text), Syntax: true, Pos: r.span(l, s, e)})
		}
		f := Flag{Name: longName(name), Value: val, Text: string(l.m.text[s:e]), Pos: r.span(l, s, e)}
		if r.flagEnd == nil {
			r.flagEnd = map[Pos]int{}
		}
		r.flagEnd[f.Pos] = e
		flags = append(flags, f)
		if f.Name == "hash" {
			hashes = append(hashes, Word{Text: f.Text, Value: strp(val), Pos: f.Pos})
		}
	}
	return flags, hashes
}

var shortOptions = map[string]string{
	"r": "requirement", "c": "constraint", "e": "editable", "i": "index-url", "f": "find-links",
}

func longName(n string) string {
	if l, ok := shortOptions[n]; ok {
		return l
	}
	return n
}

var lineOptions = map[string]bool{
	"requirement": true, "constraint": true, "editable": true, "index-url": true,
	"extra-index-url": true, "no-index": false, "find-links": true, "pre": false,
	"prefer-binary": false, "require-hashes": false, "only-binary": true, "no-binary": true,
	"trusted-host": true, "use-feature": true,
}

var reqOptions = map[string]bool{"hash": true, "config-settings": true, "global-option": true}

func knownOption(n string, perReq bool) bool {
	n = longName(n)
	if perReq {
		_, ok := reqOptions[n]
		return ok
	}
	_, ok := lineOptions[n]
	return ok
}

func optionTakesValue(n string) bool {
	n = longName(n)
	return lineOptions[n] || reqOptions[n]
}

// valueSpan finds an option's value in the logical text.
func (r *reqLoad) valueSpan(l reqLine, o Flag) [2]int {
	// Where options() found the flag: a search of the line for its text
	// would be quadratic on a line of 20,000 options, and would find the
	// first of two equal ones.
	if end, ok := r.flagEnd[o.Pos]; ok && end-len(o.Value) >= 0 {
		return [2]int{end - len(o.Value), end}
	}
	return [2]int{0, len(l.m.text)}
}

func (r *reqLoad) include(l reqLine, o Flag) {
	kind := "requirement"
	if o.Name == "constraint" {
		kind = "constraint"
	}
	vs := r.valueSpan(l, o)
	inc := Include{Kind: kind, Target: r.word(l, vs[0], vs[1]), Pos: o.Pos}
	target := o.Value
	switch {
	case target == "":
	case isURL(target):
		r.doc.Errors = append(r.doc.Errors, Error{Message: fmt.Sprintf("-%s %s: includes from URLs are not read", kind[:1], target), Pos: inc.Target.Pos})
	default:
		clean := path.Clean(path.Join(r.dir, strings.ReplaceAll(target, `\`, "/")))
		if path.IsAbs(target) || clean == ".." || strings.HasPrefix(clean, "../") {
			r.doc.Errors = append(r.doc.Errors, Error{Message: fmt.Sprintf("-%s %s: leaves the repository root, not read", kind[:1], target), Pos: inc.Target.Pos})
		} else {
			inc.Path = clean
		}
	}
	r.doc.Includes = append(r.doc.Includes, inc)
}

func isURL(s string) bool {
	ls := strings.ToLower(s)
	for _, p := range append(append([]string{}, urlSchemes...), vcsSchemes...) {
		if strings.HasPrefix(ls, p) {
			return true
		}
	}
	return schemeRe.MatchString(s)
}

var schemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

func isLocalPath(s string) bool {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.Contains(s, "/") || strings.Contains(s, `\`) {
		return true
	}
	ls := strings.ToLower(s)
	for _, ext := range []string{".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz", ".tar"} {
		if strings.HasSuffix(ls, ext) {
			return true
		}
	}
	return false
}

var eggRe = regexp.MustCompile(`[#&]egg=([A-Za-z0-9][A-Za-z0-9._-]*)`)

// requirement parses [s, e) of a logical line: PEP 508, or pip's URL and path
// forms.
func (r *reqLoad) requirement(l reqLine, s, e int, span Pos) Requirement {
	text := string(l.m.text[:e])
	req := Requirement{
		Raw: text[s:e], Extras: []Word{}, Specifiers: []Specifier{}, Options: []Flag{}, Hashes: []Word{}, Pos: span,
	}
	// Errors quote at most the start of the requirement, and one
	// requirement gives at most a few: a line of 100,000 empty clauses
	// must not be 100,000 copies of itself.
	quoted := req.Raw
	if len(quoted) > 200 {
		quoted = quoted[:200] + "..."
	}
	failures := 0
	fail := func(at int, format string, args ...any) {
		if failures++; failures > 5 {
			return
		}
		for i, a := range args {
			if a == req.Raw {
				args[i] = quoted
			}
		}
		r.doc.Errors = append(r.doc.Errors, Error{Message: fmt.Sprintf(format, args...), Syntax: true, Pos: r.span(l, at, e)})
	}
	// Markers follow "; " on URL forms and ";" on named ones.
	body, markerAt := e, -1
	if i := strings.Index(text[s:e], ";"); i >= 0 {
		body, markerAt = s+i, s+i+1
	}
	if markerAt >= 0 {
		ms := markerAt
		for ms < e && (text[ms] == ' ' || text[ms] == '\t') {
			ms++
		}
		if ms < e {
			w := r.word(l, ms, e)
			req.Marker = &w
		} else {
			fail(markerAt-1, "empty environment marker")
		}
	}
	first := strings.TrimSpace(text[s:body])
	switch {
	case isURL(first) || (isLocalPath(first) && !strings.Contains(first, "@")):
		end := s + len(first)
		w := r.word(l, s, end)
		if isURL(first) {
			req.URL = &w
			for _, v := range vcsSchemes {
				if strings.HasPrefix(strings.ToLower(first), v) {
					req.VCS = strings.TrimSuffix(v, "+")
				}
			}
		} else {
			req.LocalPath = &w
		}
		if m := eggRe.FindStringSubmatchIndex(first); m != nil {
			r.setName(&req, l, s+m[2], s+m[3])
		} else if n := wheelName(first); n != "" {
			req.Name, req.Normalized = n, NormalizeName(n)
		}
		return req
	}
	i := s
	m := pepNameRe.FindStringIndex(text[i:body])
	if m == nil {
		fail(i, "invalid requirement %q: expected a project name", strings.TrimSpace(text[s:e]))
		return req
	}
	r.setName(&req, l, i+m[0], i+m[1])
	i += m[1]
	skip := func() {
		for i < body && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
	}
	skip()
	if i < body && text[i] == '[' {
		close := strings.IndexByte(text[i:body], ']')
		if close < 0 {
			fail(i, "unclosed extras in %q", req.Raw)
			return req
		}
		if n := strings.Count(text[i+1:i+close], ",") + 1; n > maxReqElements {
			fail(i, "%s", capError("extras in one requirement", n, maxReqElements))
			return req
		}
		j := i + 1
		for _, part := range strings.Split(text[i+1:i+close], ",") {
			ps := j + len(part) - len(strings.TrimLeft(part, " \t"))
			pe := j + len(strings.TrimRight(part, " \t"))
			if pe > ps {
				req.Extras = append(req.Extras, r.word(l, ps, pe))
			}
			j += len(part) + 1
		}
		i += close + 1
		skip()
	}
	if i < body && text[i] == '@' {
		i++
		skip()
		ue := i
		for ue < body && text[ue] != ' ' && text[ue] != '\t' {
			ue++
		}
		if ue == i {
			fail(i, "missing URL after @ in %q", req.Raw)
			return req
		}
		w := r.word(l, i, ue)
		if isURL(w.Text) {
			req.URL = &w
			for _, v := range vcsSchemes {
				if strings.HasPrefix(strings.ToLower(w.Text), v) {
					req.VCS = strings.TrimSuffix(v, "+")
				}
			}
		} else {
			req.LocalPath = &w
		}
		return req
	}
	ve := body
	if i < body && text[i] == '(' {
		c := strings.LastIndexByte(text[i:body], ')')
		if c < 0 {
			fail(i, "unclosed parenthesis in %q", req.Raw)
			return req
		}
		ve = i + c
		i++
	}
	req.Specifier = strings.TrimSpace(text[i:ve])
	if n := strings.Count(text[i:ve], ",") + 1; n > maxReqElements {
		// Counted before splitting: a 10 MB line of clauses would
		// otherwise be millions of entries first.
		fail(i, "%s", capError("version clauses in one requirement", n, maxReqElements))
		req.Specifier = ""
		return req
	}
	j := i
	for _, clause := range strings.Split(text[i:ve], ",") {
		cs := j + len(clause) - len(strings.TrimLeft(clause, " \t"))
		ce := j + len(strings.TrimRight(clause, " \t"))
		j += len(clause) + 1
		if ce <= cs {
			if req.Specifier != "" {
				fail(cs, "empty version clause in %q", req.Raw)
			}
			continue
		}
		c := text[cs:ce]
		op := specOpRe.FindString(c)
		if op == "" {
			fail(cs, "invalid version clause %q: expected an operator (==, >=, ~=, ...)", c)
			continue
		}
		v := strings.TrimSpace(c[len(op):])
		if v == "" || strings.ContainsAny(v, " \t") {
			fail(cs, "invalid version clause %q", c)
			continue
		}
		if _, err := pep440.ParseSpecifier(c); err != nil {
			fail(cs, "invalid version clause %q: %s", c, strings.TrimPrefix(err.Error(), fmt.Sprintf("invalid specifier %q: ", c)))
			continue
		}
		req.Specifiers = append(req.Specifiers, Specifier{Op: op, Version: v, Text: c, Pos: r.span(l, cs, ce)})
	}
	return req
}

func (r *reqLoad) setName(req *Requirement, l reqLine, s, e int) {
	w := r.word(l, s, e)
	req.Name = *w.Value
	req.NameWord = &w
	req.Normalized = NormalizeName(req.Name)
}

// wheelName is the project name of a wheel file name, if it is one.
func wheelName(u string) string {
	base := u[strings.LastIndexAny(u, `/\`)+1:]
	if i := strings.IndexAny(base, "?#"); i >= 0 {
		base = base[:i]
	}
	if !strings.HasSuffix(strings.ToLower(base), ".whl") {
		return ""
	}
	name, _, _ := strings.Cut(base, "-")
	return name
}
