package loader

import (
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A Python build step runs commands too (issue 28): `RUN python3
// tools/build.py` whose subprocess.run(["git", "clone", URL]) and
// subprocess.check_call(["cmake", …], cwd="Mooncake") fetch and build, or
// `python3 -c "import os; os.system('git clone …')"`. buildgate does not
// run or fully parse Python: it reads the static commands of the calls
// that run a program — os.system, os.popen, subprocess's run, call,
// check_call, check_output, Popen, getoutput, getstatusoutput — whose
// command is a string literal (a shell command line) or a list or tuple
// of string literals (an argument vector), with a literal cwd= as the
// directory they run in. A call whose command is built at run time is
// not read. A Python file a build runs is a shell document with
// `language: python` whose commands are those.

var pyCallRe = regexp.MustCompile(`\b(?:os\.system|os\.popen|(?:subprocess|sp)\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput))\s*\(`)

// pyBareCallRe is a call of a function imported from subprocess by name.
var pyBareCallRe = regexp.MustCompile(`(?:^|[^.\w])(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput|system)\s*\(`)

// pyCall is one call's command: the shell text (mapped to the file) and
// its cwd.
type pyCall struct {
	text *mappedText
	dir  string
}

// pyName is the end of a plain name (not an attribute or a call) at i, or
// i.
func pyName(s string, i int) int {
	j := i
	for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || j > i && s[j] >= '0' && s[j] <= '9') {
		j++
	}
	if k := skipPySpace(s, j); j == i || k < len(s) && (s[k] == '.' || s[k] == '(' || s[k] == '[') {
		return i
	}
	return j
}

var pyConstRe = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=[ \t]*(?:[rRuU]?)("[^"\\\n{]*"|'[^'\\\n{]*')[ \t]*(?:#.*)?$`)

// pyConstants are the module's names assigned one string literal (the
// last assignment wins, as at the end of the module).
func pyConstants(src string) map[string]string {
	out := map[string]string{}
	for _, m := range pyConstRe.FindAllStringSubmatch(src, 4096) {
		out[m[1]] = m[2][1 : len(m[2])-1]
	}
	return out
}

// maxPyCalls bounds the calls read in one file or -c script.
const maxPyCalls = 2000

// pythonCalls finds the calls with a static command in Python source src,
// whose byte i is at file offset base+i (or at the offsets offs gives).
func pythonCalls(src string, at func(i int) int) []pyCall {
	locs := pyCallRe.FindAllStringIndex(src, maxPyCalls)
	if strings.Contains(src, "from subprocess import") || strings.Contains(src, "from os import system") {
		locs = append(locs, pyBareCallRe.FindAllStringIndex(src, maxPyCalls)...)
	}
	chdirs := pyChdirRe.FindAllStringSubmatchIndex(src, maxPyCalls)
	var out []pyCall
	for _, l := range locs {
		c, ok := pyCallAt(src, l[1], at)
		if !ok {
			continue
		}
		// os.chdir("…") before the call, in the text's order.
		dir := "."
		for _, m := range chdirs {
			if m[0] < l[0] {
				dir = joinDir(dir, src[m[4]:m[5]])
			}
		}
		if c.dir != "" {
			dir = joinDir(dir, c.dir)
		}
		if dir != "." {
			c.dir = dir
		}
		out = append(out, c)
	}
	return out
}

// pyChdirRe is os.chdir of a string literal.
var pyChdirRe = regexp.MustCompile(`\bos\.chdir\(\s*(['"])([^'"\\\n]+)['"]\s*\)`)

// pyCallAt reads the arguments of a call whose "(" ends at i.
func pyCallAt(src string, i int, at func(int) int) (pyCall, bool) {
	i = skipPySpace(src, i)
	if i >= len(src) {
		return pyCall{}, false
	}
	mt := &mappedText{}
	var end int
	switch src[i] {
	case '[', '(':
		close := map[byte]byte{'[': ']', '(': ')'}[src[i]]
		j := i + 1
		n := 0
		for {
			j = skipPySpace(src, j)
			if j >= len(src) {
				return pyCall{}, false
			}
			if src[j] == close {
				end = j + 1
				break
			}
			lit, e, ok := pyString(src, j)
			switch {
			case !ok && pyName(src, j) > j:
				// A name: the shell variable of the same name, which
				// the module's string constants give a value.
				e = pyName(src, j)
				if n > 0 {
					mt.add([]byte(" "), at(j))
				}
				mt.add([]byte("$"), at(j))
				mt.add([]byte(src[j:e]), at(j))
			case !ok:
				// An element built at run time: a word of its own.
				e = pyExprEnd(src, j, close)
				if n > 0 {
					mt.add([]byte(" "), at(j))
				}
				mt.add([]byte("_"), at(j))
			default:
				if n > 0 {
					mt.add([]byte(" "), at(j))
				}
				addPyWord(mt, src, j, e, lit, at)
			}
			n++
			j = skipPySpace(src, e)
			if j < len(src) && src[j] == ',' {
				j++
			}
			if n > 256 {
				return pyCall{}, false
			}
		}
	default:
		lit, e, ok := pyString(src, i)
		if !ok {
			return pyCall{}, false
		}
		// A command line: the shell reads it as written.
		s := i + strings.IndexAny(src[i:e], `'"`)
		q := strings.Count(src[s:e], src[s:s+1]) // 2 or 6 quotes
		mt.add([]byte(lit), at(s+q/2))
		end = e
	}
	c := pyCall{text: mt}
	// cwd="…" among the keyword arguments.
	if close := pyExprEnd(src, end, ')'); close > end {
		args := src[end:close]
		if k := strings.Index(args, "cwd"); k >= 0 {
			j := skipPySpace(args, k+3)
			if j < len(args) && args[j] == '=' {
				if v, _, ok := pyString(args, skipPySpace(args, j+1)); ok {
					c.dir = v
				}
			}
		}
	}
	return c, len(mt.text) > 0
}

// addPyWord adds one argument as a shell word: its value when nothing in
// it is special to the shell, else single-quoted.
func addPyWord(mt *mappedText, src string, s, e int, lit string, at func(int) int) {
	q := strings.IndexAny(src[s:e], `'"`)
	if !strings.ContainsAny(lit, " \t\n$`\"'\\;&|<>()*?[#~{}") && lit != "" {
		mt.add([]byte(lit), at(s+q+1))
		return
	}
	if strings.Contains(lit, "'") {
		mt.add([]byte("_"), at(s))
		return
	}
	mt.add([]byte("'"), at(s+q))
	mt.add([]byte(lit), at(s+q+1))
	mt.add([]byte("'"), at(e-1))
}

func skipPySpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\\') {
		i++
	}
	return i
}

// pyString reads a Python string literal at i: its value when it is
// static (no escapes, not an f-string with a replacement field), and
// where it ends. Adjacent literals are not joined.
func pyString(s string, i int) (string, int, bool) {
	j := i
	f := false
	for j < len(s) && j-i < 3 && strings.IndexByte("rRbBuUfF", s[j]) >= 0 {
		f = f || s[j] == 'f' || s[j] == 'F'
		j++
	}
	if j >= len(s) || (s[j] != '\'' && s[j] != '"') {
		return "", i, false
	}
	q := s[j : j+1]
	if strings.HasPrefix(s[j:], q+q+q) {
		q = q + q + q
	}
	start := j + len(q)
	k := strings.Index(s[start:], q)
	if k < 0 {
		return "", i, false
	}
	v := s[start : start+k]
	end := start + k + len(q)
	if strings.Contains(v, "\\") || (len(q) == 1 && strings.Contains(v, "\n")) || f && strings.Contains(v, "{") {
		return "", end, false
	}
	return v, end, true
}

// pyExprEnd is where an expression starting at i ends: before the first
// comma or close bracket at its own depth (strings skipped).
func pyExprEnd(s string, i int, close byte) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch c := s[j]; c {
		case '\'', '"':
			if _, e, _ := pyString(s, j); e > j {
				j = e - 1
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return j
			}
			depth--
		case ',':
			if depth == 0 && close != ')' {
				return j
			}
		}
	}
	return len(s)
}

// loadPython reads a Python file a build runs for its static commands.
func loadPython(rel string, src []byte) *ShellDocument {
	idx := newLineIndex(src)
	doc := &ShellDocument{Header: Header{Kind: KindShell, Path: rel}, Language: "python", Errors: []Error{}, Script: newScript(), Comments: []Word{}}
	if len(src) > maxShellBytes {
		doc.Errors = append(doc.Errors, Error{Message: sizeBoundError("Python file", len(src), maxShellBytes), Pos: idx.span(0, 0)})
		return doc
	}
	script, errs := pythonScript(src, ".", idx.span, func(s, e int) string { return string(src[s:e]) })
	doc.Script = script
	doc.Errors = append(doc.Errors, errs...)
	return doc
}

// pythonScript is the commands of the calls of Python code text, whose
// ranges span and textOf place in the file. Syntax errors of a command
// line are the Python program's to meet at run time: only the parts not
// read (bounds passed) are returned.
func pythonScript(text []byte, start string, span func(s, e int) Pos, textOf func(s, e int) string) (Script, []Error) {
	out := newScript()
	var errs []Error
	budget := min(max(len(text), 64<<10), maxNestedBytes)
	consts := pyConstants(string(text))
	for _, c := range pythonCalls(string(text), func(i int) int { return i }) {
		mt := c.text
		dir := c.dir
		if start != "" && start != "." {
			dir = joinDir(start, c.dir)
		}
		ss := shellSource{text: mt.text, budget: &budget, dir: dir, values: consts,
			span: func(s, e int) Pos {
				a, b := mt.sourceRange(s, e)
				return span(a, b)
			},
			textOf: func(s, e int) string {
				a, b := mt.sourceRange(s, e)
				return textOf(a, b)
			},
		}
		parses, _, bound := parseShell(ss)
		script, _, werrs, _ := extractScript(ss, parses)
		out.merge(script)
		errs = append(append(errs, bound...), werrs...)
	}
	return out, errs
}

// pythonInline reads the commands of `python -c CODE` (the code's text
// as the outer shell decodes it, t).
func (x *shellExtractor) pythonInline(args []*syntax.Word) {
	e := -1
	for i, a := range args {
		if v, ok := wordLiteral(a); ok && isPython(v) {
			e = i
			break
		}
		if i > 8 {
			return
		}
	}
	if e < 0 {
		return
	}
	for i := e + 1; i+1 < len(args); i++ {
		v, _ := wordLiteral(args[i])
		if v == "-c" {
			x.pythonCode(args[e], args[i+1], x.nestedText(args[i+1], 0))
			return
		}
		if !strings.HasPrefix(v, "-") || v == "-m" {
			return
		}
	}
}

// pythonCode reads the calls of Python code t, the script argument arg.
func (x *shellExtractor) pythonCode(sh, arg *syntax.Word, t nestedText) {
	if !t.exact || len(t.offs) != len(t.text) {
		return
	}
	for _, c := range pythonCalls(string(t.text), func(i int) int { return t.offs[min(i, len(t.offs)-1)] }) {
		sub := nestedText{exact: true}
		for k := range c.text.text {
			sub.text = append(sub.text, c.text.text[k])
			sub.offs = append(sub.offs, c.text.source(k))
		}
		x.nestedScript(sh, arg, sub)
	}
}

// isPython reports whether a program is a Python interpreter.
func isPython(name string) bool {
	n := path.Base(name)
	if !strings.HasPrefix(n, "python") {
		return false
	}
	for _, r := range n[len("python"):] {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return true
}

// pythonScriptArg is the index of the .py file a Python interpreter runs
// (python3 -u tools/build.py), or -1 (-c, -m, stdin, another file).
func pythonScriptArg(ws []Word) int {
	for j := 1; j < len(ws); j++ {
		v := wordValue(ws[j])
		switch {
		case v == "-c" || v == "-m" || v == "-":
			return -1
		case v == "-W" || v == "-X" || v == "--check-hash-based-pycs":
			j++
		case strings.HasPrefix(v, "-"):
		case strings.HasSuffix(strings.ToLower(v), ".py"):
			return j
		default:
			return -1
		}
	}
	return -1
}
