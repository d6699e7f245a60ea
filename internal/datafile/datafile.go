// Package datafile decodes the --data file policies read, within bounds:
// the file is the pull request's when it is kept in the repository, and
// a 60 MB JSON of small values decoded to 3.75 GB before it was bounded
// (issue 26). The values are counted before anything is decoded: JSON by
// one pass over its bytes, YAML over its node tree with aliases expanded
// (a billion-laughs file is refused, not expanded).
package datafile

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Bounds of a --data file (docs/robustness.md). A value is a scalar, an
// array, an object or an object's key; each costs some 200 bytes once
// the policies' evaluator holds it.
const (
	MaxBytes  = 16 << 20
	MaxValues = 500_000
)

// Error is a --data file that cannot be used.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Decode decodes a --data file (JSON when its name ends in .json, else
// YAML) into plain values with string keys, or says why it cannot.
func Decode(ctx context.Context, name string, b []byte) (any, error) {
	if len(b) > MaxBytes {
		return nil, &Error{fmt.Sprintf("%d bytes, over the %d bytes a --data file may have", len(b), MaxBytes)}
	}
	if strings.HasSuffix(strings.ToLower(name), ".json") {
		if n := jsonValues(b); n > MaxValues {
			return nil, tooMany(n)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, &Error{err.Error()}
		}
		return v, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, &Error{err.Error()}
	}
	if n := yamlValues(&doc, map[*yaml.Node]int{}, 0); n > MaxValues {
		return nil, tooMany(n)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var v any
	if err := doc.Decode(&v); err != nil {
		return nil, &Error{err.Error()}
	}
	return normalizeYAML(v), nil
}

func tooMany(n int) error {
	return &Error{fmt.Sprintf("over %d values (at least %d), more than a --data file may hold", MaxValues, n)}
}

// CountJSON counts a JSON text's values as Decode bounds them, stopping
// once past limit: for other JSON inputs of a run (a baseline).
func CountJSON(b []byte, limit int) int {
	n, in, esc := 1, false, false
	for _, c := range b {
		switch {
		case in:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				in = false
			}
		case c == '"':
			in = true
		case c == '[' || c == '{' || c == ',' || c == ':':
			n++
		}
		if n > limit {
			return n
		}
	}
	return n
}

// jsonValues counts the values of a JSON text from its bytes: each
// array or object opens one, and each comma or colon outside strings
// separates one more (an overcount of at most one per container).
func jsonValues(b []byte) int { return CountJSON(b, MaxValues) }

// yamlValues counts a node's values with aliases expanded (an alias
// costs what it points at, computed once), stopping past the bound.
func yamlValues(n *yaml.Node, memo map[*yaml.Node]int, depth int) int {
	if n == nil {
		return 0
	}
	if v, ok := memo[n]; ok {
		return v
	}
	if depth > 1000 {
		return MaxValues + 1
	}
	memo[n] = MaxValues + 1 // an alias cycle costs everything
	total := 1
	if n.Kind == yaml.AliasNode {
		total = yamlValues(n.Alias, memo, depth+1)
	}
	for _, c := range n.Content {
		total += yamlValues(c, memo, depth+1)
		if total > MaxValues {
			break
		}
	}
	memo[n] = total
	return total
}

// normalizeYAML turns the map[any]any YAML may produce for odd keys into
// the string-keyed maps Rego needs.
func normalizeYAML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeYAML(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalizeYAML(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalizeYAML(e)
		}
	}
	return v
}
