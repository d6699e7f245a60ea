package report

// The formats other CI systems read (issue 31): GitLab's Code Quality
// report (Code Climate JSON), checkstyle XML (reviewdog -f=checkstyle,
// Jenkins warnings-ng) and SonarQube's generic issue import.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/buildgate/buildgate/finding"
)

// repoPath is a finding's path as a report written for a CI system
// carries it: relative to the root, never absolute nor escaping it (an
// empty path, a repository-level finding, is ".").
func repoPath(p string) string {
	if p == "" {
		return "."
	}
	c := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return "."
	}
	return c
}

// CodeClimate is GitLab's Code Quality report: a JSON array of Code
// Climate issues, one per finding (suppressed ones left out), each with
// check_name, a severity GitLab knows, a relative path, lines.begin and a
// fingerprint unique in the report and stable across runs.
type CodeClimate struct{}

var codeClimateSeverity = map[string]string{
	finding.SeverityError:   "critical",
	finding.SeverityWarning: "major",
	finding.SeverityNote:    "minor",
}

type ccLines struct {
	Begin int `json:"begin"`
	End   int `json:"end,omitempty"`
}

type ccLocation struct {
	Path  string  `json:"path"`
	Lines ccLines `json:"lines"`
}

type ccIssue struct {
	Type        string     `json:"type"`
	CheckName   string     `json:"check_name"`
	Description string     `json:"description"`
	Categories  []string   `json:"categories"`
	Severity    string     `json:"severity"`
	Fingerprint string     `json:"fingerprint"`
	Location    ccLocation `json:"location"`
}

// Report implements Reporter.
func (CodeClimate) Report(w io.Writer, r *Result) error {
	fps := uniqueFingerprints(r.Findings)
	return writeJSON(w, findingsOf(indexes(r.Findings), func(i int) any {
		f := r.Findings[i]
		sev := codeClimateSeverity[f.Severity]
		if sev == "" {
			sev = "info"
		}
		begin := max(f.Pos.Line, 1)
		return ccIssue{
			Type: "issue", CheckName: f.Rule + " " + f.Name, Description: oneLine(f.Message),
			Categories: []string{"Bug Risk"}, Severity: sev, Fingerprint: fps[i],
			Location: ccLocation{Path: repoPath(f.Path), Lines: ccLines{Begin: begin, End: max(f.Pos.EndLine, begin)}},
		}
	}))
}

func indexes[T any](list []T) []int {
	out := make([]int, len(list))
	for i := range out {
		out[i] = i
	}
	return out
}

// uniqueFingerprints are the findings' fingerprints (finding.Fingerprints
// where a run did not set them) as hex digests GitLab compares between
// the source and target branch: stable while the finding is, and unique
// in the report (a repeat is told apart by its count).
func uniqueFingerprints(fs []finding.Finding) []string {
	base := finding.Fingerprints(fs)
	seen := map[string]int{}
	out := make([]string, len(fs))
	for i, f := range fs {
		fp := f.Fingerprint
		if fp == "" {
			fp = base[i]
		}
		seen[fp]++
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d", f.Rule, fp, seen[fp])))
		out[i] = hex.EncodeToString(sum[:16])
	}
	return out
}

// Checkstyle is checkstyle's XML: a <file> per path with an <error> per
// finding (line, column, severity error/warning/info, message, source the
// rule), as reviewdog -f=checkstyle and Jenkins warnings-ng read it.
type Checkstyle struct{}

type csError struct {
	XMLName  xml.Name `xml:"error"`
	Line     int      `xml:"line,attr"`
	Column   int      `xml:"column,attr,omitempty"`
	Severity string   `xml:"severity,attr"`
	Message  string   `xml:"message,attr"`
	Source   string   `xml:"source,attr"`
}

var checkstyleSeverity = map[string]string{
	finding.SeverityError:   "error",
	finding.SeverityWarning: "warning",
	finding.SeverityNote:    "info",
}

// Report implements Reporter.
func (Checkstyle) Report(w io.Writer, r *Result) error {
	var order []string
	byPath := map[string][]finding.Finding{}
	for _, f := range r.Findings {
		p := repoPath(f.Path)
		if _, ok := byPath[p]; !ok {
			order = append(order, p)
		}
		byPath[p] = append(byPath[p], f)
	}
	root := xml.StartElement{Name: xml.Name{Local: "checkstyle"}, Attr: []xml.Attr{attr("version", "8.0")}}
	return xmlDocument(w, root, func(enc *xml.Encoder) error {
		for _, p := range order {
			file := xml.StartElement{Name: xml.Name{Local: "file"}, Attr: []xml.Attr{attr("name", p)}}
			if err := enc.EncodeToken(file); err != nil {
				return err
			}
			for _, f := range byPath[p] {
				col := f.Pos.Column
				if r.ByteColumn != nil && col > 0 {
					col = r.ByteColumn(f.Path, f.Pos.Line, col) // reviewdog counts bytes
				}
				e := csError{Line: max(f.Pos.Line, 1), Column: col, Severity: checkstyleSeverity[f.Severity],
					Message: xmlSafe(oneLine(f.Message)), Source: f.Rule + " " + f.Name}
				if e.Severity == "" {
					e.Severity = "info"
				}
				if err := enc.Encode(e); err != nil {
					return err
				}
			}
			if err := enc.EncodeToken(file.End()); err != nil {
				return err
			}
		}
		return nil
	})
}

// xmlSafe drops the characters XML 1.0 cannot carry at all (control
// characters but tab, line feed and carriage return).
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return -1
		}
		return r
	}, s)
}

// SonarQube is SonarQube's generic issue import format (as hadolint
// writes it): {"issues": [...]}, each with engineId, ruleId, a severity
// SonarQube knows, a type and a primaryLocation with the message, the
// relative file path and a text range.
type SonarQube struct{}

var sonarSeverity = map[string]string{
	finding.SeverityError:   "CRITICAL",
	finding.SeverityWarning: "MAJOR",
	finding.SeverityNote:    "MINOR",
}

type sqRange struct {
	StartLine   int `json:"startLine"`
	EndLine     int `json:"endLine,omitempty"`
	StartColumn int `json:"startColumn,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

type sqLocation struct {
	Message   string  `json:"message"`
	FilePath  string  `json:"filePath"`
	TextRange sqRange `json:"textRange"`
}

type sqIssue struct {
	EngineID        string     `json:"engineId"`
	RuleID          string     `json:"ruleId"`
	Severity        string     `json:"severity"`
	Type            string     `json:"type"`
	PrimaryLocation sqLocation `json:"primaryLocation"`
}

// Report implements Reporter.
func (SonarQube) Report(w io.Writer, r *Result) error {
	return writeJSON(w, jsonObject{{"issues", findingsOf(r.Findings, func(f finding.Finding) any {
		sev := sonarSeverity[f.Severity]
		if sev == "" {
			sev = "INFO"
		}
		line := max(f.Pos.Line, 1)
		rng := sqRange{StartLine: line, EndLine: max(f.Pos.EndLine, line)}
		// SonarQube counts columns from 0 and wants an end after the
		// start on one line; columns here count from 1.
		if f.Pos.Column > 0 && f.Pos.EndColumn > f.Pos.Column && f.Pos.EndLine <= f.Pos.Line {
			rng.StartColumn, rng.EndColumn = f.Pos.Column-1, f.Pos.EndColumn-1
		}
		return sqIssue{EngineID: "buildgate", RuleID: f.Rule, Severity: sev, Type: "BUG",
			PrimaryLocation: sqLocation{Message: oneLine(f.Message), FilePath: repoPath(f.Path), TextRange: rng}}
	})}})
}
