package loader

import (
	"strings"
	"testing"
)

func TestHCLStructure(t *testing.T) {
	src := `variable "MOONCAKE_BRANCH" {
  default = "v0.3.7"
}
function "get_cache_to_rocm_mooncake" {
  params = [key, mode]
  result = ["type=registry,ref=${DOCKERHUB_CACHE_REPO}:mooncake-${key},mode=${mode}"]
}
target "mooncake-rocm-ci" {
  target     = "export_mooncake"
  cache-to   = get_cache_to_rocm_mooncake(MOONCAKE_CACHE_KEY, "max")
  args = {
    MOONCAKE_BRANCH = MOONCAKE_BRANCH
    "OTHER"         = "x"
  }
  tags = [for t in ["a", "b"] : "img:${t}"]
}
group "ci" {
  targets = [
    "base",
    "mooncake-rocm-ci",
  ]
}
`
	d := parseAs[*HCLDocument](t, KindHCL, "docker/ci.hcl", src)
	if len(d.Errors) != 0 {
		t.Fatalf("errors: %+v", d.Errors)
	}
	v := d.Variables["MOONCAKE_BRANCH"]
	if v == nil || v.Labels[0].Pos.Line != 1 || v.Labels[0].Text != `"MOONCAKE_BRANCH"` || string(v.Attributes[0].Value) != `"v0.3.7"` {
		t.Fatalf("variable = %+v", v)
	}
	f := d.Functions["get_cache_to_rocm_mooncake"]
	if f == nil {
		t.Fatal("function missing")
	}
	var refs []string
	for _, a := range f.Attributes {
		for _, r := range a.Refs {
			refs = append(refs, r.Name)
		}
	}
	// Parameters are locals: only the outer variable is a reference.
	if strings.Join(refs, ",") != "DOCKERHUB_CACHE_REPO" {
		t.Errorf("function refs = %v", refs)
	}
	tg := d.Targets["mooncake-rocm-ci"]
	if tg == nil || len(tg.Attributes) != 4 {
		t.Fatalf("target = %+v", tg)
	}
	names := []string{}
	for _, a := range tg.Attributes {
		names = append(names, a.Name)
	}
	if strings.Join(names, ",") != "target,cache-to,args,tags" {
		t.Errorf("attributes not in source order: %v", names)
	}
	cacheTo := tg.Attributes[1]
	if len(cacheTo.Calls) != 1 || cacheTo.Calls[0].Name != "get_cache_to_rocm_mooncake" || cacheTo.Calls[0].NamePos.Line != 10 {
		t.Errorf("calls = %+v", cacheTo.Calls)
	}
	if len(cacheTo.Refs) != 1 || cacheTo.Refs[0].Name != "MOONCAKE_CACHE_KEY" || cacheTo.Refs[0].Pos.Column != 43 {
		t.Errorf("refs = %+v", cacheTo.Refs)
	}
	args := tg.Attributes[2]
	if len(args.Elements) != 2 || *args.Elements[0].Key.Value != "MOONCAKE_BRANCH" || args.Elements[0].Pos.Line != 12 ||
		*args.Elements[1].Key.Value != "OTHER" || args.Elements[1].Pos.Line != 13 {
		t.Errorf("args elements = %+v", args.Elements)
	}
	if len(args.Refs) != 1 || args.Refs[0].Pos.Line != 12 {
		t.Errorf("args refs = %+v", args.Refs)
	}
	// For-expression symbols are locals too.
	if r := tg.Attributes[3].Refs; len(r) != 0 {
		t.Errorf("tags refs = %+v", r)
	}
	g := d.Groups["ci"]
	el := g.Attributes[0].Elements
	if len(el) != 2 || el[1].Pos.Line != 20 || string(el[1].Value) != `"mooncake-rocm-ci"` || !el[1].Static {
		t.Errorf("group elements = %+v", el)
	}
	if s := g.Attributes[0].Strings; len(s) != 2 || *s[1].Value != "mooncake-rocm-ci" || s[1].Pos.Column != 6 {
		t.Errorf("group strings = %+v", s)
	}
}

func TestHCLMalformed(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		errLine int
		targets []string
	}{
		{"unclosed block", "target \"a\" {\n  x = 1\n", 1, nil},
		{"bad attribute then good block", "target \"a\" {\n  x = = 1\n}\ntarget \"b\" {\n  y = 2\n}\n", 2, []string{"b"}},
		{"unterminated string", "target \"a\" {\n  x = \"abc\n}\n", 2, nil},
		{"empty file", "", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parseAs[*HCLDocument](t, KindHCL, "docker/ci.hcl", tt.src)
			if tt.errLine == 0 {
				if len(d.Errors) != 0 {
					t.Errorf("errors: %+v", d.Errors)
				}
				return
			}
			if len(d.Errors) == 0 || d.Errors[0].Pos.Line != tt.errLine {
				t.Errorf("errors = %+v, want one at line %d", d.Errors, tt.errLine)
			}
			for _, name := range tt.targets {
				if d.Targets[name] == nil {
					t.Errorf("target %q not loaded after the error", name)
				}
			}
		})
	}
}
