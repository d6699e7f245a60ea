package report

import (
	"bufio"
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
	return buffered(w, func(b *bufio.Writer) error {
		for _, f := range r.Findings {
			githubLine(b, f)
		}
		// Suppressed findings stay visible in a pull request: one notice
		// counts them (issue 31).
		if n := len(r.Suppressed); n > 0 {
			fmt.Fprintf(b, "::notice title=buildgate::%s\n", escapeData(fmt.Sprintf("%s suppressed (buildgate:ignore comments or the configuration's ignore); buildgate lint --show-suppressed lists them", plural(n, "finding"))))
		}
		return nil
	})
}

// githubLine is one finding's annotation.
func githubLine(b *bufio.Writer, f finding.Finding) {
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
	fmt.Fprintf(b, "::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(visible(f.Message, true)))
}

// JUnit is JUnit XML in the form the Jenkins xunit schema (junit-10.xsd,
// which pytest validates against) accepts: one testsuite per file checked,
// a failing testcase per finding (its place in the failure's text, since
// testcase has no file or line attributes there), a passing one for a
// clean file, and with --show-suppressed a skipped one per suppressed
// finding, its reason the skip message.
type JUnit struct{}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Skipped   *junitSkipped `xml:"skipped"`
	Failure   *junitFailure `xml:"failure"`
	SystemOut string        `xml:"system-out,omitempty"`
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

// Report implements Reporter. The suites are written a test case at a
// time (stream.go); their counts come first, as attributes.
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
	tests, failures := 0, 0
	failRank := finding.SeverityRank(r.FailOn)
	if r.FailOn == "never" {
		failRank = finding.SeverityRank(finding.SeverityError) + 1 // nothing fails
	}
	for _, p := range order {
		tests += max(len(byPath[p]), 1)
		for _, f := range byPath[p] {
			if f.Suppression == nil && failing(f, failRank) {
				failures++
			}
		}
	}
	root := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: []xml.Attr{attr("name", "buildgate")}}
	if r.Elapsed > 0 {
		root.Attr = append(root.Attr, attr("time", fmt.Sprintf("%.3f", r.Elapsed.Seconds())))
	}
	root.Attr = append(root.Attr, attr("tests", fmt.Sprint(tests)), attr("failures", fmt.Sprint(failures)), attr("errors", "0"))
	return xmlDocument(w, root, func(enc *xml.Encoder) error {
		for _, p := range order {
			if err := junitSuite(enc, p, byPath[p], failRank); err != nil {
				return err
			}
		}
		return nil
	})
}

func attr(name, value string) xml.Attr { return xml.Attr{Name: xml.Name{Local: name}, Value: value} }

// xmlDocument writes an XML report: the header, root with what body
// encodes inside it, a final line break; through a runner-safe writer.
func xmlDocument(w io.Writer, root xml.StartElement, body func(enc *xml.Encoder) error) error {
	return encoded(w, XMLHash, func(w io.Writer) error {
		if _, err := io.WriteString(w, xml.Header); err != nil {
			return err
		}
		enc := xml.NewEncoder(w)
		enc.Indent("", "  ")
		if err := enc.EncodeToken(root); err != nil {
			return err
		}
		if err := body(enc); err != nil {
			return err
		}
		if err := enc.EncodeToken(root.End()); err != nil {
			return err
		}
		if err := enc.Flush(); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	})
}

// junitSuite writes the suite of one file: a test case per finding, a
// passing one for a clean file.
func junitSuite(enc *xml.Encoder, p string, fs []finding.Finding, failRank int) error {
	failures, skipped := 0, 0
	for _, f := range fs {
		switch {
		case f.Suppression != nil:
			skipped++
		case failing(f, failRank):
			failures++
		}
	}
	start := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
		attr("name", p), attr("tests", fmt.Sprint(max(len(fs), 1))), attr("failures", fmt.Sprint(failures)),
		attr("errors", "0"), attr("skipped", fmt.Sprint(skipped)),
	}}
	if err := enc.EncodeToken(start); err != nil {
		return err
	}
	tc := xml.StartElement{Name: xml.Name{Local: "testcase"}}
	if len(fs) == 0 {
		if err := enc.EncodeElement(junitCase{Name: "buildgate", Classname: junitClass(p)}, tc); err != nil {
			return err
		}
	}
	for _, f := range fs {
		if err := enc.EncodeElement(junitCaseOf(p, f, failRank), tc); err != nil {
			return err
		}
	}
	return enc.EncodeToken(start.End())
}

// failing reports whether a finding fails the run (its severity at
// --fail-on's or above; 0 ranks every finding as failing).
func failing(f finding.Finding, failRank int) bool {
	return failRank == 0 || finding.SeverityRank(f.Severity) >= failRank
}

// junitClass is a path as a JUnit classname: Jenkins splits a classname
// at its last '.' into package and class (docker/Dockerfile.rocm would be
// class `rocm` of package `docker/Dockerfile`), so dots become '·'.
func junitClass(p string) string { return strings.ReplaceAll(p, ".", "·") }

// junitCaseOf is the test case of one finding: failing; skipped when it
// is suppressed; passed, its message in system-out, when it is below
// --fail-on (GitLab and Jenkins count failures as failed tests).
func junitCaseOf(p string, f finding.Finding, failRank int) junitCase {
	name := f.Rule + " " + f.Name
	if f.Pos.Line > 0 {
		name += fmt.Sprintf(" at %d:%d", f.Pos.Line, f.Pos.Column)
	}
	c := junitCase{Name: name, Classname: junitClass(p)}
	if f.Suppression != nil {
		c.Skipped = &junitSkipped{Message: "suppressed (" + suppressionText(f) + "): " + oneLine(f.Message)}
		return c
	}
	if !failing(f, failRank) {
		c.SystemOut = fmt.Sprintf("%s: %s: %s [%s %s] (below --fail-on)", Where(f), f.Severity, f.Message, f.Rule, f.Name)
		return c
	}
	c.Failure = &junitFailure{
		Message: f.Message,
		Type:    f.Rule,
		Text:    fmt.Sprintf("%s: %s: %s [%s %s]", Where(f), f.Severity, f.Message, f.Rule, f.Name),
	}
	return c
}

// Markdown is a summary and a table per file, for `buildkite-agent
// annotate` and pull request comments.
type Markdown struct{}

// MaxMarkdownBytes bounds the markdown report: GitHub refuses a job
// summary over 1 MiB, and so does a Buildkite annotation.
const MaxMarkdownBytes = 1_000_000

// Report implements Reporter. Past MaxMarkdownBytes (less room for the
// closing line) the rows stop, and a line says how many findings of the
// total were left out.
func (Markdown) Report(w io.Writer, r *Result) error {
	return buffered(w, func(b *bufio.Writer) error {
		s := r.Summarize()
		sup := ""
		if s.Suppressed > 0 {
			sup = fmt.Sprintf(", %d suppressed", s.Suppressed)
		}
		if s.Findings == 0 {
			if sup != "" {
				sup = " (" + sup[2:] + ")"
			}
			fmt.Fprintf(b, "### buildgate: no findings in %s%s\n", plural(s.Files, "file"), sup)
			markdownSuppressed(&budget{w: b, left: MaxMarkdownBytes}, r)
			return nil
		}
		out := &budget{w: b, left: MaxMarkdownBytes - 512}
		out.printf("### buildgate: %s in %s (%s, %s, %s%s)\n",
			plural(s.Findings, "finding"), plural(s.Files, "file"),
			plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Notes, "note"), sup)
		current := "\x00"
		shown := 0
		for _, f := range r.Findings {
			var row strings.Builder
			if f.Path != current {
				head := repositoryName
				if f.Path != "" {
					head = mdCode(f.Path)
				}
				fmt.Fprintf(&row, "\n#### %s\n\n| severity | rule | line | message |\n|---|---|---|---|\n", head)
			}
			fmt.Fprintf(&row, "| %s | %s | %d:%d | %s |\n", f.Severity, mdText(f.Rule+" "+f.Name), f.Pos.Line, f.Pos.Column, mdText(f.Message))
			if !out.fits(row.Len()) {
				break
			}
			current = f.Path
			out.printf("%s", row.String())
			shown++
		}
		if shown < len(r.Findings) {
			fmt.Fprintf(b, "\n%d of %d findings left out: this report is capped at %d bytes (GitHub's job summary limit); the text, SARIF and JSON reports have them all\n", len(r.Findings)-shown, len(r.Findings), MaxMarkdownBytes)
			return nil
		}
		markdownSuppressed(out, r)
		return nil
	})
}

// budget writes while a byte budget lasts.
type budget struct {
	w    io.Writer
	left int
}

func (b *budget) fits(n int) bool { return n <= b.left }

func (b *budget) printf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if len(s) > b.left {
		return
	}
	b.left -= len(s)
	_, _ = io.WriteString(b.w, s)
}

// markdownSuppressed lists the suppressed findings with --show-suppressed,
// within the report's budget.
func markdownSuppressed(b *budget, r *Result) {
	if !r.ShowSuppressed || len(r.Suppressed) == 0 {
		return
	}
	b.printf("\n#### Suppressed (%d)\n\n| severity | rule | where | message | reason |\n|---|---|---|---|---|\n", len(r.Suppressed))
	for _, f := range r.Suppressed {
		where := repositoryName
		if f.Path != "" {
			where = mdCode(fmt.Sprintf("%s:%d:%d", f.Path, f.Pos.Line, f.Pos.Column))
		}
		b.printf("| %s | %s | %s | %s | %s |\n", f.Severity, mdText(f.Rule+" "+f.Name), where, mdText(f.Message), mdText(suppressionText(f)))
	}
}
