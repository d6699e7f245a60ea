package process

import (
	"strings"
	"testing"
	"time"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
)

var metaRules = []finding.Rule{
	{ID: "BG001", Name: "unreadable", Locked: true},
	{ID: "BG002", Name: ruleUnjustified, Meta: true, Severity: "warning"},
	{ID: "BG003", Name: ruleUnused, Meta: true, Severity: "warning"},
	{ID: "BG004", Name: ruleExpired, Meta: true, Severity: "warning"},
	{ID: "BG101", Name: "source-build-stage"},
}

func named(fd finding.Finding) finding.Finding {
	fd.Name = "source-build-stage"
	return fd
}

func TestSuppress(t *testing.T) {
	today := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	mark := func(kind string, line int, reason string, rules ...string) loader.Suppression {
		at := max(line-1, 1)
		return loader.Suppression{Kind: kind, Rules: rules, Reason: reason, Line: line, Pos: loader.Pos{Line: at, Column: 1, EndLine: at, EndColumn: 9}}
	}
	cases := []struct {
		name    string
		markers []loader.Suppression
		yaml    string
		inline  bool
		in      []finding.Finding
		kept    string // kept findings, then those suppressions made, by rule
		sup     string // suppressed, with their kind
	}{
		{"a comment on the line, by id", []loader.Suppression{mark("ignore", 3, "why", "BG101")}, "", true,
			[]finding.Finding{f("BG101", "p", 3, "error"), f("BG101", "p", 4, "error")}, "BG101@p:4/error ", "BG101:inSource "},
		{"by name, for the whole file", []loader.Suppression{mark("ignore-file", 0, "why", "source-build-stage")}, "", true,
			[]finding.Finding{named(f("BG101", "p", 3, "error")), named(f("BG101", "p", 4, "error"))}, "", "BG101:inSource BG101:inSource "},
		{"with no reason: suppressed, and BG002", []loader.Suppression{mark("ignore", 3, "", "BG101")}, "", true,
			[]finding.Finding{f("BG101", "p", 3, "error")}, "BG002@p:2/warning ", "BG101:inSource "},
		{"matching nothing: BG003", []loader.Suppression{mark("ignore", 5, "why", "BG101")}, "", true,
			[]finding.Finding{f("BG101", "p", 3, "error")}, "BG101@p:3/error BG003@p:4/warning ", ""},
		{"a locked rule is not suppressed by a comment", []loader.Suppression{mark("ignore", 3, "why", "BG001")}, "", true,
			[]finding.Finding{f("BG001", "p", 3, "error")}, "BG001@p:3/error BG003@p:2/warning ", ""},
		{"comments off: no effect, no finding", []loader.Suppression{mark("ignore", 3, "why", "BG101")}, "", false,
			[]finding.Finding{f("BG101", "p", 3, "error")}, "BG101@p:3/error ", ""},
		{"a configured ignore, even of a locked rule", nil, "ignore:\n  - rule: BG001\n    path: p\n    reason: vendored\n", true,
			[]finding.Finding{f("BG001", "p", 3, "error")}, "", "BG001:external "},
		{"an expired ignore suppresses nothing: BG004", nil, "ignore:\n  - rule: BG101\n    path: p\n    reason: r\n    until: 2026-11-30\n", true,
			[]finding.Finding{f("BG101", "p", 3, "error")}, "BG101@p:3/error BG004@.buildgate.yaml:2/warning ", ""},
		{"an ignore that matched nothing, on a whole run: BG003", nil, "ignore:\n  - rule: BG101\n    path: q\n    reason: r\n", true,
			[]finding.Finding{f("BG101", "p", 3, "error")}, "BG101@p:3/error BG003@.buildgate.yaml:2/warning ", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := config.Parse(".buildgate.yaml", []byte(c.yaml), config.Default())
			if err != nil {
				t.Fatal(err)
			}
			var sup []finding.Finding
			got := Run(c.in, Fingerprint(), Suppress(map[string][]loader.Suppression{"p": c.markers}, cfg, metaRules,
				SuppressOptions{Inline: c.inline, Today: today, Whole: true}, []Step{Fingerprint()}, &sup))
			s := ""
			for _, x := range sup {
				s += x.Rule + ":" + x.Suppression.Kind + " "
				if x.Fingerprint == "" || x.Suppression.Justification == "" && !strings.Contains(c.name, "no reason") {
					t.Errorf("a suppressed finding keeps its fingerprint and the reason: %+v", x)
				}
			}
			if ids(got) != c.kept || s != c.sup {
				t.Errorf("kept %q, suppressed %q", ids(got), s)
			}
		})
	}
}

// The fingerprint is taken before suppression: suppressing a finding does
// not change its identity, and the findings suppressions make get one.
func TestFingerprintThenSuppressKeepsIdentity(t *testing.T) {
	var suppressed []finding.Finding
	fs := []finding.Finding{f("BG101", "p", 2, "error"), f("BG101", "p", 1, "error")}
	cfg := config.Default()
	got := Run(fs, Fingerprint(), Suppress(map[string][]loader.Suppression{"p": {{Kind: "ignore", Rules: []string{"BG101"}, Line: 2, Pos: loader.Pos{Line: 1}}}},
		cfg, metaRules, SuppressOptions{Inline: true}, []Step{Settings(map[string]Setting{"BG002": {Severity: "note"}}), Fingerprint()}, &suppressed), Sort())
	if ids(got) != "BG002@p:1/note BG101@p:1/error " || len(suppressed) != 1 {
		t.Fatalf("kept %s, suppressed %d", ids(got), len(suppressed))
	}
	if suppressed[0].Fingerprint == "" || suppressed[0].Fingerprint != finding.Fingerprints([]finding.Finding{fs[0]})[0] {
		t.Errorf("a suppressed finding keeps its fingerprint: %q", suppressed[0].Fingerprint)
	}
	if got[0].Fingerprint == "" {
		t.Error("the findings suppressions make get fingerprints")
	}
}
