package process

import (
	"fmt"
	"testing"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/finding"
)

func TestSettings(t *testing.T) {
	got := Run([]finding.Finding{f("A", "p", 1, "error"), f("B", "p", 2, "error"), f("C", "p", 3, "note")},
		Settings(map[string]Setting{"A": {Disabled: true}, "C": {Severity: "warning"}}))
	if ids(got) != "B@p:2/error C@p:3/warning " {
		t.Errorf("%s", ids(got))
	}
}

func TestResolveSettings(t *testing.T) {
	rules := []finding.Rule{{ID: "BG001", Name: "unreadable", Locked: true}, {ID: "BG101", Name: "source-build-stage"}}
	cases := []struct {
		name, yaml, want string
	}{
		{"by name, a severity", "rules:\n  source-build-stage: warning\n", "BG101=warning/false"},
		{"by id, off", "rules:\n  BG101: off\n", "BG101=/true"},
		{"a key that names no rule", "rules:\n  BG999: off\n", "error"},
		{"a locked rule cannot be turned off", "rules:\n  BG001: off\n", "error"},
		{"a locked rule cannot be lowered", "rules:\n  unreadable: note\n", "error"},
		{"an ignore of no rule", "ignore:\n  - rule: nope\n    path: x\n    reason: r\n", "error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := config.Parse(".buildgate.yaml", []byte(c.yaml), config.Default())
			if err != nil {
				t.Fatal(err)
			}
			got, err := ResolveSettings(cfg, rules)
			s := "error"
			if err == nil {
				s = ""
				for id, v := range got {
					s += fmt.Sprintf("%s=%s/%v", id, v.Severity, v.Disabled)
				}
			}
			if s != c.want {
				t.Errorf("got %q (%v), want %q", s, err, c.want)
			}
		})
	}
}
