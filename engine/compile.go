// Compiling: reading modules, the capabilities (the sandbox), strict
// compilation and the prepared queries.

package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

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
	e := &Engine{rules: rules}
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
	prepare := func(q string) (*rego.PreparedEvalQuery, error) {
		pq, err := rego.New(
			rego.Compiler(c),
			rego.Store(inmem.NewFromObject(data)),
			rego.Query(q),
			rego.Runtime(Runtime(o.Version)),
			rego.StrictBuiltinErrors(true),
		).PrepareForEval(ctx)
		if err != nil {
			return nil, &CompileError{Errors: []string{err.Error()}}
		}
		return &pq, nil
	}
	// The pack: one query over every rule set; the user policies: one per
	// rule package.
	groups := map[string]*query{}
	var order []string
	for i, r := range rules {
		key := "\x00pack"
		if r.Pack != "" {
			key = r.Package
		}
		q := groups[key]
		if q == nil {
			q = &query{}
			groups[key] = q
			order = append(order, key)
		}
		for _, s := range r.Sets {
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
		if key == "\x00pack" {
			q.name = "the built-in pack (" + q.name + ")"
		}
		pq, err := prepare(strings.Join(exprs, "; "))
		if err != nil {
			return nil, err
		}
		q.prepared = *pq
		if key == "\x00pack" {
			e.pack = q
		} else {
			e.user = append(e.user, *q)
		}
	}
	for _, d := range []struct {
		ref   string
		query string
		dst   **rego.PreparedEvalQuery
	}{
		{FileFactsRef, "x = " + FileFactsRef, &e.file},
		{RepoRef, "x = " + RepoRef, &e.fold},
		{NeedlesRef, "x = " + NeedlesRef, &e.needles},
		{FilesRef, "x = " + FilesRef, &e.files},
	} {
		if len(c.GetRulesExact(ast.MustParseRef(d.ref))) == 0 {
			continue
		}
		pq, err := prepare(d.query)
		if err != nil {
			return nil, err
		}
		*d.dst = pq
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
	// The sandbox checks every module but the embedded pack's, which is
	// ours and passes it (TestPackPassesSandbox): a run of the pack alone
	// skips the walk (some 10 ms of the 4 migrated files' 75).
	user := map[string]*ast.Module{}
	for _, m := range mods {
		if !m.Builtin {
			user[m.Name] = parsed[m.Name]
		}
	}
	if errs := Sandbox(user); len(errs) > 0 {
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
