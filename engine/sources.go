// The source builtins: buildgate.source_contains, source_words and
// code_words read the text of a document of the evaluation, which the
// caller puts at hand (WithSources): the one file of a per-file
// evaluation, every document of a whole-repository one. They read no
// file themselves.

package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

type sourcesKey struct{}

// sources are the texts an evaluation's documents hold, with what the
// builtins made of each (its haystack and its words), once per text and
// evaluation: a rule asks many questions of one file.
type sources struct {
	texts   map[string][]byte
	mu      sync.Mutex
	hay     map[string][]byte
	words   map[string]*wordSet
	answers map[string]bool // source_words' and code_words'
	// memos are the documents' word memos, filled as word sets are made.
	memos map[string]*WordMemo
}

// WithSources puts the texts of an evaluation's documents (by path) at
// hand for the source builtins.
func WithSources(ctx context.Context, texts map[string][]byte) context.Context {
	return context.WithValue(ctx, sourcesKey{}, &sources{texts: texts, hay: map[string][]byte{}, words: map[string]*wordSet{}, answers: map[string]bool{}})
}

// withDocs puts the texts of an evaluation's documents at hand, with the
// haystacks the caller made already.
func withDocs(ctx context.Context, docs ...Doc) context.Context {
	s := &sources{texts: make(map[string][]byte, len(docs)), hay: make(map[string][]byte, len(docs)), words: map[string]*wordSet{}, answers: map[string]bool{}}
	for _, d := range docs {
		s.texts[d.Path] = d.Source
		if d.Hay != nil && d.Source != nil {
			s.hay[d.Path] = d.Hay
		}
		if d.Words != nil {
			if s.memos == nil {
				s.memos = map[string]*WordMemo{}
			}
			s.memos[d.Path] = d.Words
			if d.Words.ws != nil {
				s.words[d.Path] = d.Words.ws
			}
		}
	}
	return context.WithValue(ctx, sourcesKey{}, s)
}

// Haystack is a text as buildgate.source_contains searches it: in lower
// case, escapes decoded and split words joined (decode.go). A caller that
// asks ContainsAny of a text and then evaluates it makes it once.
func Haystack(text []byte) []byte { return appendHaystack(nil, text) }

// HayContainsAny reports whether a haystack holds one of the needles.
func HayContainsAny(hay []byte, needles []string) bool {
	for _, n := range needles {
		if n != "" && bytes.Contains(hay, bytes.ToLower([]byte(n))) {
			return true
		}
	}
	return false
}

// text is the source at path; false when there is none at hand (a
// document not among the evaluation's, as in policy tests).
func (s *sources) text(path string) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	src, ok := s.texts[path]
	return src, ok && src != nil
}

// haystack is the text at path as source_contains searches it
// (appendHaystack), made once.
func (s *sources) haystack(path string) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	h, ok := s.hay[path]
	s.mu.Unlock()
	if ok {
		return h, true
	}
	raw, ok := s.text(path)
	if !ok {
		return nil, false
	}
	h = appendHaystack(nil, raw)
	s.mu.Lock()
	s.hay[path] = h
	s.mu.Unlock()
	return h, true
}

// ContainsAny reports whether a text holds one of the needles as
// buildgate.source_contains reads it: in any case, escapes decoded and
// split words joined (decode.go).
func ContainsAny(text []byte, needles []string) bool {
	if len(needles) == 0 {
		return false
	}
	return HayContainsAny(appendHaystack(nil, text), needles)
}

// builtinSourceContains lets a policy skip, in one native scan, documents
// that cannot concern it: the source-build rules look closely only at
// files that mention the package's names, arguments or repositories.
func builtinSourceContains(bctx topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	path, arr, s, err := sourceQuestion(bctx, ops)
	if err != nil {
		return err
	}
	hay, ok := s.haystack(path)
	if !ok {
		return iter(ast.BooleanTerm(true))
	}
	found, err := containsAny(hay, arr)
	if err != nil {
		return err
	}
	return iter(ast.BooleanTerm(found))
}

// sourceQuestion reads a source builtin's operands (a path and an array
// of strings) and the evaluation's sources (nil when there are none).
func sourceQuestion(bctx topdown.BuiltinContext, ops []*ast.Term) (string, *ast.Array, *sources, error) {
	path, err := stringArg(ops[0], 1)
	if err != nil {
		return "", nil, nil, err
	}
	arr, ok := ops[1].Value.(*ast.Array)
	if !ok {
		return "", nil, nil, fmt.Errorf("operand 2 must be an array of strings, got %s", ast.ValueName(ops[1].Value))
	}
	var s *sources
	if bctx.Context != nil {
		s, _ = bctx.Context.Value(sourcesKey{}).(*sources)
	}
	return path, arr, s, nil
}

// containsAny reports whether the haystack holds one of the needles (in
// lower case; an empty needle matches nothing).
func containsAny(low []byte, arr *ast.Array) (bool, error) {
	found := false
	var argErr error
	arr.Until(func(t *ast.Term) bool {
		n, isStr := t.Value.(ast.String)
		if !isStr {
			argErr = fmt.Errorf("operand 2 must be an array of strings")
			return true
		}
		if n != "" && bytes.Contains(low, []byte(strings.ToLower(string(n)))) {
			found = true
		}
		return found
	})
	return found, argErr
}

// appendHaystack appends to dst the source in lower case, followed by its
// loose decoding (decode.go) when that differs: what an escape or a split
// word spells is found as if written out.
func appendHaystack(dst, raw []byte) []byte {
	dst = appendLower(dst, raw)
	mark := len(dst)
	dst = append(dst, '\n')
	dst, differs := appendLooseText(dst, raw)
	binaries := bytes.Contains(raw, []byte("!!binary"))
	switch {
	case !differs && !binaries:
		return dst[:mark]
	case !differs:
		// YAML's !!binary is base64 a CI system decodes and runs.
		dst = append(dst[:mark+1], raw...)
	}
	if binaries {
		dst = append(dst, yamlBinaries(raw)...)
	}
	dec := dst[mark+1:]
	if isASCII(dec) {
		lowerASCII(dec)
		return dst
	}
	return append(dst[:mark+1], bytes.ToLower(dec)...)
}

// appendLower appends s in lower case, as bytes.ToLower gives it.
func appendLower(dst, s []byte) []byte {
	if !isASCII(s) {
		return append(dst, bytes.ToLower(s)...)
	}
	start := len(dst)
	dst = append(dst, s...)
	lowerASCII(dst[start:])
	return dst
}

func isASCII(s []byte) bool {
	for _, c := range s {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func lowerASCII(s []byte) {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			s[i] = c + 'a' - 'A'
		}
	}
}
