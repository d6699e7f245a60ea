package fix

import "testing"

// A bake file names what its name-bearing attributes evaluate to, within
// bounds: a width that would allocate a gigabyte is not evaluated, and
// then every name counts (what it spells cannot be told).
func TestBakeEvalNames(t *testing.T) {
	gone := []Name{{"stage", "build_mc"}, {"target", "mc-ci"}}
	for _, c := range []struct {
		name, text string
		named      bool
	}{
		{"a variable's default", "variable \"D\" {\n  default = \"mc\"\n}\ntarget \"x\" {\n  target = \"build_${D}\"\n}\n", true},
		{"format", "target \"x\" {\n  target = format(\"build_%s\", \"mc\")\n}\n", true},
		{"a matrix", "target \"x\" {\n  matrix = { d = [\"a\", \"mc\"] }\n  name = \"x-${d}\"\n  target = \"build_${d}\"\n  inherits = [\"${d}-ci\"]\n}\n", true},
		{"a width too large", "target \"x\" {\n  target = format(\"build_%99999999s\", \"mc\")\n}\n", true},
		{"a label and a description", "target \"x\" {\n  target = \"app\"\n  labels = { \"n\" = \"build_mc\" }\n  description = \"mc-ci\"\n}\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := newUniverse([]*Change{{Gone: gone}})
			m, err := u.namesIn("docker-bake.hcl", []byte(c.text))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := m[Name{"stage", "build_mc"}]; ok != c.named {
				t.Errorf("stage named %v, want %v (%v)", ok, c.named, m)
			}
		})
	}
}
