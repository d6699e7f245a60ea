package config

import (
	"os"
	"strings"
	"testing"
)

func TestDefaultIsTheMooncakeMigration(t *testing.T) {
	c := Default()
	if len(c.Migrations) != 1 {
		t.Fatalf("migrations = %+v", c.Migrations)
	}
	m := c.Migrations[0]
	if m.Package != "mooncake-transfer-engine-rocm" || m.Minimum != "0.3.13" ||
		strings.Join(m.Requirements, ",") != "requirements/rocm.txt" ||
		strings.Join(m.BuildArgs, ",") != "MOONCAKE_BRANCH,MOONCAKE_REPO,MOONCAKE_COMMIT,MOONCAKE_GO_VERSION,MOONCAKE_GO_SHA256,MOONCAKE_CACHE_KEY" ||
		strings.Join(m.Names, ",") != "mooncake" || strings.Join(m.Repositories, ",") != "github.com/kvcache-ai/Mooncake" {
		t.Errorf("default migration = %+v", m)
	}
	if got := c.RequiredFiles(); strings.Join(got, ",") != "requirements/rocm.txt" {
		t.Errorf("required files %v", got)
	}
}

func TestParseOverDefaults(t *testing.T) {
	c, err := Parse("x.yaml", []byte("exclude: [third_party]\nrules:\n  BG204: error\n  BG103: off\n"), Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Migrations) != 1 || len(c.Rules) != 2 || c.Rules[0].Severity != "error" || !c.Rules[1].Disabled {
		t.Errorf("config = %+v", c)
	}
	for path, want := range map[string]bool{
		"third_party/x/Dockerfile": true, "third_party": true, "docker/third_party.sh": false, "Dockerfile": false,
	} {
		if c.Excluded(path) != want {
			t.Errorf("Excluded(%q) = %v", path, !want)
		}
	}
	empty, err := Parse("x.yaml", nil, Default())
	if err != nil || len(empty.Migrations) != 1 {
		t.Errorf("an empty file changes nothing: %+v %v", empty, err)
	}
}

func TestRepositoriesNormalised(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/kvcache-ai/Mooncake.git": "github.com/kvcache-ai/Mooncake",
		"git@github.com:kvcache-ai/Mooncake.git":     "github.com/kvcache-ai/Mooncake",
		"github.com/kvcache-ai/Mooncake/":            "github.com/kvcache-ai/Mooncake",
	} {
		if got := normalizeRepo(in); got != want {
			t.Errorf("normalizeRepo(%q) = %q", in, got)
		}
	}
}

func TestErrorsNameTheLine(t *testing.T) {
	tests := []struct{ src, want string }{
		{"migrations: {}\n", "c.yaml:1: migrations must be a list"},
		{"migrations:\n  - package: \"not a name\"\n    minimum: \"1\"\n", `c.yaml:2: package "not a name" is not a valid project name`},
		{"migrations:\n  - minimum: \"1\"\n", "c.yaml:2: a migration needs a package"},
		{"migrations:\n  - package: a\n    minimum: \"1\"\n    requirements: [../x.txt]\n", `c.yaml:4: "../x.txt" must be a clean slash-separated path`},
		{"migrations:\n  - package: a\n    minimum: \"1\"\n    build_args: [\"A-B\"]\n", `c.yaml:4: build argument "A-B" is not a variable name`},
		{"migrations:\n  - package: a\n    minimum: \"1\"\n    names: [\"a_b\"]\n", `c.yaml:4: name token "a_b" must be letters and digits`},
		{"migrations:\n  - package: a\n    minimum: \"1\"\n    platform: [\"ro-cm\"]\n", `c.yaml:4: platform word "ro-cm" must be letters and digits`},
		{"migrations:\n  - package: a\n    minimum: \"1\"\n    other_platforms: [\"*cuda\"]\n", `c.yaml:4: platform word "*cuda" must be letters and digits`},
		{"migrations:\n  - package: a\n    minimum: \"1\"\n    scope: [\"[\"]\n", `c.yaml:4: "[" is not a valid glob`},
		{"rules:\n  BG101:\n    level: error\n", `c.yaml:3: unknown key "level"`},
		{"rules:\n  BG101:\n    disabled: maybe\n", "c.yaml:3: rule BG101: disabled must be true or false"},
		{"exclude: x\n", "c.yaml:1: exclude must be a list"},
		{"- a\n", "c.yaml:1: the configuration must be a mapping"},
		{"exclude: []\nexclude: []\n", `c.yaml:2: key "exclude" given twice`},
		{"kinds: [x]\n", "c.yaml:1: kinds must be a mapping"},
		{"kinds:\n  yaml: [\"*.yml\"]\n", `c.yaml:2: unknown key "yaml"`},
		{"kinds:\n  pipeline: [\"[\"]\n", `c.yaml:2: "[" is not a valid glob`},
	}
	for _, tt := range tests {
		_, err := Parse("c.yaml", []byte(tt.src), Default())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.src, err, tt.want)
		}
	}
}

// The documentation shows the built-in default verbatim.
func TestDefaultDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+string(DefaultYAML())+"```\n") {
		t.Error("docs/configuration.md does not show config/default.yaml verbatim")
	}
}

func TestKinds(t *testing.T) {
	c, err := Parse("c.yaml", []byte("kinds:\n  pipeline: [\"ci/**/*.yml\", deploy.yaml]\n  shell: [\"tools/run-*\"]\n"), Default())
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"ci/a/b.yml": "pipeline", "deploy.yaml": "pipeline", "tools/run-x": "shell", "ci/a.yaml": "", "other.yml": ""} {
		if got, _ := c.KindOf(rel); got != want {
			t.Errorf("%s: kind %q, want %q", rel, got, want)
		}
	}
}

// Issue 32: allow lists (a migration's, and the top level's added to
// every migration, the default's included), a migration without a
// minimum.
func TestAllowAndOptionalMinimum(t *testing.T) {
	c, err := Parse("c.yaml", []byte("migrations:\n  - package: triton\n    allow: [TRITON_CACHE_DIR]\n  - package: x\n    minimum: \"1\"\nallow: [\"third_party/**\", rocm-triton-kernels]\n"), Default())
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Migrations[0].Allow; len(got) != 3 || got[0] != "TRITON_CACHE_DIR" || got[1] != "third_party/**" {
		t.Errorf("triton's allow: %v", got)
	}
	if got := c.Migrations[1].Allow; len(got) != 2 || c.Migrations[0].Minimum != "" {
		t.Errorf("x: %+v", c.Migrations[1])
	}
	d, err := Parse("c.yaml", []byte("allow: [MOONCAKE_CACHE_DIR]\n"), Default())
	if err != nil || len(d.Migrations) != 1 || len(d.Migrations[0].Allow) != 1 || len(Default().Migrations[0].Allow) != 0 {
		t.Errorf("top-level allow on the default: %+v %v (the default must stay as it is)", d, err)
	}
	if e, err := Parse("c.yaml", []byte("allow: [third_party/]\n"), Default()); err != nil || e.Migrations[0].Allow[0] != "third_party/**" {
		t.Errorf("a directory: %+v %v", e, err)
	}
	for _, bad := range []string{"allow: [\"a b\"]\n", "allow: [\"[\"]\n", "migrations:\n  - package: x\n    allow: [\"$X\"]\n", "allow: [/third_party/**]\n", "allow: [./x/**]\n"} {
		if _, err := Parse("c.yaml", []byte(bad), Default()); err == nil || !strings.Contains(err.Error(), "c.yaml:") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Issue 32: a pin in pyproject.toml (TGI's) is not a requirements file:
// refused with the way out, not read as requirement lines.
func TestRequirementsAreRequirementsFiles(t *testing.T) {
	for _, bad := range []string{"server/pyproject.toml", "setup.cfg", "uv.lock"} {
		_, err := Parse("c.yaml", []byte("migrations:\n  - package: x\n    requirements: ["+bad+"]\n"), nil)
		if err == nil || !strings.Contains(err.Error(), "is not a pip requirements file") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := Parse("c.yaml", []byte("migrations:\n  - package: x\n    requirements: [requirements/rocm.txt, deps/cuda.in]\n"), nil); err != nil {
		t.Error(err)
	}
}
