package loader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// parseAs parses src as kind and checks the position contract on the result.
func parseAs[T Document](t *testing.T, kind Kind, path, src string) T {
	t.Helper()
	d := Parse(kind, path, []byte(src)).(T)
	checkPositions(t, []byte(src), d)
	return d
}

// posKeys hold a Pos; containerKeys hold objects that are not elements.
var (
	posKeys       = map[string]bool{"pos": true, "name_pos": true, "type_pos": true}
	indexKeys     = map[string]bool{"variables": true, "functions": true, "targets": true, "groups": true}
	containerKeys = map[string]bool{"shell": true}
)

// checkPositions asserts the documents' contract: every element (an object
// in a list, an object-valued field, a value of a name index) carries a valid
// pos, and where an element has a one-line "text", the source holds exactly
// that text at its position.
func checkPositions(t *testing.T, src []byte, doc Document) {
	t.Helper()
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	// Numbers as json.Number: an HCL value may be beyond float64.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	idx := newLineIndex(src)
	for _, p := range walkPositions(v, "$", idx) {
		t.Errorf("%s: %s", doc.DocPath(), p)
	}
}

func walkPositions(v any, at string, idx *lineIndex) []string {
	var probs []string
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			path := at + "." + k
			switch {
			case k == "value":
				// HCL static values are data, not elements.
			case posKeys[k]:
				if p := checkPos(child, idx); p != "" {
					probs = append(probs, path+": "+p)
				}
			case indexKeys[k] && at == "$":
				m, _ := child.(map[string]any)
				for name, el := range m {
					probs = append(probs, requirePos(el, path+"."+name, idx)...)
				}
			case containerKeys[k]:
				if child != nil {
					probs = append(probs, walkPositions(child, path, idx)...)
				}
			default:
				if m, ok := child.(map[string]any); ok && m != nil {
					probs = append(probs, requirePos(m, path, idx)...)
				} else {
					probs = append(probs, walkPositions(child, path, idx)...)
				}
			}
		}
	case []any:
		for i, el := range v {
			path := fmt.Sprintf("%s[%d]", at, i)
			if _, ok := el.(map[string]any); ok {
				probs = append(probs, requirePos(el, path, idx)...)
			}
		}
	}
	return probs
}

func requirePos(el any, path string, idx *lineIndex) []string {
	m, ok := el.(map[string]any)
	if !ok {
		return nil
	}
	pos, ok := m["pos"]
	if !ok {
		return []string{path + ": element without pos"}
	}
	probs := walkPositions(m, path, idx)
	if text, ok := m["text"].(string); ok && text != "" && !strings.Contains(text, "\n") {
		p := pos.(map[string]any)
		line, col := num(p["line"]), num(p["column"])
		eline, ecol := num(p["end_line"]), num(p["end_column"])
		if line == eline {
			// The raw line: an element may end in a '\r' the shell keeps.
			raw := string(idx.src[idx.lineStart(line):max(idx.lineStart(line), idx.lineStart(line+1)-1)])
			if line >= len(idx.starts) {
				raw = string(idx.src[idx.lineStart(line):])
			}
			got := runeSlice(raw, col, ecol)
			if got != text {
				probs = append(probs, fmt.Sprintf("%s: text %q but source at %d:%d-%d has %q", path, text, line, col, ecol, got))
			}
		}
	}
	return probs
}

func runeSlice(s string, from, to int) string {
	var b strings.Builder
	i := 1
	for _, r := range s {
		if i >= from && i < to {
			b.WriteRune(r)
		}
		i++
	}
	return b.String()
}

func checkPos(v any, idx *lineIndex) string {
	p, ok := v.(map[string]any)
	if !ok {
		return "pos is not an object"
	}
	line, col := num(p["line"]), num(p["column"])
	eline, ecol := num(p["end_line"]), num(p["end_column"])
	lines := idx.lines()
	switch {
	case line < 1 || col < 1:
		return fmt.Sprintf("start %d:%d is not 1-based", line, col)
	case eline < line || eline == line && ecol < col:
		return fmt.Sprintf("end %d:%d before start %d:%d", eline, ecol, line, col)
	case eline > lines+1:
		return fmt.Sprintf("end line %d past the file's %d lines", eline, lines)
	case line <= lines && col > utf8.RuneCountInString(idx.lineText(line))+2:
		return fmt.Sprintf("column %d past the end of line %d", col, line)
	}
	return ""
}

func num(v any) int {
	n, _ := v.(json.Number).Int64()
	return int(n)
}
