package loader

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Shell inside shell: `bash -c '…'`, `sh -lc "…"`, `su -c '…'`, and the
// same after another command (`docker run IMAGE bash -lc '…'`, `sudo sh -c
// …`, `kubectl exec POD -- bash -c …`). The script argument is a program of
// its own, so it is parsed as one and its commands, assignments and loops
// join the document with positions mapped back into the file: a clone or
// build inside it is seen like any other (issue 13; a ROCm build script
// that runs its build in a container does exactly this).

const (
	// maxNestedDepth bounds bash -c inside bash -c inside …
	maxNestedDepth = 8
	// maxNestedBytes bounds the text of nested scripts parsed per file,
	// every level counted: real ones are a few lines each, and each
	// costs a parse tree of its own.
	maxNestedBytes = 1 << 20
)

var nestedShells = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "ash": true, "mksh": true,
	"yash": true, "posh": true, "hush": true}

// nestedScriptArg returns the indexes of the argument of a simple command
// that starts a shell (bash, su) and of the argument that shell runs as a
// script, or -1, -1.
func nestedScriptArg(args []*syntax.Word) (int, int) {
	for i := 0; i < len(args); i++ {
		v, ok := wordLiteral(args[i])
		if !ok {
			continue
		}
		switch base := path.Base(v); {
		case nestedShells[base]:
			if j := shellCArg(args, i+1); j >= 0 {
				return i, j
			}
		case commandOptionPrograms[base]:
			if j := commandOptionArg(args, i); j >= 0 {
				return i, j
			}
		}
	}
	return -1, -1
}

// suInline is the length of the option that starts a word holding su's
// command as well (--command=…, -c…), or 0.
func suInline(w *syntax.Word) int {
	if len(w.Parts) == 0 {
		return 0
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return 0
	}
	switch {
	case strings.HasPrefix(l.Value, "--command="):
		return len("--command=")
	case strings.HasPrefix(l.Value, "-c") && len(l.Value) > 2 || l.Value == "-c" && len(w.Parts) > 1:
		return 2
	}
	return 0
}

// shellCArg reads a shell's options from args[from:] the way bash does and
// returns the index of the script when -c is among them (alone or in a
// cluster: -lc, -ec, -exc), else -1.
func shellCArg(args []*syntax.Word, from int) int {
	hasC := false
	for j := from; j < len(args); j++ {
		o, ok := wordLiteral(args[j])
		if !ok {
			if hasC {
				return j // a script with expansions: bash -c "cmake $DIR"
			}
			return -1
		}
		switch {
		case o == "--":
			if hasC && j+1 < len(args) {
				return j + 1
			}
			return -1
		case o == "--rcfile" || o == "--init-file":
			j++
		case strings.HasPrefix(o, "--"):
		case len(o) > 1 && (o[0] == '-' || o[0] == '+') && isLetters(o[1:]):
			if o[0] == '-' && strings.ContainsRune(o[1:], 'c') {
				hasC = true
			}
			// -o NAME and -O NAME take the next word.
			if last := o[len(o)-1]; last == 'o' || last == 'O' {
				j++
			}
		default:
			if hasC {
				return j
			}
			return -1
		}
	}
	return -1
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// nestedText is the script a shell word hands to the shell it starts, and
// for each of its bytes the offset in the outer text it came from. exact is
// false when the word has expansions: the outer shell replaces them before
// the inner one runs, so they are kept as written and the text is close to,
// not exactly, what runs.
type nestedText struct {
	text  []byte
	offs  []int
	exact bool
	// limit caps the values put in place (addAt): the nested budget left
	// plus one, so that an over-budget text is refused without being
	// built in full (0: maxNestedBytes).
	limit int
}

func (t *nestedText) add(s string, at int) {
	for i := 0; i < len(s); i++ {
		t.text = append(t.text, s[i])
		t.offs = append(t.offs, at+i)
	}
}

// addAt adds s with every byte mapped to the one offset at (a value put
// in place of an expansion).
func (t *nestedText) addAt(s string, at int) {
	// Values repeated ($S$S$S…) must not build more than any budget
	// reads: past it the text is cut, and its parse refused as over.
	limit := t.limit
	if limit <= 0 {
		limit = maxNestedBytes + 1
	}
	if room := limit - len(t.text); len(s) > room {
		s = s[:max(room, 0)]
	}
	for i := 0; i < len(s); i++ {
		t.text = append(t.text, s[i])
		t.offs = append(t.offs, at)
	}
}

// addEscaped copies a literal, dropping the backslash of each escape the
// outer shell removes (in double quotes only before $ ` " \ and newline).
func (t *nestedText) addEscaped(s string, at int, quoted bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			next := s[i+1]
			if next == '\n' {
				i++
				continue
			}
			if !quoted || strings.IndexByte("$`\"\\", next) >= 0 {
				i++
			}
		}
		t.text = append(t.text, s[i])
		t.offs = append(t.offs, at+i)
	}
}

// nestedText decodes a word the way the outer shell does before the inner
// one runs, from the file's bytes (a literal's Value has lost its line
// continuations, so offsets taken from it would drift), skipping the
// first skip bytes of the word (su --command=…).
func (x *shellExtractor) nestedText(w *syntax.Word, skip int) nestedText {
	t := nestedText{exact: true, limit: max(*x.nestedBudget, 0) + 1}
	start := x.off(w.Pos()) + skip
	src := func(n syntax.Node) (string, int, bool) {
		s, e := x.off(n.Pos()), x.off(n.End())
		s = max(s, start)
		if s < 0 || e > len(x.str) || s > e {
			return "", 0, false
		}
		return x.str[s:e], s, true
	}
	raw := func(n syntax.Node) {
		if text, at, ok := src(n); ok {
			t.add(text, at)
		}
		t.exact = false
	}
	var parts func(ps []syntax.WordPart, quoted bool)
	parts = func(ps []syntax.WordPart, quoted bool) {
		for _, p := range ps {
			if x.off(p.End()) <= start {
				continue
			}
			switch p := p.(type) {
			case *syntax.Lit:
				if text, at, ok := src(p); ok {
					// mvdan/sh ends a literal before a line continuation's
					// newline: its backslash goes with the newline.
					if end := at + len(text); strings.HasSuffix(text, `\`) && end < len(x.str) && x.str[end] == '\n' && !strings.HasSuffix(text, `\\`) {
						text = text[:len(text)-1]
					}
					t.addEscaped(text, at, quoted)
				}
			case *syntax.SglQuoted:
				if text, at, ok := src(p); ok && len(text) >= 2 {
					if p.Dollar {
						// $'…': ANSI-C escapes, decoded.
						t.addANSIC(text[2:len(text)-1], at+2)
					} else {
						t.add(text[1:len(text)-1], at+1)
					}
				}
			case *syntax.DblQuoted:
				parts(p.Parts, true)
			case *syntax.ParamExp:
				// A variable of the file with one static value: the outer
				// shell puts that value in the script (S="git clone …";
				// eval "$S"), each of its bytes at the expansion.
				if v, ok := x.staticValue(p); ok {
					t.addAt(v, x.off(p.Pos()))
					t.exact = false
				} else {
					raw(p)
				}
			default:
				raw(p)
			}
		}
	}
	parts(w.Parts, false)
	return t
}

// addANSIC decodes bash's $'…' escapes, each decoded byte mapped to the
// escape it came from.
func (t *nestedText) addANSIC(s string, at int) {
	simple := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': '\f', 'v': '\v', '\\': '\\', '\'': '\'', '"': '"', '?': '?'}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			t.text = append(t.text, s[i])
			t.offs = append(t.offs, at+i)
			continue
		}
		c := s[i+1]
		if b, ok := simple[c]; ok {
			t.text = append(t.text, b)
			t.offs = append(t.offs, at+i)
			i++
			continue
		}
		n, base, maxDigits := 0, 8, 3
		j := i + 1
		switch c {
		case 'x':
			base, maxDigits, j = 16, 2, i+2
		case 'u':
			base, maxDigits, j = 16, 4, i+2
		case 'U':
			base, maxDigits, j = 16, 8, i+2
		}
		k := j
		for k < len(s) && k-j < maxDigits && isDigitIn(s[k], base) {
			n = n*base + digitVal(s[k])
			k++
		}
		if k == j {
			// Not an escape bash knows: kept as written.
			t.text = append(t.text, s[i])
			t.offs = append(t.offs, at+i)
			continue
		}
		for _, b := range []byte(string(rune(n))) {
			t.text = append(t.text, b)
			t.offs = append(t.offs, at+i)
		}
		i = k - 1
	}
}

func isDigitIn(c byte, base int) bool {
	return digitVal(c) < base && (c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f')
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return 99
}

// nested parses the script argument of a command that starts a shell and
// adds what it holds to the document.
func (x *shellExtractor) nested(args []*syntax.Word) {
	sh, i := nestedScriptArg(args)
	if i < 0 {
		return
	}
	skip := 0
	if i == sh || i > sh && suInline(args[i]) > 0 && !isOptionArgOfSu(args, i) {
		skip = suInline(args[i])
	}
	// sh -c 'SCRIPT' ARG0 ARG1 …: the script's $0, $1 ….
	if skip == 0 && i+1 < len(args) && i > sh {
		pos := map[string]string{}
		for k, a := range args[i+1:] {
			if v, ok := wordLiteral(a); ok && k < 10 {
				pos[strconv.Itoa(k)] = v
			} else if r, ok := x.resolve(a); ok && k < 10 {
				pos[strconv.Itoa(k)] = r
			}
		}
		x.posArgs = pos
	}
	x.nestedScript(args[sh], args[i], x.nestedText(args[i], skip))
	x.posArgs = nil
}

// isOptionArgOfSu reports whether args[i] follows a separate -c or
// --command (so it is the whole script, not an inline option).
func isOptionArgOfSu(args []*syntax.Word, i int) bool {
	if i == 0 {
		return false
	}
	o, _ := wordLiteral(args[i-1])
	return o == "-c" || o == "--command" || clusterEndsInC(o)
}

// nestedScript parses t, the script a shell started by the word sh runs,
// which stands in the file at the word at (a script argument, or the body
// of a here-document or here-string given to the shell).
func (x *shellExtractor) nestedScript(sh, at *syntax.Word, t nestedText) {
	if x.depth >= maxNestedDepth {
		// A bound: the script is not read at all, and says so.
		x.errs = append(x.errs, Error{Message: fmt.Sprintf("shell: a script run by a script (bash -c, eval, a here-document …) nested deeper than the %d levels buildgate reads: this one is not read (see docs/robustness.md)", maxNestedDepth), Pos: x.nodeSpan(at)})
		return
	}
	args := []*syntax.Word{sh, at}
	i := 1
	if len(t.text) == 0 {
		return
	}
	if len(t.text) > *x.nestedBudget {
		if *x.nestedBudget >= 0 {
			*x.nestedBudget = -1
			x.errs = append(x.errs, Error{Message: fmt.Sprintf("shell: the scripts this file runs with bash -c, su -c … are over %d bytes in all, more than buildgate reads: this one and the rest are not read (see docs/robustness.md)", maxNestedBytes), Pos: x.nodeSpan(args[i])})
		}
		return
	}
	*x.nestedBudget -= len(t.text)
	// outerRange maps a range of the nested text to the outer text's.
	outerRange := func(s, e int) (int, int) {
		if s >= len(t.offs) {
			end := x.off(at.End())
			return end, end
		}
		os := t.offs[s]
		oe := os
		if e > s {
			oe = t.offs[min(e, len(t.offs))-1] + 1
		}
		return os, oe
	}
	if *x.nestedParser == nil {
		*x.nestedParser = newShellParser()
	}
	values := x.src.values
	if len(x.posArgs) > 0 {
		values = make(map[string]string, len(x.src.values)+len(x.posArgs))
		for k, v := range x.src.values {
			values[k] = v
		}
		for k, v := range x.posArgs {
			values[k] = v
		}
		x.posArgs = nil
	}
	src := shellSource{text: t.text, parser: *x.nestedParser, values: values,
		span: func(s, e int) Pos { return x.src.span(outerRange(s, e)) },
		textOf: func(s, e int) string {
			os, oe := outerRange(s, e)
			return x.textAt(os, oe)
		},
	}
	parses, errs, bound := parseShell(src)
	y := &shellExtractor{
		src: src, str: string(t.text), script: newScript(), comments: []Word{},
		funcs: append([]string(nil), x.funcs...), words: x.words,
		depth: x.depth + 1, nestedBudget: x.nestedBudget, nestedParser: x.nestedParser,
	}
	// The inner script starts where its command runs; eval's changes
	// the outer shell's directory, a child shell's does not.
	outer := x.shellDir()
	start := *outer
	start.stack = append([]string(nil), outer.stack...)
	y.root = &start
	eval := x.inEval
	x.inEval = false
	for _, p := range parses {
		for _, s := range p.stmts {
			syntax.Walk(s, y.visit)
		}
	}
	if eval {
		*outer = *y.root
	}
	x.words = y.words
	x.tooMany = x.tooMany || y.tooMany
	x.script.merge(y.script)
	x.errs = append(append(x.errs, y.errs...), bound...)
	// With expansions in the script, its text is read as written (the
	// outer shell replaces them first): an error may be that reading's,
	// and says so. It is reported either way: what the inner parse could
	// not read could be the source build.
	for _, e := range errs {
		e.Message = "shell, in the script `" + x.nodeText(sh) + "` runs: " + strings.TrimPrefix(e.Message, "shell: ")
		if !t.exact {
			e.Message += " (the script holds expansions, read as written)"
		}
		x.synErrs = append(x.synErrs, e)
	}
	x.synErrs = append(x.synErrs, y.synErrs...)
}

// stdinScript parses the here-document or here-string a statement gives a
// shell that reads its script from standard input (`bash <<EOF`, `docker
// run -i IMAGE bash <<'EOF'`, `sh <<< '…'`).
func (x *shellExtractor) stdinScript(st *syntax.Stmt) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) == 0 {
		return
	}
	sh := readsStdin(call.Args)
	if sh < 0 {
		return
	}
	for _, r := range st.Redirs {
		switch {
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			x.nestedScript(call.Args[sh], r.Hdoc, x.heredocText(r))
		case r.Op == syntax.WordHdoc && r.Word != nil:
			x.nestedScript(call.Args[sh], r.Word, x.nestedText(r.Word, 0))
		}
	}
}

// readsStdin is the index of a shell among args that is given no script
// (no -c, no file): it reads its script from standard input; else -1.
func readsStdin(args []*syntax.Word) int {
	for i, a := range args {
		v, ok := wordLiteral(a)
		if !ok || !nestedShells[path.Base(v)] && v != "source" && v != "." {
			continue
		}
		if shellCArg(args, i+1) >= 0 {
			return -1
		}
		for _, o := range args[i+1:] {
			ov, ok := wordLiteral(o)
			if ok && stdinPaths[ov] {
				return i // bash /dev/stdin <<< '…', source /dev/stdin <<EOF
			}
			if !ok || !strings.HasPrefix(ov, "-") && !strings.HasPrefix(ov, "+") {
				return -1 // a script file
			}
		}
		if v == "source" || v == "." {
			return -1 // source needs a file
		}
		return i
	}
	return -1
}

func quotedDelimiter(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				return true
			}
		}
	}
	return false
}
