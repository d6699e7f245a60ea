package process

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/internal/safefile"
)

// rulePolicyError is the meta rule of what a policy gives that buildgate
// does not accept (BG005), found by name: its METADATA is the one source
// of its id.
const rulePolicyError = "policy-error"

// policyCheck holds a policy's findings to what the run loaded (issue
// 26): a policy kept in the repository is the pull request's, so neither
// the place of a finding nor the target of its fix may be anywhere but a
// build file the run read.
//
//   - A finding whose path is not a clean path inside the root (absolute,
//     escaping with "..", a backslash, not slash-clean) is replaced by a
//     BG005 finding that names the rule and its policy: no report ever
//     carries a path out of the root.
//   - A fix is kept only on a finding of a document the run loaded, never
//     under .git (in any case), and, for a built-in rule, on a
//     requirements file the configuration names (BG201 creates one that
//     is missing). Any other fix is dropped and a BG005 finding says so;
//     the finding itself stays.
type policyCheck struct {
	loaded   map[string]bool
	required map[string]bool
	rules    map[string]finding.Rule
	meta     finding.Rule
}

// PolicyCheck is the step that holds every finding to the files the run
// loaded (policyCheck): loaded are the run's files, required the
// requirements files the configuration names.
func PolicyCheck(loaded, required []string, rules []finding.Rule) Step {
	return Step{Name: "paths and fixes", Fn: newPolicyCheck(loaded, required, rules).Apply}
}

func newPolicyCheck(loaded, required []string, rules []finding.Rule) *policyCheck {
	c := &policyCheck{loaded: map[string]bool{}, required: map[string]bool{}, rules: map[string]finding.Rule{}}
	for _, p := range loaded {
		c.loaded[p] = true
	}
	for _, p := range required {
		c.required[p] = true
	}
	for _, r := range rules {
		c.rules[r.ID] = r
		if r.Meta && r.Name == rulePolicyError {
			c.meta = r
		}
	}
	return c
}

// CleanPath reports whether p is a path a report may carry: "" (the
// repository) or a slash-separated relative path inside the root, clean,
// with no backslash, NUL or control character.
func CleanPath(p string) bool {
	if p == "" {
		return true
	}
	if path.IsAbs(p) || path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../") ||
		strings.ContainsAny(p, "\\\x00") || len(p) > 1 && p[1] == ':' {
		return false
	}
	return true
}

// Apply checks every finding; it returns the findings to keep and the
// BG005 findings it makes.
func (c *policyCheck) Apply(fs []finding.Finding) []finding.Finding {
	out := make([]finding.Finding, 0, len(fs))
	for _, f := range fs {
		if !CleanPath(f.Path) {
			out = append(out, c.made(f, fmt.Sprintf("reported a finding at %s, which is not a path inside the repository root; the finding (%s) is not reported as such",
				strconv.QuoteToASCII(f.Path), strconv.QuoteToASCII(f.Message))))
			continue
		}
		if f.Fix != nil {
			if why := c.fixRefused(f); why != "" {
				out = append(out, c.made(f, fmt.Sprintf("gave a fix for %s, %s: the fix is not applied (buildgate fixes only the build files a run reads)", strconv.QuoteToASCII(f.Path), why)))
				f.Fix = nil
			}
		}
		out = append(out, f)
	}
	return out
}

// fixRefused says why a finding's fix may not be applied ("" when it may).
func (c *policyCheck) fixRefused(f finding.Finding) string {
	r := c.rules[f.Rule]
	p := f.Fix.Pos
	switch {
	case f.Path == "":
		return "which names no file"
	case p.Line < 1 || p.Column < 1 || p.EndLine < p.Line || p.EndLine == p.Line && p.EndColumn < p.Column:
		return "at no valid position"
	case safefile.UnderGit(f.Path):
		return "which is under .git"
	case c.loaded[f.Path]:
		return ""
	case r.Pack == "" && c.required[f.Path]:
		return "" // BG201 adds the pin to a missing requirements file
	}
	return "which is not a build file this run loaded"
}

// made is the BG005 finding for what rule f.Rule did.
func (c *policyCheck) made(f finding.Finding, what string) finding.Finding {
	r := c.rules[f.Rule]
	who := fmt.Sprintf("rule %s (%s)", r.ID, r.Name)
	if r.File != "" {
		who += " of the policy " + strconv.QuoteToASCII(r.File)
	}
	if r.ID == "" {
		who = "rule " + strconv.QuoteToASCII(f.Rule)
	}
	return finding.Finding{Rule: c.meta.ID, Name: rulePolicyError, Severity: finding.SeverityError,
		Message: who + " " + what, Text: f.Rule + " " + f.Path}
}
