package loader

import (
	"encoding/json"
	"sort"

	"github.com/hashicorp/hcl/v2"
	hcljson "github.com/hashicorp/hcl/v2/json"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// A bake file in JSON (docker-bake.json, docker-bake.override.json) is
// the same definition in HCL's JSON syntax, which bake reads with HCL's
// own JSON parser: its targets, groups and variables are read into the
// same document, each attribute with its static value and place (its
// expressions are JSON values; `${…}` templates in strings are kept as
// written, not evaluated).

// bakeJSONSchema are the blocks a bake file defines.
var bakeJSONSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "target", LabelNames: []string{"name"}},
	{Type: "group", LabelNames: []string{"name"}},
	{Type: "variable", LabelNames: []string{"name"}},
	{Type: "function", LabelNames: []string{"name"}},
}}

// loadBakeJSON reads a JSON bake file into doc.
func (h *hclLoad) loadBakeJSON(doc *HCLDocument) {
	f, diags := hcljson.Parse(h.src, doc.Path)
	h.diagErrors(doc, diags)
	if f == nil {
		return
	}
	content, _, diags := f.Body.PartialContent(bakeJSONSchema)
	h.diagErrors(doc, diags)
	if content == nil {
		return
	}
	for _, b := range content.Blocks {
		blk := Block{Type: b.Type, TypePos: h.rng(b.TypeRange), Labels: []Word{}, Attributes: []Attribute{}, Blocks: []Block{}, Pos: h.rng(b.DefRange)}
		for i, l := range b.Labels {
			w := Word{Text: l, Value: strp(l), Pos: blk.TypePos}
			if i < len(b.LabelRanges) {
				w.Text, w.Pos = h.text(b.LabelRanges[i]), h.rng(b.LabelRanges[i])
			}
			blk.Labels = append(blk.Labels, w)
		}
		attrs, diags := b.Body.JustAttributes()
		h.diagErrors(doc, diags)
		names := make([]string, 0, len(attrs))
		for n := range attrs {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return attrs[names[i]].Range.Start.Byte < attrs[names[j]].Range.Start.Byte })
		for _, n := range names {
			blk.Attributes = append(blk.Attributes, h.jsonAttribute(attrs[n]))
		}
		doc.Blocks = append(doc.Blocks, blk)
	}
}

// jsonAttribute is one attribute of a JSON bake block: its value when it
// is a JSON value HCL reads without evaluating anything.
func (h *hclLoad) jsonAttribute(a *hcl.Attribute) Attribute {
	at := Attribute{Name: a.Name, NamePos: h.rng(a.NameRange), Text: h.text(a.Range), ValueText: h.text(a.Expr.Range()),
		Refs: []Ref{}, Calls: []Call{}, Strings: []Word{}, Elements: []Element{}, Pos: h.rng(a.Range), Value: json.RawMessage("null")}
	if len(a.Expr.Variables()) == 0 {
		if v, diags := a.Expr.Value(nil); !diags.HasErrors() && v.IsWhollyKnown() {
			if raw, err := ctyjson.Marshal(v, v.Type()); err == nil && jsonDepth(raw) <= maxValueDepth {
				at.Static, at.Value = true, raw
			}
		}
	}
	at.Elements = h.jsonElements(a.Expr)
	return at
}

// jsonElements are the entries of an object or the items of an array
// (`"args": {"NAME": "v"}`), each with its place, as an HCL attribute's.
func (h *hclLoad) jsonElements(e hcl.Expression) []Element {
	out := []Element{}
	if pairs, diags := hcl.ExprMap(e); !diags.HasErrors() {
		for _, kv := range pairs {
			k, kd := kv.Key.Value(nil)
			if kd.HasErrors() || !k.IsKnown() || k.IsNull() || k.Type().FriendlyName() != "string" {
				continue
			}
			key := &Word{Text: h.text(kv.Key.Range()), Value: strp(k.AsString()), Pos: h.rng(kv.Key.Range())}
			out = append(out, h.jsonElement(key, hcl.RangeBetween(kv.Key.Range(), kv.Value.Range()), kv.Value))
		}
		return out
	}
	if items, diags := hcl.ExprList(e); !diags.HasErrors() {
		for _, it := range items {
			out = append(out, h.jsonElement(nil, it.Range(), it))
		}
	}
	return out
}

func (h *hclLoad) jsonElement(key *Word, r hcl.Range, e hcl.Expression) Element {
	el := Element{Key: key, Text: h.text(r), ValueText: h.text(e.Range()), Refs: []Ref{}, Pos: h.rng(r), Value: json.RawMessage("null")}
	if v, diags := e.Value(nil); !diags.HasErrors() && v.IsWhollyKnown() {
		if raw, err := ctyjson.Marshal(v, v.Type()); err == nil && jsonDepth(raw) <= maxValueDepth {
			el.Static, el.Value = true, raw
		}
	}
	return el
}

// diagErrors adds HCL's error diagnostics (of either syntax) to a
// document as its syntax errors, at their subjects.
func (h *hclLoad) diagErrors(doc *HCLDocument, diags hcl.Diagnostics) {
	for _, dg := range diags {
		if dg.Severity != hcl.DiagError {
			continue
		}
		pos := h.idx.span(0, 0)
		if dg.Subject != nil {
			pos = h.rng(*dg.Subject)
		}
		msg := dg.Summary
		if dg.Detail != "" {
			msg += ": " + dg.Detail
		}
		doc.Errors = append(doc.Errors, Error{Message: msg, Syntax: true, Pos: pos})
	}
}
