package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/buildgate/buildgate/loader"
	"github.com/open-policy-agent/opa/v1/ast"
)

type inner struct {
	A string `json:"a"`
}

type sample struct {
	inner
	S     string            `json:"s"`
	P     *string           `json:"p"`
	Omit  []int             `json:"omit,omitempty"`
	Nil   []int             `json:"nil"`
	Empty []int             `json:"empty"`
	M     map[string]*inner `json:"m"`
	Raw   json.RawMessage   `json:"raw"`
	F     float64           `json:"f"`
	I     int               `json:"i"`
	Any   any               `json:"any"`
	skip  int               //nolint:unused // an unexported field must not show up
	Dash  int               `json:"-"`
}

// ToValue must give what a JSON round trip gives, on every document of
// the corpus and the fixtures.
func TestToValueMatchesJSON(t *testing.T) {
	x := "x"
	values := []any{
		sample{inner: inner{A: "a"}, S: "s", P: &x, Empty: []int{}, M: map[string]*inner{"k": {A: "v"}, "n": nil},
			Raw: json.RawMessage(`{"n": 1.5e300, "l": [1, "2"]}`), F: 0.25, I: -3, Any: []any{1, "a", nil}},
		sample{},
	}
	var files []string
	for _, dir := range []string{"../testdata", "../loader/testdata/examples", "../../shared/corpus"} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
	}
	for _, f := range files {
		kind, ok := loader.DetectName(f)
		if !ok {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, loader.Parse(kind, f, src))
	}
	if len(values) < 10 {
		t.Fatalf("only %d values", len(values))
	}
	for i, v := range values {
		want, err := ast.InterfaceToValue(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ToValue(v)
		if err != nil {
			t.Fatal(err)
		}
		if got.Compare(want) != 0 {
			t.Errorf("value %d differs:\n got %v\nwant %v", i, truncate(got.String()), truncate(want.String()))
		}
	}
}

func truncate(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}
