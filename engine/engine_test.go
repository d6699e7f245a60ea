package engine

import (
	"context"
	"github.com/buildgate/buildgate/finding"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

func compile(t *testing.T, src string) (*Engine, error) {
	t.Helper()
	return Compile(context.Background(), []Module{{Name: "p/rule.rego", Src: src}}, "1.2.3")
}

func evalFindings(t *testing.T, src string, docs ...loader.Document) []finding.Finding {
	t.Helper()
	e, err := compile(t, src)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := e.Eval(context.Background(), Input{Documents: docs})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestNetworkBuiltinsRefused(t *testing.T) {
	for _, call := range []string{
		`http.send({"method": "get", "url": "http://x"})`,
		`net.lookup_ip_addr("example.com")`,
		`net.cidr_contains("10.0.0.0/8", "10.1.1.1")`,
	} {
		_, err := compile(t, "package buildgate.rules.x\n\ndeny contains \"x\" if {\n\tr := "+call+"\n\tr\n}\n")
		if err == nil || !strings.Contains(err.Error(), "p/rule.rego:4:") {
			t.Errorf("%s: %v, want a compile error at p/rule.rego:4", call, err)
		}
	}
}

func TestSandbox(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{"r := http.send({\"method\": \"get\", \"url\": \"http://x\"})\n\tr", "p/rule.rego:4:7: http.send is not allowed: policies run without network access"},
		{"r := net.lookup_ip_addr(\"example.com\")\n\tr", "p/rule.rego:4:7: net.lookup_ip_addr is not allowed"},
		{"opa.runtime().env.HOME", "p/rule.rego:4:2: opa.runtime().env is not available: policies run without the environment"},
		{"rt := opa.runtime()\n\trt.env.HOME", "p/rule.rego:5:2: opa.runtime().env is not available"},
		{"rt := opa.runtime()\n\tobject.get(rt, \"env\", {})", "p/rule.rego:5:2: opa.runtime().env is not available"},
	} {
		_, err := compile(t, "package buildgate.rules.x\n\ndeny contains \"x\" if {\n\t"+tt.body+"\n}\n")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.body, err, tt.want)
		}
	}
}

func TestRuntimeHasNoEnvironment(t *testing.T) {
	fs := evalFindings(t, `package buildgate.rules.x

deny contains msg if {
	rt := opa.runtime()
	object.keys(rt) == {"version"}
	rt.version == "1.2.3"
	msg := "no env"
}
`)
	if len(fs) != 1 {
		t.Errorf("opa.runtime() carries something more than the version: %+v", fs)
	}
}

func TestMetadataIsTheCatalogue(t *testing.T) {
	e, err := compile(t, `# METADATA
# title: A title
# description: What it does.
# custom:
#   id: XY100
#   name: thing
#   severity: warning
#   tags: [a, b]
package buildgate.rules.thing

deny contains {"msg": "m", "path": "Dockerfile", "pos": {"line": 2, "column": 3, "end_line": 2, "end_column": 9}} if true
`)
	if err != nil {
		t.Fatal(err)
	}
	rules := e.Rules()
	if len(rules) != 1 || rules[0].ID != "XY100" || rules[0].Name != "thing" || rules[0].Severity != "warning" ||
		rules[0].Title != "A title" || rules[0].Description != "What it does." || strings.Join(rules[0].Tags, ",") != "a,b" {
		t.Fatalf("rules = %+v", rules)
	}
	fs, err := e.Eval(context.Background(), Input{})
	if err != nil {
		t.Fatal(err)
	}
	want := finding.Finding{Rule: "XY100", Name: "thing", Severity: "warning", Message: "m", Path: "Dockerfile",
		Pos: loader.Pos{Line: 2, Column: 3, EndLine: 2, EndColumn: 9}}
	if len(fs) != 1 || fs[0] != want {
		t.Errorf("findings = %+v", fs)
	}
}

func TestDefaultsWithoutMetadata(t *testing.T) {
	fs := evalFindings(t, "package buildgate.rules.my_rule\n\nwarn contains \"repository-level\" if true\n")
	if len(fs) != 1 || fs[0].Rule != "my_rule" || fs[0].Name != "my-rule" || fs[0].Severity != "warning" || fs[0].Path != "" {
		t.Errorf("findings = %+v", fs)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"syntax", "package buildgate.rules.x\n\ndeny contains if {\n", "p/rule.rego:3:"},
		{"strict: unused variable", "package buildgate.rules.x\n\ndeny contains \"m\" if {\n\tx := 1\n}\n", "p/rule.rego:4:"},
		{"bad severity", "# METADATA\n# custom:\n#   severity: fatal\npackage buildgate.rules.x\n\ndeny contains \"m\" if true\n", `custom.severity "fatal"`},
		{"v0 syntax", "package buildgate.rules.x\n\ndeny[msg] { msg := \"m\" }\n", "p/rule.rego:3:"},
		// A rule id or name is a word: a line break and a workflow
		// command in it would reach every printer (red-team case 4).
		{"an id with a line break", "# METADATA\n# custom:\n#   id: \"X1\\n::add-mask::x\"\npackage buildgate.rules.x\n\ndeny contains \"m\" if true\n", `rule id "X1\n::add-mask::x"`},
		{"an id with ##[", "# METADATA\n# custom:\n#   id: \"X1 ##[error]y\"\npackage buildgate.rules.x\n\ndeny contains \"m\" if true\n", `rule id "X1 ##[error]y"`},
		{"an id starting with ::", "# METADATA\n# custom:\n#   id: \"::error::x\"\npackage buildgate.rules.x\n\ndeny contains \"m\" if true\n", "rule id"},
		{"an empty id", "# METADATA\n# custom:\n#   id: \"\"\npackage buildgate.rules.x\n\ndeny contains \"m\" if true\n", "rule id"},
		{"an id of 65 characters", "# METADATA\n# custom:\n#   id: " + strings.Repeat("A", 65) + "\npackage buildgate.rules.x\n\ndeny contains \"m\" if true\n", "rule id"},
		{"a name with an escape", "# METADATA\n# custom:\n#   name: \"n\\u001b]8;;x\"\npackage buildgate.rules.x\n\ndeny contains \"m\" if true\n", "rule name"},
		{"a package segment that is no word", "package buildgate.rules.x[\"a\\n::error::b\"]\n\ndeny contains \"m\" if true\n", "rule id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compile(t, tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestDuplicateIDs(t *testing.T) {
	mk := func(pkg string) Module {
		return Module{Name: pkg + ".rego", Src: "# METADATA\n# custom:\n#   id: BG1\npackage buildgate.rules." + pkg + "\n\ndeny contains \"m\" if true\n"}
	}
	_, err := Compile(context.Background(), []Module{mk("a"), mk("b")}, "v")
	if err == nil || !strings.Contains(err.Error(), "rule id BG1 is also used") {
		t.Errorf("error %v", err)
	}
}

func TestBadFindingShapes(t *testing.T) {
	for _, body := range []string{
		`deny contains {"message": "no msg key"} if true`,
		`deny contains {"msg": "m", "pos": {"line": 0, "column": 1}} if true`,
		`deny contains 42 if true`,
	} {
		e, err := compile(t, "package buildgate.rules.x\n\n"+body+"\n")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Eval(context.Background(), Input{}); err == nil || !strings.Contains(err.Error(), "p/rule.rego: rule x:") {
			t.Errorf("%s: error %v", body, err)
		}
	}
}

func TestSortFindings(t *testing.T) {
	fs := []finding.Finding{
		{Rule: "B", Path: "b", Pos: loader.Pos{Line: 1, Column: 1}},
		{Rule: "B", Path: "a", Pos: loader.Pos{Line: 2, Column: 1}},
		{Rule: "A", Path: "a", Pos: loader.Pos{Line: 2, Column: 1}},
		{Rule: "A", Path: "a", Pos: loader.Pos{Line: 1, Column: 5}},
	}
	finding.Sort(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Path+f.Rule)
	}
	if strings.Join(got, " ") != "aA aA aB bB" || fs[0].Pos.Line != 1 {
		t.Errorf("order %v", got)
	}
}

func TestBuiltins(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`pep440.compare("0.3.9", "0.3.13")`, "-1"},
		{`pep440.compare("1.0", "1.0.0")`, "0"},
		{`pep440.compare("1.0.post1", "1.0")`, "1"},
		{`pep440.valid("0.3.13rc1")`, "true"},
		{`pep440.valid("latest")`, "false"},
		{`pep440.valid_specifier(">=0.3.13, <0.4")`, "true"},
		{`pep440.valid_specifier("")`, "true"},
		{`pep440.valid_specifier(">=>1")`, "false"},
		{`pep440.satisfies("0.3.13", ">=0.3.13")`, "true"},
		{`pep440.satisfies("0.3.14rc1", ">=0.3.13")`, "false"},
		{`pep440.satisfies("0.3.14rc1", ">=0.3.14rc1")`, "true"},
		{`pep440.witness_below(">0.3.12", "0.3.13")`, `"0.3.12.1"`},
		{`pep440.witness_below(">=0.3.13rc1", "0.3.13")`, `"0.3.13rc1"`},
		{`pep440.witness_below("===nightly", "0.3.13")`, `"nightly"`},
		{`[x | x := pep440.witness_below(">=0.3.13", "0.3.13")]`, "[]"},
		{`pep503.normalize("Mooncake_Transfer.Engine-ROCm")`, `"mooncake-transfer-engine-rocm"`},
		{`buildgate.parse("requirements", "r.txt", "numpy>=2\n").requirements[0].normalized`, `"numpy"`},
	}
	for _, tt := range tests {
		rs, err := rego.New(rego.Query("x := "+tt.expr), rego.Capabilities(Capabilities()), rego.StrictBuiltinErrors(true)).Eval(context.Background())
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		got, err := ast.InterfaceToValue(rs[0].Bindings["x"])
		if err != nil || got.String() != tt.want {
			t.Errorf("%s = %v, want %s", tt.expr, got, tt.want)
		}
	}
}

func TestBuiltinErrors(t *testing.T) {
	for _, expr := range []string{
		`pep440.compare("x", "1")`,
		`pep440.satisfies("1", ">=>")`,
		`buildgate.parse("yaml", "a", "")`,
	} {
		_, err := rego.New(rego.Query("x := "+expr), rego.StrictBuiltinErrors(true)).Eval(context.Background())
		if err == nil {
			t.Errorf("%s: no error", expr)
		}
	}
}
