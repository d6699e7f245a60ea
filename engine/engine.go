// Package engine compiles Rego policies once and evaluates them over loaded
// documents. It knows rules and findings; it knows nothing of files on disk,
// configuration files or output formats.
package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// RulesRoot is the package prefix under which rules live: every package
// below it whose sets deny, warn or info exist is a rule. MetaRoot holds
// the catalogue entries of findings the tool makes itself (suppressions).
const (
	RulesRoot = "buildgate.rules"
	MetaRoot  = "buildgate.meta"
)

// Severities, most severe first.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityNote    = "note"
)

// SeverityRank orders severities: error 3, warning 2, note 1, anything else 0.
func SeverityRank(s string) int {
	switch s {
	case SeverityError:
		return 3
	case SeverityWarning:
		return 2
	case SeverityNote:
		return 1
	}
	return 0
}

var setSeverity = map[string]string{"deny": SeverityError, "warn": SeverityWarning, "info": SeverityNote}

// Module is one Rego source file. Name is how messages refer to it; Pack
// is the policy directory it came from ("" for the built-in pack).
type Module struct {
	Name string
	Src  string
	Pack string
}

// Rule is a rule as its METADATA describes it.
type Rule struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Severity    string   `json:"severity"`
	Tags        []string `json:"tags,omitempty"`
	Precision   string   `json:"precision,omitempty"`
	Package     string   `json:"package"`
	File        string   `json:"file"`
	// Pack is the --policy directory of a user rule, "" for a built-in one.
	Pack string `json:"pack,omitempty"`
	// Meta rules are reported by the tool, not evaluated (BG002-BG004).
	Meta bool `json:"meta,omitempty"`
	// RepositoryLevel rules are about the repository as a whole (a missing
	// pin): always reported, even when only new findings are asked for.
	RepositoryLevel bool `json:"repository_level,omitempty"`
	// Locked rules cannot be turned off or lowered below error by
	// configuration (BG001: what cannot be read must fail the gate).
	Locked bool `json:"locked,omitempty"`
	// Doc is the rule's hand-written page (Markdown) when it has one: the
	// .md file beside its policy.
	Doc  string `json:"-"`
	sets []string
}

// Fix is a suggested replacement: the text that should stand at a finding's
// position (an empty position range means an insertion).
type Fix struct {
	Description string     `json:"description"`
	Replacement string     `json:"replacement"`
	Pos         loader.Pos `json:"pos"`
}

// Finding is one result of one rule.
type Finding struct {
	Rule     string     `json:"rule"`
	Name     string     `json:"name"`
	Severity string     `json:"severity"`
	Message  string     `json:"message"`
	Path     string     `json:"path"`
	Pos      loader.Pos `json:"pos"`
	// Text is the element's source text as the rule saw it, for stable
	// fingerprints (from the finding's text, else its loc's); Fix is
	// optional.
	Text string `json:"text,omitempty"`
	Fix  *Fix   `json:"fix,omitempty"`
	// Fingerprint identifies the finding across runs (see Fingerprints).
	Fingerprint string `json:"fingerprint,omitempty"`
	// Suppression is set on a finding a suppression covers.
	Suppression *Suppression `json:"suppression,omitempty"`
}

// Suppression says why a finding is not reported: Kind "inSource" (a
// buildgate:ignore comment) or "external" (the configuration), as SARIF
// names them.
type Suppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}

// Engine holds compiled policies and their prepared queries: one for the
// built-in pack, one per user rule package, so that a timeout can name the
// query that ran out of time.
type Engine struct {
	compiler *ast.Compiler
	rules    []Rule
	queries  []query
	// selector, when the policies define data.buildgate.select.paths and
	// no user policy is loaded, says which documents the rules read beyond
	// their kind, path and errors: only those are converted in full.
	selector *rego.PreparedEvalQuery
}

// SelectRef is the rule that narrows which documents are converted.
const SelectRef = "data.buildgate.select.paths"

type query struct {
	name     string // the rule sets it evaluates, for messages
	prepared rego.PreparedEvalQuery
	bindings []binding
}

type binding struct {
	rule int
	set  string
	v    string
}

// Options are what a compilation needs besides the modules.
type Options struct {
	// Version is what opa.runtime() reports.
	Version string
	// Data is available to policies as data.buildgate.data (--data).
	Data any
}

// TimeoutError is an evaluation that ran out of time.
type TimeoutError struct {
	Query string
	Err   error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("evaluating %s did not finish in time (--timeout): %v", e.Query, e.Err)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// CompileError lists what was wrong with the policies, each as file:line.
type CompileError struct{ Errors []string }

func (e *CompileError) Error() string { return strings.Join(e.Errors, "\n") }

// ModulesFromDir reads every .rego file of a user's policy directory dir,
// opened as fsys;
// test files only when tests is set. Names are paths as the user gave the
// directory, so that messages point where they look.
func ModulesFromDir(fsys fs.FS, dir string, tests bool) ([]Module, error) {
	mods, err := ModulesFromFS(fsys, ".", tests)
	if err != nil {
		return nil, fmt.Errorf("--policy %s: %w", dir, err)
	}
	for i := range mods {
		mods[i].Name = path.Join(filepath.ToSlash(dir), mods[i].Name)
		mods[i].Pack = dir
	}
	return mods, nil
}

// ModulesFromFS reads every .rego file below dir in fsys; test files
// (_test.rego) only when tests is set.
func ModulesFromFS(fsys fs.FS, dir string, tests bool) ([]Module, error) {
	var mods []Module
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Ext(p) != ".rego" {
			return nil
		}
		if !tests && strings.HasSuffix(p, "_test.rego") {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("%s: %w", p, err)
		}
		mods = append(mods, Module{Name: p, Src: string(b)})
		return nil
	})
	return mods, err
}

// Capabilities is what policies may call: the builtins on the sandbox's
// allow-list and buildgate's own; no network. The environment is kept out
// of opa.runtime() by never handing it over (see Runtime). It is built
// once (every module's parse and every compiler use it) and not to be
// modified.
func Capabilities() *ast.Capabilities { return capabilities() }

var capabilities = sync.OnceValue(func() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if Allowed(b) {
			kept = append(kept, b)
		}
	}
	caps.Builtins = kept
	caps.AllowNet = []string{}
	return caps
})

// Runtime is what opa.runtime() returns: the tool's version, no environment.
func Runtime(version string) *ast.Term {
	return ast.ObjectTerm(ast.Item(ast.StringTerm("version"), ast.StringTerm(version)))
}

// Compile is CompileWith with only a version.
func Compile(ctx context.Context, mods []Module, version string) (*Engine, error) {
	return CompileWith(ctx, mods, Options{Version: version})
}

// CompileWith parses and compiles modules in strict mode, refusing what
// the sandbox withholds, and prepares the queries that evaluate the rules.
func CompileWith(ctx context.Context, mods []Module, o Options) (*Engine, error) {
	c, err := compileModules(mods)
	if err != nil {
		return nil, err
	}
	rules, err := collectRules(c, mods)
	if err != nil {
		return nil, err
	}
	e := &Engine{compiler: c, rules: rules}
	userRules := false
	for _, r := range rules {
		userRules = userRules || r.Pack != ""
	}
	// data.buildgate.user_policies tells the pack that rules it does not
	// know read the documents: a syntax error is then reported wherever it
	// is (BG001), not only where it could hide what the pack looks for.
	bg := map[string]any{"user_policies": userRules}
	if o.Data != nil {
		bg["data"] = o.Data
	}
	data := map[string]any{"buildgate": bg}
	groups := map[string]*query{}
	var order []string
	for i, r := range rules {
		key := "\x00builtin"
		if r.Pack != "" {
			key = r.Package
		}
		q := groups[key]
		if q == nil {
			q = &query{}
			groups[key] = q
			order = append(order, key)
		}
		for _, s := range r.sets {
			q.bindings = append(q.bindings, binding{rule: i, set: s, v: fmt.Sprintf("r%d", len(q.bindings))})
		}
	}
	for _, key := range order {
		q := groups[key]
		var exprs, names []string
		for _, b := range q.bindings {
			ref := fmt.Sprintf("data.%s.%s", rules[b.rule].Package, b.set)
			exprs = append(exprs, b.v+" = "+ref)
			names = append(names, ref)
		}
		q.name = strings.Join(names, ", ")
		if key == "\x00builtin" {
			q.name = "the built-in pack (" + q.name + ")"
		}
		pq, err := rego.New(
			rego.Compiler(c),
			rego.Store(inmem.NewFromObject(data)),
			rego.Query(strings.Join(exprs, "; ")),
			rego.Runtime(Runtime(o.Version)),
			rego.StrictBuiltinErrors(true),
		).PrepareForEval(ctx)
		if err != nil {
			return nil, &CompileError{Errors: []string{err.Error()}}
		}
		q.prepared = pq
		e.queries = append(e.queries, *q)
	}
	if !userRules && len(c.GetRulesExact(ast.MustParseRef(SelectRef))) > 0 {
		pq, err := rego.New(rego.Compiler(c), rego.Store(inmem.NewFromObject(data)), rego.Query("x = "+SelectRef),
			rego.Runtime(Runtime(o.Version)), rego.StrictBuiltinErrors(true)).PrepareForEval(ctx)
		if err != nil {
			return nil, &CompileError{Errors: []string{err.Error()}}
		}
		e.selector = &pq
	}
	return e, nil
}

// NewCompiler is the compiler every evaluation and test run uses.
func NewCompiler() *ast.Compiler {
	return ast.NewCompiler().
		WithStrict(true).
		WithCapabilities(Capabilities()).
		WithEnablePrintStatements(false).
		WithDefaultRegoVersion(ast.RegoV1)
}

// ParseModules parses Rego sources, v1 syntax, with annotations.
func ParseModules(mods []Module) (map[string]*ast.Module, error) {
	parsed := make(map[string]*ast.Module, len(mods))
	var errs []string
	for _, m := range mods {
		pm, err := ast.ParseModuleWithOpts(m.Name, m.Src, ast.ParserOptions{
			ProcessAnnotation: true,
			RegoVersion:       ast.RegoV1,
			Capabilities:      Capabilities(),
		})
		if err != nil {
			errs = append(errs, formatASTErrors(err)...)
			continue
		}
		parsed[m.Name] = pm
	}
	if len(errs) > 0 {
		return nil, &CompileError{Errors: errs}
	}
	return parsed, nil
}

func compileModules(mods []Module) (*ast.Compiler, error) {
	parsed, err := ParseModules(mods)
	if err != nil {
		return nil, err
	}
	if errs := Sandbox(parsed); len(errs) > 0 {
		return nil, &CompileError{Errors: errs}
	}
	c := NewCompiler()
	c.Compile(parsed)
	if c.Failed() {
		return nil, &CompileError{Errors: formatASTErrors(c.Errors)}
	}
	return c, nil
}

func formatASTErrors(err error) []string {
	var errs ast.Errors
	if !errors.As(err, &errs) {
		return []string{err.Error()}
	}
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		msg := e.Message
		if e.Location != nil {
			msg = fmt.Sprintf("%s:%d:%d: %s", e.Location.File, e.Location.Row, e.Location.Col, msg)
		}
		out = append(out, msg)
	}
	sort.Strings(out)
	return out
}

// collectRules finds every package under RulesRoot with a deny, warn or
// info set and reads its package METADATA.
func collectRules(c *ast.Compiler, mods []Module) ([]Rule, error) {
	packOf := map[string]string{}
	for _, m := range mods {
		packOf[m.Name] = m.Pack
	}
	byPkg := map[string]*Rule{}
	var order []string
	for _, name := range sortedKeys(c.Modules) {
		m := c.Modules[name]
		pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
		meta := strings.HasPrefix(pkg, MetaRoot+".")
		if !strings.HasPrefix(pkg, RulesRoot+".") && !meta {
			continue
		}
		r := byPkg[pkg]
		if r == nil {
			last := pkg[strings.LastIndex(pkg, ".")+1:]
			r = &Rule{ID: last, Name: strings.ReplaceAll(last, "_", "-"), Package: pkg, File: name, Pack: packOf[name], Meta: meta}
			byPkg[pkg] = r
			order = append(order, pkg)
		}
		for _, rule := range m.Rules {
			set := rule.Head.Name.String()
			if len(rule.Head.Reference) > 0 {
				set = rule.Head.Reference[0].Value.(ast.Var).String()
			}
			if _, ok := setSeverity[set]; ok && !contains(r.sets, set) {
				r.sets = append(r.sets, set)
			}
		}
		for _, a := range m.Annotations {
			if a.Scope != "package" {
				continue
			}
			if err := applyMetadata(r, a); err != nil {
				return nil, err
			}
		}
	}
	var rules []Rule
	for _, pkg := range order {
		r := byPkg[pkg]
		if len(r.sets) == 0 && !r.Meta {
			continue
		}
		if r.Meta {
			r.sets = nil
		}
		sort.Strings(r.sets)
		if r.Severity == "" && len(r.sets) > 0 {
			r.Severity = setSeverity[r.sets[0]]
		}
		if r.Severity == "" {
			r.Severity = SeverityWarning
		}
		if r.Title == "" {
			r.Title = r.Name
		}
		rules = append(rules, *r)
	}
	seen := map[string]string{}
	for _, r := range rules {
		if other, dup := seen[r.ID]; dup {
			return nil, &CompileError{Errors: []string{fmt.Sprintf("%s: rule id %s is also used by %s", r.File, r.ID, other)}}
		}
		seen[r.ID] = r.File
	}
	sort.SliceStable(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	return rules, nil
}

func applyMetadata(r *Rule, a *ast.Annotations) error {
	where := r.File
	if a.Location != nil {
		where = fmt.Sprintf("%s:%d", a.Location.File, a.Location.Row)
	}
	if a.Title != "" {
		r.Title = a.Title
	}
	if a.Description != "" {
		r.Description = strings.TrimSpace(a.Description)
	}
	for k, v := range a.Custom {
		switch k {
		case "id", "name", "severity", "precision":
			s, ok := v.(string)
			if !ok {
				return &CompileError{Errors: []string{fmt.Sprintf("%s: METADATA custom.%s must be a string", where, k)}}
			}
			switch k {
			case "id":
				r.ID = s
			case "name":
				r.Name = s
			case "severity":
				if SeverityRank(s) == 0 {
					return &CompileError{Errors: []string{fmt.Sprintf("%s: METADATA custom.severity %q: want error, warning or note", where, s)}}
				}
				r.Severity = s
			case "precision":
				r.Precision = s
			}
		case "repository_level", "locked":
			b, ok := v.(bool)
			if !ok {
				return &CompileError{Errors: []string{fmt.Sprintf("%s: METADATA custom.%s must be true or false", where, k)}}
			}
			if k == "locked" {
				r.Locked = b
			} else {
				r.RepositoryLevel = b
			}
		case "tags":
			list, ok := v.([]any)
			if !ok {
				return &CompileError{Errors: []string{fmt.Sprintf("%s: METADATA custom.tags must be a list", where)}}
			}
			for _, t := range list {
				r.Tags = append(r.Tags, fmt.Sprint(t))
			}
		}
	}
	return nil
}

// AttachDocs reads each rule's page, the .md file beside its policy file,
// from fsys (the file system its modules were read from).
func (e *Engine) AttachDocs(fsys fs.FS) {
	for i := range e.rules {
		b, err := fs.ReadFile(fsys, strings.TrimSuffix(e.rules[i].File, ".rego")+".md")
		if err == nil {
			e.rules[i].Doc = string(b)
		}
	}
}

// SetDoc sets the page of a rule (for user rules, whose pages are files
// beside their policies).
func (e *Engine) SetDoc(id, doc string) {
	for i := range e.rules {
		if e.rules[i].ID == id {
			e.rules[i].Doc = doc
		}
	}
}

// Rules is the catalogue, sorted by id.
func (e *Engine) Rules() []Rule { return append([]Rule(nil), e.rules...) }

// Compiler is the compiled policy set (for the test runner).
func (e *Engine) Compiler() *ast.Compiler { return e.compiler }

// Input is what every rule sees: input.documents and input.config.
type Input struct {
	Documents []loader.Document `json:"documents"`
	Config    any               `json:"config"`
}

// Eval runs every rule once over the whole input and returns the findings,
// sorted by path, position and rule. A finding that gives an element (loc)
// but no path is placed in the document that holds the element.
func (e *Engine) Eval(ctx context.Context, in Input) ([]Finding, error) {
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
	val, err := e.selectAndConvert(ctx, in)
	if err != nil {
		return nil, err
	}
	return e.EvalConverted(ctx, in, val)
}

// maxSelectRounds bounds the selection fixpoint: each round converts the
// documents the previous ones showed to matter (a stage named in one file
// makes another file that names it matter).
const maxSelectRounds = 8

// selectAndConvert converts in full only the documents the selector asks
// for, and gives the others as stubs: {kind, path, errors}. It runs the
// selector until it asks for nothing new.
func (e *Engine) selectAndConvert(ctx context.Context, in Input) (ast.Value, error) {
	terms := make([]*ast.Term, len(in.Documents))
	byPath := make(map[string]int, len(in.Documents))
	for i, d := range in.Documents {
		byPath[d.DocPath()] = i
		errs, err := toTerm(reflect.ValueOf(d.DocErrors()))
		if err != nil {
			return nil, err
		}
		if len(d.DocErrors()) == 0 {
			errs = ast.ArrayTerm()
		}
		terms[i] = ast.ObjectTerm(
			[2]*ast.Term{ast.StringTerm("kind"), ast.StringTerm(string(d.DocKind()))},
			[2]*ast.Term{ast.StringTerm("path"), ast.StringTerm(d.DocPath())},
			[2]*ast.Term{ast.StringTerm("errors"), errs},
		)
	}
	cfg, err := ToValue(in.Config)
	if err != nil {
		return nil, err
	}
	build := func() ast.Value {
		return ast.NewObject(
			[2]*ast.Term{ast.StringTerm("documents"), ast.ArrayTerm(terms...)},
			[2]*ast.Term{ast.StringTerm("config"), ast.NewTerm(cfg)},
		)
	}
	full := make([]bool, len(in.Documents))
	for round := 0; round < maxSelectRounds; round++ {
		rs, err := e.selector.Eval(ctx, rego.EvalParsedInput(build()))
		if err != nil {
			return nil, fmt.Errorf("selecting documents: %w", err)
		}
		var todo []int
		if len(rs) > 0 {
			paths, _ := rs[0].Bindings["x"].([]any)
			for _, p := range paths {
				s, _ := p.(string)
				if i, ok := byPath[s]; ok && !full[i] {
					full[i] = true
					todo = append(todo, i)
				}
			}
		}
		if len(todo) == 0 {
			break
		}
		sort.Ints(todo)
		if err := convertDocs(in.Documents, todo, terms); err != nil {
			return nil, err
		}
	}
	return build(), nil
}

// convertDocs converts the documents at the given indexes into terms, in
// parallel.
func convertDocs(docs []loader.Document, idx []int, terms []*ast.Term) error {
	errs := make([]error, len(idx))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				terms[idx[k]], errs[k] = toTerm(reflect.ValueOf(docs[idx[k]]))
			}
		}()
	}
	for k := range idx {
		next <- k
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// ConvertInput turns an input into the Rego value Eval evaluates: callers
// that have time to spare before the engine is ready (it compiles while
// files load) convert early and call EvalConverted.
func ConvertInput(in Input) (ast.Value, error) {
	val, err := inputValue(in)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	return val, nil
}

// EvalConverted is Eval over an input ConvertInput has converted.
func (e *Engine) EvalConverted(ctx context.Context, in Input, val ast.Value) ([]Finding, error) {
	if len(e.queries) == 0 {
		return nil, nil
	}
	if _, ok := ctx.Value(sourcesKey{}).(*sources); !ok {
		ctx = withSources(ctx, in.Documents)
	}
	var out []Finding
	for _, q := range e.queries {
		rs, err := q.prepared.Eval(ctx, rego.EvalParsedInput(val))
		if err != nil {
			if ctx.Err() != nil {
				return nil, &TimeoutError{Query: q.name, Err: ctx.Err()}
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
				out = append(out, f)
			}
		}
	}
	SortFindings(out)
	return out, nil
}

// inputValue converts the input, documents in parallel (bounded by
// GOMAXPROCS); the result does not depend on the order they finish in.
func inputValue(in Input) (ast.Value, error) {
	terms := make([]*ast.Term, len(in.Documents))
	all := make([]int, len(in.Documents))
	for i := range all {
		all[i] = i
	}
	if err := convertDocs(in.Documents, all, terms); err != nil {
		return nil, err
	}
	cfg, err := ToValue(in.Config)
	if err != nil {
		return nil, err
	}
	return ast.NewObject(
		[2]*ast.Term{ast.StringTerm("documents"), ast.NewTerm(ast.NewArray(terms...))},
		[2]*ast.Term{ast.StringTerm("config"), ast.NewTerm(cfg)},
	), nil
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

func toFinding(r Rule, set string, item any) (Finding, any, error) {
	f := Finding{Rule: r.ID, Name: r.Name, Severity: r.Severity}
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
			fix := &Fix{}
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

// SortFindings orders findings by path, line, column, rule, then message.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Column != b.Pos.Column {
			return a.Pos.Column < b.Pos.Column
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// Fingerprints returns, for each finding in order, an identity that does
// not depend on line numbers: a hash of the rule, the path and the
// element's text with white space collapsed (the message when there is no
// element), then ":" and the occurrence of that hash so far, so that two
// identical elements in one file stay apart.
func Fingerprints(fs []Finding) []string {
	seen := map[string]int{}
	out := make([]string, len(fs))
	for i, f := range fs {
		text := strings.Join(strings.Fields(f.Text), " ")
		if text == "" {
			text = strings.Join(strings.Fields(f.Message), " ")
		}
		sum := sha256.Sum256([]byte(f.Rule + "\x00" + f.Path + "\x00" + text))
		h := hex.EncodeToString(sum[:16])
		seen[h]++
		out[i] = fmt.Sprintf("%s:%d", h, seen[h])
	}
	return out
}

// SetFingerprints fills in each finding's Fingerprint, in order.
func SetFingerprints(fs []Finding) {
	for i, fp := range Fingerprints(fs) {
		fs[i].Fingerprint = fp
	}
}
