// Package marker evaluates PEP 508 environment markers the way packaging
// (and so pip and uv) evaluates them, against environments that may leave
// some variables unknown.
//
// A requirement line whose marker is false is skipped by pip ("Ignoring
// …: markers … don't match your environment"): a pin under
// `sys_platform == "win32"` is no pin on a Linux image. An image is not
// one environment but a few (the architectures and Python versions it may
// be built for), and some variables (platform_release, platform_version)
// depend on the machine that runs it: the result is three-valued.
package marker

import (
	"fmt"
	"strings"

	"github.com/buildgate/buildgate/pep440"
)

// Result is a marker's value in an environment.
type Result int

// The three values: false, true, or unknown (a variable the environment
// does not fix).
const (
	False Result = iota
	True
	Unknown
)

func (r Result) String() string { return [...]string{"false", "true", "unknown"}[r] }

// Env is an environment: marker variable names (PEP 508's; the legacy
// dotted spellings are mapped) to values. A variable absent from the map
// is unknown; "extra" absent is "" (no extra requested, as pip evaluates
// a requirements file's lines).
type Env map[string]string

// legacy are the PEP 345 and setuptools spellings packaging still reads.
var legacy = map[string]string{
	"os.name": "os_name", "sys.platform": "sys_platform", "platform.version": "platform_version",
	"platform.machine": "platform_machine", "platform.python_implementation": "platform_python_implementation",
	"python_implementation": "platform_python_implementation",
}

// maxDepth bounds nested parentheses (an attacker's file could nest
// thousands).
const maxDepth = 64

// Eval is marker s in env. An error is a marker pip refuses (it then
// refuses the line).
func Eval(s string, env Env) (Result, error) {
	p := &parser{s: s, env: env}
	r, err := p.or(0)
	if err != nil {
		return Unknown, err
	}
	p.space()
	if p.i < len(p.s) {
		return Unknown, fmt.Errorf("unexpected %q", p.s[p.i:])
	}
	return r, nil
}

// AnyMayHold reports whether s is true or unknown in at least one of envs
// (a pin under it may apply to the image); a marker pip refuses holds
// nowhere.
func AnyMayHold(s string, envs []Env) bool {
	for _, e := range envs {
		if r, err := Eval(s, e); err == nil && r != False {
			return true
		} else if err != nil {
			return false
		}
	}
	return false
}

type parser struct {
	s   string
	i   int
	env Env
}

func (p *parser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

// keyword takes and/or when followed by a blank or a parenthesis.
func (p *parser) keyword(k string) bool {
	p.space()
	if !strings.HasPrefix(p.s[p.i:], k) {
		return false
	}
	j := p.i + len(k)
	if j < len(p.s) && strings.IndexByte(" \t\r\n(\"'", p.s[j]) < 0 {
		return false
	}
	p.i = j
	return true
}

func (p *parser) or(depth int) (Result, error) {
	r, err := p.and(depth)
	if err != nil {
		return r, err
	}
	for p.keyword("or") {
		r2, err := p.and(depth)
		if err != nil {
			return r2, err
		}
		r = or(r, r2)
	}
	return r, nil
}

func (p *parser) and(depth int) (Result, error) {
	r, err := p.atom(depth)
	if err != nil {
		return r, err
	}
	for p.keyword("and") {
		r2, err := p.atom(depth)
		if err != nil {
			return r2, err
		}
		r = and(r, r2)
	}
	return r, nil
}

func or(a, b Result) Result {
	switch {
	case a == True || b == True:
		return True
	case a == Unknown || b == Unknown:
		return Unknown
	}
	return False
}

func and(a, b Result) Result {
	switch {
	case a == False || b == False:
		return False
	case a == Unknown || b == Unknown:
		return Unknown
	}
	return True
}

func (p *parser) atom(depth int) (Result, error) {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '(' {
		if depth >= maxDepth {
			return Unknown, fmt.Errorf("parentheses nested deeper than %d", maxDepth)
		}
		p.i++
		r, err := p.or(depth + 1)
		if err != nil {
			return r, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return Unknown, fmt.Errorf("expected )")
		}
		p.i++
		return r, nil
	}
	lhs, err := p.operand()
	if err != nil {
		return Unknown, err
	}
	op, err := p.op()
	if err != nil {
		return Unknown, err
	}
	rhs, err := p.operand()
	if err != nil {
		return Unknown, err
	}
	return compare(lhs, op, rhs, p.env)
}

// operand is a quoted string or a variable name.
type operand struct {
	value    string
	variable bool
}

var variables = []string{
	"platform.python_implementation", "platform_python_implementation", "implementation_version",
	"python_implementation", "implementation_name", "python_full_version", "platform_release",
	"platform_version", "platform_machine", "platform.version", "platform.machine", "platform_system",
	"python_version", "sys_platform", "sys.platform", "os_name", "os.name", "extra",
}

func (p *parser) operand() (operand, error) {
	p.space()
	if p.i < len(p.s) && (p.s[p.i] == '"' || p.s[p.i] == '\'') {
		q := p.s[p.i]
		j := strings.IndexByte(p.s[p.i+1:], q)
		if j < 0 {
			return operand{}, fmt.Errorf("unterminated string")
		}
		v := p.s[p.i+1 : p.i+1+j]
		p.i += j + 2
		return operand{value: v}, nil
	}
	for _, v := range variables {
		if strings.HasPrefix(p.s[p.i:], v) {
			p.i += len(v)
			if n, ok := legacy[v]; ok {
				v = n
			}
			return operand{value: v, variable: true}, nil
		}
	}
	return operand{}, fmt.Errorf("expected a marker variable or a quoted string at %q", p.s[p.i:])
}

var ops = []string{"===", "==", ">=", "<=", "!=", "~=", ">", "<", "not in", "in"}

func (p *parser) op() (string, error) {
	p.space()
	for _, o := range ops {
		if strings.HasPrefix(p.s[p.i:], o) {
			p.i += len(o)
			return o, nil
		}
	}
	if strings.HasPrefix(p.s[p.i:], "not") {
		j := p.i + 3
		for j < len(p.s) && strings.IndexByte(" \t", p.s[j]) >= 0 {
			j++
		}
		if strings.HasPrefix(p.s[j:], "in") {
			p.i = j + 2
			return "not in", nil
		}
	}
	return "", fmt.Errorf("expected a marker operator at %q", p.s[p.i:])
}

// compare is packaging's _evaluate_markers for one item: the variable's
// value from the environment, extra names normalized, then _eval_op: a
// version comparison when op+rhs is a valid specifier, else Python's
// string operator.
func compare(lhs operand, op string, rhs operand, env Env) (Result, error) {
	if lhs.variable == rhs.variable {
		if !lhs.variable {
			return Unknown, fmt.Errorf("a marker compares a variable with a string, not two strings")
		}
		return Unknown, fmt.Errorf("a marker compares a variable with a string, not two variables")
	}
	name := lhs.value
	if rhs.variable {
		name = rhs.value
	}
	val, known := env[name]
	if name == "extra" && !known {
		val, known = "", true
	}
	if !known {
		return Unknown, nil
	}
	l, r := lhs.value, rhs.value
	if lhs.variable {
		l = val
	} else {
		r = val
	}
	if name == "extra" {
		l, r = normalize(l), normalize(r)
	}
	return evalOp(l, op, r)
}

func normalize(s string) string {
	var b strings.Builder
	run := false
	for _, c := range strings.ToLower(s) {
		if c == '-' || c == '_' || c == '.' {
			if !run {
				b.WriteByte('-')
			}
			run = true
			continue
		}
		run = false
		b.WriteRune(c)
	}
	return b.String()
}

func boolean(b bool) Result {
	if b {
		return True
	}
	return False
}

func evalOp(l, op, r string) (Result, error) {
	if op != "in" && op != "not in" {
		if spec, err := pep440.ParseSpecifier(op + r); err == nil {
			v, err := pep440.Parse(l)
			if err != nil {
				// packaging ≥ 22 cannot compare a non-version with a
				// version specifier: pip refuses the marker then.
				return Unknown, fmt.Errorf("%q is not a version to compare with %s%s", l, op, r)
			}
			return boolean(spec.Contains(v)), nil
		}
	}
	switch op {
	case "==":
		return boolean(l == r), nil
	case "!=":
		return boolean(l != r), nil
	case "<":
		return boolean(l < r), nil
	case "<=":
		return boolean(l <= r), nil
	case ">":
		return boolean(l > r), nil
	case ">=":
		return boolean(l >= r), nil
	case "in":
		return boolean(strings.Contains(r, l)), nil
	case "not in":
		return boolean(!strings.Contains(r, l)), nil
	}
	return Unknown, fmt.Errorf("undefined comparison %s %s %s", l, op, r)
}

// Linux are the environments of a Linux CPython image: for each
// architecture, every CPython 3 minor version from 3.0 to 3.15 (or the
// given ones), each with a .0 and a late patch release for
// python_full_version. platform_release and platform_version stay
// unknown: they are the kernel of the machine that runs the build.
func Linux(arches, pythons []string) []Env {
	if len(pythons) == 0 {
		for n := 0; n <= 15; n++ {
			pythons = append(pythons, fmt.Sprintf("3.%d", n))
		}
	}
	var out []Env
	for _, a := range arches {
		for _, py := range pythons {
			for _, patch := range []string{".0", ".40"} {
				out = append(out, Env{
					"os_name": "posix", "sys_platform": "linux", "platform_system": "Linux",
					"platform_machine": a, "platform_python_implementation": "CPython",
					"implementation_name": "cpython", "python_version": py,
					"python_full_version": py + patch, "implementation_version": py + patch,
				})
			}
		}
	}
	return out
}
