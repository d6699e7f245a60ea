package report

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/buildgate/buildgate/engine"
)

// RulePage is a rule's documentation in Markdown: its catalogue entry from
// METADATA, then the sections of its hand-written page (the page's own
// heading is replaced by the generated one). SARIF's help.markdown and
// docs/rules/<id>.md are this text.
func RulePage(r engine.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s\n\n", r.ID, r.Name)
	fmt.Fprintf(&b, "**%s**\n\n", r.Title)
	fmt.Fprintf(&b, "| default severity | precision | tags |\n|---|---|---|\n| %s | %s | %s |\n\n",
		r.Severity, orDash(r.Precision), orDash(strings.Join(r.Tags, ", ")))
	body := strings.TrimSpace(r.Doc)
	if strings.HasPrefix(body, "# ") {
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			body = strings.TrimSpace(body[i+1:])
		} else {
			body = ""
		}
	}
	if body == "" {
		// A rule without a page (a user rule) is described by its METADATA.
		body = "## What it catches\n\n" + orDash(r.Description)
	}
	b.WriteString(body)
	b.WriteString("\n")
	return b.String()
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

var (
	mdHeading   = regexp.MustCompile(`(?m)^#+ +`)
	mdFence     = regexp.MustCompile("(?m)^```[a-z]*\n")
	mdTableRule = regexp.MustCompile(`(?m)^\|(---\|)+\n`)
	mdBold      = regexp.MustCompile(`\*\*([^*\n]+)\*\*`)
)

// RuleText is RulePage as plain text, for SARIF's help.text: headings,
// fences and table rules dropped, the rest as written.
func RuleText(r engine.Rule) string {
	s := RulePage(r)
	s = mdHeading.ReplaceAllString(s, "")
	s = mdFence.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\n```", "")
	s = mdTableRule.ReplaceAllString(s, "")
	s = mdBold.ReplaceAllString(s, "$1")
	return s
}
