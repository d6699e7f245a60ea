package process

import (
	"fmt"
	"github.com/buildgate/buildgate/finding"
	"sort"
	"strings"
	"time"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/loader"
)

// The findings suppressions make themselves are of the catalogue's meta
// rules, found by name (their METADATA is the one source of their ids).
const (
	ruleUnjustified = "unjustified-suppression"
	ruleUnused      = "unused-suppression"
	ruleExpired     = "expired-ignore"
)

// Suppression kinds, as SARIF names them.
const (
	InSource = "inSource"
	External = "external"
)

// Suppressed is a finding a suppression covers, and which one.
type Suppressed struct {
	Finding       finding.Finding
	Kind          string // InSource or External
	Justification string
}

// SuppressOptions say how suppressions apply.
type SuppressOptions struct {
	Inline bool      // honour buildgate:ignore comments
	Today  time.Time // for the until of config ignores
	// Whole is set when the run covered the whole repository: only then is
	// a config ignore that matched nothing reported (with a subset of the
	// files, its findings may just not have been looked at).
	Whole bool
}

type marker struct {
	path string
	s    loader.Suppression
	used map[string]bool // rule token -> matched something
}

// suppress splits findings into those reported and those suppressed, and
// adds the findings suppressions make (BG002-BG004).
func suppress(fs []finding.Finding, byPath map[string][]loader.Suppression, cfg *config.Config, rules []finding.Rule, o SuppressOptions) (kept []finding.Finding, suppressed []Suppressed, made []finding.Finding) {
	sp := newSuppressor(byPath, cfg, rules, o)
	for _, f := range fs {
		if hit := sp.hit(f); hit != nil {
			suppressed = append(suppressed, *hit)
			continue
		}
		kept = append(kept, f)
	}
	return kept, suppressed, append(sp.markerFindings(), sp.ignoreFindings()...)
}

// suppressor holds a run's suppressions and which of them matched.
type suppressor struct {
	cfg        *config.Config
	rules      []finding.Rule
	o          SuppressOptions
	byName     map[string]finding.Rule // the meta rules
	locked     map[string]bool
	markers    map[string][]*marker
	all        []*marker
	ignoreUsed []bool
}

func newSuppressor(byPath map[string][]loader.Suppression, cfg *config.Config, rules []finding.Rule, o SuppressOptions) *suppressor {
	sp := &suppressor{cfg: cfg, rules: rules, o: o, byName: map[string]finding.Rule{}, locked: map[string]bool{},
		markers: map[string][]*marker{}, ignoreUsed: make([]bool, len(cfg.Ignores))}
	for _, r := range rules {
		if r.Meta {
			sp.byName[r.Name] = r
		}
		sp.locked[r.ID] = r.Locked
	}
	if !o.Inline {
		return sp
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, s := range byPath[p] {
			m := &marker{path: p, s: s, used: map[string]bool{}}
			sp.markers[p] = append(sp.markers[p], m)
			sp.all = append(sp.all, m)
		}
	}
	return sp
}

func matches(token string, f finding.Finding) bool {
	return strings.EqualFold(token, f.Rule) || token == f.Name
}

// hit is the suppression that covers f, nil when none does; every
// marker token and ignore that matches is marked used.
func (sp *suppressor) hit(f finding.Finding) *Suppressed {
	var hit *Suppressed
	for _, m := range sp.markers[f.Path] {
		if m.s.Kind == "ignore" && m.s.Line != f.Pos.Line {
			continue
		}
		for _, tok := range m.s.Rules {
			// A locked rule (BG001: what buildgate cannot read) is not
			// suppressed by a comment in the very file it cannot read;
			// the configuration's ignore, with a path and a reason, is
			// the way to accept one file.
			if matches(tok, f) && !sp.locked[f.Rule] {
				m.used[tok] = true
				if hit == nil {
					hit = &Suppressed{Finding: f, Kind: InSource, Justification: m.s.Reason}
				}
			}
		}
	}
	for i, ig := range sp.cfg.Ignores {
		if ig.Expired(sp.o.Today) || !matches(ig.Rule, f) || !ig.Matches(f.Path) {
			continue
		}
		sp.ignoreUsed[i] = true
		if hit == nil {
			hit = &Suppressed{Finding: f, Kind: External, Justification: ig.Reason}
		}
	}
	return hit
}

func (sp *suppressor) made(name, path string, pos loader.Pos, text, msg string) finding.Finding {
	r := sp.byName[name]
	return finding.Finding{Rule: r.ID, Name: name, Severity: r.Severity, Message: msg, Path: path, Pos: pos, Text: text}
}

// lockedRule is the locked rule a marker token names, if any.
func (sp *suppressor) lockedRule(tok string) (finding.Rule, bool) {
	for _, r := range sp.rules {
		if r.Locked && (strings.EqualFold(tok, r.ID) || tok == r.Name) {
			return r, true
		}
	}
	return finding.Rule{}, false
}

// markerFindings are what the comments say of themselves: no reason, no
// rule, a rule a comment cannot suppress, a token that matched nothing.
func (sp *suppressor) markerFindings() []finding.Finding {
	var made []finding.Finding
	for _, m := range sp.all {
		comment := "buildgate:" + m.s.Kind + " " + strings.Join(m.s.Rules, ",")
		if m.s.Reason == "" {
			made = append(made, sp.made(ruleUnjustified, m.path, m.s.Pos, comment,
				fmt.Sprintf("%s gives no reason; add one after \"--\" (it suppresses all the same)", comment)))
		}
		if len(m.s.Rules) == 0 {
			made = append(made, sp.made(ruleUnused, m.path, m.s.Pos, comment,
				fmt.Sprintf("buildgate:%s names no rule, so it suppresses nothing; write the rule ids, e.g. buildgate:%s BG101 -- reason", m.s.Kind, m.s.Kind)))
		}
		for _, tok := range m.s.Rules {
			if msg := sp.tokenProblem(m, tok); msg != "" {
				made = append(made, sp.made(ruleUnused, m.path, m.s.Pos, comment, msg))
			}
		}
	}
	return made
}

// tokenProblem says what is wrong with one rule token of a marker, ""
// when it suppressed something.
func (sp *suppressor) tokenProblem(m *marker, tok string) string {
	if r, ok := sp.lockedRule(tok); ok {
		return fmt.Sprintf("buildgate:%s %s does not apply: %s (%s) cannot be suppressed by a comment, since a file buildgate cannot read must fail the gate; to accept this file, add an ignore: entry with its path and a reason to .buildgate.yaml", m.s.Kind, tok, r.ID, r.Name)
	}
	if m.used[tok] {
		return ""
	}
	if !known(tok, sp.rules) {
		return fmt.Sprintf("buildgate:%s %s: there is no rule %s (see buildgate rules)", m.s.Kind, tok, tok)
	}
	where := "in this file"
	if m.s.Kind == "ignore" {
		where = fmt.Sprintf("on line %d", m.s.Line)
		if m.s.Line == 0 {
			where = "below it"
		}
	}
	return fmt.Sprintf("buildgate:%s %s matches no %s finding %s; delete it or move it to the line of the finding", m.s.Kind, tok, tok, where)
}

// ignoreFindings are what the configuration's ignores say of themselves:
// expired, or (on a run over the whole repository) matching nothing.
func (sp *suppressor) ignoreFindings() []finding.Finding {
	var made []finding.Finding
	for i, ig := range sp.cfg.Ignores {
		pos := loader.Pos{Line: ig.Line, Column: 1, EndLine: ig.Line, EndColumn: 1}
		text := "ignore " + ig.Rule + " " + ig.Path
		switch {
		case ig.Expired(sp.o.Today):
			made = append(made, sp.made(ruleExpired, sp.cfg.Source, pos, text,
				fmt.Sprintf("the ignore entry for %s in %s expired on %s and suppresses nothing now; fix what it covered, or renew it with a new until", ig.Rule, ig.Path, ig.Until.Format("2006-01-02"))))
		case !sp.ignoreUsed[i] && sp.o.Whole:
			made = append(made, sp.made(ruleUnused, sp.cfg.Source, pos, text,
				fmt.Sprintf("the ignore entry for %s in %s matches no finding; delete it", ig.Rule, ig.Path)))
		}
	}
	return made
}

func known(tok string, rules []finding.Rule) bool {
	for _, r := range rules {
		if strings.EqualFold(tok, r.ID) || tok == r.Name {
			return true
		}
	}
	return false
}

// Suppress applies the suppressions: buildgate:ignore comments (markers,
// by file) and the configuration's ignores. It keeps the findings no
// suppression covers, records those it covers in *suppressed (each with its
// Suppression set), and adds the findings suppressions make themselves
// (BG002-BG004), passed through more first.
func Suppress(markers map[string][]loader.Suppression, cfg *config.Config, rules []finding.Rule, o SuppressOptions, more []Step, suppressed *[]finding.Finding) Step {
	return Step{"suppress", func(fs []finding.Finding) []finding.Finding {
		kept, sup, made := suppress(fs, markers, cfg, rules, o)
		for _, s := range sup {
			f := s.Finding
			f.Suppression = &finding.Suppression{Kind: s.Kind, Justification: s.Justification}
			*suppressed = append(*suppressed, f)
		}
		return append(kept, Run(made, more...)...)
	}}
}
