// The rule catalogue: rules and their METADATA, pages.

package engine

import (
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"github.com/buildgate/buildgate/finding"
	"github.com/open-policy-agent/opa/v1/ast"
)

// ruleSet is the first rule set (deny, warn, info) a module defines, ""
// when none.
func ruleSet(m *ast.Module) string {
	for _, rule := range m.Rules {
		set := rule.Head.Name.String()
		if len(rule.Head.Reference) > 0 {
			if v, ok := rule.Head.Reference[0].Value.(ast.Var); ok {
				set = v.String()
			}
		}
		if _, ok := setSeverity[set]; ok {
			return set
		}
	}
	return ""
}

// collectRules finds every package under RulesRoot with a deny, warn or
// info set and reads its package METADATA.
func collectRules(c *ast.Compiler, mods []Module) ([]finding.Rule, error) {
	packOf := map[string]string{}
	for _, m := range mods {
		packOf[m.Name] = m.Pack
	}
	byPkg := map[string]*finding.Rule{}
	var order []string
	for _, name := range sortedKeys(c.Modules) {
		m := c.Modules[name]
		pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
		meta := strings.HasPrefix(pkg, MetaRoot+".")
		if !strings.HasPrefix(pkg, RulesRoot+".") && !meta {
			if set := ruleSet(m); set != "" && packOf[name] != "" {
				// A user's deny/warn/info outside the rules' root
				// would never run: a gate that silently checks
				// nothing (conftest's `package main`).
				return nil, fmt.Errorf("%s: package %s defines %s, but buildgate evaluates only the rules under data.%s (write `package %s.NAME`; docs/writing-policies.md)", name, pkg, set, RulesRoot, RulesRoot)
			}
			continue
		}
		r := byPkg[pkg]
		if r == nil {
			last := pkg[strings.LastIndex(pkg, ".")+1:]
			r = &finding.Rule{ID: last, Name: strings.ReplaceAll(last, "_", "-"), Package: pkg, File: name, Pack: packOf[name], Meta: meta}
			byPkg[pkg] = r
			order = append(order, pkg)
		}
		for _, rule := range m.Rules {
			set := rule.Head.Name.String()
			if len(rule.Head.Reference) > 0 {
				set = rule.Head.Reference[0].Value.(ast.Var).String()
			}
			if _, ok := setSeverity[set]; ok && !contains(r.Sets, set) {
				r.Sets = append(r.Sets, set)
			}
		}
		for _, a := range m.Annotations {
			if a.Scope != "package" {
				continue
			}
			if err := applyMetadata(r, a); err != nil {
				return nil, err
			}
		}
	}
	var rules []finding.Rule
	for _, pkg := range order {
		r := byPkg[pkg]
		if len(r.Sets) == 0 && !r.Meta {
			continue
		}
		if r.Meta {
			r.Sets = nil
		}
		sort.Strings(r.Sets)
		if r.Severity == "" && len(r.Sets) > 0 {
			r.Severity = setSeverity[r.Sets[0]]
		}
		if r.Severity == "" {
			r.Severity = finding.SeverityWarning
		}
		if r.Title == "" {
			r.Title = r.Name
		}
		rules = append(rules, *r)
	}
	seen := map[string]string{}
	for _, r := range rules {
		if err := checkNames(r); err != nil {
			return nil, err
		}
		if other, dup := seen[r.ID]; dup {
			return nil, &CompileError{Errors: []string{fmt.Sprintf("%s: rule id %s is also used by %s", r.File, r.ID, other)}}
		}
		seen[r.ID] = r.File
	}
	sort.SliceStable(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	return rules, nil
}

// ruleWord is what a rule id and name may be: the configuration keys
// them, a buildgate:ignore comment names them as words, and every report
// prints them. A user rule's METADATA is the pull request's text: an id
// holding a line break and "::add-mask::" or "##[" would put a workflow
// command on a CI log through any printer that forgot to escape it, so
// such an id is refused where rules are collected, once.
var ruleWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// checkNames refuses a rule whose id or name is not a ruleWord.
func checkNames(r finding.Rule) error {
	for _, f := range []struct{ what, v string }{{"id", r.ID}, {"name", r.Name}} {
		if !ruleWord.MatchString(f.v) {
			return &CompileError{Errors: []string{fmt.Sprintf("%s: rule %s %q: a rule's %s is at most 64 letters, digits, '_', '-' and '.', starting with a letter or digit (METADATA custom.%s, else the package's last segment)",
				r.File, f.what, f.v, f.what, f.what)}}
		}
	}
	return nil
}

func applyMetadata(r *finding.Rule, a *ast.Annotations) error {
	where := r.File
	if a.Location != nil {
		where = fmt.Sprintf("%s:%d", a.Location.File, a.Location.Row)
	}
	if a.Title != "" {
		r.Title = a.Title
	}
	if a.Description != "" {
		r.Description = strings.TrimSpace(a.Description)
	}
	for k, v := range a.Custom {
		switch k {
		case "id", "name", "severity", "precision":
			s, ok := v.(string)
			if !ok {
				return &CompileError{Errors: []string{fmt.Sprintf("%s: METADATA custom.%s must be a string", where, k)}}
			}
			switch k {
			case "id":
				r.ID = s
			case "name":
				r.Name = s
			case "severity":
				if finding.SeverityRank(s) == 0 {
					return &CompileError{Errors: []string{fmt.Sprintf("%s: METADATA custom.severity %q: want error, warning or note", where, s)}}
				}
				r.Severity = s
			case "precision":
				r.Precision = s
			}
		case "repository_level", "locked":
			b, ok := v.(bool)
			if !ok {
				return &CompileError{Errors: []string{fmt.Sprintf("%s: METADATA custom.%s must be true or false", where, k)}}
			}
			if k == "locked" {
				r.Locked = b
			} else {
				r.RepositoryLevel = b
			}
		case "tags":
			list, ok := v.([]any)
			if !ok {
				return &CompileError{Errors: []string{fmt.Sprintf("%s: METADATA custom.tags must be a list", where)}}
			}
			for _, t := range list {
				r.Tags = append(r.Tags, fmt.Sprint(t))
			}
		}
	}
	return nil
}

// AttachDocs reads each rule's page, the .md file beside its policy file,
// from fsys (the file system its modules were read from).
func (e *Engine) AttachDocs(fsys fs.FS) {
	for i := range e.rules {
		b, err := fs.ReadFile(fsys, strings.TrimSuffix(e.rules[i].File, ".rego")+".md")
		if err == nil {
			e.rules[i].Doc = string(b)
		}
	}
}

// SetDoc sets the page of a rule (for user rules, whose pages are files
// beside their policies).
func (e *Engine) SetDoc(id, doc string) {
	for i := range e.rules {
		if e.rules[i].ID == id {
			e.rules[i].Doc = doc
		}
	}
}

// Rules is the catalogue, sorted by id.
func (e *Engine) Rules() []finding.Rule { return append([]finding.Rule(nil), e.rules...) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
