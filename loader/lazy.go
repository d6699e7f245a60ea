package loader

import (
	"bytes"
	"sync"
)

// maxLazyBytes is the size up to which a file may wait to be parsed: above
// it the file is parsed at once, so that the parsers' bounds (elements,
// nesting, recovery) are checked and reported whatever the file says.
const maxLazyBytes = 256 << 10

// Lazy is a document not parsed yet: its kind, path, suppressions and
// source are known, its errors are those found without parsing (binary
// content), and Parse parses it. The engine parses only the documents the
// built-in rules read (issue 16: a file whose text cannot match anything
// they look for is not parsed); everything else reaches the rules as
// {kind, path, errors}.
//
// The parsed document is not kept: the engine converts it into the Rego
// input and lets it go, so that the parsed and the converted forms of a
// file are not both held until the run ends (a third of the peak heap on
// 1,300 vLLM files). Only its errors are remembered.
type Lazy struct {
	Header
	mu   sync.Mutex
	errs []Error
}

// DocErrors implements Document: before parsing, what was found without
// it; after, the parse's errors.
func (l *Lazy) DocErrors() []Error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.errs
}

// Parse parses the document and returns it, without keeping it: each call
// parses anew.
func (l *Lazy) Parse() Document {
	d := Parse(l.Kind, l.Path, l.src)
	l.mu.Lock()
	l.errs = d.DocErrors()
	l.mu.Unlock()
	return d
}

// Prepare returns a Lazy document for a source, or the parsed document
// when it cannot wait: requirements files (their includes are followed as
// they load), files over maxLazyBytes, binary content (one error, no
// parse either way), files past a bound counted before parsing.
func Prepare(kind Kind, rel string, src []byte) Document {
	if kind == KindRequirements || len(src) > maxLazyBytes || bytes.IndexByte(src, 0) >= 0 || overBound(kind, src) {
		return Parse(kind, rel, src)
	}
	l := &Lazy{Header: Header{Kind: kind, Path: rel, src: src}, errs: []Error{}}
	l.Suppressions = scanSuppressions(kind, bytes.TrimPrefix(src, utf8BOM))
	return l
}

// Outline is a document as far as the repository's facts need it: for a
// Dockerfile waiting to be parsed, its stages and instructions without
// what its RUNs hold (their scripts, mounts and heredocs are most of the
// parse, and only the document's own findings read them); any other as
// Parsed gives it. Its errors are not remembered: the full parse, when
// the document's turn comes, gives them.
func Outline(d Document) Document {
	if l, ok := d.(*Lazy); ok && l.Kind == KindDockerfile {
		return loadDockerfileAs(l.Path, l.src, true)
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
