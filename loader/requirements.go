package loader

import (
	"bytes"
	"fmt"
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
