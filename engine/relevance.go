// Relevance: buildgate.source_contains, the one native scan per file
// that lets the built-in rules skip the files that cannot concern them.

package engine

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// builtinSourceContains lets a policy skip, in one native scan, documents
// that cannot concern it: the source-build rules look closely only at
// files that mention the package's names, arguments or repositories.
func builtinSourceContains(bctx topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	path, arr, s, err := sourceQuestion(bctx, ops)
	if err != nil {
		return err
	}
	if s == nil {
		return iter(ast.BooleanTerm(true))
	}
	found, ok, err := s.answer(path, arr)
	if err != nil {
		return err
	}
	return iter(ast.BooleanTerm(found || !ok))
}

// sourceQuestion reads a source builtin's operands (a path and an array
// of strings) and the run's sources; nil sources when the document at path
// is not at hand (policy tests), where the builtins answer true.
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
	if s == nil || s.docs[path] == nil {
		return path, arr, nil, nil
	}
	return path, arr, s, nil
}

// answer is source_contains' answer for the file at path (ok false when
// its text is not at hand). One answer per file and set of needles: the
// streaming evaluation asks the same question of a file in every batch
// (relevance). The needles are told apart by their hash, and compared on
// a hit.
func (s *sources) answer(path string, arr *ast.Array) (found, ok bool, err error) {
	key := containsKey{path: path, hash: arr.Hash()}
	s.mu.Lock()
	for _, a := range s.contains[key] {
		if a.needles.Equal(arr) {
			s.mu.Unlock()
			return a.found, true, nil
		}
	}
	s.mu.Unlock()
	raw, ok := s.text(path)
	if !ok {
		return false, false, nil
	}
	found, err = s.search(raw, func(low []byte) (bool, error) { return containsAny(low, arr) })
	if err != nil {
		return false, false, err
	}
	s.remember(path, arr, found)
	return found, true, nil
}

func (s *sources) remember(path string, arr *ast.Array, found bool) {
	key := containsKey{path: path, hash: arr.Hash()}
	s.mu.Lock()
	s.contains[key] = append(s.contains[key], containsAnswer{arr, found})
	s.mu.Unlock()
}

// search runs fn over the haystack of a text, made in a reused buffer.
func (s *sources) search(raw []byte, fn func(low []byte) (bool, error)) (bool, error) {
	buf := haystacks.Get().(*[]byte)
	low := appendHaystack((*buf)[:0], raw)
	found, err := fn(low)
	if cap(low) <= 4<<20 { // a pool of huge buffers would hold them
		*buf = low[:0]
		haystacks.Put(buf)
	}
	return found, err
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
		if n != "" && bytes.Contains(low, bytes.ToLower([]byte(n))) {
			found = true
		}
		return found
	})
	return found, argErr
}

// prescan answers the needles for every document at hand in one pass over
// each text, on GOMAXPROCS workers: the relevance questions the
// configuration alone decides (data.buildgate.select.needles), which the
// selection would otherwise ask one at a time, each reading and lowering
// every file again, inside an evaluation that runs on one core.
func (s *sources) prescan(docs []loader.Document, needles []*ast.Array) error {
	if len(needles) == 0 {
		return nil
	}
	idx := make([]int, len(docs))
	for i := range idx {
		idx[i] = i
	}
	return parallel(idx, func(i int) error {
		path := docs[i].DocPath()
		if s.docs[path] != docs[i] {
			return nil // a later document of the same path answers
		}
		raw := docs[i].DocSource()
		if raw == nil {
			return nil // not at hand: the builtin answers true, unkept
		}
		found := make([]bool, len(needles))
		_, err := s.search(raw, func(low []byte) (bool, error) {
			for k, arr := range needles {
				f, err := containsAny(low, arr)
				if err != nil {
					return false, err
				}
				found[k] = f
			}
			return false, nil
		})
		if err != nil {
			return err
		}
		for k, arr := range needles {
			s.remember(path, arr, found[k])
		}
		return nil
	})
}

// haystacks are the buffers source_contains searches, reused: a question
// not yet answered lowers the whole file and its decoding, and a fresh
// copy each time was a quarter of all the memory a run allocated.
var haystacks = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// appendHaystack appends to dst the source in lower case, followed by its
// loose decoding (decode.go) when that differs: what an escape or a split
// word spells is found as if written out. It is made anew for each
// question not yet answered (answers are kept, per file and needles):
// kept, the lowered copies of a large repository's files were a quarter of
// the memory of a streaming run.
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
