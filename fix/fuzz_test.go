package fix

import (
	"strings"
	"testing"
	"time"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
)

// FuzzRemovals: whatever the file and wherever the findings, a removal
// plan either changes nothing or gives a file that still parses, and its
// edits apply (issue 17: never a file that no longer parses).
func FuzzRemovals(f *testing.F) {
	f.Add(uint8(0), "ARG MC=1\nFROM a AS mc\nRUN make\n\nFROM a\nCOPY --from=mc /w /w\n", uint16(1), uint16(2))
	f.Add(uint8(1), "variable \"MC\" {\n  default = \"\"\n}\ngroup \"g\" {\n  targets = [\"a\", \"mc\"]\n}\n", uint16(1), uint16(5))
	f.Add(uint8(2), "S=\"a mc b\"\nif [[ -n \"$X\" ]]; then\n  echo \"$MC\"\nfi\ncase $1 in\n  mc) echo;;\nesac\n", uint16(1), uint16(3))
	f.Fuzz(func(t *testing.T, kind uint8, src string, a, b uint16) {
		if len(src) > 4096 {
			return
		}
		lines := strings.Count(src, "\n") + 1
		var fs []finding.Finding
		for _, n := range []uint16{a, b} {
			line := int(n)%lines + 1
			for _, rule := range []string{ruleStage, ruleArg, ruleStep, ruleCache} {
				fs = append(fs, finding.Finding{Name: rule, Pos: finding.Pos{Line: line, Column: int(n>>8)%8 + 1}})
			}
		}
		var k loader.Kind
		var p Plan
		done := make(chan struct{})
		go func() {
			defer close(done)
			switch kind % 3 {
			case 0:
				k, p = loader.KindDockerfile, Dockerfile("Dockerfile", []byte(src), fs, Options{})
			case 1:
				k, p = loader.KindHCL, HCL("x.hcl", []byte(src), fs)
			default:
				k, p = loader.KindShell, Shell("x.sh", []byte(src), fs, Options{})
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("planning took over 10 s (kind %d):\n%q", kind%3, src)
		}
		if len(p.Edits) == 0 {
			return
		}
		out, err := Apply([]byte(src), p.Edits)
		if err != nil {
			t.Fatalf("the plan's edits do not apply: %v", err)
		}
		if errs := loader.Parse(k, "x", out).DocErrors(); len(errs) > 0 {
			t.Fatalf("the fixed file does not parse: %v\n--- before\n%s\n--- after\n%s", errs, src, out)
		}
	})
}

// FuzzNamed: Resolve's reading of another file never panics (within
// the loader's bounds), and a name it finds is one it was asked about.
func FuzzNamed(f *testing.F) {
	f.Add("x.sh", "docker build --target mc_src .\n# mc_src\n", "mc_src")
	f.Add("ci.hcl", "group \"g\" {\n  targets = [\"mc-ci\"]\n}\n", "mc-ci")
	f.Add("compose.yaml", "services:\n  a:\n    build: {target: MC}\n", "mc")
	f.Add("a.sh", "for v in \"${!MC_@}\"; do :; done\ncompgen -v MC_\n", "MC_X")
	// Issue 30's readers: bake as bake evaluates it, CI YAML with its
	// values and expressions, bake JSON's ${NAME}.
	f.Add("docker-bake.hcl", "variable \"D\" {\n  default = \"mc\"\n}\ntarget \"x\" {\n  matrix = { d = [\"a\", \"mc\"] }\n  name = \"x-${d}\"\n  target = format(\"build_%s\", d)\n}\n", "build_mc")
	f.Add("docker-bake.hcl", "target \"x\" {\n  target = format(\"%99999999s\", \"mc\")\n}\n", "mc")
	f.Add(".github/workflows/b.yml", "on: push\njobs:\n  b:\n    strategy:\n      matrix:\n        dep: [a, mc]\n    steps:\n      - run: bake \"${{ matrix.dep }}-ci\" ${{ inputs.x || 'mc-ci' }}\n", "mc-ci")
	f.Add("docker-bake.json", "{\"variable\": {\"D\": {\"default\": \"mc\"}}, \"target\": {\"x\": {\"target\": \"build_${D}\"}}}", "build_mc")
	f.Fuzz(func(t *testing.T, path, text, name string) {
		if len(text) > 1<<14 {
			return
		}
		gone := []Name{{"stage", name}, {"target", name}, {"variable", name}, {"bake variable", name}}
		u := newUniverse([]*Change{{Gone: gone}})
		m, _ := u.namesIn(path, []byte(text))
		for n := range m {
			if n.Name != name {
				t.Fatalf("found %v, not asked about", n)
			}
		}
	})
}
