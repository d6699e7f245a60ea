package report

import (
	"fmt"
	"github.com/buildgate/buildgate/finding"
	"regexp"
	"strings"
)

// RulePage is a rule's documentation in Markdown: its catalogue entry from
// METADATA, then the sections of its hand-written page (the page's own
// heading is replaced by the generated one). SARIF's help.markdown and
// docs/rules/<id>.md are this text.
func RulePage(r finding.Rule) string {
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
	mdHeading   = regexp.MustCompile(`^#+ +`)
	mdTableRule = regexp.MustCompile(`^\|(---\|)+$`)
	mdBold      = regexp.MustCompile(`\*\*([^*\n]+)\*\*`)
)

// RuleText is RulePage as plain text, for SARIF's help.text: headings'
// marks, fences and table rules dropped; code inside fences as written.
func RuleText(r finding.Rule) string {
	var b strings.Builder
	inFence := false
	for _, line := range strings.Split(RulePage(r), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inFence = !inFence
			continue
		case inFence:
		case mdTableRule.MatchString(line):
			continue
		default:
			line = mdBold.ReplaceAllString(mdHeading.ReplaceAllString(line, ""), "$1")
		}
		b.WriteString(line)
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
