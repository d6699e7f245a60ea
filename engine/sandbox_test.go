package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Every builtin of the OPA in use is either allowed or refused with a
// reason: when an OPA upgrade adds one, this fails until it is classified
// (it is withheld from policies meanwhile, since the list is an
// allow-list).
func TestSandboxCoversEveryBuiltin(t *testing.T) {
	for _, b := range ast.CapabilitiesForThisVersion().Builtins {
		_, refused := refusedBuiltins[b.Name]
		allowed := Allowed(b)
		switch {
		case allowed && refused:
			t.Errorf("%s is both allowed and refused", b.Name)
		case !allowed && !refused:
			t.Errorf("%s (new in this OPA?) is neither allowed nor refused: classify it in engine/sandbox.go", b.Name)
		}
	}
	for name := range allowedBuiltins {
		if ast.BuiltinMap[name] == nil {
			t.Errorf("allowed builtin %s does not exist in this OPA", name)
		}
	}
	for _, b := range Capabilities().Builtins {
		if !Allowed(b) {
			t.Errorf("capabilities hold %s", b.Name)
		}
	}
}

// Each family of builtins that could reach outside the policy's input, or
// make findings depend on the clock or chance, is refused at compile time
// with file:line:col and the reason.
func TestSandboxFamilies(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`r := http.send({"method": "get", "url": "http://x"})`, "p/rule.rego:4:7: http.send is not allowed: policies run without network access"},
		{`r := net.lookup_ip_addr("example.com")`, "p/rule.rego:4:7: net.lookup_ip_addr is not allowed: policies run without network access"},
		{`r := net.cidr_expand("10.0.0.0/8")`, "p/rule.rego:4:7: net.cidr_expand is not allowed"},
		{`r := time.now_ns()`, "p/rule.rego:4:7: time.now_ns is not allowed: policies are deterministic"},
		{`r := rand.intn("x", 10)`, "p/rule.rego:4:7: rand.intn is not allowed"},
		{`r := uuid.rfc4122("x")`, "p/rule.rego:4:7: uuid.rfc4122 is not allowed"},
		{`r := io.jwt.decode_verify("a.b.c", {"secret": "x"})`, "p/rule.rego:4:7: io.jwt.decode_verify is not allowed: it reads the clock"},
		{`r := io.jwt.encode_sign({}, {}, {})`, "p/rule.rego:4:7: io.jwt.encode_sign is not allowed"},
		{`r := graph.reachable_paths({}, [])`, "p/rule.rego:4:7: graph.reachable_paths is not allowed"},
		{`r := bits.lsh(1, 4000000000)`, "p/rule.rego:4:7: bits.lsh is not allowed"},
		{`r := strings.render_template("x", {})`, "p/rule.rego:4:7: strings.render_template is not allowed"},
		{`r := providers.aws.sign_req({}, {}, 0)`, "p/rule.rego:4:7: providers.aws.sign_req is not allowed"},
		{`r := json.match_schema({}, {"$ref": "file:///etc/hostname"})`, `p/rule.rego:4:7: json.match_schema: a JSON schema may not hold "$ref"`},
		{`r := json.verify_schema("{\"$ref\": \"file:///etc/hostname\"}")`, `p/rule.rego:4:7: json.verify_schema: a JSON schema may not hold "$ref"`},
		{`r := json.match_schema({}, {"$id": "file:///etc/passwd#x", "properties": {"const": {"$ref": "#"}}})`, `a JSON schema may not hold "$ref"`},
		{`r := json.match_schema({}, "{\"\\u0024ref\": \"file:///etc/hostname\"}")`, `a JSON schema may not hold "$ref"`},
		{`opa.runtime().env.HOME`, "p/rule.rego:4:2: opa.runtime().env is not available"},
	} {
		_, err := compile(t, "package buildgate.rules.x\n\ndeny contains \"x\" if {\n\t"+tt.body+"\n\tr\n}\n")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.body, err, tt.want)
		}
	}
}

// A schema built while the policy runs cannot load a file either: the
// guard around OPA's implementation stops the query, and the file's
// content never reaches a finding. A "$ref" cycle, which would overflow
// the Go stack inside OPA, is stopped the same way.
func TestSchemaRefsRefusedAtEvaluation(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(secret, []byte(`{"type": "string", "title": "TOPSECRET"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, schema := range []string{
		`concat("", ["{\"$", "ref\": \"file://` + secret + `\"}"])`,
		`json.unmarshal(concat("", ["{\"$", "ref\": \"#\"}"]))`,
		`{concat("", ["$", "ref"]): "file://` + secret + `"}`,
		`{"allOf": [{concat("", ["$", "ref"]): "#"}]}`,
	} {
		e, err := compile(t, "package buildgate.rules.x\n\ndeny contains msg if {\n\ts := "+schema+"\n\tr := json.match_schema(\"1\", s)\n\tmsg := sprintf(\"%v\", [r])\n}\n")
		if err != nil {
			t.Fatalf("%s: %v", schema, err)
		}
		fs, err := e.Eval(context.Background(), Input{})
		if err == nil || !strings.Contains(err.Error(), `may not hold "$ref"`) {
			t.Errorf("%s: findings %+v, error %v; want the query stopped", schema, fs, err)
		}
		if err != nil && strings.Contains(err.Error(), "TOPSECRET") {
			t.Errorf("%s: the file's content leaked: %v", schema, err)
		}
	}
	// Schemas without "$ref" work as OPA documents them.
	fs := evalFindings(t, "package buildgate.rules.x\n\ndeny contains \"ok\" if {\n\t[true, _] = json.match_schema({\"a\": 1}, {\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"number\"}}})\n}\n")
	if len(fs) != 1 {
		t.Errorf("a plain schema: %+v", fs)
	}
}

// rego.parse_module stays: it parses the text it is given, and an import
// in that text loads nothing.
func TestParseModuleReadsNothing(t *testing.T) {
	fs := evalFindings(t, "package buildgate.rules.x\n\ndeny contains \"parsed\" if {\n\tm := rego.parse_module(\"x.rego\", \"package x\\nimport data.secret\\np := data.secret\")\n\tm.package.path[1].value == \"x\"\n}\n")
	if len(fs) != 1 {
		t.Errorf("findings = %+v", fs)
	}
}

// Every builtin a policy may call has its result sized, or is listed as
// one whose result is small or a small multiple of its operands: a
// builtin allowed in a later OPA fails here until it is classified.
func TestEveryBuiltinSized(t *testing.T) {
	for name := range allowedBuiltins {
		n := 0
		for _, in := range []bool{sizers[name] != nil, smallResult[name], boundedResult[name]} {
			if in {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is in %d of sizers, smallResult and boundedResult; classify it once in engine/sandbox_alloc.go", name, n)
		}
	}
	for _, set := range []map[string]bool{smallResult, boundedResult, numeric} {
		for name := range set {
			if !allowedBuiltins[name] {
				t.Errorf("%s is classified but not allowed", name)
			}
		}
	}
	for name := range sizers {
		if !allowedBuiltins[name] {
			t.Errorf("%s is sized but not allowed", name)
		}
	}
}

// Builtins that build their whole result in one call are stopped before
// they allocate past the bound; --timeout could not stop them in time.
func TestAllocationBombsStopped(t *testing.T) {
	for _, body := range []string{
		`s0 := concat("", [x | some i in numbers.range(1, 100000); x := "a"]); r := replace(s0, "", s0)`,
		`s0 := concat("", [x | some i in numbers.range(1, 100000); x := "a"]); r := strings.replace_n({"": s0}, s0)`,
		`s0 := concat("", [x | some i in numbers.range(1, 100000); x := "a"]); r := regex.replace(s0, "", s0)`,
		`r := sprintf("%999999999d", [1])`,
		`r := numbers.range(1, 1000000000)`,
		// issue 26: every allocating builtin sizes its result first.
		`s0 := concat("", [x | some i in numbers.range(1, 100000); x := "a"]); s1 := concat(s0, [s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0]); r := concat(s1, [s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1])`,
		`s0 := concat("", [x | some i in numbers.range(1, 100000); x := "a"]); s1 := concat(s0, [s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0, s0]); r := sprintf("%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s", [s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1])`,
		`r := sprintf("%*d", [999999999, 1])`,
		`s0 := concat("", [x | some i in numbers.range(1, 100000); x := "a"]); l := [s0 | some i in numbers.range(1, 700)]; r := json.marshal(l)`,
		`s0 := concat("", [x | some i in numbers.range(1, 100000); x := "a"]); l := [s0 | some i in numbers.range(1, 700)]; r := json.marshal_with_options(l, {"indent": "  "})`,
		`s0 := concat("", [x | some i in numbers.range(1, 2000000); x := "a"]); r := indexof_n(s0, "")`,
		`s0 := concat("", [x | some i in numbers.range(1, 2000000); x := "a"]); r := split(s0, "")`,
		`s0 := concat("", [x | some i in numbers.range(1, 2000000); x := "a"]); r := regex.find_n("a", s0, -1)`,
		`s0 := concat("", [x | some i in numbers.range(1, 2000000); x := "a"]); r := regex.split("", s0)`,
		`s0 := concat(",", [x | some i in numbers.range(1, 2000000); x := "0"]); r := json.unmarshal(concat("", ["[", s0, "]"]))`,
		`r := yaml.unmarshal("a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n")`,
	} {
		e, err := compile(t, "package buildgate.rules.x\n\ndeny contains \"x\" if {\n\t"+body+"\n\tr\n}\n")
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		_, err = e.Eval(context.Background(), Input{})
		bounded := err != nil && (strings.Contains(err.Error(), "over what a policy may build") || strings.Contains(err.Error(), "excessive aliasing"))
		if !bounded || !strings.Contains(err.Error(), "rule x (x) of the policy") {
			t.Errorf("%s: %v", body, err)
		}
	}
	// A chain of products writes its integral result in full: refused
	// once an operand has more digits than a policy may compute with.
	e, err := compile(t, "package buildgate.rules.x\n\ndeny contains \"x\" if {\n\ta := (count(input.documents) + 1e300) * 1e300\n\tb := a * a\n\tc := b * b\n\td := c * c\n\te := d * d\n\tf := e * e\n\tg := f * f\n\th := g * g\n\ti := h * h\n\tformat_int(i, 10)\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err = e.Eval(context.Background(), Input{}); err == nil || !strings.Contains(err.Error(), "digits") {
		t.Errorf("products: %v", err)
	}
	// Ordinary uses are untouched.
	fs := evalFindings(t, "package buildgate.rules.x\n\ndeny contains r if {\n\tr := replace(sprintf(\"%05d-%s\", [7, \"ab\"]), \"-\", \"+\")\n\tcount(numbers.range(1, 100)) == 100\n}\n")
	if len(fs) != 1 || fs[0].Message != "00007+ab" {
		t.Errorf("findings = %+v", fs)
	}
}
