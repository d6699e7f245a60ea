package datafile

import (
	"context"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tt := range []struct {
		name, file, text, err string
	}{
		{"json", "d.json", `{"a": [1, "x", {"b": null}]}`, ""},
		{"yaml", "d.yaml", "a: [1, x]\n1: y\n", ""},
		{"json over the values", "d.json", "[" + strings.Repeat("0,", MaxValues) + "0]", "more than a --data file may hold"},
		{"yaml over the values", "d.yml", "a:\n" + strings.Repeat("- 0\n", MaxValues+1), "more than a --data file may hold"},
		{"yaml aliases that expand past the values", "d.yml", aliasBomb(), "more than a --data file may hold"},
		{"over the size", "d.json", strings.Repeat(" ", MaxBytes+1), "bytes a --data file may have"},
		{"not json", "d.json", "{", "unexpected end"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Decode(context.Background(), tt.file, []byte(tt.text))
			switch {
			case tt.err == "" && (err != nil || v == nil):
				t.Errorf("%v %v", v, err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("err %v, want %q", err, tt.err)
			}
		})
	}
	v, _ := Decode(context.Background(), "d.yaml", []byte("1: y\n"))
	if m, ok := v.(map[string]any); !ok || m["1"] != "y" {
		t.Errorf("keys are strings: %#v", v)
	}
}

// aliasBomb is a YAML billion laughs: nine aliases of nine of ... .
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for i := 0; i < 8; i++ {
		name := string(rune('b' + i))
		b.WriteString(name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 8) + "*" + prev + "]\n")
		prev = name
	}
	return b.String()
}

// The decoder never panics, and what it returns is within its bounds.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2]}`, "a: &x [1]\nb: *x\n", "[" + strings.Repeat("[", 200), "a: !!binary aGk=\n"} {
		f.Add("d.json", s)
		f.Add("d.yaml", s)
	}
	f.Fuzz(func(t *testing.T, name, text string) {
		v, err := Decode(context.Background(), name, []byte(text))
		if err == nil && count(v) > MaxValues+1 {
			t.Errorf("%d values", count(v))
		}
	})
}

func count(v any) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			n += 1 + count(e)
		}
	case []any:
		for _, e := range x {
			n += count(e)
		}
	}
	return n
}
