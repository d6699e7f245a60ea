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
// The plan's Gone names what other files must not use any more: bake
// loads several files together (vLLM runs `-f docker-bake-rocm.hcl -f
// ci-rocm.hcl`) and scripts name targets (Resolve).
func HCL(path string, src []byte, fs []finding.Finding) Plan {
	if strings.HasSuffix(strings.ToLower(path), ".json") {
		return declineAll(fs, "a bake file in JSON (docker-bake.json) is fixed by hand: buildgate removes only from HCL's own syntax")
	}
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
		cut:   newLineCut(src, func(l []byte) bool { return l[0] == '#' || bytes.HasPrefix(l, []byte("//")) }),
		gone:  map[string]map[string]bool{"variable": {}, "function": {}, "target": {}, "group": {}},
		lists: map[hclsyntax.Expression]*inlineList{}}
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
	p.inlineEdits()
	p.cut.tidy()
	edits := append(p.cut.edits(), p.inline...)
	plan := planOf(edits, fs, p.fixed, p.reason, "not on a block, list element or object item a fix removes")
	if len(edits) == 0 {
		return plan
	}
	fixed, err := Apply(src, edits)
	if err == nil {
		err = checkHCL(path, fixed, p.gone)
	}
	if err != nil {
		return declineAll(fs, fmt.Sprintf("the fixed file would %v; fix it by hand", oldLines(err, src, edits)))
	}
	for _, kind := range []string{"target", "group", "variable", "function"} {
		k := kind
		if kind == "variable" || kind == "function" {
			k = "bake " + kind
		}
		for _, name := range sortedNames(p.gone[kind]) {
			plan.Gone = append(plan.Gone, Name{Kind: k, Name: name})
		}
	}
	return plan
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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
	lists  map[hclsyntax.Expression]*inlineList
	order  []hclsyntax.Expression // lists in the order first met
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
		if _, m := b.Body.Attributes["matrix"]; m && b.Type == "target" {
			p.decline(all, "the target has a matrix: the names it makes (its name attribute) may be used elsewhere; remove it by hand")
			return
		}
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
	var in *inlineList
	k := -1
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
		for j, r := range items {
			if o >= r.Start.Byte && o < r.End.Byte && (k < 0 || r.End.Byte-r.Start.Byte <= best.End.Byte-best.Start.Byte) {
				best, k = r, j
				if p.lists[n] == nil {
					p.lists[n] = &inlineList{items: items, removed: map[int]bool{}}
					p.order = append(p.order, n)
				}
				in = p.lists[n]
			}
		}
	}
	if k < 0 {
		p.decline([]int{i}, "not in an element of a list or object an attribute holds (directly, or through compact/concat); change it by hand")
		return
	}
	p.fixed[i] = true
	if p.ownLines(best) {
		p.cut.remove(best.Start.Line, best.End.Line)
		return
	}
	in.removed[k] = true
	in.finding = append(in.finding, i)
}

// inlineList is a list or object some of whose elements, sharing their
// lines with others, a fix removes.
type inlineList struct {
	items   []hcl.Range
	removed map[int]bool
	finding []int // the findings those removals answer
}

// inlineEdits cut each run of removed elements that share lines with the
// rest, with one comma: up to the next element where it follows on the
// same line, else from the previous one's end (a run that is the whole
// list is declined: an emptied list is rarely what was meant). Removing
// runs, not single elements, keeps the
// edits of neighbours from overlapping.
func (p *hclPlan) inlineEdits() {
	for _, n := range p.order {
		l := p.lists[n]
		for k := 0; k < len(l.items); k++ {
			if !l.removed[k] {
				continue
			}
			m := k
			for m+1 < len(l.items) && l.removed[m+1] {
				m++
			}
			first, last := l.items[k], l.items[m]
			switch {
			case m+1 < len(l.items) && l.items[m+1].Start.Line == last.End.Line:
				p.inline = append(p.inline, Edit{Start: first.Start.Byte, End: l.items[m+1].Start.Byte})
			case k > 0 && l.items[k-1].End.Line == first.Start.Line:
				p.inline = append(p.inline, Edit{Start: l.items[k-1].End.Byte, End: last.End.Byte})
			default:
				for _, i := range l.finding {
					if o := p.offs[i]; o >= first.Start.Byte && o < last.End.Byte {
						p.fixed[i] = false
						p.decline([]int{i}, "the element shares its lines in a way a fix cannot cut cleanly; remove it by hand")
					}
				}
			}
			k = m
		}
	}
}

var lineRest = regexp.MustCompile(`^\s*,?\s*((#|//).*)?$`)

// ownLines reports whether r has its lines to itself: nothing but blanks
// before it on its first line, at most a comma and a comment after it on
// its last.
func (p *hclPlan) ownLines(r hcl.Range) bool {
	ls := bytes.LastIndexByte(p.src[:r.Start.Byte], '\n') + 1
	if len(bytes.TrimSpace(bytes.TrimPrefix(p.src[ls:r.Start.Byte], bom))) > 0 { // a byte order mark is no content (issue 30)
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
// or group still named (in a group's targets, a target's inherits,
// `target:NAME`, `target.NAME.…`) where no block of the file declares it.
func checkHCL(path string, src []byte, gone map[string]map[string]bool) error {
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		return fmt.Errorf("not parse (%s)", diags.Error())
	}
	declared, used := hclRefs(f.Body.(*hclsyntax.Body))
	type problem struct {
		line int
		text string
	}
	var ps []problem
	for word, line := range used {
		kind, name, _ := strings.Cut(word, " ")
		switch {
		case kind == "variable" && gone["variable"][name] && !declared[word]:
			ps = append(ps, problem{line, fmt.Sprintf("use the removed variable %s (line %d)", name, line)})
		case kind == "function" && gone["function"][name] && !declared[word]:
			ps = append(ps, problem{line, fmt.Sprintf("call the removed function %s (line %d)", name, line)})
		case kind == "target" && (gone["target"][name] && !declared["target "+name] || gone["group"][name] && !declared["group "+name]):
			ps = append(ps, problem{line, fmt.Sprintf("name the removed target %s (line %d)", name, line)})
		}
	}
	if len(ps) == 0 {
		return nil
	}
	sort.Slice(ps, func(i, j int) bool {
		return ps[i].line < ps[j].line || ps[i].line == ps[j].line && ps[i].text < ps[j].text
	})
	return errors.New(ps[0].text)
}

// hclRefs are what a bake file declares ("variable NAME", "function
// NAME", "target NAME", "group NAME") and what it uses, with the first
// line: "variable NAME" (a reference), "function NAME" (a call), "target
// NAME" (target.NAME.…, `target:NAME`, or a plain string in a group's
// targets or a target's inherits: elsewhere "x" is a tag, a stage, a
// value).
func hclRefs(body *hclsyntax.Body) (map[string]bool, map[string]int) {
	declared, used := map[string]bool{}, map[string]int{}
	use := func(k string, line int) {
		if l, ok := used[k]; !ok || line < l {
			used[k] = line
		}
	}
	for _, b := range body.Blocks {
		if len(b.Labels) > 0 {
			declared[b.Type+" "+b.Labels[0]] = true
		}
	}
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		switch e := n.(type) {
		case *hclsyntax.ScopeTraversalExpr:
			use("variable "+e.Traversal.RootName(), e.SrcRange.Start.Line)
			if e.Traversal.RootName() == "target" && len(e.Traversal) > 1 {
				if a, ok := e.Traversal[1].(hcl.TraverseAttr); ok {
					use("target "+a.Name, e.SrcRange.Start.Line)
				}
			}
		case *hclsyntax.FunctionCallExpr:
			use("function "+e.Name, e.NameRange.Start.Line)
		case *hclsyntax.TemplateExpr:
			if v, ok := literal(e); ok && strings.HasPrefix(v, "target:") {
				use("target "+strings.TrimPrefix(v, "target:"), e.SrcRange.Start.Line)
			}
		}
		return nil
	})
	var lists func(b *hclsyntax.Body)
	lists = func(b *hclsyntax.Body) {
		for _, a := range b.Attributes {
			if a.Name != "targets" && a.Name != "inherits" {
				continue
			}
			_ = hclsyntax.VisitAll(a.Expr, func(n hclsyntax.Node) hcl.Diagnostics {
				if e, ok := n.(*hclsyntax.TemplateExpr); ok {
					if v, ok := literal(e); ok {
						use("target "+v, e.SrcRange.Start.Line)
					}
				}
				return nil
			})
		}
		for _, nb := range b.Blocks {
			lists(nb.Body)
		}
	}
	lists(body)
	return declared, used
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
