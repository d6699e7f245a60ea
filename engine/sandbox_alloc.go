package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// A builtin allocates its whole result in one call, so --timeout cannot
// stop `replace(s, "", s)` on a 100 KB string (10 GB) before the process
// runs out of memory. The builtins whose result can be far larger than
// their arguments are wrapped: they refuse (stopping the query) when the
// result would pass maxBuiltinResult bytes or maxRangeItems elements.
const (
	maxBuiltinResult = 64 << 20
	maxRangeItems    = 10_000_000
)

func init() {
	guard("replace", func(ops []*ast.Term) int64 {
		x, old, repl, ok := strs3(ops)
		if !ok {
			return 0
		}
		return replacedSize(x, old, repl)
	})
	guard("strings.replace_n", func(ops []*ast.Term) int64 {
		pats, ok1 := ops[0].Value.(ast.Object)
		x, ok2 := ops[1].Value.(ast.String)
		if !ok1 || !ok2 {
			return 0
		}
		size := int64(len(x))
		pats.Foreach(func(k, v *ast.Term) {
			old, ok1 := k.Value.(ast.String)
			repl, ok2 := v.Value.(ast.String)
			if ok1 && ok2 {
				size += replacedSize(string(x), string(old), string(repl)) - int64(len(x))
			}
		})
		return size
	})
	guard("regex.replace", func(ops []*ast.Term) int64 {
		x, pat, repl, ok := strs3(ops)
		if !ok {
			return 0
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return 0 // the builtin reports it
		}
		matches := int64(len(re.FindAllStringIndex(x, -1)))
		per := int64(len(repl))
		if strings.Contains(repl, "$") {
			per += int64(len(x)) // a group reference may copy up to the whole input
		}
		return int64(len(x)) + matches*per
	})
	guard("sprintf", func(ops []*ast.Term) int64 {
		f, ok := ops[0].Value.(ast.String)
		if !ok {
			return 0
		}
		return int64(len(f)) + formatWidths(string(f))
	})
	for _, name := range []string{"numbers.range", "numbers.range_step"} {
		guard(name, func(ops []*ast.Term) int64 {
			a, ok1 := ops[0].Value.(ast.Number)
			b, ok2 := ops[1].Value.(ast.Number)
			if !ok1 || !ok2 {
				return 0
			}
			fa, _ := a.Float64()
			fb, _ := b.Float64()
			n := fb - fa
			if n < 0 {
				n = -n
			}
			if n > maxRangeItems {
				return maxBuiltinResult + 1
			}
			return 0
		})
	}
}

// guard wraps a builtin with a check of the size its result would have.
func guard(name string, size func([]*ast.Term) int64) {
	orig := topdown.GetBuiltin(name)
	if orig == nil {
		return
	}
	topdown.RegisterBuiltinFunc(name, func(bctx topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
		if n := size(ops); n > maxBuiltinResult {
			return topdown.Halt{Err: &topdown.Error{Code: topdown.BuiltinErr, Location: bctx.Location,
				Message: fmt.Sprintf("%s: the result would be over what a policy may build (%d MB, or %d elements for a range)", name, maxBuiltinResult>>20, maxRangeItems)}}
		}
		return orig(bctx, ops, iter)
	})
}

func strs3(ops []*ast.Term) (string, string, string, bool) {
	if len(ops) < 3 {
		return "", "", "", false
	}
	a, ok1 := ops[0].Value.(ast.String)
	b, ok2 := ops[1].Value.(ast.String)
	c, ok3 := ops[2].Value.(ast.String)
	return string(a), string(b), string(c), ok1 && ok2 && ok3
}

func replacedSize(x, old, repl string) int64 {
	count := int64(0)
	if old == "" {
		count = int64(utf8.RuneCountInString(x)) + 1
	} else {
		count = int64(strings.Count(x, old))
	}
	return int64(len(x)) + count*(int64(len(repl))-int64(len(old)))
}

var widthRe = regexp.MustCompile(`%[-+# 0]*([0-9]*)(?:\.([0-9]*))?`)

// formatWidths adds up the widths and precisions a format asks for.
func formatWidths(f string) int64 {
	var total int64
	for _, m := range widthRe.FindAllStringSubmatch(f, -1) {
		for _, n := range m[1:] {
			if len(n) > 9 {
				return maxBuiltinResult + 1
			}
			v, _ := strconv.ParseInt(n, 10, 64) // "" is 0
			total += v
		}
	}
	return total
}
