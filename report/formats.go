package report

import (
	"encoding/xml"
	"fmt"
	"github.com/buildgate/buildgate/finding"
	"io"
	"strings"
)

// GitHub prints GitHub Actions workflow commands: one annotation per
// finding on its file and lines.
type GitHub struct{}

// escapeData and escapeProperty follow @actions/core's command encoding.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Report implements Reporter.
func (GitHub) Report(w io.Writer, r *Result) error {
	var b strings.Builder
	for _, f := range r.Findings {
		cmd := map[string]string{finding.SeverityError: "error", finding.SeverityWarning: "warning"}[f.Severity]
		if cmd == "" {
			cmd = "notice"
		}
		var props []string
		if f.Path != "" {
			props = append(props, "file="+escapeProperty(visible(f.Path, false)))
			if f.Pos.Line > 0 {
				props = append(props,
					fmt.Sprintf("line=%d", f.Pos.Line), fmt.Sprintf("endLine=%d", f.Pos.EndLine),
					fmt.Sprintf("col=%d", f.Pos.Column))
				if f.Pos.EndLine == f.Pos.Line && f.Pos.EndColumn > f.Pos.Column {
					// GitHub's endColumn is inclusive; ours is one past the end.
					props = append(props, fmt.Sprintf("endColumn=%d", f.Pos.EndColumn-1))
				}
			}
		}
		props = append(props, "title="+escapeProperty(visible(f.Rule+" "+f.Name, false)))
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(visible(f.Message, true)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JUnit is JUnit XML in the form the Jenkins xunit schema (junit-10.xsd,
// which pytest validates against) accepts: one testsuite per file checked,
// a failing testcase per finding (its place in the failure's text, since
// testcase has no file or line attributes there), a passing one for a
// clean file, and with --show-suppressed a skipped one per suppressed
// finding, its reason the skip message.
type JUnit struct{}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Time     string       `xml:"time,attr,omitempty"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Skipped   *junitSkipped `xml:"skipped"`
	Failure   *junitFailure `xml:"failure"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

const repositoryName = "(repository)"

// Report implements Reporter.
func (JUnit) Report(w io.Writer, r *Result) error {
	byPath := map[string][]finding.Finding{}
	var order []string
	add := func(p string) {
		if _, ok := byPath[p]; !ok {
			byPath[p] = nil
			order = append(order, p)
		}
	}
	for _, p := range r.Paths {
		add(p)
	}
	list := r.Findings
	if r.ShowSuppressed {
		list = append(append([]finding.Finding(nil), list...), r.Suppressed...)
	}
	for _, f := range list {
		p := f.Path
		if p == "" {
			p = repositoryName
		}
		add(p)
		byPath[p] = append(byPath[p], f)
	}
	out := junitSuites{Name: "buildgate"}
	if r.Elapsed > 0 {
		out.Time = fmt.Sprintf("%.3f", r.Elapsed.Seconds())
	}
	for _, p := range order {
		s := junitSuite{Name: p}
		for _, f := range byPath[p] {
			name, where := f.Rule+" "+f.Name, Where(f)
			if f.Pos.Line > 0 {
				name += fmt.Sprintf(" at %d:%d", f.Pos.Line, f.Pos.Column)
			}
			c := junitCase{Name: name, Classname: p}
			if f.Suppression != nil {
				c.Skipped = &junitSkipped{Message: "suppressed (" + suppressionText(f) + "): " + oneLine(f.Message)}
				s.Skipped++
			} else {
				c.Failure = &junitFailure{
					Message: f.Message,
					Type:    f.Rule,
					Text:    fmt.Sprintf("%s: %s: %s [%s %s]", where, f.Severity, f.Message, f.Rule, f.Name),
				}
				s.Failures++
			}
			s.Cases = append(s.Cases, c)
		}
		if len(s.Cases) == 0 {
			s.Cases = []junitCase{{Name: "buildgate", Classname: p}}
		}
		s.Tests = len(s.Cases)
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// Markdown is a summary and a table per file, for `buildkite-agent
// annotate` and pull request comments.
type Markdown struct{}

// Report implements Reporter.
func (Markdown) Report(w io.Writer, r *Result) error {
	var b strings.Builder
	s := r.Summarize()
	if s.Findings == 0 {
		fmt.Fprintf(&b, "### buildgate: no findings in %s\n", plural(s.Files, "file"))
		markdownSuppressed(&b, r)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "### buildgate: %s in %s (%s, %s, %s)\n",
		plural(s.Findings, "finding"), plural(s.Files, "file"),
		plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Notes, "note"))
	current := "\x00"
	for _, f := range r.Findings {
		if f.Path != current {
			current = f.Path
			head := repositoryName
			if f.Path != "" {
				head = mdCode(f.Path)
			}
			fmt.Fprintf(&b, "\n#### %s\n\n| severity | rule | line | message |\n|---|---|---|---|\n", head)
		}
		fmt.Fprintf(&b, "| %s | %s | %d:%d | %s |\n", f.Severity, mdText(f.Rule+" "+f.Name), f.Pos.Line, f.Pos.Column, mdText(f.Message))
	}
	markdownSuppressed(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownSuppressed lists the suppressed findings with --show-suppressed.
func markdownSuppressed(b *strings.Builder, r *Result) {
	if !r.ShowSuppressed || len(r.Suppressed) == 0 {
		return
	}
	fmt.Fprintf(b, "\n#### Suppressed (%d)\n\n| severity | rule | where | message | reason |\n|---|---|---|---|---|\n", len(r.Suppressed))
	for _, f := range r.Suppressed {
		where := repositoryName
		if f.Path != "" {
			where = mdCode(fmt.Sprintf("%s:%d:%d", f.Path, f.Pos.Line, f.Pos.Column))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", f.Severity, mdText(f.Rule+" "+f.Name), where, mdText(f.Message), mdText(suppressionText(f)))
	}
}
