package engine

import (
	"reflect"

	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
)

// Doc is a document as an evaluation takes it: its path, its value (the
// document as policies see it, converted once) and its text, which the
// source builtins read (nil when it is not at hand).
type Doc struct {
	Path   string
	Value  ast.Value
	Source []byte
	// Hay is Source as buildgate.source_contains searches it (Haystack),
	// when the caller made it already (nil: made when first asked, once
	// per evaluation).
	Hay []byte
	// Words, when set, holds the word set the source builtins make of
	// Source, shared by the evaluations of the same Doc (its facts', its
	// rules'): made once per file, not once per query. Forget drops it.
	Words *WordMemo
}

// WordMemo is a Doc's word set, made when first asked.
type WordMemo struct{ ws *wordSet }

// Forget drops what a Doc's evaluations made of its text.
func (d Doc) Forget() {
	if d.Words != nil {
		d.Words.ws = nil
	}
}

// Convert converts a loaded document for evaluation.
func Convert(d loader.Document) (Doc, error) {
	t, err := toTerm(reflect.ValueOf(d))
	if err != nil {
		return Doc{}, err
	}
	return Doc{Path: d.DocPath(), Value: t.Value, Source: d.DocSource()}, nil
}
