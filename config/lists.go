package config

// The lists of a configuration: kinds, ignore entries, rule settings and
// allow entries.

import (
	"regexp"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"
)

// allowEntry checks an entry of an allow list: a name or variable
// (letters, digits, _ - .), or a path glob that compiles.
func (p *parser) allowEntry(n *yaml.Node, s string) error {
	switch {
	case strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.Contains(s, "\\"):
		return p.at(n, "allow entry %q: a path glob is slash-separated and relative to the root (third_party/**)", s)
	case strings.ContainsAny(s, "/*?["):
		return p.glob(n, s)
	case !regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.\-]*$`).MatchString(s):
		return p.at(n, "allow entry %q is neither a name or variable (letters, digits, _ - .) nor a path glob (with a / or a wildcard)", s)
	}
	return nil
}

type parser struct{ file string }

// kinds reads `kinds: {pipeline: [globs], …}`.
func (p *parser) kinds(n *yaml.Node) ([]KindGlobs, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, p.at(n, "kinds must be a mapping of a kind (%s) to a list of globs", strings.Join(KindNames, ", "))
	}
	var out []KindGlobs
	fields := map[string]func(*yaml.Node) error{}
	for _, k := range KindNames {
		fields[k] = func(v *yaml.Node) error {
			gs, err := p.strs(v, "kinds."+k, p.glob)
			out = append(out, KindGlobs{Kind: k, Globs: gs})
			return err
		}
	}
	return out, p.mapping(n, fields)
}

func (p *parser) globs(n *yaml.Node) ([]string, error) {
	return p.strs(n, "exclude", p.glob)
}

func (p *parser) ignores(n *yaml.Node) ([]Ignore, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, p.at(n, "ignore must be a list of {rule, path, reason, until}")
	}
	var out []Ignore
	for _, item := range n.Content {
		ig := Ignore{Path: "**", Line: item.Line}
		err := p.mapping(item, map[string]func(*yaml.Node) error{
			"rule": func(v *yaml.Node) error {
				s, err := p.str(v, "rule")
				ig.Rule = s
				return err
			},
			"path": func(v *yaml.Node) error {
				s, err := p.str(v, "path")
				if err == nil {
					err = p.glob(v, s)
				}
				ig.Path = s
				return err
			},
			"reason": func(v *yaml.Node) error {
				s, err := p.str(v, "reason")
				ig.Reason = strings.TrimSpace(s)
				return err
			},
			"until": func(v *yaml.Node) error {
				s, err := p.str(v, "until")
				if err != nil {
					return err
				}
				t, perr := time.Parse("2006-01-02", s)
				if perr != nil {
					return p.at(v, "until %q: want a date as YYYY-MM-DD", s)
				}
				ig.Until = t
				return nil
			},
		})
		if err != nil {
			return nil, err
		}
		if ig.Rule == "" {
			return nil, p.at(item, "an ignore entry needs a rule (an id such as BG101, or a name)")
		}
		if ig.Reason == "" {
			return nil, p.at(item, "ignore %s: a reason is required (why is this finding acceptable?)", ig.Rule)
		}
		out = append(out, ig)
	}
	return out, nil
}

// Matches reports whether the entry covers a root-relative path.
func (ig Ignore) Matches(rel string) bool {
	ok, _ := doublestar.Match(ig.Path, rel)
	return ok
}

// Expired reports whether the entry's until date is before today's.
func (ig Ignore) Expired(today time.Time) bool {
	if ig.Until.IsZero() {
		return false
	}
	y, m, d := today.Date()
	return ig.Until.Before(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
}

func (p *parser) rules(n *yaml.Node) ([]RuleSetting, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, p.at(n, "rules must be a mapping of rule id or name to a severity, off, or {severity, disabled}")
	}
	var out []RuleSetting
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		rs := RuleSetting{Key: k.Value, Line: k.Line}
		switch v.Kind {
		case yaml.ScalarNode:
			switch {
			case v.Value == "off" || v.Value == "false":
				rs.Disabled = true
			case severities[v.Value]:
				rs.Severity = v.Value
			default:
				return nil, p.at(v, "rule %s: %q: want error, warning, note or off", k.Value, v.Value)
			}
		case yaml.MappingNode:
			err := p.mapping(v, map[string]func(*yaml.Node) error{
				"severity": func(s *yaml.Node) error {
					if !severities[s.Value] {
						return p.at(s, "rule %s: severity %q: want error, warning or note", k.Value, s.Value)
					}
					rs.Severity = s.Value
					return nil
				},
				"disabled": func(s *yaml.Node) error {
					var b bool
					if err := s.Decode(&b); err != nil {
						return p.at(s, "rule %s: disabled must be true or false", k.Value)
					}
					rs.Disabled = b
					return nil
				},
			})
			if err != nil {
				return nil, err
			}
		default:
			return nil, p.at(v, "rule %s: want a severity, off, or {severity, disabled}", k.Value)
		}
		out = append(out, rs)
	}
	return out, nil
}

// allowPaths normalizes an allow list: a directory written with a
// trailing slash (third_party/) means everything below it.
func allowPaths(entries []string) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		if strings.HasSuffix(e, "/") {
			e += "**"
		}
		out[i] = e
	}
	return out
}

// requirementsPath checks a path of `requirements:`: a file pip reads
// with -r. A pyproject.toml, setup.cfg, setup.py or lock file holds pins
// in another format, which buildgate would read as requirement lines
// (and a fix would append one to): refused, saying so (issue 32: TGI's
// pins live in server/pyproject.toml).
func (p *parser) requirementsPath(n *yaml.Node, s string) error {
	if err := p.relPath(n, s); err != nil {
		return err
	}
	base := strings.ToLower(s[strings.LastIndex(s, "/")+1:])
	for _, ext := range []string{".toml", ".cfg", ".py", ".lock", ".json", ".yaml", ".yml"} {
		if strings.HasSuffix(base, ext) {
			return p.at(n, "requirements: %q is not a pip requirements file (pip -r reads requirement lines; a pin in %s is not read): list the requirements files that hold the pin, or none (requirements: []) when it is only in install commands", s, base)
		}
	}
	return nil
}
