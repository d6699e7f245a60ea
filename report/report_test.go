package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/loader"
)

func sample() *Result {
	return &Result{
		Tool:  Tool{Name: "buildgate", Version: "1.0.0"},
		Files: 3,
		Findings: []engine.Finding{
			{Rule: "BG101", Name: "source-build-stage", Severity: "error", Message: "stage `m` builds x\nfrom source", Path: "Dockerfile",
				Pos: loader.Pos{Line: 3, Column: 14, EndLine: 3, EndColumn: 29}},
			{Rule: "BG204", Name: "wheel-variant-mismatch", Severity: "warning", Message: "variant", Path: "requirements/rocm.txt",
				Pos: loader.Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 25}},
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
		"3 files checked, 2 findings: 1 error, 1 warning, 0 notes\n"
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
