// Streaming evaluation: converting only the documents the policies read,
// and evaluating them a batch at a time beside the others' stubs (issue
// 16), so that memory is bounded by a batch, not by the repository.

package engine

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// maxSelectRounds bounds the selection fixpoint: each round converts the
// documents the previous ones showed to matter (a stage named in one file
// makes another file that names it matter).
const maxSelectRounds = 8

// DefaultBatchBytes is how much source text one evaluation holds converted
// in full: the documents of a batch, as Rego values, are some sixty times
// their text (positions are objects; measured on vLLM's Dockerfiles), and
// evaluating them takes as much again, so 128 KB of sources is about
// 20-40 MB live (256 KB peaked at 180 MB resident on 1,300 vLLM files,
// 128 KB at 128 MB, for the same time).
const DefaultBatchBytes = 128 << 10

// maxStubReads bounds how many requirements files' stubs the evaluations
// after the first read in all, beyond minBatches evaluations: each one
// reads them again (the pin rules follow -r), so on a repository of many
// requirements files the number of batches, not only their size, is a
// cost. Beyond it, batches grow instead: 1,000 files of the fixture mix
// (250 requirements files) make 128 batches, 10,000 (2,500) 128 batches of
// about 500 KB. A repository with no requirements file or few has batches
// of DefaultBatchBytes, however many (10,010 vLLM files: some 400).
const (
	maxStubReads = 32_000
	minBatches   = 128
)

// firstBatch is how many batches' worth of documents the first batch keeps
// from the selection, which converts them anyway: a repository whose
// selected files fit (vLLM's 25, 250 KB) is converted once, in one
// evaluation, as before streaming; a larger one pays a second parse and
// conversion for the rest, batch by batch, to keep memory bounded.
const firstBatch = 2

// stream evaluates the built-in pack (a selector, no user policy) over
// the input without ever holding every document converted:
//
//  1. Selection: every document starts as {kind, path, errors}; the
//     selector (data.buildgate.select.paths) names the ones the rules
//     read, over stubs of those already named (the fields the pack reads
//     across files: stubShapes), until it names nothing new. Each named
//     document is parsed and converted once here, kept whole while the
//     first batch has room, and otherwise only its stub is kept.
//  2. Batches: the first holds the documents kept whole and every
//     unselected one; the others the remaining selected documents, up to
//     batchBytes of source each, parsed and converted again in their turn.
//     Each evaluation sees its batch whole (input.documents) and every
//     other selected document as its stub (input.others), which is all the
//     pack reads of them (lib.all_documents), so a document's findings
//     are those a single evaluation would give (TestStreamEquivalence);
//     rules iterate only input.documents for findings, so a batch costs
//     what its own documents do. Findings are taken for the batch's own
//     documents; a finding on no document (a missing requirements file,
//     which BG201 reports when any source build is found: in any batch)
//     is taken from every batch, once.
func (e *Engine) stream(ctx context.Context, in Input, batchBytes int64) ([]finding.Finding, error) {
	n := len(in.Documents)
	bare := make([]*ast.Term, n)
	docPaths := make(map[string]int, n)
	for i, d := range in.Documents {
		docPaths[d.DocPath()] = i
		errs, err := toTerm(reflect.ValueOf(d.DocErrors()))
		if err != nil {
			return nil, err
		}
		if len(d.DocErrors()) == 0 {
			errs = ast.ArrayTerm()
		}
		bare[i] = ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("kind"), ast.StringTerm(string(d.DocKind()))},
			[2]*ast.Term{ast.StringTerm("path"), ast.StringTerm(d.DocPath())},
			[2]*ast.Term{ast.StringTerm("errors"), errs},
		)
	}
	cfg, err := ToValue(in.Config)
	if err != nil {
		return nil, err
	}
	cfgTerm := ast.NewTerm(cfg)
	shapes := stubShapesFor(requirementsNamer(cfg))
	build := func(docs, others []*ast.Term, facts *ast.Term) ast.Value {
		kv := [][2]*ast.Term{
			{ast.StringTerm("documents"), ast.ArrayTerm(docs...)},
			{ast.StringTerm("config"), cfgTerm},
		}
		if others != nil {
			kv = append(kv, [2]*ast.Term{ast.StringTerm("others"), ast.ArrayTerm(others...)})
		}
		if facts != nil {
			kv = append(kv, [2]*ast.Term{ast.StringTerm("facts"), facts})
		}
		return ast.NewObject(kv...)
	}
	stubs := make([]*ast.Term, n) // set once selected
	whole := make([]*ast.Term, n) // set while in the batch being evaluated
	// overView evaluates q over every document as far as it is known:
	// selected ones as their stub, the others bare.
	overView := func(q *rego.PreparedEvalQuery, what string) (rego.ResultSet, error) {
		view := make([]*ast.Term, n)
		for i := range view {
			view[i] = bare[i]
			if stubs[i] != nil {
				view[i] = stubs[i]
			}
		}
		rs, err := q.Eval(ctx, rego.EvalParsedInput(build(view, nil, nil)))
		if err != nil && ctx.Err() != nil {
			return nil, &TimeoutError{Query: what, Err: ctx.Err()}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return rs, nil
	}
	if err := e.prescan(ctx, in.Documents, build); err != nil {
		return nil, err
	}
	kept := int64(0)
	for round := 0; round < maxSelectRounds; round++ {
		rs, err := overView(e.selector, "the selection of documents")
		if err != nil {
			return nil, err
		}
		var todo []int
		if len(rs) > 0 {
			named := map[int]bool{}
			paths, _ := rs[0].Bindings["x"].([]any)
			for _, p := range paths {
				s, _ := p.(string)
				if i, ok := docPaths[s]; ok && stubs[i] == nil && !named[i] {
					named[i] = true
					todo = append(todo, i)
				}
			}
		}
		if len(todo) == 0 {
			break
		}
		sort.Ints(todo)
		// Which are kept whole is decided in document order before any
		// is converted: those are converted whole (and pruned to their
		// stub), the others straight to their stub.
		keep := map[int]bool{}
		for _, i := range todo {
			size := int64(loader.SourceSize(in.Documents[i]))
			if e.OneEvaluation || kept+size <= firstBatch*batchBytes {
				keep[i], kept = true, kept+size
			}
		}
		err = parallel(todo, func(i int) error {
			d := loader.Outline(in.Documents[i])
			if keep[i] {
				d = loader.Parsed(in.Documents[i])
			}
			kind := string(in.Documents[i].DocKind())
			var t, s *ast.Term
			var err error
			switch {
			case keep[i]:
				if t, err = toTerm(reflect.ValueOf(d)); err != nil {
					return err
				}
				s = t
				if !e.OneEvaluation {
					s = stub(t, shapeOf(shapes, kind))
				}
			default:
				if s, err = toStub(reflect.ValueOf(d), shapeOf(shapes, kind)); err != nil {
					return err
				}
			}
			stubs[i], whole[i] = s, t // each index is its worker's own
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	// The repository's facts, once, over the whole selection; then the
	// batches need, of the other documents, only the requirements files'
	// stubs (the pin rules follow -r into them).
	var facts *ast.Term
	if e.facts != nil && !e.OneEvaluation {
		rs, err := overView(e.facts, "the repository's facts")
		if err != nil {
			return nil, err
		}
		if len(rs) > 0 {
			v, err := ast.InterfaceToValue(rs[0].Bindings["x"])
			if err != nil {
				return nil, err
			}
			facts = ast.NewTerm(v)
		}
	}
	// Selected documents (those with a stub); once the facts are known,
	// only the requirements files' stubs are read again, so the others go.
	selected := make([]bool, n)
	for i := range stubs {
		selected[i] = stubs[i] != nil
		if facts != nil && in.Documents[i].DocKind() != loader.KindRequirements {
			stubs[i] = nil
		}
	}
	// The batches, in document order within each. Each evaluation also
	// reads the stubs still kept (the requirements files'), so a
	// repository of many requirements files gets larger batches rather
	// than more of them (maxStubReads).
	var first []int
	var rest [][]int
	var cur []int
	curBytes := int64(0)
	left := int64(0)
	for i := range in.Documents {
		if selected[i] && whole[i] == nil {
			left += int64(loader.SourceSize(in.Documents[i]))
		}
	}
	reqs := int64(0)
	for i := range stubs {
		if stubs[i] != nil {
			reqs++
		}
	}
	batchBytes = max(batchBytes, left/max(minBatches, maxStubReads/(reqs+1))+1)
	for i := range in.Documents {
		switch {
		case !selected[i] || whole[i] != nil:
			first = append(first, i)
		default:
			size := int64(loader.SourceSize(in.Documents[i]))
			if len(cur) > 0 && curBytes+size > batchBytes {
				rest, cur, curBytes = append(rest, cur), nil, 0
			}
			cur, curBytes = append(cur, i), curBytes+size
		}
	}
	if len(cur) > 0 {
		rest = append(rest, cur)
	}
	batches := append([][]int{first}, rest...)
	var out []finding.Finding
	in0 := make([]bool, n)
	repoLevel := map[string]bool{}
	for _, batch := range batches {
		var convert []int
		for _, i := range batch {
			in0[i] = true
			if selected[i] && whole[i] == nil {
				convert = append(convert, i)
			}
		}
		if err := convertDocs(in.Documents, convert, whole); err != nil {
			return nil, err
		}
		docs := make([]*ast.Term, 0, len(batch))
		others := []*ast.Term{}
		for i := range in.Documents {
			switch {
			case in0[i] && whole[i] != nil:
				docs = append(docs, whole[i])
			case in0[i]:
				docs = append(docs, bare[i])
			case stubs[i] != nil:
				others = append(others, stubs[i])
			}
		}
		fs, err := e.evalQueries(ctx, build(docs, others, facts), func(path string) bool {
			i, ok := docPaths[path]
			return !ok || in0[i]
		})
		// The batch's documents go now; OPA's pools may hold them
		// through one more collection, which the smaller batches allow for.
		for _, i := range batch {
			in0[i], whole[i] = false, nil
		}
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if _, ok := docPaths[f.Path]; !ok {
				k := fmt.Sprintf("%s\x00%s\x00%v\x00%s", f.Rule, f.Path, f.Pos, f.Message)
				if repoLevel[k] {
					continue
				}
				repoLevel[k] = true
			}
			out = append(out, f)
		}
	}
	finding.Sort(out)
	return out, nil
}

// prescan answers the relevance questions the configuration alone decides
// (data.buildgate.select.needles) for every document, in one pass over
// each text on every core (sources.prescan), before the selection asks
// them one at a time.
func (e *Engine) prescan(ctx context.Context, docs []loader.Document, build func(docs, others []*ast.Term, facts *ast.Term) ast.Value) error {
	s, _ := ctx.Value(sourcesKey{}).(*sources)
	if e.needles == nil || s == nil {
		return nil
	}
	rs, err := e.needles.Eval(ctx, rego.EvalParsedInput(build(nil, nil, nil)))
	if err != nil && ctx.Err() != nil {
		return &TimeoutError{Query: "the relevance questions", Err: ctx.Err()}
	}
	if err != nil {
		return fmt.Errorf("the relevance questions: %w", err)
	}
	var needles []*ast.Array
	if len(rs) > 0 {
		v, err := ast.InterfaceToValue(rs[0].Bindings["x"])
		if err != nil {
			return err
		}
		if set, ok := v.(*ast.Array); ok {
			set.Foreach(func(t *ast.Term) {
				if a, ok := t.Value.(*ast.Array); ok {
					needles = append(needles, a)
				}
			})
		}
	}
	return s.prescan(docs, needles)
}
