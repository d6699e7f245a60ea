package loader

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"sync"
)

// maxLazyBytes is the size up to which a file may wait to be parsed: above
// it the file is parsed at once, so that the parsers' bounds (elements,
// nesting, recovery) are checked and reported whatever the file says.
const maxLazyBytes = 256 << 10

// Lazy is a document not parsed yet: its kind, path, suppressions and
// size are known, its errors are those found without parsing (binary
// content), and Parse parses it. The engine parses only the documents the
// built-in rules read (issue 16: a file whose text cannot match anything
// they look for is not parsed); everything else reaches the rules as
// {kind, path, errors}.
//
// Neither the parsed document nor, when it was read through a Loader, the
// text is kept: the engine converts the document into the Rego input and
// lets it go, and the text is read again from the root each time it is
// asked for (DocSource), checked against the size and checksum of the
// first read. So what a run holds for a file waiting to be parsed does not
// grow with the file (the texts were the largest part of the memory of a
// 10,000-file run). Only the errors are remembered.
type Lazy struct {
	Header
	from *Loader // reads the text again; nil when the text is held
	size int
	sum  uint64
	mu   sync.Mutex
	errs []Error
	// outline is, for a requirements file, what the repository's facts
	// read of it, kept from the parse that followed its includes so that
	// the selection need not parse it again (Outline).
	outline *reqOutline
	// extra are errors found outside the file's own parse (a reference
	// bound passed at one of its lines, found by discovery): each parse
	// gives them again.
	extra []Error
}

// addExtra adds an error that every parse of the document keeps.
func (l *Lazy) addExtra(e Error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.extra = append(l.extra, e)
	l.errs = append(l.errs[:len(l.errs):len(l.errs)], e)
}

// reqOutline is what the repository's facts read of a requirements file
// (its includes, its packages' names and hashes, its options' names), in
// a compact form: a RequirementsDocument of it is made when asked.
type reqOutline struct {
	normalized []string
	hashes     map[int][]Word // by requirement, for the few that have any
	options    []string
	includes   []Include // kind, path and missing alone
	// followedErrs are the errors following the includes added.
	followedErrs []Error
}

func (o *reqOutline) document(h Header, errs []Error) *RequirementsDocument {
	d := &RequirementsDocument{Header: h, Requirements: make([]Requirement, len(o.normalized)),
		Options: make([]Flag, len(o.options)), Includes: o.includes, Errors: errs}
	for i, n := range o.normalized {
		d.Requirements[i] = Requirement{Normalized: n, Hashes: o.hashes[i]}
		if d.Requirements[i].Hashes == nil {
			d.Requirements[i].Hashes = []Word{}
		}
	}
	for i, n := range o.options {
		d.Options[i] = Flag{Name: n}
	}
	return d
}

// waitAgain turns a requirements file, parsed at load to follow its
// includes, into a document that waits like the others and reads its text
// (as read: raw) again through from. It keeps what the repository's facts
// read of it (the outline) and what following its includes found, which
// a parse alone does not give: the includes found missing (in the
// outline) and the errors past those of the parse.
func waitAgain(r *RequirementsDocument, from *Loader) Document {
	errs := append([]Error{}, r.Errors...)
	o := &reqOutline{normalized: make([]string, len(r.Requirements)), options: make([]string, len(r.Options)),
		includes: make([]Include, len(r.Includes)), followedErrs: errs[r.parsed:]}
	for i, q := range r.Requirements {
		o.normalized[i] = q.Normalized
		if len(q.Hashes) > 0 {
			if o.hashes == nil {
				o.hashes = map[int][]Word{}
			}
			o.hashes[i] = q.Hashes
		}
	}
	for i, f := range r.Options {
		o.options[i] = f.Name
	}
	for i, inc := range r.Includes {
		o.includes[i] = Include{Kind: inc.Kind, Path: inc.Path, Missing: inc.Missing}
	}
	return &Lazy{Header: Header{Kind: r.Kind, Path: r.Path, Suppressions: r.Suppressions},
		from: from, size: len(r.raw), sum: maphash.Bytes(sumSeed, r.raw), errs: errs, outline: o}
}

// sumSeed keys the checksums of one process: a file read again must be
// the file read first.
var sumSeed = maphash.MakeSeed()

// DocErrors implements Document: before parsing, what was found without
// it; after, the parse's errors.
func (l *Lazy) DocErrors() []Error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.errs
}

// DocSource implements Document: the text, read again when it is not
// held; nil when it cannot be read again or is no longer what was read
// first (the error is then one of the document's errors, so that BG001
// reports the file: never a silent gap).
func (l *Lazy) DocSource() []byte {
	src, err := l.text()
	if err != nil {
		l.mu.Lock()
		l.errs = []Error{{Message: err.Error(), Pos: Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1}}}
		l.mu.Unlock()
		return nil
	}
	return src
}

// text is the document's text as a parsed document's DocSource gives it:
// without a byte order mark (the builtins read a comment at the start of
// the file as one).
func (l *Lazy) text() ([]byte, error) {
	if l.from == nil {
		return bytes.TrimPrefix(l.src, utf8BOM), nil
	}
	src, err := l.from.read(l.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the file again: %s", describe(err))
	}
	if len(src) != l.size || maphash.Bytes(sumSeed, src) != l.sum {
		return nil, fmt.Errorf("the file changed while buildgate was reading it (%d bytes, then %d): lint it again once nothing writes to it", l.size, len(src))
	}
	return bytes.TrimPrefix(src, utf8BOM), nil
}

// Parse parses the document and returns it, without keeping it: each call
// parses anew (and reads the text again when it is not held).
func (l *Lazy) Parse() Document {
	src, err := l.text()
	var d Document
	if err != nil {
		d = Empty(l.Kind, l.Path)
		addError(d, Error{Message: err.Error(), Pos: Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1}})
	} else {
		d = Parse(l.Kind, l.Path, src)
		if r, ok := d.(*RequirementsDocument); ok && l.outline != nil {
			for i, inc := range l.outline.includes {
				if inc.Missing && i < len(r.Includes) {
					r.Includes[i].Missing = true
				}
			}
			r.Errors = append(r.Errors, l.outline.followedErrs...)
		}
	}
	l.mu.Lock()
	if len(l.extra) > 0 {
		setErrors(d, append(d.DocErrors(), l.extra...))
	}
	l.errs = d.DocErrors()
	l.mu.Unlock()
	return d
}

// Prepare returns a Lazy document for a source, or the parsed document
// when it cannot wait: requirements files (their includes are followed as
// they load), files over maxLazyBytes, binary content (one error, no
// parse either way), files past a bound counted before parsing. The Lazy
// document holds the text (PrepareFrom does not).
func Prepare(kind Kind, rel string, src []byte) Document {
	return prepare(kind, rel, src, nil)
}

func prepare(kind Kind, rel string, src []byte, from *Loader) Document {
	if kind == KindRequirements || len(src) > maxLazyBytes || bytes.IndexByte(src, 0) >= 0 || overBound(kind, src) {
		return Parse(kind, rel, src)
	}
	l := &Lazy{Header: Header{Kind: kind, Path: rel}, errs: []Error{}, size: len(src)}
	if from == nil {
		l.src = src
	} else {
		l.from, l.sum = from, maphash.Bytes(sumSeed, src)
	}
	if s := scanSuppressions(kind, bytes.TrimPrefix(src, utf8BOM)); s != nil {
		// Which of them are real comments takes a parse (rare: a file
		// with a marker).
		l.Suppressions = Parse(kind, rel, src).DocSuppressions()
	}
	return l
}

// SourceSize is the length of a document's text, without reading a
// waiting document's text again.
func SourceSize(d Document) int {
	if l, ok := d.(*Lazy); ok {
		return l.size
	}
	return len(d.DocSource())
}

// Outline is a document as far as the repository's facts need it: for a
// Dockerfile waiting to be parsed, its stages and instructions without
// what its RUNs hold (their scripts, mounts and heredocs are most of the
// parse, and only the document's own findings read them); for a waiting
// requirements file, what was kept of it when its includes were followed;
// any other as Parsed gives it. Its errors are not remembered: the full parse, when
// the document's turn comes, gives them.
func Outline(d Document) Document {
	if l, ok := d.(*Lazy); ok && l.outline != nil {
		return l.outline.document(l.Header, l.DocErrors())
	}
	if l, ok := d.(*Lazy); ok && l.Kind == KindDockerfile {
		src, err := l.text()
		if err != nil {
			return l.Parse()
		}
		return loadDockerfileAs(l.Path, src, true)
	}
	return Parsed(d)
}

// Parsed is a document ready to read: a Lazy one parsed (anew, not kept),
// any other as it is.
func Parsed(d Document) Document {
	if l, ok := d.(*Lazy); ok {
		return l.Parse()
	}
	return d
}

// overBound runs the loaders' cheap counts that come before parsing: a
// file past one of those bounds is parsed at once, so that the bound is
// reported (BG001) whatever the file says. Bounds met while parsing
// (nesting of a shell script, elements) are checked only for the files
// the rules read.
func overBound(kind Kind, src []byte) bool {
	switch kind {
	case KindDockerfile:
		return instructionLines(src) > maxDockerInstrs
	case KindHCL:
		d, _, big := hclDepth(src)
		return d > maxHCLDepth || big != nil
	case KindShell:
		return bytes.Count(src, []byte{'$'})+bytes.Count(src, []byte{'`'}) > maxShellWords
	}
	return false
}
