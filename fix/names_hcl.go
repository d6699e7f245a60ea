package fix

// Reading a bake file for the stages and targets its name-bearing
// attributes name, as bake evaluates them: a target's `target` (a
// Dockerfile stage), `inherits`, a group's `targets`, and `target:NAME`
// contexts, with the file's variables at their defaults, bake's string
// functions and each combination of a target's matrix.

import (
	"errors"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// bakeFuncs are the string functions bake offers that can build a name,
// none of which makes a result much larger than its inputs: format's
// width and precision are bounded (boundedFormat), replace is left out
// (a short pattern replaced by a long text grows without bound).
var bakeFuncs = map[string]function.Function{
	"format": boundedFormat, "join": stdlib.JoinFunc, "lower": stdlib.LowerFunc, "upper": stdlib.UpperFunc,
	"trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
	"trimspace": stdlib.TrimSpaceFunc, "concat": stdlib.ConcatFunc, "split": stdlib.SplitFunc, "element": stdlib.ElementFunc,
	"coalesce": stdlib.CoalesceFunc, "substr": stdlib.SubstrFunc, "title": stdlib.TitleFunc,
}

// boundedFormat is format, refusing a width or precision of four digits
// or more (`%999999999s` would allocate a gigabyte).
var boundedFormat = function.New(&function.Spec{
	Params:   stdlib.FormatFunc.Params(),
	VarParam: stdlib.FormatFunc.VarParam(),
	Type:     function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		if len(args) > 0 && args[0].IsKnown() && !args[0].IsNull() && bigWidth.MatchString(args[0].AsString()) {
			return cty.NilVal, errors.New("a width or precision too large")
		}
		return stdlib.FormatFunc.Call(args)
	},
})

var bigWidth = regexp.MustCompile(`%[-+# 0]*([0-9]{4,}|\*)|%[-+# 0]*[0-9]*\.([0-9]{4,}|\*)`)

// maxEvalSource bounds the expressions (and variable defaults) evaluated:
// with them and the functions above, no result is large.
const maxEvalSource = 1024

// maxMatrix bounds the combinations of a matrix evaluated; past it every
// stage and target counts as named.
const maxMatrix = 256

// hclEvalNames adds what a bake file's name-bearing attributes evaluate
// to. An expression that does not evaluate (a variable with no default,
// a function bake has and this reading has not) names what its literal
// parts spell, whole.
func (u *universe) hclEvalNames(m mentions, body *hclsyntax.Body) {
	vars := map[string]cty.Value{}
	for _, b := range body.Blocks {
		if b.Type != "variable" || len(b.Labels) == 0 {
			continue
		}
		if a, ok := b.Body.Attributes["default"]; ok && a.SrcRange.End.Byte-a.SrcRange.Start.Byte <= maxEvalSource {
			if v, diags := a.Expr.Value(nil); !diags.HasErrors() && v.IsKnown() && !v.IsNull() {
				vars[b.Labels[0]] = v
			}
		}
	}
	for _, b := range body.Blocks {
		if b.Type != "target" && b.Type != "group" {
			continue
		}
		envs := matrixEnvs(b.Body, vars)
		if envs == nil {
			// A matrix whose names cannot be told may make any of them.
			u.allNames(m, b.TypeRange.Start.Line)
			continue
		}
		for _, env := range envs {
			ctx := &hcl.EvalContext{Variables: env, Functions: bakeFuncs}
			for name, a := range b.Body.Attributes {
				class := ""
				switch name {
				case "target":
					class = "stage"
				case "inherits", "targets", "contexts":
					class = "target"
				default:
					continue
				}
				line := a.SrcRange.Start.Line
				if a.SrcRange.End.Byte-a.SrcRange.Start.Byte > maxEvalSource {
					u.literalParts(m, a.Expr, class, line)
					continue
				}
				v, diags := a.Expr.Value(ctx)
				if diags.HasErrors() && strings.Contains(diags.Error(), "too large") {
					u.allNames(m, line) // what it would spell cannot be told
					continue
				}
				if diags.HasErrors() || !v.IsWhollyKnown() {
					u.literalParts(m, a.Expr, class, line)
					continue
				}
				for _, s := range ctyStrings(v) {
					if class == "target" && name == "contexts" {
						if !strings.HasPrefix(s, "target:") {
							continue
						}
						s = strings.TrimPrefix(s, "target:")
					}
					u.nameIs(m, class, s, line)
				}
			}
		}
	}
}

// matrixEnvs are the variable values a block is evaluated with: the
// file's, and each combination of its matrix (bake makes one target per
// combination). A matrix that does not evaluate, or with more than
// maxMatrix combinations, gives nil: its names cannot be told.
func matrixEnvs(body *hclsyntax.Body, vars map[string]cty.Value) []map[string]cty.Value {
	a, ok := body.Attributes["matrix"]
	if !ok {
		return []map[string]cty.Value{vars}
	}
	if a.SrcRange.End.Byte-a.SrcRange.Start.Byte > maxEvalSource*16 {
		return nil
	}
	mv, diags := a.Expr.Value(&hcl.EvalContext{Variables: vars, Functions: bakeFuncs})
	if diags.HasErrors() || !mv.IsWhollyKnown() || !mv.Type().IsObjectType() && !mv.Type().IsMapType() {
		return nil
	}
	envs := []map[string]cty.Value{vars}
	for k, list := range mv.AsValueMap() {
		if !list.CanIterateElements() {
			return nil
		}
		var next []map[string]cty.Value
		for _, env := range envs {
			for it := list.ElementIterator(); it.Next(); {
				_, ev := it.Element()
				e := map[string]cty.Value{}
				for n, v := range env {
					e[n] = v
				}
				e[k] = ev
				next = append(next, e)
				if len(next) > maxMatrix {
					return nil
				}
			}
		}
		envs = next
	}
	return envs
}

// ctyStrings are the strings a value holds (itself, a list's or a map's
// elements).
func ctyStrings(v cty.Value) []string {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	if v.Type() == cty.String {
		return []string{v.AsString()}
	}
	var out []string
	if v.CanIterateElements() {
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, ctyStrings(e)...)
		}
	}
	return out
}

// literalParts adds, for an expression that does not evaluate, the names
// its whole literal strings are.
func (u *universe) literalParts(m mentions, e hclsyntax.Expression, class string, line int) {
	_ = hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
		if t, ok := n.(*hclsyntax.TemplateExpr); ok {
			if v, ok := literal(t); ok {
				u.nameIs(m, class, strings.TrimPrefix(v, "target:"), line)
			}
		}
		return nil
	})
}

// nameIs adds the stage or target a whole string is.
func (u *universe) nameIs(m mentions, class, s string, line int) {
	if class == "stage" {
		s = strings.ToLower(s)
	}
	for _, n := range u.byClass[class][s] {
		m.add(n, line)
	}
}

// allNames adds every stage and target: what a text spells cannot be
// told, so it may be any of them.
func (u *universe) allNames(m mentions, line int) {
	for _, class := range []string{"stage", "target"} {
		for _, names := range u.byClass[class] {
			for _, n := range names {
				m.add(n, line)
			}
		}
	}
}
