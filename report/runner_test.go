package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/buildgate/buildgate/finding"
)

// runnerSafe is in through RunnerSafe, written in writes of the sizes
// given (the rest in one write).
func runnerSafe(t *testing.T, in string, sizes ...int) string {
	t.Helper()
	var b bytes.Buffer
	rs := NewRunnerSafe(&b, JSONHash)
	for _, n := range sizes {
		n = min(n, len(in))
		if _, err := rs.Write([]byte(in[:n])); err != nil {
			t.Fatal(err)
		}
		in = in[n:]
	}
	if _, err := rs.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if err := rs.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRunnerSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain [text] # and #", "plain [text] # and #"},
		{"##[error]x", `\u0023#[error]x`},
		{"a ##[stop-commands]tok b", `a \u0023#[stop-commands]tok b`},
		{"###[x", `#\u0023#[x`},
		{"##[##[", `\u0023#[\u0023#[`},
		{"#[ ## [ #x#[", "#[ ## [ #x#["},
		{"##", "##"},
		{"##\n[", "##\n["},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := runnerSafe(t, tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			// Split anywhere, in two writes or byte by byte: the same.
			for i := 0; i <= len(tt.in); i++ {
				if got := runnerSafe(t, tt.in, i); got != tt.want {
					t.Errorf("split at %d: %q", i, got)
				}
			}
			ones := make([]int, len(tt.in))
			for i := range ones {
				ones[i] = 1
			}
			if got := runnerSafe(t, tt.in, ones...); got != tt.want {
				t.Errorf("byte by byte: %q", got)
			}
		})
	}
}

func FuzzRunnerSafe(f *testing.F) {
	for _, s := range []string{"##[", "###[x##", "a#b[c##[d"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, split int) {
		if split < 0 {
			split = -split
		}
		out := runnerSafe(t, s, split%(len(s)+1))
		if strings.Contains(out, "##[") {
			t.Fatalf("%q: %q", s, out)
		}
		// Decoding the escape gives the text back.
		if back := strings.ReplaceAll(out, JSONHash, "#"); back != s {
			t.Fatalf("%q came back as %q", s, back)
		}
	})
}

// runnerCommands are the lines of out a GitHub runner takes as commands
// (actions/runner: lines split at \n, \r and \r\n; "::" after leading
// white space, or "##[" anywhere).
func runnerCommands(out string) []string {
	var cmds []string
	for _, l := range regexp.MustCompile(`\r\n|\r|\n`).Split(out, -1) {
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") || strings.Contains(l, "##[") {
			cmds = append(cmds, l)
		}
	}
	return cmds
}

// Every format, every string a pull request controls: no line a runner
// obeys but the github format's own annotations, and the encoded formats
// decode to the text as it was (red-team case 5).
func TestEveryFormatIsRunnerSafe(t *testing.T) {
	evil := "x ##[stop-commands]tok\n::add-mask::secret\r\n \u00a0::error::pwn ###[error]y"
	path := "##[error]dir/\u2003::x/Dockerfile"
	f := finding.Finding{Rule: "X1", Name: "n", Severity: "error", Message: evil, Path: path,
		Pos: finding.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 2}, Fingerprint: "f:1",
		Fix: &finding.Fix{Description: evil, Replacement: evil, Pos: finding.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 2}}}
	sup := f
	sup.Suppression = &finding.Suppression{Kind: "inSource", Justification: evil}
	r := &Result{
		Tool:          Tool{Name: "buildgate", Version: "1.0.0"},
		Rules:         []finding.Rule{{ID: "X1", Name: "n", Title: evil, Description: evil, Doc: "# X1\n\n" + evil, Tags: []string{evil}, Precision: evil, Severity: "error"}},
		Findings:      []finding.Finding{f, {Rule: "X1", Name: "n", Severity: "warning", Message: evil}},
		Suppressed:    []finding.Finding{sup},
		Paths:         []string{path},
		Notifications: []Notification{{Level: "error", Message: evil, Path: path}},
		Note:          "next: " + evil,
		Category:      "##[error]c",
	}
	for _, format := range FormatNames {
		for _, show := range []bool{false, true} {
			r.ShowSuppressed, r.SARIFSuppressed = show, show
			out := render(t, format, r)
			cmds := runnerCommands(out)
			if format == "github" {
				// Ours: one annotation a finding, and one notice counting
				// the suppressed ones (issue 31), nothing else.
				ours := 0
				for _, c := range cmds {
					if regexp.MustCompile(`^::(error|warning|notice) `).MatchString(c) && !strings.Contains(c, "##[") {
						ours++
					}
				}
				if ours != len(r.Findings)+1 || len(cmds) != ours {
					t.Errorf("github: %d lines a runner obeys, %d of them ours:\n%s", len(cmds), ours, strings.Join(cmds, "\n"))
				}
				continue
			}
			if len(cmds) > 0 {
				t.Errorf("%s: lines a runner obeys:\n%s", format, strings.Join(cmds, "\n"))
			}
			if !strings.Contains(out, "stop-commands") {
				t.Errorf("%s: the text is gone:\n%s", format, out)
			}
			decodesIntact(t, format, out, evil, path)
		}
	}
}

// decodesIntact checks that an encoded format gives back the finding's
// message and path as they were.
func decodesIntact(t *testing.T, format, out, msg, path string) {
	t.Helper()
	var got []string
	switch format {
	case "json":
		var v struct {
			Findings []struct{ Message, Path string }
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("json: %v", err)
		}
		got = []string{v.Findings[0].Message, v.Findings[0].Path}
	case "sarif":
		var v struct {
			Runs []struct {
				Tool struct {
					Driver struct {
						Rules []struct{ ShortDescription struct{ Text string } }
					}
				}
				Results []struct{ Message struct{ Text string } }
			}
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("sarif: %v", err)
		}
		got = []string{v.Runs[0].Results[0].Message.Text, path}
		if v.Runs[0].Tool.Driver.Rules[0].ShortDescription.Text != msg {
			t.Errorf("sarif: the rule's title is %q", v.Runs[0].Tool.Driver.Rules[0].ShortDescription.Text)
		}
	case "rdjson", "rdjsonl":
		line := out
		if format == "rdjsonl" {
			line, _, _ = strings.Cut(out, "\n")
		}
		var d struct {
			Message  string
			Location struct{ Path string }
		}
		if format == "rdjson" {
			var v struct{ Diagnostics []json.RawMessage }
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("rdjson: %v", err)
			}
			line = string(v.Diagnostics[0])
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		got = []string{d.Message, d.Location.Path}
	case "junit":
		var v struct {
			Suites []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Failure *struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("junit: %v", err)
		}
		got = []string{v.Suites[0].Cases[0].Failure.Message, v.Suites[0].Name}
	default:
		return
	}
	if got[0] != msg || got[1] != path {
		t.Errorf("%s: decodes to %q, %q; want %q, %q", format, got[0], got[1], msg, path)
	}
}

// The writers stream: a sink that fails stops the report with that error.
func TestReportsStopWhenTheWriterFails(t *testing.T) {
	r := contractResult(t)
	for _, format := range FormatNames {
		rep, _ := New(format, Options{})
		w := &failAfter{n: 1000}
		if err := rep.Report(w, r); err == nil || w.written > 1000 {
			t.Errorf("%s: error %v after %d bytes", format, err, w.written)
		}
	}
}

type failAfter struct{ n, written int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.written+len(p) > f.n {
		return 0, bufio.ErrBufferFull
	}
	f.written += len(p)
	return len(p), nil
}
