package report

import (
	"encoding/json"
	"github.com/buildgate/buildgate/finding"
	"io"
	"strings"
)

// RDJSON is reviewdog's Diagnostic Format (rdjson, or rdjsonl with one
// diagnostic per line), for inline review comments through reviewdog on
// GitHub, GitLab, Gitea or Bitbucket: severity, the location with its
// range, the rule as code (with its page's URL when --help-uri-base is
// given) and each fix as a suggestion.
type RDJSON struct {
	Lines       bool // rdjsonl
	HelpURIBase string
}

type rdSource struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type rdPosition struct {
	Line int `json:"line"`
	// Column 0 (left out) makes a suggestion line-based: its text
	// replaces the lines of its range whole.
	Column int `json:"column,omitempty"`
}

type rdRange struct {
	Start rdPosition  `json:"start"`
	End   *rdPosition `json:"end,omitempty"`
}

type rdLocation struct {
	Path  string   `json:"path"`
	Range *rdRange `json:"range,omitempty"`
}

type rdCode struct {
	Value string `json:"value"`
	URL   string `json:"url,omitempty"`
}

type rdSuggestion struct {
	Range rdRange `json:"range"`
	Text  string  `json:"text"`
}

type rdDiagnostic struct {
	Message     string         `json:"message"`
	Location    rdLocation     `json:"location"`
	Severity    string         `json:"severity"`
	Source      *rdSource      `json:"source,omitempty"`
	Code        rdCode         `json:"code"`
	Suggestions []rdSuggestion `json:"suggestions,omitempty"`
}

// Report implements Reporter.
func (rd RDJSON) Report(w io.Writer, r *Result) error {
	if rd.Lines {
		return encoded(w, JSONHash, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			for _, f := range r.Findings {
				if err := enc.Encode(rd.diagnostic(r, f)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return writeJSON(w, jsonObject{
		{"source", rdSource{Name: r.Tool.Name, URL: informationURI}},
		{"diagnostics", findingsOf(r.Findings, func(f finding.Finding) any { return rd.diagnostic(r, f) })},
	})
}

// diagnostic is one finding as reviewdog reads it.
func (rd RDJSON) diagnostic(r *Result, f finding.Finding) rdDiagnostic {
	d := rdDiagnostic{
		Message:  f.Message,
		Severity: map[string]string{finding.SeverityError: "ERROR", finding.SeverityWarning: "WARNING"}[f.Severity],
		Code:     rdCode{Value: f.Rule, URL: helpURI(rd.HelpURIBase, f.Rule)},
		Location: rdLocation{Path: f.Path},
	}
	if d.Severity == "" {
		d.Severity = "INFO"
	}
	if f.Path == "" {
		d.Location.Path = "." // about the repository, not a file
	}
	if f.Pos.Line > 0 {
		d.Location.Range = rd.rng(r, f.Path, f.Pos)
	}
	if f.Fix != nil && f.Path != "" {
		sg := rd.suggestion(r, f)
		d.Suggestions = []rdSuggestion{sg}
		// reviewdog posts a suggestion only where its lines are the
		// comment's (GitHub: "comment range and suggestion line range must
		// be same"): the comment goes on the lines the fix changes.
		if d.Location.Range == nil || d.Location.Range.Start.Line != sg.Range.Start.Line || endLine(d.Location.Range) != endLine(&sg.Range) {
			d.Location.Range = &rdRange{Start: rdPosition{Line: sg.Range.Start.Line}, End: &rdPosition{Line: endLine(&sg.Range)}}
		}
	}
	if rd.Lines {
		d.Source = &rdSource{Name: r.Tool.Name}
	}
	return d
}

func endLine(r *rdRange) int {
	if r.End == nil || r.End.Line == 0 {
		return r.Start.Line
	}
	return r.End.Line
}

// suggestion is a finding's fix as reviewdog turns it into a GitHub
// suggestion (issue 31): whole lines as a line-based range (no columns)
// ending on the last line the fix changes, never on the line after it; an
// insertion of lines as the line before it (or the first line) and the
// new lines, so that it is a replacement of lines that exist. Edits within
// lines keep their columns.
func (rd RDJSON) suggestion(r *Result, f finding.Finding) rdSuggestion {
	p, text := f.Fix.Pos, f.Fix.Replacement
	lines := func(a, b int, t string) rdSuggestion {
		return rdSuggestion{Range: rdRange{Start: rdPosition{Line: a}, End: &rdPosition{Line: b}}, Text: t}
	}
	wholeLines := p.Column == 1 && p.EndColumn == 1 && (text == "" || strings.HasSuffix(text, "\n"))
	switch {
	case wholeLines && p.EndLine > p.Line:
		return lines(p.Line, p.EndLine-1, strings.TrimSuffix(text, "\n"))
	case wholeLines && p.EndLine == p.Line && text != "" && r.SourceLine != nil:
		ins := strings.TrimSuffix(text, "\n")
		if p.Line > 1 {
			if prev, ok := r.SourceLine(f.Path, p.Line-1); ok {
				return lines(p.Line-1, p.Line-1, prev+"\n"+ins)
			}
		}
		if cur, ok := r.SourceLine(f.Path, p.Line); ok {
			return lines(p.Line, p.Line, ins+"\n"+cur)
		}
	}
	return rdSuggestion{Range: *rd.rng(r, f.Path, p), Text: text}
}

// rng is a position in reviewdog's terms: columns count UTF-8 bytes, the
// end is exclusive (as ours is).
func (rd RDJSON) rng(r *Result, path string, p finding.Pos) *rdRange {
	col := func(line, c int) int {
		if r.ByteColumn != nil && path != "" {
			return r.ByteColumn(path, line, c)
		}
		return c
	}
	out := &rdRange{Start: rdPosition{Line: p.Line, Column: col(p.Line, max(p.Column, 1))}}
	if p.EndLine > 0 {
		out.End = &rdPosition{Line: p.EndLine, Column: col(p.EndLine, max(p.EndColumn, 1))}
	}
	return out
}

// helpURI is a rule's page under base ({id} replaced, else base/<id>.md),
// "" without a base.
func helpURI(base, id string) string {
	base = strings.TrimSpace(base)
	switch {
	case base == "":
		return ""
	case strings.Contains(base, "{id}"):
		return strings.ReplaceAll(base, "{id}", id)
	}
	return strings.TrimSuffix(base, "/") + "/" + id + ".md"
}
