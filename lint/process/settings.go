package process

import (
	"fmt"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/finding"
)

// Setting overrides a rule: a severity, or off.
type Setting struct {
	Severity string
	Disabled bool
}

// Settings drops disabled rules' findings and applies severity overrides.
func Settings(settings map[string]Setting) Step {
	return Step{"settings", func(fs []finding.Finding) []finding.Finding {
		out := make([]finding.Finding, 0, len(fs))
		for _, f := range fs {
			s := settings[f.Rule]
			if s.Disabled {
				continue
			}
			if s.Severity != "" && !f.Failed {
				// A rule that failed fails the gate whatever its
				// severity: its checks did not run.
				f.Severity = s.Severity
			}
			out = append(out, f)
		}
		return out
	}}
}

// ResolveSettings maps the configuration's rule keys (ids or names) to
// rule ids; a key that names no rule is a configuration error.
func ResolveSettings(c *config.Config, rules []finding.Rule) (map[string]Setting, error) {
	out := map[string]Setting{}
	for _, rs := range c.Rules {
		id := ""
		for _, r := range rules {
			if rs.Key == r.ID || rs.Key == r.Name {
				id = r.ID
			}
		}
		if id == "" {
			return nil, &config.Error{File: c.Source, Line: rs.Line, Msg: fmt.Sprintf("rules: %q is not a rule id or name (see buildgate rules)", rs.Key)}
		}
		for _, r := range rules {
			if r.ID == id && r.Locked && (rs.Disabled || (rs.Severity != "" && rs.Severity != finding.SeverityError)) {
				return nil, &config.Error{File: c.Source, Line: rs.Line, Msg: fmt.Sprintf(
					"rules: %s cannot be turned off or lowered: a file buildgate cannot read or parse must fail the gate (to accept one file, add an ignore: entry with its path and a reason)", rs.Key)}
			}
		}
		s := out[id]
		if rs.Severity != "" {
			s.Severity = rs.Severity
		}
		s.Disabled = rs.Disabled
		out[id] = s
	}
	for _, ig := range c.Ignores {
		if !known(ig.Rule, rules) {
			return nil, &config.Error{File: c.Source, Line: ig.Line, Msg: fmt.Sprintf("ignore: %q is not a rule id or name (see buildgate rules)", ig.Rule)}
		}
	}
	return out, nil
}
