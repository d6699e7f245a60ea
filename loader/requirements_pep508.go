package loader

import (
	"fmt"
	"strings"

	"github.com/buildgate/buildgate/pep440"
)

// reqParse is the parse of one requirement: [s, e) of a logical line's
// text, its body up to the marker, and the errors it gave (at most a
// few: a line of 100,000 empty clauses must not be 100,000 copies of
// itself).
type reqParse struct {
	r        *reqLoad
	l        reqLine
	text     string
	s, e     int
	body     int
	req      Requirement
	quoted   string
	failures int
}

// requirement parses [s, e) of a logical line: PEP 508, or pip's URL and path
// forms.
func (r *reqLoad) requirement(l reqLine, s, e int, span Pos) Requirement {
	text := string(l.m.text[:e])
	p := &reqParse{r: r, l: l, text: text, s: s, e: e, req: Requirement{
		Raw: text[s:e], Extras: []Word{}, Specifiers: []Specifier{}, Options: []Flag{}, Hashes: []Word{}, Env: []Word{}, Pos: span,
	}}
	for _, m := range envRe.FindAllStringIndex(text[s:e], 64) {
		p.req.Env = append(p.req.Env, r.word(l, s+m[0], s+m[1]))
	}
	// Errors quote at most the start of the requirement.
	p.quoted = p.req.Raw
	if len(p.quoted) > 200 {
		p.quoted = p.quoted[:200] + "..."
	}
	p.marker()
	first := strings.TrimSpace(text[s:p.body])
	if isURL(first) || (isLocalPath(first) && !strings.Contains(first, "@")) {
		p.urlForm(first)
		return p.req
	}
	p.pep508()
	return p.req
}

// valid reports whether pip accepts what requirement parsed: a line pip
// refuses makes it refuse the whole file, so it is no pin (issue 29).
func (r *reqLoad) valid(before int) bool {
	for _, e := range r.doc.Errors[before:] {
		if e.Syntax {
			return false
		}
	}
	return true
}

func (p *reqParse) fail(at int, format string, args ...any) {
	if p.failures++; p.failures > 5 {
		return
	}
	for i, a := range args {
		if a == p.req.Raw {
			args[i] = p.quoted
		}
	}
	p.r.doc.Errors = append(p.r.doc.Errors, Error{Message: fmt.Sprintf(format, args...), Syntax: true, Pos: p.r.span(p.l, at, p.e)})
}

// marker finds the environment marker and where the body ends: markers
// follow "; " on a line that starts with a URL, ";" on others (pip's
// parse_req_from_line).
func (p *reqParse) marker() {
	text, s, e := p.text, p.s, p.e
	p.body = e
	sep := ";"
	if isURL(text[s:e]) {
		sep = "; "
	}
	i := strings.Index(text[s:e], sep)
	if i < 0 {
		return
	}
	p.body = s + i
	ms := s + i + len(sep)
	for ms < e && (text[ms] == ' ' || text[ms] == '\t') {
		ms++
	}
	// An empty marker is none (pip: "pkg>=1.0;").
	if ms >= e {
		return
	}
	w := p.r.word(p.l, ms, e)
	p.req.Marker = &w
	if msg := checkMarker(*w.Value); msg != "" {
		p.r.syntaxError(p.l, ms, e, fmt.Sprintf("invalid environment marker %q: %s", *w.Value, msg))
	}
}

// urlForm is a requirement given as a URL or a local path.
func (p *reqParse) urlForm(first string) {
	s := p.s
	end := s + len(first)
	if !isURL(first) {
		// pip's _strip_extras: ./pkg[dev,test] is the path ./pkg with
		// extras.
		if m := pathExtrasRe.FindStringSubmatchIndex(first); m != nil {
			end = s + m[3]
			p.extras(s+m[4]+1, first[m[4]+1:m[5]-1])
		}
	}
	w := p.r.word(p.l, s, end)
	p.setLocation(w)
	if !p.r.wheel(&p.req, p.l, s, first) {
		if m := eggRe.FindStringSubmatchIndex(first); m != nil {
			p.egg(s+m[2], s+m[3], s+eggEnd(first, m[2]))
		}
	}
}

// eggEnd is where the #egg= fragment starting at i ends: the next & or
// the end (pip's _egg_fragment_re, [#&]egg=([^&]*)).
func eggEnd(s string, i int) int {
	if k := strings.IndexByte(s[i:], '&'); k >= 0 {
		return i + k
	}
	return len(s)
}

// egg reads an #egg= fragment [ns, fe) as pip 23 does: the fragment is
// a requirement string (packaging's Requirement), so `#egg=NAME==V
// ;marker` carries a version and a marker that pip applies. Where the
// fragment is only a name ([ns, ne)), that is the name.
func (p *reqParse) egg(ns, ne, fe int) {
	if strings.TrimSpace(p.text[ne:fe]) == "" {
		p.r.setName(&p.req, p.l, ns, ne)
		return
	}
	sub := &reqParse{r: p.r, l: p.l, text: p.text[:fe], s: ns, e: fe, req: Requirement{
		Extras: []Word{}, Specifiers: []Specifier{}, Raw: p.text[ns:fe],
	}}
	sub.quoted = sub.req.Raw
	sub.marker()
	sub.pep508()
	p.req.Name, p.req.NameWord, p.req.Normalized = sub.req.Name, sub.req.NameWord, sub.req.Normalized
	p.req.Extras, p.req.Specifier, p.req.Specifiers = sub.req.Extras, sub.req.Specifier, sub.req.Specifiers
	if sub.req.Marker != nil {
		p.req.Marker = sub.req.Marker
	}
}

// setLocation sets the requirement's URL (and its VCS) or local path.
func (p *reqParse) setLocation(w Word) {
	if !isURL(w.Text) {
		p.req.LocalPath = &w
		return
	}
	p.req.URL = &w
	for _, v := range vcsSchemes {
		if strings.HasPrefix(strings.ToLower(w.Text), v) {
			p.req.VCS = strings.TrimSuffix(v, "+")
		}
	}
}

// extras adds the comma-separated extras of list, which starts at j. As
// packaging reads them: `[]` is no extra, but an empty item (`[a,]`) or
// two names without a comma (`[a b]`) make pip refuse the line.
func (p *reqParse) extras(j int, list string) {
	if strings.TrimSpace(list) == "" {
		return
	}
	for _, part := range strings.Split(list, ",") {
		ps := j + len(part) - len(strings.TrimLeft(part, " \t"))
		pe := j + len(strings.TrimRight(part, " \t"))
		name := p.text[ps:pe]
		if pe <= ps || len(pepNameRe.FindString(name)) != pe-ps && !envRe.MatchString(name) {
			p.fail(ps, "invalid extras in %q: pip expects names separated by commas", p.req.Raw)
			return
		}
		p.req.Extras = append(p.req.Extras, p.r.word(p.l, ps, pe))
		j += len(part) + 1
	}
}

// skip is the first offset from i on that is not a blank of the body.
func (p *reqParse) skip(i int) int {
	for i < p.body && (p.text[i] == ' ' || p.text[i] == '\t') {
		i++
	}
	return i
}

// pep508 parses NAME [extras] (@ URL | specifiers).
func (p *reqParse) pep508() {
	text, s, body := p.text, p.s, p.body
	i := s
	m := pepNameRe.FindStringIndex(text[i:body])
	if m == nil && strings.HasPrefix(text[i:body], "${") {
		p.fail(i, "the project name in %q comes from the environment (pip expands ${NAME} when it installs), which buildgate cannot read: write it out", strings.TrimSpace(text[s:p.e]))
		return
	}
	if m == nil {
		p.fail(i, "invalid requirement %q: expected a project name", strings.TrimSpace(text[s:p.e]))
		return
	}
	p.r.setName(&p.req, p.l, i+m[0], i+m[1])
	i = p.skip(i + m[1])
	if i < body && text[i] == '[' {
		close := strings.IndexByte(text[i:body], ']')
		if close < 0 {
			p.fail(i, "unclosed extras in %q", p.req.Raw)
			return
		}
		if n := strings.Count(text[i+1:i+close], ",") + 1; n > maxReqElements {
			p.fail(i, "%s", capError("extras in one requirement", n, maxReqElements))
			return
		}
		p.extras(i+1, text[i+1:i+close])
		i = p.skip(i + close + 1)
	}
	if i < body && text[i] == '@' {
		p.at(p.skip(i + 1))
		return
	}
	p.specifiers(i)
}

// at is the URL or path of NAME @ URL, from i.
func (p *reqParse) at(i int) {
	ue := i
	for ue < p.body && p.text[ue] != ' ' && p.text[ue] != '\t' {
		ue++
	}
	if ue == i {
		p.fail(i, "missing URL after @ in %q", p.req.Raw)
		return
	}
	p.setLocation(p.r.word(p.l, i, ue))
}

// specifiers parses the version clauses from i (in parentheses or not).
func (p *reqParse) specifiers(i int) {
	text, body := p.text, p.body
	ve := body
	if i < body && text[i] == '(' {
		c := strings.LastIndexByte(text[i:body], ')')
		if c < 0 {
			p.fail(i, "unclosed parenthesis in %q", p.req.Raw)
			return
		}
		ve = i + c
		if rest := strings.TrimSpace(text[ve+1 : body]); rest != "" {
			p.fail(ve+1, "unexpected %q after the version specifier in %q", rest, p.req.Raw)
			return
		}
		i++
	}
	if k := arbitraryComma(text[i:ve]); k >= 0 {
		p.fail(i+k, "in %q, pip reads everything after === up to a blank as one version (`%s`): the clauses after it are refused", p.req.Raw, strings.TrimSpace(text[i+k:ve]))
		return
	}
	p.req.Specifier = strings.TrimSpace(text[i:ve])
	if n := strings.Count(text[i:ve], ",") + 1; n > maxReqElements {
		// Counted before splitting: a 10 MB line of clauses would
		// otherwise be millions of entries first.
		p.fail(i, "%s", capError("version clauses in one requirement", n, maxReqElements))
		p.req.Specifier = ""
		return
	}
	j := i
	for _, clause := range strings.Split(text[i:ve], ",") {
		cs := j + len(clause) - len(strings.TrimLeft(clause, " \t"))
		ce := j + len(strings.TrimRight(clause, " \t"))
		j += len(clause) + 1
		if ce <= cs {
			if p.req.Specifier != "" {
				p.fail(cs, "empty version clause in %q", p.req.Raw)
				return
			}
			continue
		}
		p.clause(cs, ce)
	}
}

// clause parses one version clause, [cs, ce).
func (p *reqParse) clause(cs, ce int) {
	c := p.text[cs:ce]
	op := specOpRe.FindString(c)
	if op != "" && envRe.MatchString(c) {
		// The version is the environment's: kept as written, for the pin
		// rules to say it cannot be shown (req.Env).
		p.req.Specifiers = append(p.req.Specifiers, Specifier{Op: op, Version: strings.TrimSpace(c[len(op):]), Text: c, Pos: p.r.span(p.l, cs, ce)})
		return
	}
	if op == "" {
		p.fail(cs, "invalid version clause %q: expected an operator (==, >=, ~=, ...)", c)
		return
	}
	v := strings.TrimSpace(c[len(op):])
	if v == "" || strings.ContainsAny(v, " \t") {
		p.fail(cs, "invalid version clause %q", c)
		return
	}
	if _, err := pep440.ParseSpecifier(c); err != nil {
		p.fail(cs, "invalid version clause %q: %s", c, strings.TrimPrefix(err.Error(), fmt.Sprintf("invalid specifier %q: ", c)))
		return
	}
	p.req.Specifiers = append(p.req.Specifiers, Specifier{Op: op, Version: v, Text: c, Pos: p.r.span(p.l, cs, ce)})
}

// arbitraryComma is where an arbitrary-equality clause (===) swallows a
// comma and text follows it (-1 if none): packaging's === version is
// [^\s;)]*, so `=== 0.3.13, <1` is the version "0.3.13," and then "<1",
// which pip refuses.
func arbitraryComma(spec string) int {
	for k := 0; ; {
		i := strings.Index(spec[k:], "===")
		if i < 0 {
			return -1
		}
		j := k + i + 3
		for j < len(spec) && (spec[j] == ' ' || spec[j] == '\t') {
			j++
		}
		v := j
		for v < len(spec) && !strings.ContainsRune(" \t;)", rune(spec[v])) {
			v++
		}
		if strings.Contains(spec[j:v], ",") && strings.TrimSpace(spec[v:]) != "" {
			return k + i
		}
		k = v
	}
}
