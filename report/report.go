// Package report renders a lint result. Reporters know findings and
// rules, nothing of how they were produced.
package report

import (
	"bufio"
	"fmt"
	"github.com/buildgate/buildgate/finding"
	"io"
	"sort"
	"strings"
	"time"
)

// Tool names the program in reports.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Summary counts a result.
type Summary struct {
	Files      int `json:"files"`
	Findings   int `json:"findings"`
	Errors     int `json:"errors"`
	Warnings   int `json:"warnings"`
	Notes      int `json:"notes"`
	Suppressed int `json:"suppressed"`
}

// Result is everything a reporter may show.
type Result struct {
	Tool     Tool
	Rules    []finding.Rule
	Findings []finding.Finding
	// Paths are the files checked.
	Paths []string
	// Suppressed are the findings suppressions cover (not reported, but
	// counted, and kept in SARIF as dismissed).
	Suppressed []finding.Finding
	// ShowSuppressed lists them in text, JSON, markdown and JUnit too
	// (never in SARIF: see SARIFSuppressed).
	ShowSuppressed bool
	// SARIFSuppressed puts them in SARIF too, marked with suppressions.
	// Off by default: GitHub code scanning shows a suppressed result as an
	// open alert unless the repository opts into treating them as
	// dismissed.
	SARIFSuppressed bool
	// Elapsed is how long the run took (JUnit's time).
	Elapsed time.Duration
	// ByteColumn, when set, turns a column (Unicode code points, as
	// findings count) on a line of a file into a UTF-8 byte column, which
	// reviewdog counts.
	ByteColumn func(path string, line, column int) int
	// SourceLine, when set, gives a line of a file (without its line
	// break): rdjson turns an insertion into a replacement of the line
	// before it, which reviewdog can post as a suggestion.
	SourceLine func(path string, line int) (string, bool)
	// Baselined counts findings left out because the baseline has them;
	// NotNew those left out because they are on unchanged lines.
	Baselined, NotNew int
	// Notifications are about the run, not the files' content.
	Notifications []Notification
	// Category tells runs of one repository apart in code scanning.
	Category string
	// Note is one line the text report adds after its summary (what the
	// run means for this repository), "" for none.
	Note string
	// FailOn is --fail-on's severity (error, warning, note, never; ""
	// fails on every finding): JUnit reports the findings below it as
	// passed test cases.
	FailOn string
	// Fixable counts the findings buildgate fix fixes; UnsafeFixable
	// those only --unsafe-fixes fixes (the text report says so).
	Fixable, UnsafeFixable int
	// VersionControl is set when the root is a git checkout.
	VersionControl *VersionControl
}

// Summarize counts findings by severity.
func (r *Result) Summarize() Summary {
	s := Summary{Files: len(r.Paths), Findings: len(r.Findings), Suppressed: len(r.Suppressed)}
	for _, f := range r.Findings {
		switch f.Severity {
		case finding.SeverityError:
			s.Errors++
		case finding.SeverityWarning:
			s.Warnings++
		case finding.SeverityNote:
			s.Notes++
		}
	}
	return s
}

// Reporter writes a result in one format.
type Reporter interface {
	Report(w io.Writer, r *Result) error
}

// Options configure the reporters.
type Options struct {
	Color       bool   // text: colour the severities
	HelpURIBase string // sarif: base of each rule's helpUri
}

// New returns the reporter for a format name.
func New(format string, o Options) (Reporter, bool) {
	switch format {
	case "text":
		return Text{Color: o.Color}, true
	case "json":
		return JSON{}, true
	case "sarif":
		return SARIF{HelpURIBase: o.HelpURIBase}, true
	case "github":
		return GitHub{}, true
	case "junit":
		return JUnit{}, true
	case "markdown":
		return Markdown{}, true
	case "rdjson":
		return RDJSON{HelpURIBase: o.HelpURIBase}, true
	case "rdjsonl":
		return RDJSON{Lines: true, HelpURIBase: o.HelpURIBase}, true
	case "codeclimate":
		return CodeClimate{}, true
	case "checkstyle":
		return Checkstyle{}, true
	case "sonarqube":
		return SonarQube{}, true
	}
	return nil, false
}

// FormatNames lists the format names, for help and errors.
var FormatNames = []string{"text", "json", "sarif", "github", "junit", "markdown", "rdjson", "rdjsonl", "codeclimate", "checkstyle", "sonarqube"}

// Text is gcc-style output: path:line:col: severity: message [ID name].
type Text struct{ Color bool }

var colors = map[string]string{
	finding.SeverityError:   "\x1b[1;31m",
	finding.SeverityWarning: "\x1b[1;33m",
	finding.SeverityNote:    "\x1b[1;36m",
}

// Report implements Reporter.
func (t Text) Report(w io.Writer, r *Result) error {
	return buffered(w, func(b *bufio.Writer) error {
		for _, f := range r.Findings {
			sev := f.Severity
			if t.Color {
				sev = colors[f.Severity] + sev + "\x1b[0m"
			}
			fmt.Fprintf(b, "%s: %s: %s [%s]\n", Where(f), sev, Visible(oneLine(f.Message)), ruleLabel(f))
		}
		if r.ShowSuppressed {
			for _, f := range r.Suppressed {
				fmt.Fprintf(b, "%s: suppressed %s: %s [%s] (%s)\n", Where(f), f.Severity, Visible(oneLine(f.Message)), ruleLabel(f), suppressionText(f))
			}
		}
		s := r.Summarize()
		fmt.Fprintf(b, "%s checked, %s: %s, %s, %s; %d suppressed",
			plural(s.Files, "file"), plural(s.Findings, "finding"),
			plural(s.Errors, "error"), plural(s.Warnings, "warning"), plural(s.Notes, "note"), s.Suppressed)
		if r.Baselined > 0 {
			fmt.Fprintf(b, ", %d in the baseline", r.Baselined)
		}
		if r.NotNew > 0 {
			fmt.Fprintf(b, ", %d on unchanged lines", r.NotNew)
		}
		// The bufio.Writer keeps its first error; buffered's Flush
		// returns it.
		fmt.Fprintf(b, "\n")
		if line := byRule(r.Findings); line != "" {
			fmt.Fprintf(b, "%s\n", line)
		}
		if line := fixableLine(r.Fixable, r.UnsafeFixable); line != "" {
			fmt.Fprintf(b, "%s\n", line)
		}
		if r.Note != "" {
			// The caller's line may quote a rule id or a path: shown, not
			// obeyed, as every line of this report.
			fmt.Fprintf(b, "%s\n", SafeLine(r.Note, false))
		}
		return nil
	})
}

// byRule is the count of findings per rule, in rule order ("by rule: 12
// BG101 source-build-stage, 1 BG201 wheel-pin-missing"), "" for none: a
// run with many findings says at a glance what kind they are.
func byRule(fs []finding.Finding) string {
	if len(fs) == 0 {
		return ""
	}
	type key struct{ id, name string }
	n := map[key]int{}
	for _, f := range fs {
		n[key{f.Rule, f.Name}]++
	}
	keys := make([]key, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].id < keys[j].id })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", n[k], Visible(k.id+" "+k.name))
	}
	return "by rule: " + strings.Join(parts, ", ")
}

// Where is a finding's place as gcc prints it: path:line:col, the path
// alone for a file-level finding, (repository) for one about no file. The
// path is printed as SafePath has it.
func Where(f finding.Finding) string {
	switch {
	case f.Path == "":
		return repositoryName
	case f.Pos.Line == 0:
		return SafePath(f.Path)
	}
	return fmt.Sprintf("%s:%d:%d", SafePath(f.Path), f.Pos.Line, f.Pos.Column)
}

// ruleLabel is "ID name" as text prints it (a user rule's METADATA is the
// pull request's too).
func ruleLabel(f finding.Finding) string { return Visible(f.Rule + " " + f.Name) }

func suppressionText(f finding.Finding) string {
	s := f.Suppression
	if s == nil {
		return ""
	}
	where := "buildgate:ignore"
	if s.Kind == "external" {
		where = "configuration"
	}
	if s.Justification == "" {
		return where + ", no reason given"
	}
	return where + ": " + Visible(oneLine(s.Justification))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// JSON is the machine-readable report; its shape is a public interface.
// With Fingerprints set (a baseline file) each finding carries its
// fingerprint too.
type JSON struct{ Fingerprints bool }

type jsonFinding struct {
	Rule      string `json:"rule"`
	Name      string `json:"name"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	// Only in baseline files and with --show-suppressed.
	Fingerprint string               `json:"fingerprint,omitempty"`
	Suppression *finding.Suppression `json:"suppression,omitempty"`
	// Fix is the edit buildgate fix makes for the finding (its own fix,
	// or the removal of a source build), when there is one.
	Fix *jsonFix `json:"fix,omitempty"`
}

// jsonFix is an edit: the text that replaces the range.
type jsonFix struct {
	Description string `json:"description"`
	Replacement string `json:"replacement"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	EndLine     int    `json:"end_line"`
	EndColumn   int    `json:"end_column"`
	// Unsafe: buildgate fix applies it only with --unsafe-fixes.
	Unsafe       bool   `json:"unsafe,omitempty"`
	UnsafeReason string `json:"unsafe_reason,omitempty"`
}

// Report implements Reporter.
func (j JSON) Report(w io.Writer, r *Result) error {
	list := r.Findings
	if r.ShowSuppressed {
		list = append(append([]finding.Finding(nil), list...), r.Suppressed...)
	}
	return writeJSON(w, jsonObject{
		{"tool", r.Tool},
		{"findings", findingsOf(list, func(f finding.Finding) any { return j.finding(f) })},
		{"summary", r.Summarize()},
	})
}

// finding is a finding as the JSON report writes it.
func (j JSON) finding(f finding.Finding) jsonFinding {
	jf := jsonFinding{
		Rule: f.Rule, Name: f.Name, Severity: f.Severity, Message: f.Message, Path: f.Path,
		Line: f.Pos.Line, Column: f.Pos.Column, EndLine: f.Pos.EndLine, EndColumn: f.Pos.EndColumn,
		Suppression: f.Suppression,
	}
	if j.Fingerprints {
		jf.Fingerprint = f.Fingerprint
	}
	if x := f.Fix; x != nil && f.Path != "" && !j.Fingerprints {
		jf.Fix = &jsonFix{Description: x.Description, Replacement: x.Replacement,
			Line: x.Pos.Line, Column: x.Pos.Column, EndLine: x.Pos.EndLine, EndColumn: x.Pos.EndColumn,
			Unsafe: x.Unsafe, UnsafeReason: x.UnsafeReason}
	}
	return jf
}

// fixableLine says how many findings fix can fix, as ruff does: "12
// fixable with `buildgate fix` (3 more with --unsafe-fixes)"; "" for none.
func fixableLine(safe, unsafe int) string {
	switch {
	case safe == 0 && unsafe == 0:
		return ""
	case unsafe == 0:
		return fmt.Sprintf("%d fixable with `buildgate fix`", safe)
	}
	return fmt.Sprintf("%d fixable with `buildgate fix` (%d more with --unsafe-fixes)", safe, unsafe)
}
