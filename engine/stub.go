// Stubs: what the built-in pack reads of a document while it evaluates
// another one (issue 16's streaming evaluation).

package engine

import (
	"reflect"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// shape says which parts of a converted document to keep: a nil shape
// keeps the value whole; otherwise an object keeps the listed keys (the
// key "*" stands for every key: a map such as an HCL document's targets)
// each pruned by its own shape, and an array prunes each element by the
// same shape. A shape with a filter keeps only the array elements (objects)
// whose field filter.field passes filter.keep.
type shape struct {
	keys   map[string]*shape
	filter *filter
}

type filter struct {
	field string
	keep  func(ast.Value) bool
	// nonEmpty keeps an element only when its field, once pruned, is a
	// non-empty array (a command none of whose words is kept goes).
	nonEmpty bool
}

// stubShapes are, by kind, the fields the built-in pack reads of the
// documents it does not report on in an evaluation: the repository's
// facts. Stage names and what each stage builds FROM, and bake targets'
// `target` attributes, give the source build's known names
// (lib/sourcebuild.rego: stages_of, targets_of); instruction text, shell
// words and HCL attribute text that name a configured requirements file
// say whether a build file names it (lib/pin.rego: names_file; the others
// are left out, so that every batch does not walk every instruction of
// the repository); requirements files' includes, package names, hashes
// and options give the -r graph, whether the pin is carried and pip's
// hash-checking mode. Everything else (positions, RUN scripts, values) is
// only read for findings on the document itself. TestStreamEquivalence
// holds this list to the pack: a field missing here changes findings
// there.
func stubShapes(kind string, names func(ast.Value) bool) *shape {
	obj := func(keys map[string]*shape) *shape { return &shape{keys: keys} }
	whole := (*shape)(nil)
	common := func(m map[string]*shape) *shape {
		m["kind"], m["path"], m["errors"] = whole, whole, whole
		return obj(m)
	}
	naming := func(field string, keys map[string]*shape) *shape {
		return &shape{keys: keys, filter: &filter{field: field, keep: names}}
	}
	switch kind {
	case "dockerfile":
		ins := naming("original", map[string]*shape{"original": whole})
		return common(map[string]*shape{
			"preamble": ins,
			"stages":   obj(map[string]*shape{"name": whole, "base": obj(map[string]*shape{"value": whole}), "instructions": ins}),
		})
	case "hcl":
		attr := naming("text", map[string]*shape{"name": whole, "value": whole, "text": whole})
		target := &shape{keys: map[string]*shape{"name": whole, "value": whole}, filter: &filter{field: "name", keep: func(v ast.Value) bool {
			s, ok := v.(ast.String)
			return ok && s == "target"
		}}}
		inner := obj(map[string]*shape{"attributes": attr})
		for range 2 {
			inner = obj(map[string]*shape{"attributes": attr, "blocks": inner})
		}
		return common(map[string]*shape{
			"attributes": attr,
			"blocks":     inner,
			"targets":    obj(map[string]*shape{"*": obj(map[string]*shape{"attributes": target})}),
		})
	case "shell":
		return common(map[string]*shape{
			"commands": {
				keys:   map[string]*shape{"words": naming("text", map[string]*shape{"text": whole})},
				filter: &filter{field: "words", nonEmpty: true},
			},
		})
	case "pipeline":
		return common(map[string]*shape{
			"scripts": {
				keys: map[string]*shape{"commands": {
					keys:   map[string]*shape{"words": naming("text", map[string]*shape{"text": whole})},
					filter: &filter{field: "words", nonEmpty: true},
				}},
				filter: &filter{field: "commands", nonEmpty: true},
			},
		})
	case "requirements":
		return common(map[string]*shape{
			"includes":     obj(map[string]*shape{"kind": whole, "path": whole}),
			"requirements": obj(map[string]*shape{"normalized": whole, "hashes": whole}),
			"options":      obj(map[string]*shape{"name": whole}),
		})
	}
	return common(map[string]*shape{})
}

// stub prunes a converted document to its stub of the given shape.
func stub(t *ast.Term, s *shape) *ast.Term {
	return ast.NewTerm(prune(t.Value, s))
}

// stubShapesFor are the shapes of every kind for one configuration (made
// once per run, not per document).
func stubShapesFor(names func(ast.Value) bool) map[string]*shape {
	out := map[string]*shape{}
	for _, k := range []string{"dockerfile", "hcl", "shell", "requirements", "pipeline"} {
		out[k] = stubShapes(k, names)
	}
	return out
}

// shapeOf is a kind's shape among shapes (the bare fields for a kind
// without one).
func shapeOf(shapes map[string]*shape, kind string) *shape {
	if s, ok := shapes[kind]; ok {
		return s
	}
	return stubShapes(kind, nil)
}

func prune(v ast.Value, s *shape) ast.Value {
	if s == nil {
		return v
	}
	switch x := v.(type) {
	case *ast.Array:
		out := make([]*ast.Term, 0, x.Len())
		for i := 0; i < x.Len(); i++ {
			el := x.Elem(i).Value
			if s.filter != nil && !s.filter.nonEmpty {
				o, ok := el.(ast.Object)
				if !ok {
					continue
				}
				f := o.Get(ast.StringTerm(s.filter.field))
				if f == nil || !s.filter.keep(f.Value) {
					continue
				}
			}
			p := prune(el, s)
			if s.filter != nil && s.filter.nonEmpty {
				o, ok := p.(ast.Object)
				if !ok {
					continue
				}
				f := o.Get(ast.StringTerm(s.filter.field))
				if f == nil {
					continue
				}
				if a, isArr := f.Value.(*ast.Array); !isArr || a.Len() == 0 {
					continue
				}
			}
			out = append(out, ast.NewTerm(p))
		}
		return ast.NewArray(out...)
	case ast.Object:
		var kept [][2]*ast.Term
		all, every := s.keys["*"]
		x.Foreach(func(k, val *ast.Term) {
			name, isStr := k.Value.(ast.String)
			if !isStr {
				return
			}
			sub, ok := s.keys[string(name)]
			if !ok && every {
				sub, ok = all, true
			}
			if ok {
				kept = append(kept, [2]*ast.Term{k, ast.NewTerm(prune(val.Value, sub))})
			}
		})
		return ast.NewObject(kept...)
	}
	return v
}

// requirementsNamer says whether a text names one of the requirements
// files the configuration's migrations list (input.config.migrations[].
// requirements), as lib/pin.rego's names_file asks.
func requirementsNamer(cfg ast.Value) func(ast.Value) bool {
	var paths []string
	if obj, ok := cfg.(ast.Object); ok {
		if ms := obj.Get(ast.StringTerm("migrations")); ms != nil {
			if arr, ok := ms.Value.(*ast.Array); ok {
				arr.Foreach(func(m *ast.Term) {
					mo, ok := m.Value.(ast.Object)
					if !ok {
						return
					}
					if rs := mo.Get(ast.StringTerm("requirements")); rs != nil {
						if ra, ok := rs.Value.(*ast.Array); ok {
							ra.Foreach(func(r *ast.Term) {
								if s, ok := r.Value.(ast.String); ok && s != "" {
									paths = append(paths, string(s))
								}
							})
						}
					}
				})
			}
		}
	}
	return func(v ast.Value) bool {
		s, ok := v.(ast.String)
		if !ok {
			return false
		}
		for _, p := range paths {
			if strings.Contains(string(s), p) {
				return true
			}
		}
		return false
	}
}

// toStub converts a Go document straight to its stub (stub(toTerm(v)),
// without building the whole document as Rego values first): for the
// selected documents the first batch does not keep, which are converted
// whole again in their own batch.
func toStub(v reflect.Value, s *shape) (*ast.Term, error) {
	if s == nil || !v.IsValid() {
		return toTerm(v)
	}
	t := v.Type()
	if t == rawType || t.Implements(marshalerType) && t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		return toTerm(v) // what it marshals to is pruned as a value
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nullTerm, nil
		}
		return toStub(v.Elem(), s)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && (v.IsNil() || t.Elem().Kind() == reflect.Uint8) {
			return toTerm(v)
		}
		out := make([]*ast.Term, 0, v.Len())
		for i := 0; i < v.Len(); i++ {
			x, err := toStub(v.Index(i), s)
			if err != nil {
				return nil, err
			}
			if s.filter != nil && !s.filter.keeps(x.Value) {
				continue
			}
			out = append(out, x)
		}
		if len(out) == 0 {
			// One shared empty array: most stages of a stub keep no
			// instruction, and thousands of stubs are held at once.
			return ast.InternedEmptyArray, nil
		}
		return ast.ArrayTerm(out...), nil
	case reflect.Map:
		if v.IsNil() || t.Key().Kind() != reflect.String {
			return toTerm(v)
		}
		all, every := s.keys["*"]
		var items [][2]*ast.Term
		iter := v.MapRange()
		for iter.Next() {
			sub, ok := s.keys[iter.Key().String()]
			if !ok && every {
				sub, ok = all, true
			}
			if !ok {
				continue
			}
			x, err := toStub(iter.Value(), sub)
			if err != nil {
				return nil, err
			}
			items = append(items, [2]*ast.Term{ast.StringTerm(iter.Key().String()), x})
		}
		return ast.ObjectTerm(items...), nil
	case reflect.Struct:
		var items [][2]*ast.Term
		for _, f := range fieldsOf(t) {
			sub, ok := s.keys[string(f.key.Value.(ast.String))]
			if !ok {
				continue
			}
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil || f.omitEmpty && isEmpty(fv) {
				continue
			}
			x, err := toStub(fv, sub)
			if err != nil {
				return nil, err
			}
			items = append(items, [2]*ast.Term{f.key, x})
		}
		return ast.ObjectTerm(items...), nil
	}
	return toTerm(v)
}

// keeps applies a filter to an element already pruned to its shape (the
// field it looks at is always one the shape keeps).
func (f *filter) keeps(v ast.Value) bool {
	o, ok := v.(ast.Object)
	if !ok {
		return false
	}
	x := o.Get(ast.StringTerm(f.field))
	if x == nil {
		return false
	}
	if f.nonEmpty {
		a, isArr := x.Value.(*ast.Array)
		return isArr && a.Len() > 0
	}
	return f.keep(x.Value)
}
