package fix

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// HCL plans the removal of a bake file's source build (issue 17): a block
// (variable, function, target, group) whose header a finding names goes
// whole; a finding inside a kept block removes the innermost list element
// or object item holding it, with its comma (its lines when it has them
// to itself). The result is parsed again and must not use a removed
// variable or function or name a removed target, or nothing changes.
//
// others are the repository's other bake files (path to text): bake loads
// several together (vLLM runs `-f docker-bake-rocm.hcl -f ci-rocm.hcl`),
// so a variable, function or target one of them still uses without
// declaring it must stay.
func HCL(path string, src []byte, fs []finding.Finding, others map[string][]byte) Plan {
	if doc, ok := loader.Parse(loader.KindHCL, path, src).(*loader.HCLDocument); !ok || len(doc.Errors) > 0 {
		return declineAll(fs, "the file does not parse as HCL; fix it by hand")
	}
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		return declineAll(fs, "the file does not parse as HCL; fix it by hand")
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return declineAll(fs, "the file does not parse as HCL; fix it by hand")
	}
	p := hclPlan{src: src, fs: fs, offs: make([]int, len(fs)), fixed: make([]bool, len(fs)), reason: make([]string, len(fs)),
		cut:  newLineCut(src, func(l []byte) bool { return l[0] == '#' || bytes.HasPrefix(l, []byte("//")) }),
		gone: map[string]map[string]bool{"variable": {}, "function": {}, "target": {}, "group": {}}}
	for i, fd := range fs {
		s, _, err := Offsets(src, fd.Pos)
		if err != nil {
			s = -1
		}
		p.offs[i] = s
	}
	for _, b := range body.Blocks {
		p.block(b)
	}
	p.cut.tidy()
	edits := append(p.cut.edits(), p.inline...)
	plan := Plan{Edits: edits}
	for i, fd := range fs {
		switch {
		case p.fixed[i] && len(edits) > 0:
			plan.Fixed = append(plan.Fixed, fd)
		case p.reason[i] != "":
			plan.Declined = append(plan.Declined, Declined{fd, p.reason[i]})
		default:
			plan.Declined = append(plan.Declined, Declined{fd, "not on a block, list element or object item a fix removes"})
		}
	}
	if len(edits) == 0 {
		return plan
	}
	fixed, err := Apply(src, edits)
	if err == nil {
		err = checkHCL(path, fixed, p.gone)
	}
	if err != nil {
		return declineAll(fs, fmt.Sprintf("the fixed file would %v; fix it by hand", err))
	}
	for _, other := range sortedKeys(others) {
		if other == path {
			continue
		}
		if !strings.HasSuffix(other, ".hcl") {
			// docker-bake.json, compose.yaml: bake merges them too; a
			// removed name anywhere in their text keeps it.
			if name, ok := mentionsGone(others[other], p.gone); ok {
				return declineAll(fs, fmt.Sprintf("%s, which bake loads with it, names %s; fix them together by hand", other, name))
			}
			continue
		}
		if err := checkHCL(other, others[other], p.gone); err != nil {
			return declineAll(fs, fmt.Sprintf("%s, loaded with it by bake, would still %v; fix them together by hand", other, err))
		}
	}
	return plan
}

// mentionsGone reports a removed block's name that text holds as a word.
func mentionsGone(text []byte, gone map[string]map[string]bool) (string, bool) {
	for _, kind := range []string{"variable", "function", "target", "group"} {
		for name := range gone[kind] {
			re := regexp.MustCompile(`(^|[^A-Za-z0-9_.-])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_.-])`)
			if re.Match(text) {
				return name, true
			}
		}
	}
	return "", false
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

type hclPlan struct {
	src    []byte
	fs     []finding.Finding
	offs   []int // each finding's byte offset, -1 when it does not fit
	fixed  []bool
	reason []string
	cut    *lineCut
	inline []Edit
	gone   map[string]map[string]bool // removed block names by type
}

// in reports the findings whose start lies in r.
func (p *hclPlan) in(r hcl.Range) []int {
	var out []int
	for i, o := range p.offs {
		if o >= r.Start.Byte && o < r.End.Byte {
			out = append(out, i)
		}
	}
	return out
}

func (p *hclPlan) block(b *hclsyntax.Block) {
	all := p.in(b.Range())
	if len(all) == 0 {
		return
	}
	header := hcl.RangeBetween(b.TypeRange, b.OpenBraceRange)
	if len(p.in(header)) > 0 {
		r := b.Range()
		if !p.ownLines(r) {
			p.decline(all, "the block shares its lines with other content; remove it by hand")
			return
		}
		p.cut.remove(r.Start.Line, r.End.Line)
		for _, i := range all {
			p.fixed[i] = true
		}
		if len(b.Labels) > 0 && p.gone[b.Type] != nil {
			p.gone[b.Type][b.Labels[0]] = true
		}
		return
	}
	for _, a := range b.Body.Attributes {
		for _, i := range p.in(a.SrcRange) {
			p.element(a.Expr, i)
		}
	}
	for _, nb := range b.Body.Blocks {
		p.block(nb)
	}
}

// collections are the lists and objects whose elements a fix may remove:
// an attribute's value itself, or the lists compact(), concat(),
// distinct() and flatten() take, and the object items' values in turn.
// A list deeper in an expression (join(":", [a, B])) is an argument whose
// removal changes another value.
func collections(expr hclsyntax.Expression) []hclsyntax.Expression {
	switch e := expr.(type) {
	case *hclsyntax.TupleConsExpr:
		out := []hclsyntax.Expression{e}
		for _, x := range e.Exprs {
			if _, nested := x.(*hclsyntax.TupleConsExpr); nested {
				out = append(out, collections(x)...)
			}
		}
		return out
	case *hclsyntax.ObjectConsExpr:
		out := []hclsyntax.Expression{e}
		for _, it := range e.Items {
			switch it.ValueExpr.(type) {
			case *hclsyntax.TupleConsExpr, *hclsyntax.ObjectConsExpr:
				out = append(out, collections(it.ValueExpr)...)
			}
		}
		return out
	case *hclsyntax.FunctionCallExpr:
		switch e.Name {
		case "compact", "concat", "distinct", "flatten":
			var out []hclsyntax.Expression
			for _, a := range e.Args {
				out = append(out, collections(a)...)
			}
			return out
		}
	case *hclsyntax.ParenthesesExpr:
		return collections(e.Expression)
	}
	return nil
}

// element removes the innermost list element or object item holding
// finding i, or declines it.
func (p *hclPlan) element(expr hclsyntax.Expression, i int) {
	o := p.offs[i]
	var best hcl.Range
	var next, prev *hcl.Range
	found := false
	for _, n := range collections(expr) {
		var items []hcl.Range
		switch e := n.(type) {
		case *hclsyntax.TupleConsExpr:
			for _, x := range e.Exprs {
				items = append(items, x.Range())
			}
		case *hclsyntax.ObjectConsExpr:
			for _, it := range e.Items {
				items = append(items, hcl.RangeBetween(it.KeyExpr.Range(), it.ValueExpr.Range()))
			}
		}
		for k, r := range items {
			if o >= r.Start.Byte && o < r.End.Byte && (!found || r.End.Byte-r.Start.Byte <= best.End.Byte-best.Start.Byte) {
				best, found, next, prev = r, true, nil, nil
				if k+1 < len(items) {
					nx := items[k+1]
					next = &nx
				}
				if k > 0 {
					pv := items[k-1]
					prev = &pv
				}
			}
		}
	}
	if !found {
		p.decline([]int{i}, "not in an element of a list or object an attribute holds (directly, or through compact/concat); change it by hand")
		return
	}
	p.fixed[i] = true
	if p.ownLines(best) {
		p.cut.remove(best.Start.Line, best.End.Line)
		return
	}
	switch {
	case next != nil && next.Start.Line == best.End.Line:
		p.inline = append(p.inline, Edit{Start: best.Start.Byte, End: next.Start.Byte})
	case prev != nil && prev.End.Line == best.Start.Line:
		p.inline = append(p.inline, Edit{Start: prev.End.Byte, End: best.End.Byte})
	default:
		p.fixed[i] = false
		p.decline([]int{i}, "the element shares its lines in a way a fix cannot cut cleanly; remove it by hand")
	}
}

var lineRest = regexp.MustCompile(`^\s*,?\s*((#|//).*)?$`)

// ownLines reports whether r has its lines to itself: nothing but blanks
// before it on its first line, at most a comma and a comment after it on
// its last.
func (p *hclPlan) ownLines(r hcl.Range) bool {
	ls := bytes.LastIndexByte(p.src[:r.Start.Byte], '\n') + 1
	if len(bytes.TrimSpace(p.src[ls:r.Start.Byte])) > 0 {
		return false
	}
	le := bytes.IndexByte(p.src[r.End.Byte:], '\n')
	rest := p.src[r.End.Byte:]
	if le >= 0 {
		rest = rest[:le]
	}
	return lineRest.Match(bytes.TrimRight(rest, "\r"))
}

func (p *hclPlan) decline(is []int, reason string) {
	for _, i := range is {
		if !p.fixed[i] && p.reason[i] == "" {
			p.reason[i] = reason
		}
	}
}

// checkHCL parses a fixed bake file and looks for what the removal left
// dangling: a removed variable or function still used, a removed target
// or group still named in a list of targets.
func checkHCL(path string, src []byte, gone map[string]map[string]bool) error {
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		return fmt.Errorf("not parse (%s)", diags.Error())
	}
	body := f.Body.(*hclsyntax.Body)
	declared := map[string]bool{}
	for _, b := range body.Blocks {
		if len(b.Labels) > 0 {
			declared[b.Type+" "+b.Labels[0]] = true
		}
	}
	problem := ""
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		if problem != "" {
			return nil
		}
		switch e := n.(type) {
		case *hclsyntax.ScopeTraversalExpr:
			if name := e.Traversal.RootName(); gone["variable"][name] && !declared["variable "+name] {
				problem = fmt.Sprintf("use the removed variable %s (line %d)", name, e.SrcRange.Start.Line)
			}
			// target.NAME.tags: bake's reference to another target.
			if e.Traversal.RootName() == "target" && len(e.Traversal) > 1 {
				if a, ok := e.Traversal[1].(hcl.TraverseAttr); ok && gone["target"][a.Name] && !declared["target "+a.Name] {
					problem = fmt.Sprintf("use the removed target %s (line %d)", a.Name, e.SrcRange.Start.Line)
				}
			}
		case *hclsyntax.FunctionCallExpr:
			if gone["function"][e.Name] && !declared["function "+e.Name] {
				problem = fmt.Sprintf("call the removed function %s (line %d)", e.Name, e.NameRange.Start.Line)
			}
		case *hclsyntax.TemplateExpr:
			v, ok := literal(e)
			v = strings.TrimPrefix(v, "target:") // contexts = { x = "target:NAME" }
			if ok && (gone["target"][v] && !declared["target "+v] || gone["group"][v] && !declared["group "+v]) {
				problem = fmt.Sprintf("name the removed target %s (line %d)", v, e.SrcRange.Start.Line)
			}
		}
		return nil
	})
	if problem != "" {
		return errors.New(problem)
	}
	return nil
}

// literal is the text of a template without interpolations.
func literal(e *hclsyntax.TemplateExpr) (string, bool) {
	var b strings.Builder
	for _, p := range e.Parts {
		l, ok := p.(*hclsyntax.LiteralValueExpr)
		if !ok || !l.Val.Type().Equals(cty.String) {
			return "", false
		}
		b.WriteString(l.Val.AsString())
	}
	return b.String(), true
}
