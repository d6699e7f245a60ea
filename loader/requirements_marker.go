package loader

import (
	"fmt"
	"strings"
)

// markerVariables are the names an environment marker may use, as pip 23's
// packaging (21.3) accepts them: PEP 508's, and the PEP 345 and setuptools
// spellings it still reads. Longest first: packaging matches them as
// literal prefixes.
var markerVariables = []string{
	"platform.python_implementation", "platform_python_implementation", "implementation_version",
	"python_implementation", "implementation_name", "python_full_version", "platform_release",
	"platform_version", "platform_machine", "platform.version", "platform.machine", "platform_system",
	"python_version", "sys_platform", "sys.platform", "os_name", "os.name", "extra",
}

var markerOps = []string{"===", "==", ">=", "<=", "!=", "~=", ">", "<", "not in", "in"}

// checkMarker reports what is wrong with an environment marker, as pip
// refuses it ("" when it parses): MARKER_EXPR of packaging 21.3, an item
// being two operands (a variable or a quoted string) around an operator,
// items joined by and/or, parentheses around any expression.
func checkMarker(s string) string {
	p := &markerParser{s: s}
	if err := p.expr(0); err != "" {
		return err
	}
	p.space()
	if p.i < len(p.s) {
		return fmt.Sprintf("unexpected %q", p.rest())
	}
	return ""
}

type markerParser struct {
	s string
	i int
}

func (p *markerParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *markerParser) rest() string {
	r := p.s[p.i:]
	if len(r) > 20 {
		r = r[:20] + "…"
	}
	return r
}

func (p *markerParser) take(lit string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], lit) {
		p.i += len(lit)
		return true
	}
	return false
}

func (p *markerParser) expr(depth int) string {
	if depth > 100 {
		return "nested too deep"
	}
	for {
		if err := p.atom(depth); err != "" {
			return err
		}
		if !p.take("and") && !p.take("or") {
			return ""
		}
	}
}

func (p *markerParser) atom(depth int) string {
	if p.take("(") {
		if err := p.expr(depth + 1); err != "" {
			return err
		}
		if !p.take(")") {
			return "expected )"
		}
		return ""
	}
	if err := p.operand(); err != "" {
		return err
	}
	op := false
	for _, o := range markerOps {
		if p.take(o) {
			op = true
			break
		}
	}
	if !op {
		p.space()
		return fmt.Sprintf("expected an operator at %q", p.rest())
	}
	return p.operand()
}

func (p *markerParser) operand() string {
	p.space()
	if p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"') {
		q := p.s[p.i]
		j := strings.IndexByte(p.s[p.i+1:], q)
		if j < 0 {
			return fmt.Sprintf("unclosed quote at %q", p.rest())
		}
		p.i += j + 2
		return ""
	}
	for _, v := range markerVariables {
		if strings.HasPrefix(p.s[p.i:], v) {
			p.i += len(v)
			return ""
		}
	}
	return fmt.Sprintf("expected a marker variable or a quoted string at %q", p.rest())
}
