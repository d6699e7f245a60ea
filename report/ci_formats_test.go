package report

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/finding"
)

// Issue 31: GitLab's Code Quality report, valid against GitLab's own
// schema entry by entry (its parser stops at the first entry that fails)
// with the fields GitLab's docs ask for; fingerprints unique and stable.
func TestCodeClimate(t *testing.T) {
	s := schema(t, "../../shared/schemas/gitlab-codequality.json", "https://gitlab.com/codeclimate.json")
	r := contractResult(t)
	out := render(t, "codeclimate", r)
	var issues []map[string]any
	if err := json.Unmarshal([]byte(out), &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != len(r.Findings) {
		t.Fatalf("%d entries for %d findings", len(issues), len(r.Findings))
	}
	seen := map[string]bool{}
	for i, is := range issues {
		b, _ := json.Marshal(is)
		validate(t, s, "entry", string(b))
		sev, _ := is["severity"].(string)
		if !strings.Contains("info minor major critical blocker", sev) || sev == "" {
			t.Errorf("entry %d: severity %q", i, sev)
		}
		if is["check_name"] == "" || is["description"] == "" {
			t.Errorf("entry %d: %v", i, is)
		}
		loc := is["location"].(map[string]any)
		p := loc["path"].(string)
		if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "..") {
			t.Errorf("entry %d: path %q", i, p)
		}
		if begin := loc["lines"].(map[string]any)["begin"].(float64); begin < 1 {
			t.Errorf("entry %d: lines.begin %v", i, begin)
		}
		fp := is["fingerprint"].(string)
		if seen[fp] {
			t.Errorf("fingerprint %s twice", fp)
		}
		seen[fp] = true
	}
	if again := render(t, "codeclimate", contractResult(t)); again != out {
		t.Error("fingerprints differ between two runs")
	}
}

// Identical findings (the same element twice in a file) keep apart, and
// paths outside the root never reach a report for a CI system.
func TestCIFormatsEdges(t *testing.T) {
	f := finding.Finding{Rule: "U1", Name: "u", Severity: finding.SeverityError, Message: "m\x01sg", Path: "a.sh", Pos: finding.Pos{Line: 2, Column: 1, EndLine: 2, EndColumn: 3}}
	out1, out2 := f, f
	out1.Path, out2.Path = "../outside.txt", "/etc/passwd"
	r := &Result{Findings: []finding.Finding{f, f, out1, out2}}
	var cc []ccIssue
	if err := json.Unmarshal([]byte(render(t, "codeclimate", r)), &cc); err != nil {
		t.Fatal(err)
	}
	if cc[0].Fingerprint == cc[1].Fingerprint {
		t.Error("two identical findings share a fingerprint")
	}
	for _, format := range []string{"codeclimate", "checkstyle", "sonarqube"} {
		out := render(t, format, r)
		if strings.Contains(out, "outside.txt") && strings.Contains(out, "../") || strings.Contains(out, "/etc/passwd") {
			t.Errorf("%s carries an escaping path:\n%s", format, out)
		}
	}
	var cs struct {
		Files []struct {
			Name   string `xml:"name,attr"`
			Errors []struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"file"`
	}
	if err := xml.Unmarshal([]byte(render(t, "checkstyle", r)), &cs); err != nil {
		t.Fatalf("checkstyle is not XML: %v", err)
	}
	if len(cs.Files) != 2 || len(cs.Files[0].Errors) != 2 || cs.Files[0].Errors[0].Message != "msg" {
		t.Errorf("checkstyle: %+v", cs)
	}
	var sq struct {
		Issues []sqIssue `json:"issues"`
	}
	if err := json.Unmarshal([]byte(render(t, "sonarqube", r)), &sq); err != nil || len(sq.Issues) != 4 || sq.Issues[0].PrimaryLocation.TextRange.StartColumn != 0 || sq.Issues[0].PrimaryLocation.TextRange.EndColumn != 2 {
		t.Errorf("sonarqube: %v %+v", err, sq)
	}
}

// Issue 31: the markdown report stays under GitHub's job summary limit
// whatever the count, and says how many findings it left out; it counts
// the suppressed ones in its headline.
func TestMarkdownBound(t *testing.T) {
	long := strings.Repeat("x", 300)
	r := &Result{Paths: []string{"a"}, Suppressed: []finding.Finding{{Rule: "U1"}}}
	for i := 0; i < 6000; i++ {
		r.Findings = append(r.Findings, finding.Finding{Rule: "U1", Name: "u", Severity: "error", Message: long, Path: "a", Pos: finding.Pos{Line: i + 1, Column: 1}})
	}
	out := render(t, "markdown", r)
	if len(out) > MaxMarkdownBytes {
		t.Errorf("%d bytes", len(out))
	}
	if !strings.Contains(out, "of 6000 findings left out") || !strings.Contains(out, "1 suppressed") {
		t.Errorf("no count:\n%s", out[len(out)-300:])
	}
	r.Findings = nil
	if out := render(t, "markdown", r); !strings.HasPrefix(out, "### buildgate: no findings in 1 file (1 suppressed)") {
		t.Errorf("%q", out)
	}
}

// Issue 31: every rdjson suggestion lies on its diagnostic's lines (what
// reviewdog asks to post it on GitHub); whole-line deletions are
// line-based and end on the last deleted line; an insertion is the line
// before it and the new line.
func TestRDJSONSuggestionsOnTheirLines(t *testing.T) {
	r := &Result{
		Findings: []finding.Finding{
			{Rule: "BG101", Severity: "error", Message: "stage", Path: "Dockerfile", Pos: finding.Pos{Line: 3, Column: 6, EndLine: 3, EndColumn: 10},
				Fix: &finding.Fix{Pos: finding.Pos{Line: 2, Column: 1, EndLine: 5, EndColumn: 1}}},
			{Rule: "BG201", Severity: "error", Message: "pin", Path: "requirements/rocm.txt", Pos: finding.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1},
				Fix: &finding.Fix{Replacement: "pkg >= 1\n", Pos: finding.Pos{Line: 3, Column: 1, EndLine: 3, EndColumn: 1}}},
		},
		SourceLine: func(p string, n int) (string, bool) {
			if p == "requirements/rocm.txt" && n == 2 {
				return "torch", true
			}
			return "", false
		},
	}
	var doc struct {
		Diagnostics []rdDiagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(render(t, "rdjson", r)), &doc); err != nil {
		t.Fatal(err)
	}
	for _, d := range doc.Diagnostics {
		sg := d.Suggestions[0]
		if d.Location.Range.Start.Line != sg.Range.Start.Line || endLine(d.Location.Range) != endLine(&sg.Range) {
			t.Errorf("%s: comment L%d-L%d, suggestion L%d-L%d", d.Code.Value, d.Location.Range.Start.Line, endLine(d.Location.Range), sg.Range.Start.Line, endLine(&sg.Range))
		}
	}
	del, ins := doc.Diagnostics[0].Suggestions[0], doc.Diagnostics[1].Suggestions[0]
	if del.Range.Start != (rdPosition{Line: 2}) || endLine(&del.Range) != 4 || del.Text != "" {
		t.Errorf("deletion %+v", del)
	}
	if ins.Range.Start != (rdPosition{Line: 2}) || endLine(&ins.Range) != 2 || ins.Text != "torch\npkg >= 1" {
		t.Errorf("insertion %+v", ins)
	}
}
