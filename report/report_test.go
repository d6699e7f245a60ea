package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/buildgate/buildgate/finding"
)

func sample() *Result {
	return &Result{
		Tool:  Tool{Name: "buildgate", Version: "1.0.0"},
		Paths: []string{"Dockerfile", "docker/ci.hcl", "requirements/rocm.txt"},
		Findings: []finding.Finding{
			{Rule: "BG101", Name: "source-build-stage", Severity: "error", Message: "stage `m` builds x\nfrom source", Path: "Dockerfile",
				Pos: finding.Pos{Line: 3, Column: 14, EndLine: 3, EndColumn: 29}},
			{Rule: "BG204", Name: "wheel-variant-mismatch", Severity: "warning", Message: "variant", Path: "requirements/rocm.txt",
				Pos: finding.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 25}},
		},
	}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := (Text{}).Report(&b, sample()); err != nil {
		t.Fatal(err)
	}
	want := "Dockerfile:3:14: error: stage `m` builds x from source [BG101 source-build-stage]\n" +
		"requirements/rocm.txt:1:1: warning: variant [BG204 wheel-variant-mismatch]\n" +
		"3 files checked, 2 findings: 1 error, 1 warning, 0 notes; 0 suppressed\n" +
		"by rule: 1 BG101 source-build-stage, 1 BG204 wheel-variant-mismatch\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := (Text{Color: true}).Report(&b, sample()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\x1b[1;31merror\x1b[0m") {
		t.Errorf("no colour: %q", b.String())
	}
}

func TestJSONShape(t *testing.T) {
	var b bytes.Buffer
	if err := (JSON{}).Report(&b, sample()); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	f := got["findings"].([]any)[0].(map[string]any)
	var keys []string
	for k := range f {
		keys = append(keys, k)
	}
	if len(keys) != 9 || f["end_column"].(float64) != 29 || f["message"] != "stage `m` builds x\nfrom source" {
		t.Errorf("finding %v", f)
	}
	s := got["summary"].(map[string]any)
	if s["files"].(float64) != 3 || s["errors"].(float64) != 1 || s["warnings"].(float64) != 1 || s["notes"].(float64) != 0 || s["findings"].(float64) != 2 {
		t.Errorf("summary %v", s)
	}
	b.Reset()
	if err := (JSON{}).Report(&b, &Result{}); err != nil || !strings.Contains(b.String(), `"findings": []`) {
		t.Errorf("empty report: %s", b.String())
	}
}

func hostile() *Result {
	return &Result{
		Tool:  Tool{Name: "buildgate", Version: "1.0.0"},
		Paths: []string{"dir,x/a:b.sh", "clean.sh"},
		Findings: []finding.Finding{{
			Rule: "BG999", Name: "odd", Severity: "warning",
			Message: "100% \"quoted\" <tag> & a: b, c\nsecond line\r\nthird",
			Path:    "dir,x/a:b.sh", Pos: finding.Pos{Line: 2, Column: 3, EndLine: 2, EndColumn: 7},
		}, {
			Rule: "BG998", Name: "note", Severity: "note", Message: "plain", Path: "",
		}},
	}
}

func TestGitHubEscaping(t *testing.T) {
	var b bytes.Buffer
	if err := (GitHub{}).Report(&b, hostile()); err != nil {
		t.Fatal(err)
	}
	want := "::warning file=dir%2Cx/a%3Ab.sh,line=2,endLine=2,col=3,endColumn=6,title=BG999 odd::100%25 \"quoted\" <tag> & a: b, c%0Asecond line%0D%0Athird\n" +
		"::notice title=BG998 note::plain\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestJUnitEscaping(t *testing.T) {
	var b bytes.Buffer
	if err := (JUnit{}).Report(&b, hostile()); err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="buildgate" tests="3" failures="2" errors="0">
  <testsuite name="dir,x/a:b.sh" tests="1" failures="1" errors="0" skipped="0">
    <testcase name="BG999 odd at 2:3" classname="dir,x/a:b·sh">
      <failure message="100% &#34;quoted&#34; &lt;tag&gt; &amp; a: b, c&#xA;second line&#xD;&#xA;third" type="BG999">dir,x/a:b.sh:2:3: warning: 100% &#34;quoted&#34; &lt;tag&gt; &amp; a: b, c&#xA;second line&#xD;&#xA;third [BG999 odd]</failure>
    </testcase>
  </testsuite>
  <testsuite name="clean.sh" tests="1" failures="0" errors="0" skipped="0">
    <testcase name="buildgate" classname="clean·sh"></testcase>
  </testsuite>
  <testsuite name="(repository)" tests="1" failures="1" errors="0" skipped="0">
    <testcase name="BG998 note" classname="(repository)">
      <failure message="plain" type="BG998">(repository): note: plain [BG998 note]</failure>
    </testcase>
  </testsuite>
</testsuites>
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestMarkdownEscaping(t *testing.T) {
	var b bytes.Buffer
	if err := (Markdown{}).Report(&b, hostile()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| warning | BG999 odd | 2:3 | 100% \"quoted\" \\<tag\\> \\& a: b, c second line third |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	b.Reset()
	if err := (Markdown{}).Report(&b, &Result{Paths: []string{"a"}}); err != nil || b.String() != "### buildgate: no findings in 1 file\n" {
		t.Errorf("clean markdown %q", b.String())
	}
}

// A pull request names files and writes policies: what it controls is
// shown, never obeyed, by the terminal, the CI log and the job summary.
func TestReportsEscapePullRequestText(t *testing.T) {
	evil := "x\n::add-mask::secret\n::stop-commands::tok\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\x1b[2J\u202e"
	r := &Result{Paths: []string{"::error title=x::pwn/Dockerfile"}, Findings: []finding.Finding{
		{Rule: "X1\n::error::y", Name: "n\x1b[31m", Severity: "error", Message: evil + " ![img](https://evil.example/i.png) [l](https://evil.example) <img src=x onerror=alert(1)> <details open> www.evil.example https://evil.example",
			Path: "::error title=x::pwn/Dockerfile", Pos: finding.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 2}},
		{Rule: "X2", Name: "m", Severity: "error", Message: "m", Path: "a`b|c\n## h/<b>x</b>/![i](j)", Pos: finding.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 2}},
	}}
	for _, format := range []string{"text", "github", "markdown"} {
		rep, _ := New(format, Options{})
		var b bytes.Buffer
		if err := rep.Report(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, c := range out {
			if c != '\n' && (c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0 || c == 0x202e) {
				t.Errorf("%s: control character %U in the output:\n%q", format, c, out)
				break
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if format != "github" && (strings.HasPrefix(line, "::") || strings.HasPrefix(line, "##[")) {
				t.Errorf("%s: a line a runner obeys: %q", format, line)
			}
			if format == "github" && strings.HasPrefix(line, "::") && !strings.HasPrefix(line, "::error ") {
				t.Errorf("github: a command not ours: %q", line)
			}
		}
		if format == "markdown" {
			// Code spans show their text verbatim: what is outside them
			// must hold no Markdown that acts.
			out = stripCodeSpans(out)
			// An unescaped tag, image or link, or a URL GitHub links.
			for _, bad := range []string{`(^|[^\\])<[a-zA-Z/]`, `(^|[^\\])!\[`, `(^|[^\\])\]\(`, `https?:/`, `https?\\:\\/`, `www\.`, `www\\\.`} {
				if regexp.MustCompile(bad).MatchString(out) {
					t.Errorf("markdown holds %s:\n%s", bad, out)
				}
			}
		}
	}
}

func stripCodeSpans(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		fence, rest := s[i:i+n], s[i+n:]
		end := -1
		for j := 0; j < len(rest); {
			k := strings.Index(rest[j:], fence)
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(rest) && rest[k+m] == '`' {
				m++
			}
			if m == n && (k == 0 || rest[k-1] != '`') {
				end = k
				break
			}
			j = k + m
		}
		if end < 0 {
			b.WriteString(fence)
			i += n
			continue
		}
		b.WriteString("CODE")
		i += n + end + n
	}
	return b.String()
}

func TestSARIFTruncated(t *testing.T) {
	r := sample()
	r.Rules = []finding.Rule{{ID: "BG101", Name: "source-build-stage", Title: "t", Severity: "error"}, {ID: "BG204", Name: "wheel-variant-mismatch", Title: "t", Severity: "warning"}}
	var b bytes.Buffer
	if err := (SARIF{MaxResults: 1}).Report(&b, r); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results     []any `json:"results"`
			Invocations []struct {
				Notifications []map[string]any `json:"toolExecutionNotifications"`
			} `json:"invocations"`
			Properties map[string]any `json:"properties"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Results) != 1 || run.Properties["resultsTruncated"] != true || len(run.Invocations[0].Notifications) != 1 {
		t.Errorf("truncated run: %s", b.String())
	}
	if err := (SARIF{}).Report(&b, &Result{Findings: []finding.Finding{{Rule: "X"}}}); err == nil {
		t.Error("a finding of a rule outside the catalogue must be an error")
	}
}

func TestFingerprints(t *testing.T) {
	fs := []finding.Finding{
		{Rule: "A", Path: "p", Text: "make   install", Pos: finding.Pos{Line: 1}},
		{Rule: "A", Path: "p", Text: "make install", Pos: finding.Pos{Line: 9}},
		{Rule: "A", Path: "q", Text: "make install"},
		{Rule: "B", Path: "p", Message: "file-level"},
	}
	got := finding.Fingerprints(fs)
	h := strings.Split(got[0], ":")[0]
	if got[0] != h+":1" || got[1] != h+":2" || strings.HasPrefix(got[2], h) || strings.HasPrefix(got[3], h) {
		t.Errorf("fingerprints %v", got)
	}
}

// Issue 15: the cap keeps the most severe results, counts suppressed ones
// inside it (when they are included at all), and says what it left out.
func TestSARIFCapBySeverity(t *testing.T) {
	rules := []finding.Rule{{ID: "E", Name: "e", Title: "t", Severity: "error"}, {ID: "W", Name: "w", Title: "t", Severity: "warning"}, {ID: "N", Name: "n", Title: "t", Severity: "note"}}
	r := &Result{Rules: rules}
	// Notes first in path order, errors last: a cut in path order would
	// keep the notes.
	for i := 0; i < 6; i++ {
		r.Findings = append(r.Findings, finding.Finding{Rule: "N", Severity: "note", Path: "a", Pos: finding.Pos{Line: i + 1}})
	}
	for i := 0; i < 3; i++ {
		r.Findings = append(r.Findings, finding.Finding{Rule: "E", Severity: "error", Path: "z", Pos: finding.Pos{Line: i + 1}})
	}
	r.Suppressed = []finding.Finding{{Rule: "W", Severity: "warning", Path: "m", Pos: finding.Pos{Line: 1}, Suppression: &finding.Suppression{Kind: "inSource", Justification: "why"}}}
	r.SARIFSuppressed = true
	var b bytes.Buffer
	if err := (SARIF{MaxResults: 5}).Report(&b, r); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
			Properties map[string]any `json:"properties"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	var got []string
	for _, res := range run.Results {
		got = append(got, res.RuleID)
	}
	// Kept: the 3 errors, the suppressed warning and 1 note, ordered by
	// severity (issue 31: any cut a consumer makes keeps the most severe).
	if strings.Join(got, "") != "EEEWN" {
		t.Errorf("kept %v", got)
	}
	omitted, _ := run.Properties["resultsOmitted"].(map[string]any)
	if run.Properties["resultsTotal"] != float64(10) || omitted["note"] != float64(5) || omitted["error"] != float64(0) {
		t.Errorf("properties %v", run.Properties)
	}
}

// What a pull request writes is shown, never acted on: Visible leaves no
// control character, mdText no Markdown that acts outside its code spans.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a\nb", "\x1b]8;;x\x07y", "![i](https://x) <b> www.x", "`a` `b", "\u202e\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range Visible(s) + mdText(s) + mdCode(s) {
			if c < 0x20 && c != '\t' || c == 0x7f || c >= 0x80 && c < 0xa0 || c == 0x202e {
				t.Fatalf("%q left %U", s, c)
			}
		}
		out := stripCodeSpans(mdText(s))
		if regexp.MustCompile(`(^|[^\\])<[a-zA-Z/]|(^|[^\\])!\[|https?://`).MatchString(out) {
			t.Fatalf("%q: %q", s, out)
		}
		for _, l := range []string{SafeLine(s, true), SafeLine(s, false), SafeDiff(" " + s)} {
			if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") || strings.Contains(l, "##[") {
				t.Fatalf("%q: %q", s, l)
			}
		}
	})
}

// Issue 31: GitHub refuses an upload with a rule of more than 20 tags;
// the SARIF keeps the first 20 and says so.
func TestSARIFTagCap(t *testing.T) {
	var tags []string
	for i := 0; i < 21; i++ {
		tags = append(tags, fmt.Sprintf("t%d", i))
	}
	r := &Result{Rules: []finding.Rule{{ID: "U1", Name: "u", Title: "t", Severity: "error", Tags: tags}}}
	var b bytes.Buffer
	if err := (SARIF{}).Report(&b, r); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						Properties struct {
							Tags []string `json:"tags"`
						} `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				Notifications []struct {
					Message struct{ Text string } `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if n := len(run.Tool.Driver.Rules[0].Properties.Tags); n != 20 {
		t.Errorf("%d tags", n)
	}
	if len(run.Invocations[0].Notifications) != 1 || !strings.Contains(run.Invocations[0].Notifications[0].Message.Text, "rule U1 has 21 tags") {
		t.Errorf("notifications %+v", run.Invocations[0].Notifications)
	}
}

// Issue 31: with --fail-on error, a note is a passed test case carrying
// its message in system-out (GitLab and Jenkins count failures as failed
// tests); "never" fails none.
func TestJUnitFailOn(t *testing.T) {
	r := &Result{Findings: []finding.Finding{
		{Rule: "E1", Name: "e", Severity: "error", Message: "bad", Path: "a.txt", Pos: finding.Pos{Line: 1, Column: 1}},
		{Rule: "N1", Name: "n", Severity: "note", Message: "fyi", Path: "a.txt", Pos: finding.Pos{Line: 2, Column: 1}},
	}, FailOn: "error"}
	out := render(t, "junit", r)
	if !strings.Contains(out, `tests="2" failures="1"`) || !strings.Contains(out, "<system-out>a.txt:2:1: note: fyi [N1 n] (below --fail-on)</system-out>") || !strings.Contains(out, `classname="a·txt"`) {
		t.Errorf("%s", out)
	}
	r.FailOn = "never"
	if out := render(t, "junit", r); !strings.Contains(out, `failures="0"`) || strings.Contains(out, "<failure") {
		t.Errorf("never: %s", out)
	}
}
