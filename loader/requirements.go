package loader

import (
	"bytes"
	"fmt"
	"github.com/buildgate/buildgate/pep440"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
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
	// Env are the ${NAME} references pip replaces from the environment
	// when it installs: what they stand for is not known here.
	Env []Word `json:"env"`
	Pos Pos    `json:"pos"`
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
	specOpRe   = regexp.MustCompile(`^(===|~=|==|!=|<=|>=|<|>)`)
	urlSchemes = []string{"http://", "https://", "file:", "ftp://"}
	vcsSchemes = []string{"git+", "hg+", "svn+", "bzr+"}
)

// NormalizeName is PEP 503 normalisation: lower case, runs of -_. become
// - (re.sub(r"[-_.]+", "-", name).lower()). A byte loop, not a regular
// expression: policies call it for every requirement they look at.
func NormalizeName(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	run := false
	for _, r := range name {
		if r == '-' || r == '_' || r == '.' {
			if !run {
				b.WriteByte('-')
			}
			run = true
			continue
		}
		run = false
		switch {
		case r >= 'A' && r <= 'Z':
			b.WriteByte(byte(r) + 'a' - 'A')
		case r < utf8.RuneSelf:
			b.WriteByte(byte(r))
		default:
			b.WriteRune(unicode.ToLower(r)) // as strings.ToLower maps it
		}
	}
	return b.String()
}

// reqLine is one logical line with its map to the source.
type reqLine struct {
	m     *mappedText
	first int
	last  int
}

type reqLoad struct {
	idx *lineIndex
	doc *RequirementsDocument
	dir string
	// spans counts the positioned elements made (names, specifiers,
	// hashes, options …), for maxReqElements.
	spans int
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
	if line, codec := codingLine(src); codec != "" {
		doc.Errors = append(doc.Errors, Error{Message: fmt.Sprintf("pip reads this file as %s (its coding line), buildgate as UTF-8, and they would read different requirements: not read; remove the coding line or write the file in UTF-8", codec), Pos: r.idx.linesSpan(line, line)})
		return doc
	}
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

func (r *reqLoad) include(l reqLine, o parsedOption) {
	kind := "requirement"
	if o.flag.Name == "constraint" {
		kind = "constraint"
	}
	target := o.flag.Value
	w := Word{Text: string(l.m.text[o.vs:o.ve]), Value: strp(target), Pos: r.span(l, o.vs, o.ve)}
	inc := Include{Kind: kind, Target: w, Pos: o.flag.Pos}
	switch {
	case target == "":
	case envRe.MatchString(target):
		r.doc.Errors = append(r.doc.Errors, Error{Message: fmt.Sprintf("-%s %s: the path comes from the environment (pip expands ${NAME} when it installs), which buildgate cannot read: not read", kind[:1], target), Pos: inc.Target.Pos})
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

// envRe is pip's ENV_VAR_RE: ${NAME}, upper-case letters, digits and _.
var envRe = regexp.MustCompile(`\$\{[A-Z0-9_]+\}`)

// isLocalPath is pip's _looks_like_path (on Linux, where Docker builds
// run: a backslash is no separator) or an archive's file name.
func isLocalPath(s string) bool {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.Contains(s, "/") {
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

var pathExtrasRe = regexp.MustCompile(`^(.+)(\[[^\]]+\])$`)

var eggRe = regexp.MustCompile(`[#&]egg=([A-Za-z0-9][A-Za-z0-9._-]*)`)

// requirement parses [s, e) of a logical line: PEP 508, or pip's URL and path
// forms.
func (r *reqLoad) requirement(l reqLine, s, e int, span Pos) Requirement {
	text := string(l.m.text[:e])
	req := Requirement{
		Raw: text[s:e], Extras: []Word{}, Specifiers: []Specifier{}, Options: []Flag{}, Hashes: []Word{}, Env: []Word{}, Pos: span,
	}
	for _, m := range envRe.FindAllStringIndex(text[s:e], 64) {
		req.Env = append(req.Env, r.word(l, s+m[0], s+m[1]))
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
	// Markers follow "; " on a line that starts with a URL, ";" on others
	// (pip's parse_req_from_line).
	body, markerAt := e, -1
	sep := ";"
	if isURL(text[s:e]) {
		sep = "; "
	}
	if i := strings.Index(text[s:e], sep); i >= 0 {
		body, markerAt = s+i, s+i+len(sep)
	}
	if markerAt >= 0 {
		ms := markerAt
		for ms < e && (text[ms] == ' ' || text[ms] == '\t') {
			ms++
		}
		// An empty marker is none (pip: "pkg>=1.0;").
		if ms < e {
			w := r.word(l, ms, e)
			req.Marker = &w
			if msg := checkMarker(*w.Value); msg != "" {
				r.syntaxError(l, ms, e, fmt.Sprintf("invalid environment marker %q: %s", *w.Value, msg))
			}
		}
	}
	first := strings.TrimSpace(text[s:body])
	switch {
	case isURL(first) || (isLocalPath(first) && !strings.Contains(first, "@")):
		end := s + len(first)
		if !isURL(first) {
			// pip's _strip_extras: ./pkg[dev,test] is the path ./pkg with
			// extras.
			if m := pathExtrasRe.FindStringSubmatchIndex(first); m != nil {
				end = s + m[3]
				j := s + m[4] + 1
				for _, part := range strings.Split(first[m[4]+1:m[5]-1], ",") {
					ps := j + len(part) - len(strings.TrimLeft(part, " \t"))
					pe := j + len(strings.TrimRight(part, " \t"))
					if pe > ps {
						req.Extras = append(req.Extras, r.word(l, ps, pe))
					}
					j += len(part) + 1
				}
			}
		}
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
		if !r.wheel(&req, l, s, first) {
			if m := eggRe.FindStringSubmatchIndex(first); m != nil {
				r.setName(&req, l, s+m[2], s+m[3])
			}
		}
		return req
	}
	i := s
	m := pepNameRe.FindStringIndex(text[i:body])
	if m == nil && strings.HasPrefix(text[i:body], "${") {
		fail(i, "the project name in %q comes from the environment (pip expands ${NAME} when it installs), which buildgate cannot read: write it out", strings.TrimSpace(text[s:e]))
		return req
	}
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
		if op != "" && envRe.MatchString(c) {
			// The version is the environment's: kept as written, for the
			// pin rules to say it cannot be shown (req.Env).
			req.Specifiers = append(req.Specifiers, Specifier{Op: op, Version: strings.TrimSpace(c[len(op):]), Text: c, Pos: r.span(l, cs, ce)})
			continue
		}
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

// codingRe is pip's auto_decode ENCODING_RE (PEP 263).
var codingRe = regexp.MustCompile(`coding[:=][ \t\n\r\f\v]*([-\w.]+)`) // Python's \s for bytes holds \v

// codingLine finds a coding declaration pip honours (a line of the first
// two starting with # and holding coding: NAME) that makes pip read the
// file otherwise than buildgate: any codec but UTF-8 and ASCII, and an
// ASCII-compatible one (latin-1, cp1252) when the file is not all ASCII.
// A UTF-7 file, pure ASCII, reads to pip as other text ("+AAo-" is a line
// break): a pin can hide there (review of issue 14). Its line and codec,
// or "" for none.
func codingLine(src []byte) (int, string) {
	lines := bytes.SplitN(src, []byte("\n"), 3)
	for i, l := range lines[:min(2, len(lines))] {
		if len(l) == 0 || l[0] != '#' {
			continue
		}
		m := codingRe.FindSubmatch(l)
		if m == nil {
			continue
		}
		codec := strings.ToLower(strings.ReplaceAll(string(m[1]), "_", "-"))
		switch codec {
		case "utf-8", "utf8", "ascii", "us-ascii", "utf-8-sig":
			return 0, ""
		case "latin-1", "latin1", "iso-8859-1", "iso8859-1", "l1", "cp1252", "windows-1252":
			if isASCII(src) {
				return 0, ""
			}
		}
		return i + 1, string(m[1])
	}
	return 0, ""
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// wheelRe is pip's Wheel.wheel_file_re: name, version, optional build
// tag, python, ABI and platform tags.
var wheelRe = regexp.MustCompile(`^([^\s-]+?)-([^\s-]*?)(?:(?:-\d[^-]*?)?-[^\s-]+?-[^\s-]+?-[^\s-]+?\.whl|\.dist-info)$`)

// wheel reads a URL or path to a wheel the way pip does: the file name
// gives the project and the version, name==version with _ read as -
// (parse_req_from_line). Where the file name is %-escaped, the name and
// version point at the whole file name.
func (r *reqLoad) wheel(req *Requirement, l reqLine, s int, first string) bool {
	p := first
	if i := strings.IndexAny(p, "?#"); i >= 0 && isURL(first) {
		p = p[:i]
	}
	base := strings.LastIndexAny(p, `/\`) + 1
	raw := p[base:]
	if !strings.HasSuffix(strings.ToLower(raw), ".whl") {
		return false
	}
	name := raw
	if isURL(first) {
		if u, err := url.PathUnescape(raw); err == nil {
			name = u
		}
	}
	m := wheelRe.FindStringSubmatchIndex(name)
	if m == nil {
		r.syntaxError(l, s+base, s+base+len(raw), fmt.Sprintf("%q is not a valid wheel file name (name-version[-build]-python-abi-platform.whl): pip refuses it", name))
		return true
	}
	at := s + base
	ns, ne, vs, ve := at+m[2], at+m[3], at+m[4], at+m[5]
	if name != raw {
		ns, ne, vs, ve = at, at+len(raw), at, at+len(raw)
	}
	w := r.word(l, ns, ne)
	req.NameWord = &w
	req.Name = strings.ReplaceAll(name[m[2]:m[3]], "_", "-")
	req.Normalized = NormalizeName(req.Name)
	v := strings.ReplaceAll(name[m[4]:m[5]], "_", "-")
	req.Specifier = "==" + v
	req.Specifiers = append(req.Specifiers, Specifier{Op: "==", Version: v, Text: string(l.m.text[vs:ve]), Pos: r.span(l, vs, ve)})
	return true
}
