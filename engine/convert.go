package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
)

// ToValue converts a Go value into a Rego value exactly as encoding/json
// would marshal it (json tags, omitempty, embedded structs, nil slices as
// null), without the round trip through JSON text that ast.InterfaceToValue
// makes for structs: on large inputs that round trip costs more than the
// evaluation.
func ToValue(v any) (ast.Value, error) {
	t, err := toTerm(reflect.ValueOf(v))
	if err != nil {
		return nil, err
	}
	return t.Value, nil
}

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	fieldCache    sync.Map // reflect.Type -> []field
)

type field struct {
	key       *ast.Term // the JSON name, made once per type
	index     []int
	omitEmpty bool
}

func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var out []field
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			idx := append(append([]int(nil), index...), i)
			if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
				walk(sf.Type, idx)
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			out = append(out, field{key: ast.StringTerm(name), index: idx, omitEmpty: strings.Contains(opts, "omitempty")})
		}
	}
	walk(t, nil)
	fieldCache.Store(t, out)
	return out
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

var nullTerm = ast.NullTerm()

func toTerm(v reflect.Value) (*ast.Term, error) {
	if !v.IsValid() {
		return nullTerm, nil
	}
	t := v.Type()
	if t == rawType {
		return wrap(rawValue(v.Bytes()))
	}
	if t.Implements(marshalerType) && t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		return wrap(marshaled(v))
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nullTerm, nil
		}
		return toTerm(v.Elem())
	case reflect.String:
		return ast.StringTerm(v.String()), nil
	case reflect.Bool:
		return ast.InternedTerm(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return ast.InternedTerm(int(v.Int())), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return ast.NumberTerm(json.Number(strconv.FormatUint(v.Uint(), 10))), nil
	case reflect.Float32, reflect.Float64:
		return ast.NumberTerm(json.Number(strconv.FormatFloat(v.Float(), 'g', -1, 64))), nil
	case reflect.Slice:
		if v.IsNil() {
			return nullTerm, nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return wrap(marshaled(v))
		}
		fallthrough
	case reflect.Array:
		terms := make([]*ast.Term, v.Len())
		for i := range terms {
			x, err := toTerm(v.Index(i))
			if err != nil {
				return nil, err
			}
			terms[i] = x
		}
		return ast.ArrayTerm(terms...), nil
	case reflect.Map:
		if v.IsNil() {
			return nullTerm, nil
		}
		if t.Key().Kind() != reflect.String {
			return wrap(marshaled(v))
		}
		items := make([][2]*ast.Term, 0, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			x, err := toTerm(iter.Value())
			if err != nil {
				return nil, err
			}
			items = append(items, [2]*ast.Term{ast.StringTerm(iter.Key().String()), x})
		}
		return ast.ObjectTerm(items...), nil
	case reflect.Struct:
		fs := fieldsOf(t)
		items := make([][2]*ast.Term, 0, len(fs))
		for _, f := range fs {
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil {
				continue // a nil embedded pointer: encoding/json skips it too
			}
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			x, err := toTerm(fv)
			if err != nil {
				return nil, err
			}
			items = append(items, [2]*ast.Term{f.key, x})
		}
		return ast.ObjectTerm(items...), nil
	}
	return nil, fmt.Errorf("cannot convert %s to a Rego value", t)
}

func wrap(v ast.Value, err error) (*ast.Term, error) {
	if err != nil {
		return nil, err
	}
	return ast.NewTerm(v), nil
}

func rawValue(b []byte) (ast.Value, error) {
	if len(b) == 0 {
		return ast.Null{}, nil
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	return ast.InterfaceToValue(x)
}

func marshaled(v reflect.Value) (ast.Value, error) {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, err
	}
	return rawValue(b)
}
