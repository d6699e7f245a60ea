package loader

import (
	"bytes"
	"path"
	"regexp"
	"strings"
)

// Makefiles and justfiles are read for their recipes, which are shell
// (issue 28): `make mooncake` in a RUN runs the recipe's git clone and
// cmake. Their documents are shell documents whose commands are the
// recipes' (with `language` set to make or just); the rest of the file
// (rules, variables, conditionals) is not shell and is not parsed as such.
//
// As make and just run them: each logical recipe line (its `\`
// continuations joined) runs in a shell of its own, so a cd on one line
// is gone on the next (make's .ONESHELL and just's #! recipes run the
// whole recipe in one); the line prefixes @, - and + are make's and
// just's, not the shell's; make's $(NAME) and ${NAME} are the variable's
// value (given as the file's values when static), $$ is a $, and the
// automatic variables ($@, $<, $^ …) are words whose value is not known;
// just's {{ NAME }} is the variable's value. Every byte keeps its place,
// so positions are the file's.

// recipeFlavor is "make" or "just" for a Makefile's or a justfile's name,
// else "".
func recipeFlavor(rel string) string {
	base := path.Base(rel)
	lower := strings.ToLower(base)
	switch {
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(lower, ".mk") || strings.HasSuffix(lower, ".mak"):
		return "make"
	case lower == "justfile" || lower == ".justfile" || strings.HasSuffix(lower, ".just"):
		return "just"
	}
	return ""
}

// recipeLine is one logical recipe line: the byte range of its text in
// the file (prefixes and the recipe's indentation blanked).
type recipeLine struct{ start, end int }

var (
	makeAssign = regexp.MustCompile(`^(?:export\s+|override\s+)*([A-Za-z_][A-Za-z0-9_]*)\s*(?:::=|:=|\?=|!=|\+=|=)\s*(.*)$`)
	justAssign = regexp.MustCompile(`^(?:export\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*:=\s*(.*)$`)
	justHeader = regexp.MustCompile(`^@?[A-Za-z_][A-Za-z0-9_-]*(\s[^:]*)?:([^=]|$)`)
	makeVarRef = regexp.MustCompile(`\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]`)
	justInterp = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)?[^}]*\}\}`)
)

// loadRecipes reads a Makefile's or a justfile's recipes as shell.
func loadRecipes(rel string, src []byte, flavor string) *ShellDocument {
	idx := newLineIndex(src)
	doc := &ShellDocument{Header: Header{Kind: KindShell, Path: rel}, Language: flavor, Errors: []Error{}, Script: newScript(), Comments: []Word{}}
	if len(src) > maxShellBytes {
		doc.Errors = append(doc.Errors, Error{Message: sizeBoundError(flavor+" file", len(src), maxShellBytes), Pos: idx.span(0, 0)})
		return doc
	}
	text := []byte(string(src)) // rewritten in place, same length
	var lines []recipeLine
	values := map[string]string{}
	if flavor == "make" {
		values["MAKE"] = "make" // make's own default
		lines = makeRecipes(text, values)
	} else {
		lines = justRecipes(text, values)
	}
	// One parse of the recipes, everything else blanked (every byte at
	// its place); each logical line starts a shell of its own.
	virt := blanked(text)
	starts := make([]int, 0, len(lines))
	for _, l := range lines {
		copy(virt[l.start:l.end], text[l.start:l.end])
		starts = append(starts, l.start)
	}
	if n := bytes.Count(virt, []byte{'$'}) + bytes.Count(virt, []byte{'`'}); n > maxShellWords {
		doc.Errors = append(doc.Errors, Error{Message: capError("expansions and substitutions ($ and `)", n, maxShellWords), Pos: idx.span(0, 0)})
		return doc
	}
	doc.vars = values
	ss := shellSource{text: virt, values: values, span: idx.span, lineShells: starts,
		textOf: func(s, e int) string { return string(src[s:e]) }}
	parses, errs, bound := parseShell(ss)
	for i := range errs {
		errs[i].Message = "in this " + flavor + " recipe: " + errs[i].Message
	}
	var werrs, serrs []Error
	doc.Script, doc.Comments, werrs, serrs = extractScript(ss, parses)
	doc.Errors = append(append(append(append(doc.Errors, errs...), bound...), werrs...), serrs...)
	return doc
}

// physLines are the byte ranges of a text's lines, newline excluded.
func physLines(text []byte) [][2]int {
	var out [][2]int
	s := 0
	for i, c := range text {
		if c == '\n' {
			out = append(out, [2]int{s, i})
			s = i + 1
		}
	}
	if s < len(text) {
		out = append(out, [2]int{s, len(text)})
	}
	return out
}

// makeRecipes finds a Makefile's recipe lines (after a rule, each starting
// with a tab; a rule's `; command`), rewrites them in place for the shell
// and gathers the static values of the file's variables.
func makeRecipes(text []byte, values map[string]string) []recipeLine {
	var out []recipeLine
	inRule := false
	oneShell := strings.Contains(string(text), ".ONESHELL:")
	ls := physLines(text)
	for i := 0; i < len(ls); i++ {
		s, e := ls[i][0], ls[i][1]
		line := string(text[s:e])
		if strings.HasPrefix(line, "\t") && inRule {
			// The logical line runs to the last continued physical line.
			j := i
			for j+1 < len(ls) && strings.HasSuffix(strings.TrimRight(string(text[ls[j][0]:ls[j][1]]), "\r"), `\`) {
				j++
			}
			for k := i; k <= j; k++ {
				blankMakePrefix(text, ls[k][0], ls[k][1], k == i)
				makeRewrite(text, ls[k][0], ls[k][1])
			}
			if oneShell && len(out) > 0 && out[len(out)-1].end == s-1 {
				out[len(out)-1].end = ls[j][1]
			} else {
				out = append(out, recipeLine{s, ls[j][1]})
			}
			i = j
			continue
		}
		trimmed := strings.TrimSpace(line)
		if makeDefine.MatchString(line) {
			// A multi-line variable's value (`define PRINT_HELP_PYSCRIPT`
			// … `endef`, podman's Makefile holds a Python script there):
			// GNU make runs none of it as a recipe; defines nest.
			i = defineEnd(text, ls, i)
			inRule = false
			continue
		}
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			continue
		case makeAssign.MatchString(trimmed) && !strings.HasPrefix(line, "\t"):
			m := makeAssign.FindStringSubmatch(trimmed)
			v := strings.TrimSpace(m[2])
			if !strings.Contains(v, "$") && !strings.Contains(trimmed, "+=") && !strings.Contains(trimmed, "!=") {
				values[m[1]] = v
			}
			inRule = false
		case strings.Contains(line, ":") && !strings.HasPrefix(line, "\t") && !strings.HasPrefix(trimmed, "ifeq") &&
			!strings.HasPrefix(trimmed, "ifneq") && !strings.HasPrefix(trimmed, "define"):
			inRule = true
			// target: prerequisites ; command
			if k := strings.Index(line, ";"); k >= 0 && strings.Index(line, ":") < k {
				cs := s + k + 1
				for p := s; p < cs; p++ {
					text[p] = ' '
				}
				blankMakePrefix(text, cs, e, true)
				makeRewrite(text, cs, e)
				out = append(out, recipeLine{s, e})
			}
		default:
			inRule = inRule && (strings.HasPrefix(trimmed, "if") || strings.HasPrefix(trimmed, "else") || strings.HasPrefix(trimmed, "endif"))
		}
	}
	return out
}

// blankMakePrefix blanks a recipe line's tab and make's @, - and +.
func blankMakePrefix(text []byte, s, e int, first bool) {
	if s < e && text[s] == '\t' {
		text[s] = ' '
		s++
	}
	for first && s < e && (text[s] == '@' || text[s] == '-' || text[s] == '+' || text[s] == ' ') {
		text[s] = ' '
		s++
	}
}

// makeRewrite turns make's expansions into the shell's, in place: $$ is
// \$, $(NAME) is ${NAME}, a make function a word of underscores, an
// automatic variable $_.
func makeRewrite(text []byte, s, e int) {
	for i := s; i+1 < e; i++ {
		if text[i] != '$' {
			continue
		}
		switch c := text[i+1]; {
		case c == '$':
			// $$ is a $ to the shell: \$ keeps the word whole
			// ($$dir), but $$( and $${ are a substitution and an
			// expansion, whose $ must stay one (a space before it).
			text[i] = '\\'
			if i+2 < e && (text[i+2] == '(' || text[i+2] == '{') {
				text[i] = ' '
			}
			i++
		case c == '(' || c == '{':
			if m := makeVarRef.FindSubmatchIndex(text[i:e]); m != nil && m[0] == 0 {
				text[i+1] = '{'
				text[i+m[1]-1] = '}'
				i += m[1] - 1
			} else if end := makeCall(text, i+2, e, map[byte]byte{'(': ')', '{': '}'}[c]); end > 0 {
				// A make function ($(shell …), $(wildcard …)): a value
				// make computes, a word of underscores to the shell.
				for k := i; k < end; k++ {
					text[k] = '_'
				}
				i = end - 1
			}
		case strings.IndexByte("@<^?*%+|", c) >= 0:
			text[i+1] = '_'
			i++
		}
	}
}

// makeCall is the end (after its closing bracket) of a make function call
// whose name starts at s ($(shell …)), or -1.
func makeCall(text []byte, s, e int, closer byte) int {
	k := s
	for k < e && (text[k] >= 'a' && text[k] <= 'z' || text[k] == '-') {
		k++
	}
	if k == s || k >= e || text[k] != ' ' && text[k] != '\t' {
		return -1
	}
	depth := 1
	opener := map[byte]byte{')': '(', '}': '{'}[closer]
	for ; k < e; k++ {
		switch text[k] {
		case opener:
			depth++
		case closer:
			if depth--; depth == 0 {
				return k + 1
			}
		}
	}
	return -1
}

// justRecipes finds a justfile's recipe bodies (the indented lines after a
// recipe header), rewrites them in place and gathers the static values of
// its variables.
func justRecipes(text []byte, values map[string]string) []recipeLine {
	var out []recipeLine
	ls := physLines(text)
	for i := 0; i < len(ls); i++ {
		line := string(text[ls[i][0]:ls[i][1]])
		trimmed := strings.TrimSpace(line)
		if m := justAssign.FindStringSubmatch(trimmed); m != nil && line == strings.TrimLeft(line, " \t") {
			if v, ok := justString(strings.TrimSpace(m[2])); ok {
				values[m[1]] = v
			}
			continue
		}
		if line != strings.TrimLeft(line, " \t") || !justHeader.MatchString(trimmed) || strings.HasPrefix(trimmed, "set ") {
			continue
		}
		j := i + 1
		var body []int
		for ; j < len(ls); j++ {
			l := string(text[ls[j][0]:ls[j][1]])
			if strings.TrimSpace(l) == "" {
				continue
			}
			if l == strings.TrimLeft(l, " \t") {
				break
			}
			body = append(body, j)
		}
		i = j - 1
		if len(body) == 0 {
			continue
		}
		first := strings.TrimSpace(string(text[ls[body[0]][0]:ls[body[0]][1]]))
		shebang := strings.HasPrefix(first, "#!")
		if shebang && !nestedShells[shebangProgram(first[2:])] {
			continue // a recipe in another language
		}
		continued := false
		for _, k := range body {
			s, e := ls[k][0], ls[k][1]
			for s < e && (text[s] == ' ' || text[s] == '\t') {
				s++
			}
			for s < e && (text[s] == '@' || text[s] == '-') && !shebang {
				text[s] = ' '
				s++
			}
			justRewrite(text, s, e)
			// A #! recipe is one script; a line ending in \ goes on
			// on the next (one shell).
			if len(out) > 0 && k != body[0] && (shebang || continued) {
				out[len(out)-1].end = e
			} else {
				out = append(out, recipeLine{ls[k][0], e})
			}
			continued = strings.HasSuffix(strings.TrimRight(string(text[ls[k][0]:e]), "\r"), `\`)
		}
	}
	return out
}

// justRewrite turns {{ NAME }} into ${NAME} padded with spaces, and any
// other interpolation into a word of underscores, in place.
func justRewrite(text []byte, s, e int) {
	for _, m := range justInterp.FindAllSubmatchIndex(text[s:e], -1) {
		a, b := s+m[0], s+m[1]
		name := ""
		if m[2] >= 0 {
			name = string(text[s+m[2] : s+m[3]])
		}
		inner := strings.TrimSpace(string(text[a+2 : b-2]))
		for p := a; p < b; p++ {
			text[p] = '_'
		}
		if name != "" && inner == name && b-a >= len(name)+3 {
			rep := "${" + name + "}"
			copy(text[a:], rep)
			for p := a + len(rep); p < b; p++ {
				text[p] = ' '
			}
		}
	}
}

// justString is a just string literal's value.
func justString(v string) (string, bool) {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		inner := v[1 : len(v)-1]
		if !strings.ContainsAny(inner, `\{`) {
			return inner, true
		}
	}
	return "", false
}

// makeDefine is the first line of a multi-line variable (GNU make's
// `define NAME [=|:=|::=|+=|?=|!=]`, with `override` or `export`).
var makeDefine = regexp.MustCompile(`^((override|export|private)\s+)*define(\s|$)`)

// defineEnd is the index of the line that ends the define opened at line
// i (its `endef`, defines nested inside counted), the last line when none
// does.
func defineEnd(text []byte, ls [][2]int, i int) int {
	depth := 0
	for j := i; j < len(ls); j++ {
		l := strings.TrimSpace(string(text[ls[j][0]:ls[j][1]]))
		switch {
		case makeDefine.MatchString(l):
			depth++
		case l == "endef" || strings.HasPrefix(l, "endef ") || strings.HasPrefix(l, "endef\t") || strings.HasPrefix(l, "endef#"):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(ls) - 1
}
