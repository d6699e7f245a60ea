package loader

import (
	"bytes"
	"encoding/json"
	"regexp"
)

// leafObject matches an indented object whose members are all scalars, such
// as a pos. Values holding brackets or braces are not matched and stay as
// they are, so folding only ever changes white space.
var leafObject = regexp.MustCompile(`\{\n(?:[ \t]+"[^"\n]*": [^{}\[\]\n]+\n)+[ \t]*\}`)

var foldSpace = regexp.MustCompile(`\n[ \t]*`)

// FormatJSON renders v indented by two spaces, with objects of scalars (a
// pos, a word's fields) folded onto one line so documents stay readable.
// Key order is the structs' field order and sorted map keys: stable.
func FormatJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, err
	}
	out := leafObject.ReplaceAllFunc(buf.Bytes(), func(m []byte) []byte {
		m = foldSpace.ReplaceAll(m, []byte(" "))
		m = bytes.Replace(m, []byte("{ "), []byte("{"), 1)
		return bytes.Replace(m, []byte(" }"), []byte("}"), 1)
	})
	return append(out, '\n'), nil
}
