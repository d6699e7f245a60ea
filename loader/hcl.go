package loader

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// HCLDocument is an HCL file such as a `docker buildx bake` definition.
// Variables, Functions, Targets and Groups index the top-level blocks of
// those types by their first label (the first definition wins).
type HCLDocument struct {
	Header
	Attributes []Attribute       `json:"attributes"`
	Blocks     []Block           `json:"blocks"`
	Variables  map[string]*Block `json:"variables"`
	Functions  map[string]*Block `json:"functions"`
	Targets    map[string]*Block `json:"targets"`
	Groups     map[string]*Block `json:"groups"`
	// Scripts are the RUNs of the Dockerfiles its targets hold
	// (dockerfile-inline; inline_dockerfile.go).
	Scripts []InlineScript `json:"scripts,omitempty"`
	Errors  []Error        `json:"errors"`
}

// DocErrors implements Document.
func (d *HCLDocument) DocErrors() []Error { return d.Errors }

// Block is an HCL block; Pos spans it from its type to its closing brace.
type Block struct {
	Type       string      `json:"type"`
	TypePos    Pos         `json:"type_pos"`
	Labels     []Word      `json:"labels"`
	Attributes []Attribute `json:"attributes"`
	Blocks     []Block     `json:"blocks"`
	Pos        Pos         `json:"pos"`
}

// Attribute is name = expression, in source order. Text is the whole
// attribute as written, ValueText the expression. Value is the expression's
// value when it is static (Static is true), else null. Refs are variable
// references (function parameters and for-expression symbols are locals and
// are left out); Calls are function calls; Strings are the literal string
// pieces of quoted strings and templates; Elements are the items of a list
// (or the keys and values of an object) written directly as the value.
type Attribute struct {
	Name      string          `json:"name"`
	NamePos   Pos             `json:"name_pos"`
	Text      string          `json:"text"`
	ValueText string          `json:"value_text"`
	Static    bool            `json:"static"`
	Value     json.RawMessage `json:"value"`
	Refs      []Ref           `json:"refs"`
	Calls     []Call          `json:"calls"`
	Strings   []Word          `json:"strings"`
	Elements  []Element       `json:"elements"`
	Pos       Pos             `json:"pos"`
}

// Ref is a variable reference; Text is the whole traversal (e.g. target.x.tags).
type Ref struct {
	Name string `json:"name"`
	Text string `json:"text"`
	Pos  Pos    `json:"pos"`
}

// Call is a function call; Pos spans the call, NamePos its name.
type Call struct {
	Name    string `json:"name"`
	NamePos Pos    `json:"name_pos"`
	Pos     Pos    `json:"pos"`
}

// Element is one item of a list or object expression.
type Element struct {
	Key       *Word           `json:"key"`
	Text      string          `json:"text"`
	ValueText string          `json:"value_text"`
	Static    bool            `json:"static"`
	Value     json.RawMessage `json:"value"`
	Refs      []Ref           `json:"refs"`
	Pos       Pos             `json:"pos"`
}

type hclLoad struct {
	idx *lineIndex
	src []byte
	// deep collects expressions too deeply nested to compute a value of.
	deep []Error
}

// maxValueDepth bounds the nesting of an attribute's computed value: JSON
// decoders (and Rego's) stop far below the depths a hostile file reaches.
const maxValueDepth = 200

func loadHCL(path string, src []byte) *HCLDocument {
	doc := &HCLDocument{
		Header:     Header{Kind: KindHCL, Path: path},
		Attributes: []Attribute{}, Blocks: []Block{},
		Variables: map[string]*Block{}, Functions: map[string]*Block{},
		Targets: map[string]*Block{}, Groups: map[string]*Block{}, Errors: []Error{},
	}
	h := &hclLoad{idx: newLineIndex(src), src: src}
	if len(src) > maxHCLBytes {
		doc.Errors = append(doc.Errors, Error{Message: sizeBoundError("bake (HCL) file", len(src), maxHCLBytes), Pos: h.idx.span(0, 0)})
		return doc
	}
	// hclsyntax recurses per nesting level with no limit of its own (70,000
	// levels overflow Go's stack, which kills the process): measure first.
	d, at, big := hclDepth(src)
	if d > maxHCLDepth {
		doc.Errors = append(doc.Errors, Error{Message: fmt.Sprintf(
			"nested deeper than buildgate reads (%d levels of brackets, templates or operators here, over the limit of %d): the file is not read", d, maxHCLDepth), Pos: h.rng(at)})
		return doc
	}
	if big != nil {
		doc.Errors = append(doc.Errors, Error{Message: "a number literal too large to compute with (over 100 digits, or an exponent of 1000 or more): the file is not read", Pos: h.rng(*big)})
		return doc
	}
	if bakeJSON(path) {
		h.loadBakeJSON(doc)
		indexBlocks(doc)
		h.hclInline(doc)
		return doc
	}
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	h.diagErrors(doc, diags)
	if f == nil {
		return doc
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return doc
	}
	doc.Attributes = h.attributes(body, nil)
	doc.Blocks = h.blocks(body)
	defer func() { doc.Errors = append(doc.Errors, h.deep...) }()
	indexBlocks(doc)
	h.hclInline(doc)
	return doc
}

// bakeJSON reports whether a bake file is in HCL's JSON syntax (by its
// name, as bake decides).
func bakeJSON(path string) bool { return strings.HasSuffix(strings.ToLower(path), ".json") }

// indexBlocks indexes a document's variables, functions, targets and
// groups by name (the first of a name).
func indexBlocks(doc *HCLDocument) {
	for i := range doc.Blocks {
		b := &doc.Blocks[i]
		if len(b.Labels) == 0 {
			continue
		}
		var index map[string]*Block
		switch b.Type {
		case "variable":
			index = doc.Variables
		case "function":
			index = doc.Functions
		case "target":
			index = doc.Targets
		case "group":
			index = doc.Groups
		default:
			continue
		}
		name := *b.Labels[0].Value
		if _, seen := index[name]; !seen {
			index[name] = b
		}
	}
}

func (h *hclLoad) rng(r hcl.Range) Pos { return h.idx.span(r.Start.Byte, r.End.Byte) }

func (h *hclLoad) text(r hcl.Range) string {
	s, e := h.idx.snap(r.Start.Byte), h.idx.snap(r.End.Byte)
	if s < 0 || e > len(h.src) || s > e {
		return ""
	}
	return string(h.src[s:e])
}

func (h *hclLoad) blocks(body *hclsyntax.Body) []Block {
	out := make([]Block, 0, len(body.Blocks))
	for _, b := range body.Blocks {
		blk := Block{Type: b.Type, TypePos: h.rng(b.TypeRange), Labels: make([]Word, 0, len(b.Labels)), Pos: h.rng(b.Range())}
		for i, l := range b.Labels {
			w := Word{Value: strp(l), Pos: blk.TypePos}
			if i < len(b.LabelRanges) {
				w.Text = h.text(b.LabelRanges[i])
				w.Pos = h.rng(b.LabelRanges[i])
			}
			blk.Labels = append(blk.Labels, w)
		}
		var locals map[string]bool
		if b.Type == "function" {
			locals = functionParams(b.Body)
		}
		blk.Attributes = h.attributes(b.Body, locals)
		blk.Blocks = h.blocks(b.Body)
		out = append(out, blk)
	}
	return out
}

// functionParams returns the parameter names of a bake function block.
func functionParams(body *hclsyntax.Body) map[string]bool {
	out := map[string]bool{}
	for _, name := range []string{"params", "variadic_params"} {
		a, ok := body.Attributes[name]
		if !ok {
			continue
		}
		for _, t := range a.Expr.Variables() {
			out[t.RootName()] = true
		}
	}
	return out
}

func (h *hclLoad) attributes(body *hclsyntax.Body, locals map[string]bool) []Attribute {
	attrs := make([]*hclsyntax.Attribute, 0, len(body.Attributes))
	for _, a := range body.Attributes {
		attrs = append(attrs, a)
	}
	// The parser returns a map: source order is byte order.
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].SrcRange.Start.Byte < attrs[j].SrcRange.Start.Byte })
	out := make([]Attribute, 0, len(attrs))
	for _, a := range attrs {
		at := Attribute{
			Name: a.Name, NamePos: h.rng(a.NameRange), Text: h.text(a.SrcRange), ValueText: h.text(a.Expr.Range()),
			Refs: []Ref{}, Calls: []Call{}, Strings: []Word{}, Elements: []Element{}, Pos: h.rng(a.SrcRange),
		}
		at.Static, at.Value = staticValue(a.Expr)
		if d := jsonDepth(at.Value); d > maxValueDepth {
			at.Static, at.Value = false, json.RawMessage("null")
			h.deep = append(h.deep, Error{
				Message: fmt.Sprintf("the value of %s is nested %d levels deep, more than the %d buildgate computes: it is not evaluated", a.Name, d, maxValueDepth),
				Pos:     at.Pos,
			})
		}
		if locals != nil && (a.Name == "params" || a.Name == "variadic_params") {
			// Parameter declarations name locals; they reference nothing.
		} else {
			at.Refs = h.refs(a.Expr, locals)
		}
		_ = hclsyntax.VisitAll(a.Expr, func(n hclsyntax.Node) hcl.Diagnostics {
			switch e := n.(type) {
			case *hclsyntax.FunctionCallExpr:
				at.Calls = append(at.Calls, Call{Name: e.Name, NamePos: h.rng(e.NameRange), Pos: h.rng(e.Range())})
			case *hclsyntax.TemplateExpr:
				for _, p := range e.Parts {
					if lit, ok := p.(*hclsyntax.LiteralValueExpr); ok && lit.Val.Type() == cty.String && lit.Val.IsKnown() && !lit.Val.IsNull() {
						at.Strings = append(at.Strings, Word{Text: h.text(lit.SrcRange), Value: strp(lit.Val.AsString()), Pos: h.rng(lit.SrcRange)})
					}
				}
			}
			return nil
		})
		switch e := a.Expr.(type) {
		case *hclsyntax.TupleConsExpr:
			for _, x := range e.Exprs {
				at.Elements = append(at.Elements, h.element(nil, hcl.Range{}, x, locals))
			}
		case *hclsyntax.ObjectConsExpr:
			for _, item := range e.Items {
				k := h.word(item.KeyExpr)
				at.Elements = append(at.Elements, h.element(&k, item.KeyExpr.Range(), item.ValueExpr, locals))
			}
		}
		out = append(out, at)
	}
	return out
}

func (h *hclLoad) word(e hclsyntax.Expression) Word {
	w := Word{Text: h.text(e.Range()), Pos: h.rng(e.Range())}
	if ok, raw := staticValue(e); ok {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			w.Value = strp(s)
		}
	} else if k, ok := e.(*hclsyntax.ObjectConsKeyExpr); ok {
		// A bare identifier key (args = { MOONCAKE_BRANCH = ... }).
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" {
			w.Value = strp(name)
		}
	}
	return w
}

func (h *hclLoad) element(key *Word, keyRange hcl.Range, e hclsyntax.Expression, locals map[string]bool) Element {
	r := e.Range()
	el := Element{Key: key, ValueText: h.text(r), Refs: h.refs(e, locals)}
	el.Static, el.Value = staticValue(e)
	if jsonDepth(el.Value) > maxValueDepth {
		el.Static, el.Value = false, json.RawMessage("null")
	}
	if key != nil {
		r = hcl.RangeBetween(keyRange, r)
	}
	el.Text, el.Pos = h.text(r), h.rng(r)
	return el
}

func (h *hclLoad) refs(e hclsyntax.Expression, locals map[string]bool) []Ref {
	out := []Ref{}
	for _, t := range e.Variables() {
		if locals[t.RootName()] {
			continue
		}
		r := t.SourceRange()
		out = append(out, Ref{Name: t.RootName(), Text: h.text(r), Pos: h.rng(r)})
	}
	return out
}

// jsonDepth is the deepest nesting of arrays and objects in JSON text.
func jsonDepth(raw []byte) int {
	depth, max := 0, 0
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			if depth > max {
				max = depth
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return max
}

// staticValue evaluates an expression without variables or functions.
func staticValue(e hclsyntax.Expression) (bool, json.RawMessage) {
	if len(e.Variables()) > 0 {
		return false, json.RawMessage("null")
	}
	var v cty.Value
	var diags hcl.Diagnostics
	func() {
		defer func() {
			if recover() != nil {
				diags = hcl.Diagnostics{{Severity: hcl.DiagError}}
			}
		}()
		v, diags = e.Value(nil)
	}()
	if diags.HasErrors() || !v.IsWhollyKnown() {
		return false, json.RawMessage("null")
	}
	raw, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return false, json.RawMessage("null")
	}
	return true, raw
}
