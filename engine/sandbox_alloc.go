package engine

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// A builtin allocates its whole result in one call, so --timeout cannot
// stop `replace(s, "", s)` on a 100 KB string (10 GB) before the process
// runs out of memory. Every builtin a policy may call whose result can be
// larger than its operands is wrapped: it computes the size its result
// would have from the operands, before calling the builtin, and refuses
// (stopping the query with an error that names the policy's line, exit 2)
// past maxBuiltinResult. An element of an array, set or object costs
// elemCost bytes besides its text (OPA's terms are that large).
//
// Every builtin of the allow-list is classified (TestEveryBuiltinSized):
// sized here, or in smallResult (a boolean, a number, a constant-size
// value) or boundedResult (at most a small multiple of its operands, which
// were themselves sized when a builtin made them).
const (
	maxBuiltinResult = 64 << 20
	maxRangeItems    = 10_000_000
	elemCost         = 64
	// maxNumberDigits bounds the decimal exponent of a number a builtin
	// works on: OPA writes an integral result in full (1e300 squared
	// twenty times is 300 million digits, and took a minute).
	maxNumberDigits = 10_000
)

// sizers compute a builtin's result size from its operands.
var sizers = map[string]func([]*ast.Term) int64{
	"replace": func(ops []*ast.Term) int64 {
		x, old, repl, ok := strs3(ops)
		if !ok {
			return 0
		}
		return replacedSize(x, old, repl)
	},
	"strings.replace_n": func(ops []*ast.Term) int64 {
		pats, ok1 := ops[0].Value.(ast.Object)
		x, ok2 := ops[1].Value.(ast.String)
		if !ok1 || !ok2 {
			return 0
		}
		size := int64(len(x))
		pats.Foreach(func(k, v *ast.Term) {
			old, ok1 := k.Value.(ast.String)
			repl, ok2 := v.Value.(ast.String)
			if ok1 && ok2 {
				size += replacedSize(string(x), string(old), string(repl)) - int64(len(x))
			}
		})
		return size
	},
	"regex.replace": func(ops []*ast.Term) int64 {
		x, pat, repl, ok := strs3(ops)
		if !ok {
			return 0
		}
		n := regexMatches(pat, x)
		per := int64(len(repl))
		if strings.Contains(repl, "$") {
			per += int64(len(x)) // a group reference may copy up to the whole input
		}
		return int64(len(x)) + n*per
	},
	"sprintf": func(ops []*ast.Term) int64 {
		f, ok := ops[0].Value.(ast.String)
		if !ok {
			return 0
		}
		size := int64(len(f)) + formatWidths(string(f))
		if arr, ok := ops[1].Value.(*ast.Array); ok {
			// A * width or precision takes its value from the arguments:
			// any of them may be it.
			stars := int64(strings.Count(string(f), "*"))
			arr.Foreach(func(t *ast.Term) {
				size += renderSize(t.Value)
				if n, ok := t.Value.(ast.Number); ok && stars > 0 {
					if v, ok := n.Int64(); ok {
						size += stars * max(v, -v)
					} else {
						size += maxBuiltinResult + 1
					}
				}
			})
		}
		return size
	},
	"concat": func(ops []*ast.Term) int64 {
		d, _ := ops[0].Value.(ast.String)
		var size, n int64
		each(ops[1].Value, func(t *ast.Term) {
			if s, ok := t.Value.(ast.String); ok {
				size += int64(len(s))
			}
			n++
		})
		return size + n*int64(len(d))
	},
	"internal.template_string": func(ops []*ast.Term) int64 {
		var size int64
		each(ops[0].Value, func(t *ast.Term) { size += renderSize(t.Value) })
		return size
	},
	// A marshal converts the value to Go values first (some 150 bytes an
	// element for JSON; YAML's encoder builds a node of some 600 bytes
	// an element: measured by the red-team review of issue 26).
	"json.marshal": func(ops []*ast.Term) int64 { return jsonSize(ops[0].Value, "", "") + 150*nodes(ops[0].Value) },
	"yaml.marshal": func(ops []*ast.Term) int64 { return 2*jsonSize(ops[0].Value, "", "  ") + 600*nodes(ops[0].Value) },
	"json.marshal_with_options": func(ops []*ast.Term) int64 {
		prefix, indent := "", ""
		if o, ok := ops[1].Value.(ast.Object); ok {
			if t := o.Get(ast.StringTerm("prefix")); t != nil {
				if s, ok := t.Value.(ast.String); ok {
					prefix = string(s)
				}
			}
			if t := o.Get(ast.StringTerm("indent")); t != nil {
				if s, ok := t.Value.(ast.String); ok {
					indent = string(s)
				}
			}
		}
		return jsonSize(ops[0].Value, prefix, indent) + 150*nodes(ops[0].Value)
	},
	"indexof_n": func(ops []*ast.Term) int64 {
		s, ok1 := ops[0].Value.(ast.String)
		sub, ok2 := ops[1].Value.(ast.String)
		if !ok1 || !ok2 {
			return 0
		}
		return occurrences(string(s), string(sub)) * elemCost
	},
	"split": func(ops []*ast.Term) int64 {
		s, ok1 := ops[0].Value.(ast.String)
		d, ok2 := ops[1].Value.(ast.String)
		if !ok1 || !ok2 {
			return 0
		}
		return int64(len(s)) + (occurrences(string(s), string(d))+1)*elemCost
	},
	"strings.split_n": func(ops []*ast.Term) int64 {
		s, ok1 := ops[0].Value.(ast.String)
		d, ok2 := ops[1].Value.(ast.String)
		if !ok1 || !ok2 {
			return 0
		}
		n := occurrences(string(s), string(d)) + 1
		if lim, ok := ops[2].Value.(ast.Number); ok {
			if v, ok := lim.Int64(); ok && v >= 0 && v < n {
				n = v
			}
		}
		return int64(len(s)) + n*elemCost
	},
	"regex.split":                      func(ops []*ast.Term) int64 { return regexSized(ops, 0, 1, 1) },
	"regex.find_n":                     func(ops []*ast.Term) int64 { return regexSized(ops, 0, 1, 1) },
	"regex.find_all_string_submatch_n": func(ops []*ast.Term) int64 { return regexSized(ops, 0, 1, 4) },
	"json.unmarshal": func(ops []*ast.Term) int64 {
		s, _ := ops[0].Value.(ast.String)
		return int64(len(s)) + jsonValues(string(s))*elemCost
	},
	"yaml.unmarshal": func(ops []*ast.Term) int64 {
		s, _ := ops[0].Value.(ast.String)
		return yamlSize(string(s))
	},
	"base64.encode":           scaled(2),
	"base64url.encode":        scaled(2),
	"base64url.encode_no_pad": scaled(2),
	"hex.encode":              scaled(2),
	"urlquery.encode":         scaled(3),
	"urlquery.encode_object":  func(ops []*ast.Term) int64 { return 3 * jsonSize(ops[0].Value, "", "") },
	"array.concat": func(ops []*ast.Term) int64 {
		return (elems(ops[0].Value) + elems(ops[1].Value)) * elemCost
	},
	"walk": func(ops []*ast.Term) int64 {
		// Each node is yielded with its path: nodes times their depth.
		var size int64
		walkDepths(ops[0].Value, 1, &size)
		return size
	},
	"json.patch": func(ops []*ast.Term) int64 {
		// A copy or add may put the whole document in once more per
		// operation.
		return jsonSize(ops[0].Value, "", "") * (elems(ops[1].Value) + 1)
	},
	// A module's AST is some thousand times its text (measured: 646 KB
	// of rules took 648 MB).
	"rego.parse_module": func(ops []*ast.Term) int64 {
		s, _ := ops[1].Value.(ast.String)
		return int64(len(s)) * 1000
	},
	"numbers.range":      rangeSize,
	"numbers.range_step": rangeSize,
}

// smallResult are the builtins whose result is a boolean, a number of
// bounded digits (their number operands are bounded: numberOperands), or
// a value of constant size.
var smallResult = setOf(
	"assign", "eq", "equal", "neq", "gt", "gte", "lt", "lte", "and", "or", "internal.member_2", "internal.member_3",
	"internal.print", "internal.test_case", "abs", "ceil", "floor", "round", "to_number", "format_int", "max", "min",
	"sum", "product", "count", "plus", "minus", "mul", "div", "rem", "bits.and", "bits.or", "bits.xor", "bits.negate",
	"bits.rsh", "is_array", "is_boolean", "is_null", "is_number", "is_object", "is_set", "is_string", "type_name",
	"contains", "startswith", "endswith", "indexof", "strings.any_prefix_match", "strings.any_suffix_match",
	"strings.count", "regex.match", "regex.is_valid", "regex.template_match", "regex.globs_match", "glob.match",
	"base64.is_valid", "json.is_valid", "yaml.is_valid", "uri.is_valid", "json.match_schema", "json.verify_schema",
	"semver.compare", "semver.is_valid", "units.parse", "units.parse_bytes", "uuid.parse", "time.parse_ns",
	"time.parse_rfc3339_ns", "time.parse_duration_ns", "time.format", "time.date", "time.clock", "time.weekday",
	"time.add_date", "time.diff", "crypto.md5", "crypto.sha1", "crypto.sha256", "crypto.hmac.equal",
	"crypto.hmac.md5", "crypto.hmac.sha1", "crypto.hmac.sha256", "crypto.hmac.sha512", "io.jwt.verify_eddsa",
	"io.jwt.verify_es256", "io.jwt.verify_es384", "io.jwt.verify_es512", "io.jwt.verify_hs256",
	"io.jwt.verify_hs384", "io.jwt.verify_hs512", "io.jwt.verify_ps256", "io.jwt.verify_ps384",
	"io.jwt.verify_ps512", "io.jwt.verify_rs256", "io.jwt.verify_rs384", "io.jwt.verify_rs512", "opa.runtime",
	"rego.metadata.chain", "rego.metadata.rule", "print", "trace",
)

// boundedResult are the builtins whose result is at most a small multiple
// of their operands (a part, a copy, a decoding, a merge of them).
var boundedResult = setOf(
	"lower", "upper", "substring", "trim", "trim_left", "trim_right", "trim_prefix", "trim_suffix", "trim_space",
	"strings.reverse", "glob.quote_meta", "array.slice", "array.reverse", "array.flatten",
	"intersection", "union", "sort", "graph.reachable", "object.filter", "object.get", "object.keys",
	"object.remove", "object.subset", "object.union", "object.union_n", "json.filter", "json.remove",
	"base64.decode", "base64url.decode", "hex.decode", "urlquery.decode", "urlquery.decode_object", "uri.parse",
	"crypto.parse_private_keys", "crypto.x509.parse_certificates", "crypto.x509.parse_certificate_request",
	"crypto.x509.parse_keypair", "crypto.x509.parse_rsa_private_key", "io.jwt.decode",
)

func init() {
	for name := range allowedBuiltins {
		guard(name, sizers[name])
	}
}

// guard wraps a builtin with the checks of its number operands and of
// the size its result would have (size may be nil).
func guard(name string, size func([]*ast.Term) int64) {
	orig := topdown.GetBuiltin(name)
	numbers := numeric[name]
	if orig == nil || size == nil && !numbers {
		return
	}
	topdown.RegisterBuiltinFunc(name, func(bctx topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
		if numbers {
			for _, op := range ops {
				if n, ok := op.Value.(ast.Number); ok && numberDigits(n) > maxNumberDigits {
					return refuse(bctx, name, fmt.Sprintf("a number operand has more than %d digits, more than a policy may compute with", maxNumberDigits))
				}
			}
		}
		if size != nil {
			if n := size(ops); n > maxBuiltinResult || n < 0 {
				return refuse(bctx, name, fmt.Sprintf("the result would be over what a policy may build (%d MB, or %d elements for a range)", maxBuiltinResult>>20, maxRangeItems))
			}
		}
		return orig(bctx, ops, iter)
	})
}

// numeric are the builtins that compute with numbers (and may write a
// number's digits out in full).
var numeric = setOf("abs", "ceil", "floor", "round", "format_int", "sum", "product", "plus", "minus", "mul", "div",
	"rem", "bits.and", "bits.or", "bits.xor", "bits.negate", "bits.rsh", "numbers.range", "numbers.range_step",
	"sprintf", "time.add_date", "time.date", "time.clock", "time.weekday", "time.format", "time.diff", "units.parse",
	"units.parse_bytes")

// BoundErr is the code of a builtin call refused for the size of its
// result (a bound passed: the run stops, exit 2).
const BoundErr = "policy_bound_error"

func refuse(bctx topdown.BuiltinContext, name, why string) error {
	return topdown.Halt{Err: &topdown.Error{Code: BoundErr, Location: bctx.Location, Message: name + ": " + why}}
}

// numberDigits is about how many decimal digits a number written out in
// full has: its exponent, from big.Float (cheap whatever the value).
func numberDigits(n ast.Number) int64 {
	s := string(n)
	if len(s) < 32 && !strings.ContainsAny(s, "eE") {
		return int64(len(s))
	}
	f, ok := new(big.Float).SetString(s)
	if !ok {
		return int64(len(s))
	}
	exp := int64(f.MantExp(nil))
	return max(exp, -exp)*30103/100000 + 1
}

func rangeSize(ops []*ast.Term) int64 {
	a, ok1 := ops[0].Value.(ast.Number)
	b, ok2 := ops[1].Value.(ast.Number)
	if !ok1 || !ok2 {
		return 0
	}
	fa, _ := a.Float64()
	fb, _ := b.Float64()
	n := fb - fa
	if n < 0 {
		n = -n
	}
	if len(ops) > 2 {
		if s, ok := ops[2].Value.(ast.Number); ok {
			if st, _ := s.Float64(); st >= 1 {
				n /= st
			}
		}
	}
	if n > maxRangeItems {
		return maxBuiltinResult + 1
	}
	return int64(n) * elemCost
}

func scaled(k int64) func([]*ast.Term) int64 {
	return func(ops []*ast.Term) int64 {
		s, _ := ops[0].Value.(ast.String)
		return k * int64(len(s))
	}
}

// each calls fn on the elements of an array or set.
func each(v ast.Value, fn func(*ast.Term)) {
	switch x := v.(type) {
	case *ast.Array:
		x.Foreach(fn)
	case ast.Set:
		x.Foreach(fn)
	}
}

func elems(v ast.Value) int64 {
	switch x := v.(type) {
	case *ast.Array:
		return int64(x.Len())
	case ast.Set:
		return int64(x.Len())
	case ast.Object:
		return int64(x.Len())
	}
	return 1
}

// renderSize is how large a value is once printed (%v, a template).
func renderSize(v ast.Value) int64 {
	switch x := v.(type) {
	case ast.Number:
		return numberDigits(x) + 2
	case ast.String:
		return int64(len(x))
	}
	return jsonSize(v, "", "")
}

// jsonSize is how large a value is as JSON, with a prefix and indent per
// line (each element on a line of its own at its depth), escapes counted
// at their width (escapedSize).
func jsonSize(v ast.Value, prefix, indent string) int64 {
	var size int64
	var walk func(v ast.Value, depth int64)
	walk = func(v ast.Value, depth int64) {
		if size > maxBuiltinResult {
			return
		}
		size += int64(len(prefix)) + depth*int64(len(indent)) + 2
		switch x := v.(type) {
		case ast.String:
			size += escapedSize(string(x))
		case ast.Number:
			size += numberDigits(x)
		case *ast.Array:
			x.Foreach(func(t *ast.Term) { walk(t.Value, depth+1) })
		case ast.Set:
			x.Foreach(func(t *ast.Term) { walk(t.Value, depth+1) })
		case ast.Object:
			x.Foreach(func(k, t *ast.Term) {
				walk(k.Value, depth+1)
				walk(t.Value, depth+1)
			})
		default:
			size += 8
		}
	}
	walk(v, 0)
	return size
}

// escapedSize is a string's length in JSON: Go's encoder writes a control
// character, a quote, a backslash and <, >, & as up to six bytes.
func escapedSize(s string) int64 {
	n := int64(len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			n += 5
		}
	}
	return n
}

// nodes counts a value's elements, stopping past what the bound allows.
func nodes(v ast.Value) int64 {
	var n int64
	var walk func(v ast.Value)
	walk = func(v ast.Value) {
		if n > maxBuiltinResult/elemCost {
			return
		}
		n++
		switch x := v.(type) {
		case *ast.Array:
			x.Foreach(func(t *ast.Term) { walk(t.Value) })
		case ast.Set:
			x.Foreach(func(t *ast.Term) { walk(t.Value) })
		case ast.Object:
			x.Foreach(func(k, t *ast.Term) { walk(k.Value); walk(t.Value) })
		}
	}
	walk(v)
	return n
}

// walkDepths adds each node's depth times an element's cost.
func walkDepths(v ast.Value, depth int64, size *int64) {
	if *size > maxBuiltinResult {
		return
	}
	*size += depth * elemCost
	switch x := v.(type) {
	case *ast.Array:
		x.Foreach(func(t *ast.Term) { walkDepths(t.Value, depth+1, size) })
	case ast.Set:
		x.Foreach(func(t *ast.Term) { walkDepths(t.Value, depth+1, size) })
	case ast.Object:
		x.Foreach(func(_, t *ast.Term) { walkDepths(t.Value, depth+1, size) })
	}
}

// occurrences is how many times sub is in s, as strings.Split and
// indexof_n count them ("" is between every character).
func occurrences(s, sub string) int64 {
	if sub == "" {
		return int64(utf8.RuneCountInString(s)) + 1
	}
	return int64(strings.Count(s, sub))
}

// regexSized is the size of a regex builtin's result: the input, and each
// match an element (per groups) of a list; the matches are counted up to
// what would pass the bound.
func regexSized(ops []*ast.Term, patArg, strArg int, per int64) int64 {
	pat, ok1 := ops[patArg].Value.(ast.String)
	s, ok2 := ops[strArg].Value.(ast.String)
	if !ok1 || !ok2 {
		return 0
	}
	return int64(len(s)) + regexMatches(string(pat), string(s))*elemCost*per
}

// regexMatches counts the matches of pat in s, stopping once they would
// pass the bound (the count itself must not allocate without bound).
func regexMatches(pat, s string) int64 {
	re, err := regexp.Compile(pat)
	if err != nil {
		return 0 // the builtin reports it
	}
	limit := int(maxBuiltinResult/elemCost) + 1
	return int64(len(re.FindAllStringIndex(s, limit)))
}

// jsonValues counts a JSON text's values from its bytes (each container
// opens one, each comma or colon outside strings separates one more).
func jsonValues(s string) int64 {
	var n int64 = 1
	in, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				in = false
			}
		case c == '"':
			in = true
		case c == '[' || c == '{' || c == ',' || c == ':':
			n++
		}
	}
	return n
}

// yamlSize bounds what yaml.unmarshal makes of a text: aliases may repeat
// an anchored node without bound (a billion laughs), so a text with an
// alias counts each alias as the whole text again; otherwise each line,
// item and flow separator is an element.
func yamlSize(s string) int64 {
	n := int64(len(s)) + int64(strings.Count(s, "\n")+strings.Count(s, ",")+strings.Count(s, "- ")+1)*elemCost
	if aliases := int64(strings.Count(s, "*")); aliases > 0 && strings.Contains(s, "&") {
		n += aliases * n
	}
	return n
}

func strs3(ops []*ast.Term) (string, string, string, bool) {
	if len(ops) < 3 {
		return "", "", "", false
	}
	a, ok1 := ops[0].Value.(ast.String)
	b, ok2 := ops[1].Value.(ast.String)
	c, ok3 := ops[2].Value.(ast.String)
	return string(a), string(b), string(c), ok1 && ok2 && ok3
}

func replacedSize(x, old, repl string) int64 {
	return int64(len(x)) + occurrences(x, old)*(int64(len(repl))-int64(len(old)))
}

var widthRe = regexp.MustCompile(`%[-+# 0]*([0-9]*)(?:\.([0-9]*))?`)

// formatWidths adds up the widths and precisions a format asks for.
func formatWidths(f string) int64 {
	var total int64
	for _, m := range widthRe.FindAllStringSubmatch(f, -1) {
		for _, n := range m[1:] {
			if len(n) > 9 {
				return maxBuiltinResult + 1
			}
			v, _ := strconv.ParseInt(n, 10, 64) // "" is 0
			total += v
		}
	}
	return total
}
