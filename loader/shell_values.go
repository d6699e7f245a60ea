package loader

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The static values a script gives its variables, for the scripts it
// hands to a shell and the words it resolves (the build model's values).

// staticValue is the value a simple expansion ($S, ${S}) has where it
// stands: the last static assignment to S before it in the script, else
// the value the file gives S outside the script (a pipeline's env:).
func (x *shellExtractor) staticValue(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil || p.Exp != nil || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Length || p.Width || p.Excl || p.Names != 0 {
		return "", false
	}
	name := p.Param.Value
	if positional(name) && x.function() != "" {
		// $1 … of a function: the word every call of it passes.
		return x.funcArg(x.function(), name)
	}
	for i := len(x.script.Assignments) - 1; i >= 0; i-- {
		a := x.script.Assignments[i]
		if a.Name != name {
			continue
		}
		if a.Value == nil {
			return "", false
		}
		if !a.Append {
			return *a.Value, true
		}
		// S+=x appends to what S holds before it (S=a; S+=b is ab).
		return x.appended(name, i)
	}
	if v, ok := x.laterValue(name); ok {
		return v, true
	}
	v, ok := x.src.values[name]
	return v, ok
}

// appended is the value of name after its assignment at index last, an
// append: the static assignments before it, in order, from the last plain
// one (or the file's value outside the script).
func (x *shellExtractor) appended(name string, last int) (string, bool) {
	start := -1
	for i := last; i >= 0; i-- {
		a := x.script.Assignments[i]
		if a.Name != name {
			continue
		}
		if a.Value == nil || a.Array != nil {
			return "", false
		}
		if !a.Append {
			start = i
			break
		}
	}
	var b strings.Builder
	if start < 0 {
		v, ok := x.src.values[name]
		if !ok {
			return "", false
		}
		b.WriteString(v)
		start = 0
	}
	for i := start; i <= last; i++ {
		if a := x.script.Assignments[i]; a.Name == name {
			b.WriteString(*a.Value)
			if b.Len() > 4096 {
				return "", false
			}
		}
	}
	return b.String(), true
}

// laterValue is the one static value the whole script gives a name, when
// every assignment to it agrees: a function defined above the assignment
// it reads (build() { eval "$S"; }; S="…"; build) runs after it.
func (x *shellExtractor) laterValue(name string) (string, bool) {
	if x.allValues == nil {
		x.allValues = map[string]*string{}
		for _, p := range x.parses {
			for _, st := range p.stmts {
				syntax.Walk(st, func(n syntax.Node) bool {
					a, ok := n.(*syntax.Assign)
					if !ok || a.Name == nil {
						return true
					}
					val := ""
					if a.Value != nil {
						v, lit := wordLiteral(a.Value)
						if !lit || a.Append {
							x.allValues[a.Name.Value] = nil
							return true
						}
						val = v
					}
					if old, seen := x.allValues[a.Name.Value]; seen && (old == nil || *old != val) {
						x.allValues[a.Name.Value] = nil
					} else if !seen {
						x.allValues[a.Name.Value] = &val
					}
					return true
				})
			}
		}
	}
	if v := x.allValues[name]; v != nil {
		return *v, true
	}
	return "", false
}
