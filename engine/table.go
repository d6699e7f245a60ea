// The repository's table as a file's evaluation reads it: through
// buildgate.repo, which records every read, so that an evaluation made
// with the table as far as it was known (its own file's facts) can be
// shown to hold for the final table and need not be made again.

package engine

import (
	"context"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"
)

func init() {
	register("buildgate.repo", "the value at a path of the repository's table (data.buildgate.facts), or the default when the table has none there; undefined when no table is at hand (an evaluation over every document, which folds its own). Every read is recorded: an evaluation is valid for any table that gives the same answers",
		types.Args(types.Named("path", types.NewArray(nil, types.A)), types.Named("default", types.A)), types.Named("value", types.A), builtinRepo)
}

type tableKey struct{}

// Table is the repository's table an evaluation reads, and what it read.
type Table struct {
	value ast.Value
	mu    sync.Mutex
	reads []Read
}

// Read is one answer buildgate.repo gave: the path, the default and the
// value.
type Read struct {
	path  []*ast.Term
	dflt  *ast.Term
	value *ast.Term
}

// NewTable is a table to read (nil: an empty one).
func NewTable(v ast.Value) *Table {
	if v == nil {
		v = ast.NewObject()
	}
	return &Table{value: v}
}

// Value is the table's value.
func (t *Table) Value() ast.Value { return t.value }

// Reads are the answers the evaluations with the table gave, in order.
func (t *Table) Reads() []Read {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Read(nil), t.reads...)
}

// Holds reports whether every read gives the same answer from this table:
// an evaluation that made those reads would find the same here.
func (t *Table) Holds(reads []Read) bool {
	for _, r := range reads {
		if t.lookup(r.path, r.dflt).Value.Compare(r.value.Value) != 0 {
			return false
		}
	}
	return true
}

func (t *Table) lookup(path []*ast.Term, dflt *ast.Term) *ast.Term {
	v := t.value
	for _, k := range path {
		obj, ok := v.(ast.Object)
		if !ok {
			return dflt
		}
		x := obj.Get(k)
		if x == nil {
			return dflt
		}
		v = x.Value
	}
	return ast.NewTerm(v)
}

// withTable puts a table at hand for buildgate.repo.
func withTable(ctx context.Context, t *Table) context.Context {
	return context.WithValue(ctx, tableKey{}, t)
}

func builtinRepo(bctx topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	var t *Table
	if bctx.Context != nil {
		t, _ = bctx.Context.Value(tableKey{}).(*Table)
	}
	if t == nil {
		return nil // undefined: no table at hand
	}
	arr, ok := ops[0].Value.(*ast.Array)
	if !ok {
		return nil
	}
	path := make([]*ast.Term, 0, arr.Len())
	arr.Foreach(func(x *ast.Term) { path = append(path, x) })
	v := t.lookup(path, ops[1])
	t.mu.Lock()
	t.reads = append(t.reads, Read{path: path, dflt: ops[1], value: v})
	t.mu.Unlock()
	return iter(v)
}
