// Evaluation: running the prepared queries and turning their results
// into findings.

package engine

import (
	"context"
	"fmt"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Input is what every rule sees: input.documents and input.config.
type Input struct {
	Documents []loader.Document `json:"documents"`
	Config    any               `json:"config"`
}

// Eval runs every rule once over the whole input and returns the findings,
// sorted by path, position and rule. A finding that gives an element (loc)
// but no path is placed in the document that holds the element.
func (e *Engine) Eval(ctx context.Context, in Input) ([]finding.Finding, error) {
	if len(e.queries) == 0 {
		return nil, nil
	}
	if e.selector == nil {
		val, err := ConvertInput(in)
		if err != nil {
			return nil, err
		}
		return e.EvalConverted(ctx, in, val)
	}
	ctx = withSources(ctx, in.Documents)
	batch := e.BatchBytes
	if batch <= 0 {
		batch = DefaultBatchBytes
	}
	return e.stream(ctx, in, batch)
}

// EvalConverted is Eval over an input ConvertInput has converted.
func (e *Engine) EvalConverted(ctx context.Context, in Input, val ast.Value) ([]finding.Finding, error) {
	if len(e.queries) == 0 {
		return nil, nil
	}
	if _, ok := ctx.Value(sourcesKey{}).(*sources); !ok {
		ctx = withSources(ctx, in.Documents)
	}
	out, err := e.evalQueries(ctx, val, nil)
	if err != nil {
		return nil, err
	}
	finding.Sort(out)
	return out, nil
}

// evalQueries runs every prepared query over val and makes the findings
// of those whose path keep accepts (all of them for a nil keep).
func (e *Engine) evalQueries(ctx context.Context, val ast.Value, keep func(path string) bool) ([]finding.Finding, error) {
	var out []finding.Finding
	for _, q := range e.queries {
		rs, err := q.prepared.Eval(ctx, rego.EvalParsedInput(val))
		if err != nil {
			if ctx.Err() != nil {
				return nil, &TimeoutError{Query: q.name, Err: ctx.Err()}
			}
			if len(q.bindings) > 0 {
				return nil, &RuleError{Rule: e.rules[q.bindings[0].rule], Err: err}
			}
			return nil, err
		}
		if len(rs) == 0 {
			continue
		}
		for _, b := range q.bindings {
			r := e.rules[b.rule]
			items, _ := rs[0].Bindings[b.v].([]any)
			for _, item := range items {
				f, loc, err := toFinding(r, b.set, item)
				if err != nil {
					return nil, err
				}
				if f.Path == "" && loc != nil {
					f.Path = pathOf(val, loc)
				}
				if keep == nil || keep(f.Path) {
					out = append(out, f)
				}
			}
		}
	}
	return out, nil
}

// pathOf finds the document that holds an element: the first whose value
// contains it (an element carries its position, so the match is exact
// unless two documents hold identical elements at identical positions).
func pathOf(input ast.Value, loc any) string {
	want, err := ast.InterfaceToValue(loc)
	if err != nil {
		return ""
	}
	docs, ok := input.(ast.Object).Get(ast.StringTerm("documents")).Value.(*ast.Array)
	if !ok {
		return ""
	}
	found := ""
	docs.Until(func(doc *ast.Term) bool {
		if holds(doc.Value, want) {
			if p, ok := doc.Value.(ast.Object).Get(ast.StringTerm("path")).Value.(ast.String); ok {
				found = string(p)
			}
			return true
		}
		return false
	})
	return found
}

func holds(v, want ast.Value) bool {
	switch x := v.(type) {
	case ast.Object:
		if x.Compare(want) == 0 {
			return true
		}
		hit := false
		x.Until(func(_, t *ast.Term) bool {
			hit = holds(t.Value, want)
			return hit
		})
		return hit
	case *ast.Array:
		hit := false
		x.Until(func(t *ast.Term) bool {
			hit = holds(t.Value, want)
			return hit
		})
		return hit
	}
	return false
}

func toFinding(r finding.Rule, set string, item any) (finding.Finding, any, error) {
	f := finding.Finding{Rule: r.ID, Name: r.Name, Severity: r.Severity}
	if r.Severity == "" {
		f.Severity = setSeverity[set]
	}
	var loc any
	switch v := item.(type) {
	case string:
		f.Message = v
		return f, nil, nil
	case map[string]any:
		msg, ok := v["msg"].(string)
		if !ok {
			return f, nil, fmt.Errorf("%s: rule %s: a finding needs a string msg, got %v", r.File, r.ID, item)
		}
		f.Message = msg
		f.Path, _ = v["path"].(string)
		f.Text, _ = v["text"].(string)
		pos := v["pos"]
		if l, ok := v["loc"].(map[string]any); ok {
			loc = l
			if pos == nil {
				pos = l["pos"]
			}
			if f.Text == "" {
				f.Text, _ = l["text"].(string)
			}
		}
		if pos != nil {
			p, err := toPos(pos)
			if err != nil {
				return f, nil, fmt.Errorf("%s: rule %s: %w", r.File, r.ID, err)
			}
			f.Pos = p
		}
		if fx, ok := v["fix"].(map[string]any); ok {
			fix := &finding.Fix{}
			fix.Description, _ = fx["description"].(string)
			fix.Replacement, _ = fx["replacement"].(string)
			if p, err := toPos(fx["pos"]); err == nil {
				fix.Pos = p
			}
			f.Fix = fix
		}
		return f, loc, nil
	}
	return f, nil, fmt.Errorf("%s: rule %s: a finding must be a string or an object with msg, got %v", r.File, r.ID, item)
}

func toPos(v any) (loader.Pos, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return loader.Pos{}, fmt.Errorf("pos must be an object with line and column, got %v", v)
	}
	n := func(k string) int {
		switch x := m[k].(type) {
		case float64:
			return int(x)
		case int:
			return x
		case interface{ Int64() (int64, error) }:
			i, _ := x.Int64()
			return int(i)
		}
		return 0
	}
	p := loader.Pos{Line: n("line"), Column: n("column"), EndLine: n("end_line"), EndColumn: n("end_column")}
	if p.Line < 1 || p.Column < 1 {
		return loader.Pos{}, fmt.Errorf("pos must have line and column >= 1, got %v", v)
	}
	if p.EndLine < p.Line {
		p.EndLine, p.EndColumn = p.Line, p.Column
	}
	return p, nil
}
