package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/finding"
)

// A YAML file at a place no CI system names is a pipeline when kinds:
// says so, and its source build is found.
func TestConfiguredKinds(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "deploy", "release.yml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("steps:\n  - command: docker build --build-arg MOONCAKE_BRANCH=main .\n"), 0o644)
	for _, cfgText := range []string{"", "kinds:\n  pipeline: [\"deploy/*.yml\"]\n"} {
		cfg, err := config.Parse(".buildgate.yaml", []byte(cfgText), config.Default())
		if err != nil {
			t.Fatal(err)
		}
		out, err := Run(context.Background(), Options{Root: root, Paths: []string{root}, Config: cfg, Policies: builtin(t)})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(render(out.All), "\n")
		if want := cfgText != ""; strings.Contains(got, "deploy/release.yml:2:") != want {
			t.Errorf("config %q: findings\n%s", cfgText, got)
		}
	}
}

func render(fs []finding.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		fix := ""
		if f.Fix != nil {
			fix = fmt.Sprintf(" fix=%+v", *f.Fix)
		}
		out[i] = fmt.Sprintf("%s %s:%d:%d-%d:%d %s %s%s", f.Rule, f.Path, f.Pos.Line, f.Pos.Column, f.Pos.EndLine, f.Pos.EndColumn, f.Severity, f.Message, fix)
	}
	return out
}
