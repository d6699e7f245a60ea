package loader

import (
	"reflect"
	"testing"
)

func TestScanSuppressions(t *testing.T) {
	tests := []struct {
		kind Kind
		src  string
		want []Suppression
	}{
		{KindDockerfile, "FROM a\n# buildgate:ignore BG101, BG102 -- why not\n\n# another comment\nARG X\n", []Suppression{
			{Kind: "ignore", Rules: []string{"BG101", "BG102"}, Reason: "why not", Line: 5, Pos: Pos{Line: 2, Column: 1, EndLine: 2, EndColumn: 43}},
		}},
		{KindShell, "x=1 # buildgate:ignore BG102\r\n", []Suppression{
			{Kind: "ignore", Rules: []string{"BG102"}, Reason: "", Line: 1, Pos: Pos{Line: 1, Column: 5, EndLine: 1, EndColumn: 29}},
		}},
		{KindHCL, "// buildgate:ignore-file source-build-stage -- generated\nx = 1\n", []Suppression{
			{Kind: "ignore-file", Rules: []string{"source-build-stage"}, Reason: "generated", Line: 0, Pos: Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 57}},
		}},
		{KindShell, "// buildgate:ignore BG102\necho 'a#buildgate:ignore BG1'\n# buildgate:ignored BG1\n", nil},
		{KindRequirements, "é # buildgate:ignore BG202 -- ok\n# buildgate:ignore BG201 -- last line\n", []Suppression{
			{Kind: "ignore", Rules: []string{"BG202"}, Reason: "ok", Line: 1, Pos: Pos{Line: 1, Column: 3, EndLine: 1, EndColumn: 33}},
			{Kind: "ignore", Rules: []string{"BG201"}, Reason: "last line", Line: 0, Pos: Pos{Line: 2, Column: 1, EndLine: 2, EndColumn: 38}},
		}},
	}
	for _, tt := range tests {
		got := scanSuppressions(tt.kind, []byte(tt.src))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.src, got, tt.want)
		}
	}
	doc := Parse(KindShell, "a.sh", []byte("# buildgate:ignore BG102 -- r\nX=1\n"))
	if s := doc.DocSuppressions(); len(s) != 1 || s[0].Line != 2 {
		t.Errorf("Parse keeps suppressions: %+v", s)
	}
}
