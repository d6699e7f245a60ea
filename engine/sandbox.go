package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Policies kept in a repository are written by whoever opens a pull
// request, so what a policy may call is an allow-list: a builtin OPA adds
// in a later release is withheld until it is put here (TestSandboxCovers
// EveryBuiltin fails until it is classified). Every builtin below is pure:
// it reads nothing but its arguments and costs about as much as their
// size. buildgate's own builtins (category "buildgate") are allowed too.
var allowedBuiltins = setOf(
	// operators and compiler internals
	"assign", "eq", "equal", "neq", "gt", "gte", "lt", "lte", "and", "or", "plus", "minus", "mul", "div", "rem",
	"internal.member_2", "internal.member_3", "internal.print", "internal.template_string", "internal.test_case",
	// numbers and types
	"abs", "ceil", "floor", "round", "to_number", "format_int", "max", "min", "sum", "product", "count",
	"numbers.range", "numbers.range_step",
	"bits.and", "bits.or", "bits.xor", "bits.negate", "bits.rsh",
	"is_array", "is_boolean", "is_null", "is_number", "is_object", "is_set", "is_string", "type_name",
	// strings
	"concat", "contains", "startswith", "endswith", "indexof", "indexof_n", "lower", "upper", "split",
	"substring", "sprintf", "trim", "trim_left", "trim_right", "trim_prefix", "trim_suffix", "trim_space",
	"strings.any_prefix_match", "strings.any_suffix_match", "strings.count", "strings.reverse",
	"strings.split_n", "replace", "strings.replace_n",
	// regular expressions (RE2: linear time) and globs
	"regex.match", "regex.is_valid", "regex.split", "regex.find_n", "regex.find_all_string_submatch_n",
	"regex.replace", "regex.template_match", "regex.globs_match", "glob.match", "glob.quote_meta",
	// collections
	"array.concat", "array.slice", "array.reverse", "array.flatten", "intersection", "union", "sort", "walk",
	"graph.reachable", "object.filter", "object.get", "object.keys", "object.remove", "object.subset",
	"object.union", "object.union_n", "json.filter", "json.remove", "json.patch",
	// encodings
	"base64.decode", "base64.encode", "base64.is_valid", "base64url.decode", "base64url.encode",
	"base64url.encode_no_pad", "hex.decode", "hex.encode", "urlquery.decode", "urlquery.decode_object",
	"urlquery.encode", "urlquery.encode_object", "json.marshal", "json.marshal_with_options",
	"json.unmarshal", "json.is_valid", "yaml.marshal", "yaml.unmarshal", "yaml.is_valid", "uri.parse",
	"uri.is_valid",
	// JSON schema: only through schemaGuard, which refuses "$ref"
	"json.match_schema", "json.verify_schema",
	// versions, units, metadata, output
	"semver.compare", "semver.is_valid", "units.parse", "units.parse_bytes", "uuid.parse",
	"rego.metadata.chain", "rego.metadata.rule", "rego.parse_module", "print", "trace",
	// time arithmetic on given values (never the clock)
	"time.parse_ns", "time.parse_rfc3339_ns", "time.parse_duration_ns", "time.format", "time.date",
	"time.clock", "time.weekday", "time.add_date", "time.diff",
	// hashes and parsing of given keys and tokens (no clock, no fetching)
	"crypto.md5", "crypto.sha1", "crypto.sha256", "crypto.hmac.equal", "crypto.hmac.md5",
	"crypto.hmac.sha1", "crypto.hmac.sha256", "crypto.hmac.sha512", "crypto.parse_private_keys",
	"crypto.x509.parse_certificates", "crypto.x509.parse_certificate_request", "crypto.x509.parse_keypair",
	"crypto.x509.parse_rsa_private_key", "io.jwt.decode",
	"io.jwt.verify_eddsa", "io.jwt.verify_es256", "io.jwt.verify_es384", "io.jwt.verify_es512",
	"io.jwt.verify_hs256", "io.jwt.verify_hs384", "io.jwt.verify_hs512", "io.jwt.verify_ps256",
	"io.jwt.verify_ps384", "io.jwt.verify_ps512", "io.jwt.verify_rs256", "io.jwt.verify_rs384",
	"io.jwt.verify_rs512",
	// the tool's version only: Runtime never hands over the environment
	"opa.runtime",
)

// refusedBuiltins are OPA's builtins a policy may not call, with why.
// Deprecated builtins that strict mode refuses anyway are listed too, so
// that every builtin of the OPA in use is classified.
var refusedBuiltins = map[string]string{
	"http.send":                                 "policies run without network access",
	"net.lookup_ip_addr":                        "policies run without network access",
	"net.cidr_contains":                         "policies run without network builtins",
	"net.cidr_contains_matches":                 "policies run without network builtins",
	"net.cidr_expand":                           "policies run without network builtins",
	"net.cidr_intersects":                       "policies run without network builtins",
	"net.cidr_is_valid":                         "policies run without network builtins",
	"net.cidr_merge":                            "policies run without network builtins",
	"net.cidr_overlap":                          "policies run without network builtins",
	"time.now_ns":                               "policies are deterministic: the same files give the same findings",
	"rand.intn":                                 "policies are deterministic: the same files give the same findings",
	"uuid.rfc4122":                              "policies are deterministic: the same files give the same findings",
	"io.jwt.decode_verify":                      "it reads the clock; policies are deterministic",
	"io.jwt.encode_sign":                        "it draws random numbers; policies are deterministic",
	"io.jwt.encode_sign_raw":                    "it draws random numbers; policies are deterministic",
	"crypto.x509.parse_and_verify_certificates": "it reads the clock; policies are deterministic",
	"crypto.x509.parse_and_verify_certificates_with_options": "it reads the clock; policies are deterministic",
	"providers.aws.sign_req":                                 "signing requests is not linting",
	"graph.reachable_paths":                                  "its cost grows exponentially with the graph and it ignores --timeout",
	"bits.lsh":                                               "a large shift allocates without bound and ignores --timeout",
	"strings.render_template":                                "a template loop allocates without bound",
	"graphql.is_valid":                                       "not needed to lint build files",
	"graphql.parse":                                          "not needed to lint build files",
	"graphql.parse_and_verify":                               "not needed to lint build files",
	"graphql.parse_query":                                    "not needed to lint build files",
	"graphql.parse_schema":                                   "not needed to lint build files",
	"graphql.schema_is_valid":                                "not needed to lint build files",
	"all":                                                    "deprecated",
	"any":                                                    "deprecated",
	"cast_array":                                             "deprecated",
	"cast_boolean":                                           "deprecated",
	"cast_null":                                              "deprecated",
	"cast_object":                                            "deprecated",
	"cast_set":                                               "deprecated",
	"cast_string":                                            "deprecated",
	"re_match":                                               "deprecated",
	"set_diff":                                               "deprecated",
}

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Allowed reports whether a policy may call the builtin b.
func Allowed(b *ast.Builtin) bool {
	if allowedBuiltins[b.Name] {
		return true
	}
	for _, c := range b.Categories {
		if c == "buildgate" {
			return true
		}
	}
	return false
}

// RefusedReason says why a builtin is withheld ("" when it is allowed or
// unknown).
func RefusedReason(name string) string {
	if r, ok := refusedBuiltins[name]; ok {
		return r
	}
	if b := ast.BuiltinMap[name]; b != nil && !Allowed(b) {
		return "this builtin is not on buildgate's list of builtins policies may call"
	}
	return ""
}

// Sandbox lists what the modules may not do, each as file:line:col: calls
// of a withheld builtin (the compiler would refuse them as undefined
// functions; this says why), reading the environment through
// opa.runtime(), and a constant JSON schema holding "$ref".
func Sandbox(mods map[string]*ast.Module) []string {
	var errs []string
	at := func(loc *ast.Location) string {
		if loc == nil {
			return "?"
		}
		return fmt.Sprintf("%s:%d:%d", loc.File, loc.Row, loc.Col)
	}
	call := func(loc *ast.Location, name string, args []*ast.Term, runtimeVars map[ast.Var]bool) {
		if why := RefusedReason(name); why != "" {
			errs = append(errs, fmt.Sprintf("%s: %s is not allowed: %s", at(loc), name, why))
		}
		if name == "object.get" && len(args) > 1 && readsEnv(args[0], args[1], runtimeVars) {
			errs = append(errs, fmt.Sprintf("%s: opa.runtime().env is not available: policies run without the environment", at(loc)))
		}
		if i, ok := schemaArg[name]; ok && len(args) > i && ast.IsConstant(args[i].Value) {
			if err := checkSchema(args[i].Value); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %s: %v", at(loc), name, err))
			}
		}
	}
	for _, m := range mods {
		runtimeVars := map[ast.Var]bool{}
		ast.WalkExprs(m, func(x *ast.Expr) bool {
			// rt := opa.runtime(), rt = opa.runtime()
			if (x.IsAssignment() || x.IsEquality()) && len(x.Operands()) == 2 {
				if v, ok := x.Operands()[0].Value.(ast.Var); ok && isRuntimeCall(x.Operands()[1]) {
					runtimeVars[v] = true
				}
			}
			return false
		})
		// Calls written as expressions of their own: http.send(x, r).
		ast.WalkExprs(m, func(x *ast.Expr) bool {
			if x.IsCall() {
				call(x.Location, x.Operator().String(), x.Operands(), runtimeVars)
			}
			return false
		})
		ast.WalkTerms(m, func(t *ast.Term) bool {
			switch v := t.Value.(type) {
			case ast.Call:
				call(t.Location, v[0].Value.(ast.Ref).String(), v[1:], runtimeVars)
			case ast.Ref:
				if len(v) > 1 && readsEnv(v[0], v[1], runtimeVars) {
					errs = append(errs, fmt.Sprintf("%s: opa.runtime().env is not available: policies run without the environment", at(t.Location)))
				}
			}
			return false
		})
	}
	sort.Strings(errs)
	return slicesCompact(errs)
}

func slicesCompact(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func isRuntimeCall(t *ast.Term) bool {
	c, ok := t.Value.(ast.Call)
	return ok && c[0].Value.(ast.Ref).String() == "opa.runtime"
}

// readsEnv: head is opa.runtime() or a variable bound to it, key is "env".
func readsEnv(head, key *ast.Term, runtimeVars map[ast.Var]bool) bool {
	if k, ok := key.Value.(ast.String); !ok || k != "env" {
		return false
	}
	if isRuntimeCall(head) {
		return true
	}
	v, ok := head.Value.(ast.Var)
	return ok && runtimeVars[v]
}

// schemaArg is the operand holding the schema of the JSON-schema builtins.
var schemaArg = map[string]int{"json.verify_schema": 0, "json.match_schema": 1}

// OPA's JSON-schema library loads any "$ref" it cannot resolve in the
// schema itself — file:// URLs included, and a "$id" re-bases even "#" onto
// a file — and a "$ref" cycle overflows the Go stack, which no recover
// catches. So a schema may hold no "$ref" at all: refused at compile time
// for a constant schema (Sandbox), and at evaluation for one built at run
// time (the guard below wraps OPA's implementations).
func init() {
	for name, arg := range schemaArg {
		orig := topdown.GetBuiltin(name)
		topdown.RegisterBuiltinFunc(name, func(bctx topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
			if len(ops) > arg {
				if err := checkSchema(ops[arg].Value); err != nil {
					return topdown.Halt{Err: &topdown.Error{Code: SandboxErr, Message: name + ": " + err.Error(), Location: bctx.Location}}
				}
			}
			return orig(bctx, ops, iter)
		})
	}
}

// SandboxErr is the code of a builtin call the sandbox refuses while a
// policy runs (a schema built with "$ref"): the run stops (exit 2), as for
// a bound, rather than report the rule as failed.
const SandboxErr = "policy_sandbox_error"

var errSchemaRef = errors.New(`a JSON schema may not hold "$ref": policies cannot load other schemas (write the definition inline)`)

// checkSchema refuses a schema (an object, or a string holding JSON) with
// a "$ref" key anywhere: in a definition, a property, even under "const".
func checkSchema(v ast.Value) error {
	var doc any
	switch x := v.(type) {
	case ast.String:
		if !strings.Contains(string(x), "$ref") && !strings.Contains(string(x), `\u`) {
			return nil
		}
		// Text that is not JSON holds no schema (doc stays nil): the
		// builtin reports it.
		_ = json.Unmarshal([]byte(x), &doc)
	default:
		// A value that is not JSON holds no schema: the builtin reports it.
		if j, err := ast.JSON(v); err == nil {
			doc = j
		}
	}
	// An explicit stack: a schema nested deeper than Go's stack allows
	// must not crash the check either.
	stack := []any{doc}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch t := n.(type) {
		case map[string]any:
			for k, c := range t {
				if k == "$ref" {
					return errSchemaRef
				}
				stack = append(stack, c)
			}
		case []any:
			stack = append(stack, t...)
		}
	}
	return nil
}
