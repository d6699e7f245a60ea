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
// content), and Materialize parses it (once). The engine parses only the
// documents the built-in rules read (issue 16: a file whose text cannot
// match anything they look for is not parsed); everything else reaches
// the rules as {kind, path, errors}.
type Lazy struct {
	Header
	pre  []Error
	once sync.Once
	doc  Document
}

// DocErrors implements Document: before parsing, what was found without it.
func (l *Lazy) DocErrors() []Error {
	if l.doc != nil {
		return l.doc.DocErrors()
	}
	return l.pre
}

// Materialize parses the document (once) and returns it.
func (l *Lazy) Materialize() Document {
	l.once.Do(func() { l.doc = Parse(l.Kind, l.Path, l.src) })
	return l.doc
}

// Prepare returns a Lazy document for a source, or the parsed document
// when it cannot wait: requirements files (their includes are followed as
// they load), files over maxLazyBytes, binary content (one error, no
// parse either way), files past a bound counted before parsing.
func Prepare(kind Kind, rel string, src []byte) Document {
	if kind == KindRequirements || len(src) > maxLazyBytes || bytes.IndexByte(src, 0) >= 0 || overBound(kind, src) {
		return Parse(kind, rel, src)
	}
	l := &Lazy{Header: Header{Kind: kind, Path: rel, src: src}, pre: []Error{}}
	l.Suppressions = scanSuppressions(kind, bytes.TrimPrefix(src, utf8BOM))
	return l
}

// Materialized is a document ready to read: a Lazy one parsed, any other
// as it is.
func Materialized(d Document) Document {
	if l, ok := d.(*Lazy); ok {
		return l.Materialize()
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
