// Evaluation: running the prepared queries and turning their results
// into findings.

package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// Input is what a whole-repository evaluation sees: input.documents and
// input.config.
type Input struct {
	Documents []loader.Document `json:"documents"`
	Config    any               `json:"config"`
}

// Eval evaluates every rule once over the whole input, the pack's and the
// user policies', as policy tests do (the pack folds the repository's
// table from the documents itself), and returns the findings, sorted. A
// finding that gives an element (loc) but no path is placed in the
// document that holds the element. The runner evaluates the pack file by
// file instead (EvalFile).
func (e *Engine) Eval(ctx context.Context, in Input) ([]finding.Finding, error) {
	docs := make([]Doc, len(in.Documents))
	for i, d := range in.Documents {
		var err error
		if docs[i], err = Convert(d); err != nil {
			return nil, err
		}
	}
	cfg, err := ToValue(in.Config)
	if err != nil {
		return nil, err
	}
	out, err := e.EvalUser(ctx, cfg, nil, docs)
	if err != nil || e.pack == nil {
		return out, err
	}
	val, texts := wholeInput(cfg, nil, docs)
	fs, err := e.evalQuery(WithSources(ctx, texts), e.pack, val, func(loc any) string { return pathOf(val, loc) })
	if err != nil {
		return nil, err
	}
	out = append(out, fs...)
	finding.Sort(out)
	return out, nil
}

// EvalUser evaluates the user policies once over every document (with
// repo, when not nil, as input.repo). Sorted findings.
func (e *Engine) EvalUser(ctx context.Context, cfg, repo ast.Value, docs []Doc) ([]finding.Finding, error) {
	if len(e.user) == 0 {
		return nil, nil
	}
	val, texts := wholeInput(cfg, repo, docs)
	ctx = WithSources(ctx, texts)
	var out []finding.Finding
	for i := range e.user {
		fs, err := e.evalQuery(ctx, &e.user[i], val, func(loc any) string { return pathOf(val, loc) })
		var re *RuleError
		if err != nil && errors.As(err, &re) && re.Runtime() && ctx.Err() == nil {
			// One user rule failing stops none of the others (issue 32):
			// its failure is its finding, an error.
			out = append(out, Failed(re))
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	finding.Sort(out)
	return out, nil
}

// Failed is the finding that reports a user rule whose evaluation failed
// at run time: the rule's id and name, severity error, the message with
// the policy file and line. Its Path is the policy file as the user named
// it, and Pos the line of the error; the runner keeps the path only when
// it is inside the repository (Finding.Policy holds it either way).
func Failed(re *RuleError) finding.Finding {
	file, line, col := re.Place()
	where := file
	if line > 0 {
		where = fmt.Sprintf("%s:%d", file, line)
	}
	if file != re.Rule.File && re.Rule.File != "" {
		// The error is in a module the rule calls (the built-in
		// library, a shared module): the finding stays at the rule's
		// own file, the message says where it failed.
		where = fmt.Sprintf("%s (in %s, which the rule calls)", re.Rule.File, where)
		file, line, col = re.Rule.File, 0, 0
	}
	f := finding.Finding{
		Rule: re.Rule.ID, Name: re.Rule.Name, Severity: finding.SeverityError,
		Message: cut(fmt.Sprintf("the rule failed at run time, so what it checks was not checked: %s: %s (fix the policy; its other findings are unknown)", where, re.Message())),
		Path:    file,
		Text:    "runtime-error",
		Failed:  true,
	}
	if line > 0 {
		f.Pos = loader.Pos{Line: line, Column: col, EndLine: line, EndColumn: col}
	}
	return f
}

// wholeInput is the input of an evaluation over every document, and
// their texts.
func wholeInput(cfg, repo ast.Value, docs []Doc) (ast.Object, map[string][]byte) {
	terms := make([]*ast.Term, len(docs))
	texts := make(map[string][]byte, len(docs))
	for i, d := range docs {
		terms[i] = ast.NewTerm(d.Value)
		texts[d.Path] = d.Source
	}
	kv := [][2]*ast.Term{
		{ast.StringTerm("documents"), ast.ArrayTerm(terms...)},
		{ast.StringTerm("config"), ast.NewTerm(cfg)},
	}
	if repo != nil {
		kv = append(kv, [2]*ast.Term{ast.StringTerm("repo"), ast.NewTerm(repo)})
	}
	return ast.NewObject(kv...), texts
}

// EvalFile evaluates the built-in pack over one document: input is
// {documents: [doc], config, scope: "file"}, the document's text is at
// hand for the source builtins, and the repository's table for
// buildgate.repo (which records what the evaluation reads of it).
func (e *Engine) EvalFile(ctx context.Context, cfg ast.Value, table *Table, doc Doc) ([]finding.Finding, error) {
	if e.pack == nil {
		return nil, nil
	}
	val := scoped(cfg, nil, "file", ast.NewTerm(doc.Value))
	ctx = withTable(withDocs(ctx, doc), table)
	return e.evalQuery(ctx, e.pack, val, func(any) string { return doc.Path })
}

// EvalFiles evaluates the built-in pack over a batch of documents at once,
// as EvalFile does each (scope "file", the table through buildgate.repo):
// every rule of the pack looks at each document of input.documents
// alone, so a batch gives each document's findings, for one query's
// fixed cost (some 150 µs of config-derived work, against some 15 µs a
// document). A finding that gives an element but no path is placed in
// the document that holds it.
func (e *Engine) EvalFiles(ctx context.Context, cfg ast.Value, table *Table, docs []Doc) ([]finding.Finding, error) {
	if e.pack == nil || len(docs) == 0 {
		return nil, nil
	}
	terms := make([]*ast.Term, len(docs))
	for i, d := range docs {
		terms[i] = ast.NewTerm(d.Value)
	}
	val := scoped(cfg, nil, "file", terms...)
	ctx = withTable(withDocs(ctx, docs...), table)
	return e.evalQuery(ctx, e.pack, val, func(loc any) string { return pathOf(val, loc) })
}

// FilesFacts are the facts of each document of a batch, in order
// (data.buildgate.facts.files over the batch); nil facts when the pack
// declares none.
func (e *Engine) FilesFacts(ctx context.Context, cfg ast.Value, docs []Doc) ([]ast.Value, error) {
	out := make([]ast.Value, len(docs))
	if e.files == nil || len(docs) == 0 {
		return out, nil
	}
	terms := make([]*ast.Term, len(docs))
	for i, d := range docs {
		terms[i] = ast.NewTerm(d.Value)
	}
	val := scoped(cfg, nil, "file", terms...)
	v, err := e.value(withDocs(ctx, docs...), e.files, val, "the facts of "+docs[0].Path+" and others")
	if err != nil || v == nil {
		return out, err
	}
	arr, ok := v.(*ast.Array)
	if !ok {
		return nil, fmt.Errorf("%s is not an array", FilesRef)
	}
	byPath := map[string]ast.Value{}
	arr.Foreach(func(t *ast.Term) {
		obj, ok := t.Value.(ast.Object)
		if !ok {
			return
		}
		pt, f := obj.Get(ast.StringTerm("path")), obj.Get(ast.StringTerm("facts"))
		if pt == nil || f == nil {
			return
		}
		if p, ok := pt.Value.(ast.String); ok {
			byPath[string(p)] = f.Value
		}
	})
	for i, d := range docs {
		out[i] = byPath[d.Path]
	}
	return out, nil
}

// EvalRepository evaluates the built-in pack over no document: what it
// says of the repository as a whole (a requirements file the
// configuration names that does not exist), with the table and the
// findings of every file's evaluation ({rule, path, msg}) as input.findings.
func (e *Engine) EvalRepository(ctx context.Context, cfg ast.Value, table *Table, found []finding.Finding) ([]finding.Finding, error) {
	if e.pack == nil {
		return nil, nil
	}
	fs := make([]*ast.Term, len(found))
	for i, f := range found {
		fs[i] = ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("rule"), ast.StringTerm(f.Rule)},
			[2]*ast.Term{ast.StringTerm("path"), ast.StringTerm(f.Path)},
			[2]*ast.Term{ast.StringTerm("msg"), ast.StringTerm(f.Message)},
		)
	}
	val := scoped(cfg, nil, "repository")
	val.Insert(ast.StringTerm("findings"), ast.ArrayTerm(fs...))
	return e.evalQuery(withTable(ctx, table), e.pack, val, func(any) string { return "" })
}

// scoped is the input of an evaluation of the pack: documents, config,
// the scope, and the repository's table when given (nil: the table is
// read through buildgate.repo).
func scoped(cfg, repo ast.Value, scope string, docs ...*ast.Term) ast.Object {
	kv := [][2]*ast.Term{
		{ast.StringTerm("documents"), ast.ArrayTerm(docs...)},
		{ast.StringTerm("config"), ast.NewTerm(cfg)},
		{ast.StringTerm("scope"), ast.StringTerm(scope)},
	}
	if repo != nil {
		kv = append(kv, [2]*ast.Term{ast.StringTerm("repo"), ast.NewTerm(repo)})
	}
	return ast.NewObject(kv...)
}

// FileFacts are what the pack declares the other files' evaluations need
// of one document (data.buildgate.facts.file); nil when it declares
// nothing.
func (e *Engine) FileFacts(ctx context.Context, cfg ast.Value, doc Doc) (ast.Value, error) {
	if e.file == nil {
		return nil, nil
	}
	val := scoped(cfg, nil, "file", ast.NewTerm(doc.Value))
	ctx = withDocs(ctx, doc)
	return e.value(ctx, e.file, val, "the facts of "+doc.Path)
}

// FileFact is one file's facts, for the fold.
type FileFact struct {
	Path, Kind string
	Facts      ast.Value
	// Runs are the files it runs (its references that it runs: bash
	// x.sh, ./x, python3 x.py, a copied script a RUN runs), as
	// input.files[_].runs: what is run is of the platform of what runs
	// it (issue 28).
	Runs []string
}

// Fold folds every file's facts into the repository's table
// (data.buildgate.facts.repo over input.files); an empty object when the
// pack declares no table.
func (e *Engine) Fold(ctx context.Context, cfg ast.Value, files []FileFact) (ast.Value, error) {
	if e.fold == nil {
		return ast.NewObject(), nil
	}
	terms := make([]*ast.Term, 0, len(files))
	for _, f := range files {
		if f.Facts == nil {
			continue
		}
		runs := make([]*ast.Term, 0, len(f.Runs))
		for _, r := range f.Runs {
			runs = append(runs, ast.StringTerm(r))
		}
		terms = append(terms, ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("path"), ast.StringTerm(f.Path)},
			[2]*ast.Term{ast.StringTerm("kind"), ast.StringTerm(f.Kind)},
			[2]*ast.Term{ast.StringTerm("facts"), ast.NewTerm(f.Facts)},
			[2]*ast.Term{ast.StringTerm("runs"), ast.ArrayTerm(runs...)},
		))
	}
	val := ast.NewObject(
		[2]*ast.Term{ast.StringTerm("documents"), ast.ArrayTerm()},
		[2]*ast.Term{ast.StringTerm("files"), ast.ArrayTerm(terms...)},
		[2]*ast.Term{ast.StringTerm("config"), ast.NewTerm(cfg)},
	)
	v, err := e.value(ctx, e.fold, val, "the repository's table")
	if v == nil && err == nil {
		v = ast.NewObject()
	}
	return v, err
}

// Needles are the strings a file's text must hold (as
// buildgate.source_contains reads it) for the pack to read its document
// (data.buildgate.facts.needles, with the table at hand; nil: an empty
// one). ok is false when the pack declares none: then every document is
// read.
func (e *Engine) Needles(ctx context.Context, cfg ast.Value, table *Table) (needles []string, ok bool, err error) {
	if e.needles == nil {
		return nil, false, nil
	}
	if table == nil {
		table = NewTable(nil)
	}
	v, err := e.value(withTable(ctx, table), e.needles, scoped(cfg, nil, "repository"), "the needles")
	if err != nil || v == nil {
		return nil, v != nil, err
	}
	each(v, func(t *ast.Term) {
		if s, ok := t.Value.(ast.String); ok && s != "" {
			needles = append(needles, string(s))
		}
	})
	sort.Strings(needles)
	return needles, true, nil
}

// value evaluates a prepared query of x = … into x's value (nil when
// undefined).
func (e *Engine) value(ctx context.Context, q *rego.PreparedEvalQuery, val ast.Value, what string) (ast.Value, error) {
	rs, err := q.Eval(ctx, rego.EvalParsedInput(val))
	if err != nil {
		if ctx.Err() != nil {
			return nil, &TimeoutError{Query: what, Err: ctx.Err()}
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if len(rs) == 0 {
		return nil, nil
	}
	return ast.InterfaceToValue(rs[0].Bindings["x"])
}

// evalQuery runs a prepared query over val and makes its findings; place
// gives the path of a finding that names an element but no path.
func (e *Engine) evalQuery(ctx context.Context, q *query, val ast.Value, place func(loc any) string) ([]finding.Finding, error) {
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
		return nil, nil
	}
	var out []finding.Finding
	for _, b := range q.bindings {
		r := e.rules[b.rule]
		raw, present := rs[0].Bindings[b.v]
		items, isSet := raw.([]any)
		if present && raw != nil && !isSet {
			return nil, &RuleError{Rule: r, Shape: true, Err: fmt.Errorf("%s is %s, not a set of findings: write `%s contains {\"msg\": …} if {…}` (in Rego v1 `%s[x] if …` builds an object)", b.set, shapeOf(raw), b.set, b.set)}
		}
		if len(items) > maxFindings {
			return nil, &RuleError{Rule: r, Bound: true, Err: fmt.Errorf("%d findings in one evaluation, more than the %d a rule may give (a bound: see docs/robustness.md)", len(items), maxFindings)}
		}
		for _, item := range items {
			f, loc, err := toFinding(r, b.set, item)
			if err != nil {
				return nil, &RuleError{Rule: r, Shape: true, Err: err}
			}
			if f.Path == "" && loc != nil {
				f.Path = place(loc)
			}
			out = append(out, f)
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

// Bounds of what a rule gives (docs/robustness.md): a finding's message
// and its fix's text are cut at maxMessage bytes, saying so; a rule that
// gives more than maxFindings findings in one evaluation stops the run.
const (
	maxMessage  = 8 << 10
	maxFindings = 100_000
)

// cut shortens a rule's text past maxMessage, at a character boundary.
func cut(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	i := maxMessage
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s… (%d bytes more, cut by buildgate)", s[:i], len(s)-i)
}

func toFinding(r finding.Rule, set string, item any) (finding.Finding, any, error) {
	f := finding.Finding{Rule: r.ID, Name: r.Name, Severity: r.Severity}
	if r.Severity == "" {
		f.Severity = setSeverity[set]
	}
	var loc any
	switch v := item.(type) {
	case string:
		f.Message = cut(v)
		return f, nil, nil
	case map[string]any:
		msg, ok := v["msg"].(string)
		if !ok {
			return f, nil, fmt.Errorf("%s: rule %s: a finding needs a string msg, got %v", r.File, r.ID, item)
		}
		f.Message = cut(msg)
		f.Path, _ = v["path"].(string)
		f.Text, _ = v["text"].(string)
		f.Text = cut(f.Text)
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
			// "unsafe": true, or the reason the fix is unsafe.
			switch u := fx["unsafe"].(type) {
			case bool:
				fix.Unsafe = u
			case string:
				fix.Unsafe, fix.UnsafeReason = u != "", u
			}
			if len(fix.Replacement) > maxMessage*8 {
				return f, nil, fmt.Errorf("%s: rule %s: a fix's replacement of %d bytes, more than the %d a fix may have", r.File, r.ID, len(fix.Replacement), maxMessage*8)
			}
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

// shapeOf names the JSON type of a value a rule gave.
func shapeOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "a set"
	}
	return "a number"
}
