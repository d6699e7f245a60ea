package loader

import (
	"fmt"
	"path"
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

var nestedShells = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "ash": true}

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
		case base == "su":
			for j := i + 1; j+1 < len(args); j++ {
				o, _ := wordLiteral(args[j])
				if o == "-c" || o == "--command" {
					return i, j + 1
				}
			}
		}
	}
	return -1, -1
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
}

func (t *nestedText) add(s string, at int) {
	for i := 0; i < len(s); i++ {
		t.text = append(t.text, s[i])
		t.offs = append(t.offs, at+i)
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

func (x *shellExtractor) nestedText(w *syntax.Word) nestedText {
	t := nestedText{exact: true}
	raw := func(n syntax.Node) {
		s, e := x.off(n.Pos()), x.off(n.End())
		if s >= 0 && e <= len(x.str) && s <= e {
			t.add(x.str[s:e], s)
		}
		t.exact = false
	}
	var parts func(ps []syntax.WordPart, quoted bool)
	parts = func(ps []syntax.WordPart, quoted bool) {
		for _, p := range ps {
			switch p := p.(type) {
			case *syntax.Lit:
				t.addEscaped(p.Value, x.off(p.Pos()), quoted)
			case *syntax.SglQuoted:
				if p.Dollar {
					raw(p)
					continue
				}
				t.add(p.Value, x.off(p.Left)+1)
			case *syntax.DblQuoted:
				parts(p.Parts, true)
			default:
				raw(p)
			}
		}
	}
	parts(w.Parts, false)
	return t
}

// nested parses the script argument of a command that starts a shell and
// adds what it holds to the document.
func (x *shellExtractor) nested(args []*syntax.Word) {
	sh, i := nestedScriptArg(args)
	if i < 0 || x.depth >= maxNestedDepth {
		return
	}
	t := x.nestedText(args[i])
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
			end := x.off(args[i].End())
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
	src := shellSource{text: t.text, once: true, parser: *x.nestedParser,
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
	for _, p := range parses {
		for _, s := range p.stmts {
			syntax.Walk(s, y.visit)
		}
	}
	x.words = y.words
	x.tooMany = x.tooMany || y.tooMany
	x.script.merge(y.script)
	x.errs = append(append(x.errs, y.errs...), bound...)
	// A syntax error is the inner script's only when its text is exactly
	// what runs; with expansions kept as written it may be ours.
	if t.exact {
		for _, e := range errs {
			e.Message = "shell, in the script `" + x.nodeText(args[sh]) + "` runs: " + strings.TrimPrefix(e.Message, "shell: ")
			x.synErrs = append(x.synErrs, e)
		}
	}
	x.synErrs = append(x.synErrs, y.synErrs...)
}
