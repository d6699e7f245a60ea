// Package config reads .buildgate.yaml: the migrations to guard, per-rule
// severity overrides and exclude globs. Every error names the file and line.
package config

import (
	_ "embed"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/buildgate/buildgate/kind"
	"github.com/buildgate/buildgate/pep440"
	"go.yaml.in/yaml/v3"
)

// FileName is the configuration file looked for at the repository root.
const FileName = ".buildgate.yaml"

//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML is the built-in configuration, as a user would write it.
func DefaultYAML() []byte { return append([]byte(nil), defaultYAML...) }

// Migration is one "stopped building X from source, pinned its wheel".
type Migration struct {
	Package      string   `json:"package"`
	Minimum      string   `json:"minimum"`
	Requirements []string `json:"requirements"`
	Variants     []string `json:"variants"`
	Names        []string `json:"names"`
	BuildArgs    []string `json:"build_args"`
	// Toggles are variables that switch the source build on when set to
	// a true value, beyond those found by name (BUILD_<NAME>, WITH_<NAME> …).
	Toggles      []string `json:"toggles"`
	Repositories []string `json:"repositories"`
	Scope        []string `json:"scope"`
	// Platform are words that show a build file is for the package's
	// platform (rocm, hip); OtherPlatforms words of builds for others
	// (cuda, ascend). A file that shows another platform and not this
	// one is not this package's source build; with Platform set, a wheel
	// path that only names the package counts only in a file that shows
	// this platform.
	Platform       []string `json:"platform"`
	OtherPlatforms []string `json:"other_platforms"`
	// Indexes are the package indexes the package may come from (index
	// URLs, compared without a trailing slash); empty: the public index,
	// https://pypi.org/simple.
	Indexes []string `json:"indexes"`
	// Allow are names and variables that are not the source build's
	// whatever they look like (TRITON_CACHE_DIR, triton's runtime kernel
	// cache), and paths (globs: an entry with a / or a wildcard) the
	// source-build rules leave alone: what context cannot decide. The
	// top-level `allow:` adds to every migration's.
	Allow []string `json:"allow"`
}

// RuleSetting overrides a rule. Key is the rule id or name as written.
type RuleSetting struct {
	Key      string
	Severity string // "" keeps the rule's own
	Disabled bool
	Line     int
}

// Ignore is an entry of `ignore:`: findings of Rule (id or name) in files
// matching Path are suppressed, for Reason, until the end of Until (a
// date, zero for no end).
type Ignore struct {
	Rule   string
	Path   string
	Reason string
	Until  time.Time
	Line   int
}

// Config is a loaded configuration.
type Config struct {
	// Source names where it came from, for messages.
	Source     string
	Migrations []Migration
	Rules      []RuleSetting
	Exclude    []string
	Ignores    []Ignore
	// Kinds add paths to a kind: files matching a glob are that kind of
	// build file whatever their names say (a pipeline YAML at an
	// unconventional place). The first matching entry wins.
	Kinds []KindGlobs
}

// KindGlobs are the globs of one entry of `kinds:`.
type KindGlobs struct {
	Kind  string
	Globs []string
}

// KindNames are the kinds `kinds:` may name.
var KindNames = kind.Names()

// KindOf is the kind the configuration gives a root-relative path.
func (c *Config) KindOf(rel string) (string, bool) {
	for _, k := range c.Kinds {
		for _, g := range k.Globs {
			if ok, _ := doublestar.Match(g, rel); ok {
				return k.Kind, true
			}
		}
	}
	return "", false
}

// Error is a configuration error at a line of a file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// DefaultSource is the Source of the built-in configuration.
const DefaultSource = "(built-in default)"

// Default is the built-in configuration.
func Default() *Config {
	c, err := Parse(DefaultSource, defaultYAML, nil)
	if err != nil {
		panic(err)
	}
	return c
}

// Parse reads configuration text. Keys it does not set come from base
// (nil: none).
func Parse(name string, data []byte, base *Config) (*Config, error) {
	p := &parser{file: name}
	c := &Config{Source: name, Migrations: []Migration{}}
	if base != nil {
		c.Migrations = base.Migrations
		c.Rules = append(c.Rules, base.Rules...)
		c.Exclude = append(c.Exclude, base.Exclude...)
		c.Kinds = append(c.Kinds, base.Kinds...)
	}
	var doc yaml.Node
	var allow []string
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, p.yamlErr(err)
	}
	if len(doc.Content) == 0 {
		return c, nil // an empty file changes nothing
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, p.at(root, "the configuration must be a mapping with migrations, rules and exclude")
	}
	err := p.mapping(root, map[string]func(*yaml.Node) error{
		"migrations": func(n *yaml.Node) error {
			ms, err := p.migrations(n)
			c.Migrations = ms
			return err
		},
		"rules": func(n *yaml.Node) error {
			rs, err := p.rules(n)
			c.Rules = append(c.Rules, rs...)
			return err
		},
		"exclude": func(n *yaml.Node) error {
			gs, err := p.globs(n)
			c.Exclude = append(c.Exclude, gs...)
			return err
		},
		"kinds": func(n *yaml.Node) error {
			ks, err := p.kinds(n)
			c.Kinds = append(c.Kinds, ks...)
			return err
		},
		"ignore": func(n *yaml.Node) error {
			is, err := p.ignores(n)
			c.Ignores = append(c.Ignores, is...)
			return err
		},
		"allow": func(n *yaml.Node) error {
			var err error
			allow, err = p.strs(n, "allow", p.allowEntry)
			allow = allowPaths(allow)
			return err
		},
	})
	if err != nil {
		return nil, err
	}
	if len(allow) > 0 {
		// Every migration's, the default's too when the file keeps it;
		// copies, so the base configuration is not changed.
		ms := make([]Migration, len(c.Migrations))
		for i, m := range c.Migrations {
			m.Allow = append(append([]string(nil), m.Allow...), allow...)
			ms[i] = m
		}
		c.Migrations = ms
	}
	return c, nil
}

func (p *parser) at(n *yaml.Node, format string, args ...any) error {
	return &Error{File: p.file, Line: n.Line, Msg: fmt.Sprintf(format, args...)}
}

var yamlLineRe = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (p *parser) yamlErr(err error) error {
	if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: p.file, Line: line, Msg: m[2]}
	}
	return &Error{File: p.file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
}

// mapping walks a mapping node, refusing keys it does not know and keys
// given twice.
func (p *parser) mapping(n *yaml.Node, fields map[string]func(*yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return p.at(n, "expected a mapping")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, ok := fields[k.Value]
		if !ok {
			return p.at(k, "unknown key %q (known: %s)", k.Value, strings.Join(sortedKeys(fields), ", "))
		}
		if seen[k.Value] {
			return p.at(k, "key %q given twice", k.Value)
		}
		seen[k.Value] = true
		if err := f(v); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) str(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.at(n, "%s must be a string", what)
	}
	return n.Value, nil
}

func (p *parser) strs(n *yaml.Node, what string, check func(*yaml.Node, string) error) ([]string, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return []string{}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, p.at(n, "%s must be a list", what)
	}
	out := []string{}
	for _, item := range n.Content {
		s, err := p.str(item, what+" entries")
		if err != nil {
			return nil, err
		}
		if s == "" {
			return nil, p.at(item, "%s: empty entry", what)
		}
		if check != nil {
			if err := check(item, s); err != nil {
				return nil, err
			}
		}
		out = append(out, s)
	}
	return out, nil
}

var (
	projectRe  = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	argRe      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	severities = map[string]bool{"error": true, "warning": true, "note": true}
)

func (p *parser) migrations(n *yaml.Node) ([]Migration, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.at(n, "migrations must be a list")
	}
	out := []Migration{}
	for _, item := range n.Content {
		m := Migration{Requirements: []string{}, Variants: []string{}, Names: []string{},
			BuildArgs: []string{}, Toggles: []string{}, Repositories: []string{}, Scope: []string{},
			Platform: []string{}, OtherPlatforms: []string{}, Indexes: []string{}}
		list := func(dst *[]string, what string, check func(*yaml.Node, string) error) func(*yaml.Node) error {
			return func(v *yaml.Node) error {
				s, err := p.strs(v, what, check)
				*dst = s
				return err
			}
		}
		err := p.mapping(item, map[string]func(*yaml.Node) error{
			"package": func(v *yaml.Node) error {
				s, err := p.str(v, "package")
				if err == nil && !projectRe.MatchString(s) {
					err = p.at(v, "package %q is not a valid project name", s)
				}
				m.Package = s
				return err
			},
			"minimum": func(v *yaml.Node) error {
				if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
					return nil // optional: no minimum
				}
				s, err := p.str(v, "minimum")
				if err != nil {
					return err
				}
				if _, perr := pep440.Parse(s); perr != nil {
					return p.at(v, "minimum %q is not a PEP 440 version: %v", s, perr)
				}
				m.Minimum = s
				return nil
			},
			"requirements": list(&m.Requirements, "requirements", p.requirementsPath),
			"variants": list(&m.Variants, "variants", func(v *yaml.Node, s string) error {
				if !projectRe.MatchString(s) {
					return p.at(v, "variant %q is not a valid project name", s)
				}
				return nil
			}),
			"names": list(&m.Names, "names", func(v *yaml.Node, s string) error {
				if !regexp.MustCompile(`^[A-Za-z0-9]+$`).MatchString(s) {
					return p.at(v, "name token %q must be letters and digits (it is matched against the parts of names split at - _ .)", s)
				}
				return nil
			}),
			"build_args": list(&m.BuildArgs, "build_args", func(v *yaml.Node, s string) error {
				if !argRe.MatchString(s) {
					return p.at(v, "build argument %q is not a variable name", s)
				}
				return nil
			}),
			"toggles": list(&m.Toggles, "toggles", func(v *yaml.Node, s string) error {
				if !argRe.MatchString(s) {
					return p.at(v, "toggle %q is not a variable name", s)
				}
				return nil
			}),
			"repositories":    list(&m.Repositories, "repositories", nil),
			"scope":           list(&m.Scope, "scope", p.glob),
			"platform":        list(&m.Platform, "platform", p.platformWord),
			"other_platforms": list(&m.OtherPlatforms, "other_platforms", p.platformWord),
			"allow": func(v *yaml.Node) error {
				s, err := p.strs(v, "allow", p.allowEntry)
				m.Allow = allowPaths(s)
				return err
			},
			"indexes": list(&m.Indexes, "indexes", func(v *yaml.Node, s string) error {
				if !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "file://") {
					return p.at(v, "index %q must be a URL (https://…)", s)
				}
				return nil
			}),
		})
		if err != nil {
			return nil, err
		}
		if m.Package == "" {
			return nil, p.at(item, "a migration needs a package")
		}
		for i, r := range m.Repositories {
			m.Repositories[i] = normalizeRepo(r)
		}
		out = append(out, m)
	}
	return out, nil
}

// normalizeRepo keeps host and path: a clone URL, an SSH address or a
// .git suffix all name the same repository.
func normalizeRepo(r string) string {
	for _, pre := range []string{"https://", "http://", "git://", "ssh://", "git+https://", "git@"} {
		r = strings.TrimPrefix(r, pre)
	}
	r = strings.Replace(r, ":", "/", 1)
	return strings.TrimSuffix(strings.TrimSuffix(r, "/"), ".git")
}

func (p *parser) relPath(n *yaml.Node, s string) error {
	if path.IsAbs(s) || s != path.Clean(s) || s == ".." || strings.HasPrefix(s, "../") || strings.Contains(s, "\\") {
		return p.at(n, "%q must be a clean slash-separated path relative to the repository root", s)
	}
	return nil
}

// platformWord is a word matched against the words of a file (runs of
// letters and digits, any case), or a prefix of one when it ends in *.
func (p *parser) platformWord(n *yaml.Node, s string) error {
	if !regexp.MustCompile(`^[A-Za-z0-9]+\*?$`).MatchString(s) {
		return p.at(n, "platform word %q must be letters and digits, optionally ending in * (it is matched against the words of a file)", s)
	}
	return nil
}

func (p *parser) glob(n *yaml.Node, s string) error {
	if !doublestar.ValidatePattern(s) {
		return p.at(n, "%q is not a valid glob", s)
	}
	return nil
}

// Excluded reports whether a slash-separated path relative to the root
// matches an exclude glob (a glob matching a directory excludes what is
// below it).
func (c *Config) Excluded(rel string) bool {
	for _, g := range c.Exclude {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
		if ok, _ := doublestar.Match(strings.TrimSuffix(g, "/")+"/**", rel); ok {
			return true
		}
	}
	return false
}

// PolicyInput is what policies see as input.config.
func (c *Config) PolicyInput() map[string]any {
	return map[string]any{"migrations": c.Migrations}
}

// RequiredFiles are the requirements files some migration asks for,
// sorted: the lint run loads them whatever paths it was given.
func (c *Config) RequiredFiles() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range c.Migrations {
		for _, r := range m.Requirements {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
