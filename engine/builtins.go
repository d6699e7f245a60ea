package engine

import (
	"fmt"
	"strings"

	"github.com/buildgate/buildgate/loader"
	"github.com/buildgate/buildgate/marker"
	"github.com/buildgate/buildgate/pep440"
	"github.com/buildgate/buildgate/repoid"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"
)

// The custom builtins are registered process-wide, as OPA intends for a
// program that embeds it: the compiler's type checker, the evaluator and the
// test runner all see them without being told.
func init() {
	register("pep440.valid", "reports whether a string is a valid PEP 440 version",
		types.Args(types.Named("version", types.S)), types.Named("ok", types.B), builtinValid)
	register("pep440.compare", "compares two PEP 440 versions: -1, 0 or 1",
		types.Args(types.Named("a", types.S), types.Named("b", types.S)), types.Named("order", types.N), builtinCompare)
	register("pep440.satisfies", "reports whether a version satisfies a specifier set (pip's pre-release rules)",
		types.Args(types.Named("version", types.S), types.Named("specifier", types.S)), types.Named("ok", types.B), builtinSatisfies)
	register("pep440.witness_below", "a version below minimum that the specifier set admits; undefined when it admits none",
		types.Args(types.Named("specifier", types.S), types.Named("minimum", types.S)), types.Named("version", types.S), builtinWitnessBelow)
	register("pep440.witness_below_pre", "witness_below with pre-releases allowed (pip's --pre)",
		types.Args(types.Named("specifier", types.S), types.Named("minimum", types.S)), types.Named("version", types.S), builtinWitnessBelowPre)
	register("pep440.valid_specifier", "reports whether a string is a valid PEP 440 specifier set (empty is valid)",
		types.Args(types.Named("specifier", types.S)), types.Named("ok", types.B), builtinValidSpecifier)
	register("buildgate.parse", "parses source text as a build file of a kind (dockerfile, hcl, requirements, shell) into its document, for policy tests",
		types.Args(types.Named("kind", types.S), types.Named("path", types.S), types.Named("source", types.S)), types.Named("document", types.A), builtinParse)
	register("buildgate.source_contains", "reports whether the source of the document at path contains any of the strings, ignoring case (true when the source is not at hand, as in policy tests)",
		types.Args(types.Named("path", types.S), types.Named("needles", types.NewArray(nil, types.S))), types.Named("ok", types.B), builtinSourceContains)
	register("buildgate.source_words", "reports whether the path or the text (comments included) of the document at path has any of the words (runs of letters and digits, any case; a word ending in * matches as a prefix); true when the source is not at hand, as in policy tests",
		types.Args(types.Named("path", types.S), types.Named("words", types.NewArray(nil, types.S))), types.Named("ok", types.B), wordsBuiltin(true))
	register("buildgate.code_words", "reports whether the code (comments left out; not the path) of the document at path has any of the words, as buildgate.source_words matches them; true when the source is not at hand",
		types.Args(types.Named("path", types.S), types.Named("words", types.NewArray(nil, types.S))), types.Named("ok", types.B), wordsBuiltin(false))
	register("buildgate.repository", "the identity of the repository a URL fetches (host/owner/name in lower case, whatever the spelling: port, user, scp form, .git, case, percent-escapes, archive and API URLs); a bare host/path as a configuration writes it is read as https; undefined when it names no repository",
		types.Args(types.Named("url", types.S)), types.Named("repository", types.S), builtinRepository)
	register("buildgate.marker_may_hold", "reports whether a PEP 508 environment marker may hold on a Linux CPython image of one of the architectures (platform_machine values; empty or more than 16: x86_64 and aarch64) and Python versions (3.N; empty or more than 64: every CPython 3.x), evaluated as packaging evaluates it (extra is \"\"; the kernel's platform_release and platform_version are unknown and may hold); false for a marker pip refuses, true for one over 10,000 characters",
		types.Args(types.Named("marker", types.S), types.Named("arches", types.NewAny(types.NewArray(nil, types.S), types.NewSet(types.S))), types.Named("pythons", types.NewAny(types.NewArray(nil, types.S), types.NewSet(types.S)))), types.Named("ok", types.B), builtinMarkerMayHold)
	register("pep503.normalize", "the PEP 503 normalised form of a project name",
		types.Args(types.Named("name", types.S)), types.Named("normalized", types.S), builtinNormalize)
}

func register(name, desc string, args []types.Type, result types.Type, impl topdown.BuiltinFunc) {
	ast.RegisterBuiltin(&ast.Builtin{
		Name:        name,
		Description: desc,
		Decl:        types.NewFunction(args, result),
		Categories:  []string{"buildgate"},
	})
	topdown.RegisterBuiltinFunc(name, impl)
}

func stringArg(t *ast.Term, pos int) (string, error) {
	s, ok := t.Value.(ast.String)
	if !ok {
		return "", fmt.Errorf("operand %d must be a string, got %s", pos, ast.ValueName(t.Value))
	}
	return string(s), nil
}

func builtinValid(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	s, err := stringArg(ops[0], 1)
	if err != nil {
		return err
	}
	_, perr := pep440.Parse(s)
	return iter(ast.BooleanTerm(perr == nil))
}

func builtinValidSpecifier(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	s, err := stringArg(ops[0], 1)
	if err != nil {
		return err
	}
	_, perr := pep440.ParseSet(s)
	return iter(ast.BooleanTerm(perr == nil))
}

func builtinCompare(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	a, err := version(ops[0], 1)
	if err != nil {
		return err
	}
	b, err := version(ops[1], 2)
	if err != nil {
		return err
	}
	return iter(ast.InternedTerm(pep440.Compare(a, b)))
}

func builtinSatisfies(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	v, err := version(ops[0], 1)
	if err != nil {
		return err
	}
	set, err := specSet(ops[1], 2)
	if err != nil {
		return err
	}
	return iter(ast.BooleanTerm(set.Contains(v)))
}

func builtinWitnessBelow(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	return witnessBelow(ops, iter, false)
}

// builtinWitnessBelowPre is witness_below with pre-releases allowed (pip's
// --pre, in a requirements file or one it includes).
func builtinWitnessBelowPre(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	return witnessBelow(ops, iter, true)
}

func witnessBelow(ops []*ast.Term, iter func(*ast.Term) error, pre bool) error {
	s, err := stringArg(ops[0], 1)
	if err != nil {
		return err
	}
	min, err := version(ops[1], 2)
	if err != nil {
		return err
	}
	w, ok, err := witnessBelowPre(s, min, pre)
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	return iter(ast.StringTerm(w))
}

// witnessBelowPre returns a version below min that the specifier set s
// admits (pre-releases too when pre is set). An arbitrary-equality clause
// (===) whose operand is not a PEP 440 version cannot be compared with
// anything, so it counts as admitting one: the rule fails closed on what
// it cannot prove.
func witnessBelowPre(s string, min pep440.Version, pre bool) (string, bool, error) {
	set, err := pep440.ParseSet(s)
	if err != nil {
		return "", false, err
	}
	if pre {
		set.Prereleases = &pre
	}
	for _, sp := range set.Specs {
		if sp.Op == "===" && sp.Version.Release == nil {
			return sp.Raw, true, nil
		}
	}
	w, ok := set.AdmitsBelow(min)
	if !ok {
		return "", false, nil
	}
	return w.String(), true, nil
}

func builtinParse(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	kind, err := stringArg(ops[0], 1)
	if err != nil {
		return err
	}
	k, ok := loader.ParseKind(kind)
	if !ok {
		return fmt.Errorf("unknown kind %q (want dockerfile, hcl, requirements or shell)", kind)
	}
	path, err := stringArg(ops[1], 2)
	if err != nil {
		return err
	}
	src, err := stringArg(ops[2], 3)
	if err != nil {
		return err
	}
	v, err := ast.InterfaceToValue(loader.Parse(k, path, []byte(src)))
	if err != nil {
		return err
	}
	return iter(ast.NewTerm(v))
}

func builtinNormalize(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	s, err := stringArg(ops[0], 1)
	if err != nil {
		return err
	}
	return iter(ast.StringTerm(loader.NormalizeName(s)))
}

func builtinRepository(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	s, err := stringArg(ops[0], 1)
	if err != nil {
		return err
	}
	id, ok := repoid.Of(s)
	if !ok && !strings.Contains(s, "://") {
		id, ok = repoid.Of("https://" + s)
	}
	if !ok {
		return nil
	}
	return iter(ast.StringTerm(id))
}

func version(t *ast.Term, pos int) (pep440.Version, error) {
	s, err := stringArg(t, pos)
	if err != nil {
		return pep440.Version{}, err
	}
	v, err := pep440.Parse(s)
	if err != nil {
		return pep440.Version{}, err
	}
	return v, nil
}

func specSet(t *ast.Term, pos int) (pep440.Set, error) {
	s, err := stringArg(t, pos)
	if err != nil {
		return pep440.Set{}, err
	}
	return pep440.ParseSet(s)
}

func builtinMarkerMayHold(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
	m, err := stringArg(ops[0], 1)
	if err != nil {
		return err
	}
	arches, err := stringsArg(ops[1], 2)
	if err != nil {
		return err
	}
	pythons, err := stringsArg(ops[2], 3)
	if err != nil {
		return err
	}
	// Past its bounds the answer is "may hold": a pin is not dropped for
	// what buildgate would not evaluate (a huge marker, an image naming
	// dozens of Python versions), and the run does not stop.
	if len(m) > 10000 {
		return iter(ast.BooleanTerm(true))
	}
	if len(arches) > 16 {
		arches = nil
	}
	if len(pythons) > 64 {
		pythons = nil
	}
	if len(arches) == 0 {
		arches = []string{"x86_64", "aarch64"}
	}
	return iter(ast.BooleanTerm(marker.AnyMayHold(m, marker.Linux(arches, pythons))))
}

func stringsArg(t *ast.Term, pos int) ([]string, error) {
	var out []string
	add := func(x *ast.Term) error {
		s, ok := x.Value.(ast.String)
		if !ok {
			return fmt.Errorf("operand %d must hold strings", pos)
		}
		out = append(out, string(s))
		return nil
	}
	switch v := t.Value.(type) {
	case *ast.Array:
		for i := 0; i < v.Len(); i++ {
			if err := add(v.Elem(i)); err != nil {
				return nil, err
			}
		}
	case ast.Set:
		if err := v.Iter(add); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("operand %d must be an array or a set of strings", pos)
	}
	return out, nil
}
