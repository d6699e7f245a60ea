package loader

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// More ways a script hands text to a shell, read as scripts of their own
// like `bash -c` (shell_nested.go): `eval WORDS` (the words joined by
// spaces), a shell reading a pipe (`echo '…' | sh`, `printf '%s\n' '…' |
// bash`, `cat <<EOF | bash`), and the programs whose option names a
// command they run with sh -c (su and runuser -c, flock -c, script -c, sg
// -c). What the outer shell expands first is kept as written (the text is
// then close to, not exactly, what runs).

// commandOptionPrograms run the value of their -c (or --command) option
// as a shell command.
var commandOptionPrograms = map[string]bool{"su": true, "runuser": true, "flock": true, "script": true, "sg": true}

// commandOptionArg is the index of the word a command-option program at
// args[i] runs, or -1: the word after -c, --command or a cluster ending in
// c (script -qec CMD), or the option word itself when it holds the command
// (-cCMD, --command=CMD).
func commandOptionArg(args []*syntax.Word, i int) int {
	for j := i + 1; j < len(args); j++ {
		o, _ := wordLiteral(args[j])
		if (o == "-c" || o == "--command" || clusterEndsInC(o)) && j+1 < len(args) {
			return j + 1
		}
		if suInline(args[j]) > 0 {
			return j
		}
	}
	return -1
}

// clusterEndsInC reports whether an option word is a cluster of switches
// whose last takes the command (-qec, -lc).
func clusterEndsInC(o string) bool {
	return len(o) > 2 && o[0] == '-' && o[1] != '-' && o[len(o)-1] == 'c' && isLetters(o[1:])
}

// evalScript reads what `eval WORDS` runs, after the wrappers before it
// (builtin eval, command eval).
func (x *shellExtractor) evalScript(c ShellCommand, args []*syntax.Word) {
	e := Effective(c, nil)
	if e < 0 || e+1 >= len(args) || wordValue(c.Words[e]) != "eval" {
		return
	}
	x.inEval = true
	x.nestedScript(args[e], args[len(args)-1], x.joinedText(args[e+1:], " "))
	x.inEval = false
}

// joinedText is the words' texts, as the outer shell decodes them, joined
// by sep (mapped to the end of the word before it).
func (x *shellExtractor) joinedText(ws []*syntax.Word, sep string) nestedText {
	t := nestedText{exact: true, limit: max(*x.nestedBudget, 0) + 1}
	for k, w := range ws {
		if k > 0 {
			t.add(sep, x.off(ws[k-1].End())-len(sep))
		}
		sub := x.nestedText(w, 0)
		t.text = append(t.text, sub.text...)
		t.offs = append(t.offs, sub.offs...)
		t.exact = t.exact && sub.exact
	}
	return t
}

// pipedScript reads the script a shell at the end of a pipe reads from
// it: what echo or printf prints, or the here-document cat prints.
func (x *shellExtractor) pipedScript(n *syntax.BinaryCmd) {
	if n.Op != syntax.Pipe && n.Op != syntax.PipeAll || n.Y == nil || n.X == nil {
		return
	}
	call, ok := n.Y.Cmd.(*syntax.CallExpr)
	if !ok || hasStdinRedirect(n.Y) {
		return
	}
	sh := readsStdin(call.Args)
	if sh < 0 {
		return
	}
	src := n.X
	for {
		b, ok := src.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll || b.Y == nil {
			break
		}
		src = b.Y
	}
	prev, ok := src.Cmd.(*syntax.CallExpr)
	if !ok || len(prev.Args) == 0 {
		return
	}
	name, _ := wordLiteral(prev.Args[0])
	switch path.Base(name) {
	case "echo":
		args := prev.Args[1:]
		for len(args) > 0 {
			o, _ := wordLiteral(args[0])
			if o != "-n" && o != "-e" && o != "-E" && o != "-ne" && o != "-en" {
				break
			}
			args = args[1:]
		}
		if len(args) > 0 {
			x.nestedScript(call.Args[sh], args[len(args)-1], x.joinedText(args, " "))
		}
	case "printf":
		args := prev.Args[1:]
		if len(args) > 0 && literalIs(args[0], "--") {
			args = args[1:]
		}
		switch {
		case len(args) == 1:
			// The format is the script (its escapes are printf's).
			t := x.nestedText(args[0], 0)
			t.text = []byte(strings.ReplaceAll(string(t.text), `\n`, " \n"))
			x.nestedScript(call.Args[sh], args[0], t)
		case len(args) > 1:
			// printf FORMAT ARGS: the arguments, a line each (the usual
			// '%s\n'); another format is read the same, close to what
			// runs.
			t := x.joinedText(args[1:], "\n")
			t.exact = false
			x.nestedScript(call.Args[sh], args[len(args)-1], t)
		}
	default:
		x.stdinBodies(call.Args[sh], src)
	}
}

// procSubstScript reads the script a shell (or source) at args[sh] runs
// from a process substitution that prints it: bash <(echo '…').
func (x *shellExtractor) procSubstScript(args []*syntax.Word) {
	for i, a := range args {
		v, ok := wordLiteral(a)
		if !ok || !nestedShells[path.Base(v)] && v != "source" && v != "." || i+1 >= len(args) {
			continue
		}
		arg := args[i+1]
		if len(arg.Parts) != 1 {
			return
		}
		ps, ok := arg.Parts[0].(*syntax.ProcSubst)
		if !ok || ps.Op != syntax.CmdIn || len(ps.Stmts) != 1 {
			return
		}
		if call, ok := ps.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(call.Args) > 1 {
			name, _ := wordLiteral(call.Args[0])
			words, sep := call.Args[1:], " "
			if path.Base(name) == "printf" && len(words) > 1 {
				words, sep = words[1:], "\n" // the arguments, a line each
			}
			switch path.Base(name) {
			case "echo", "printf":
				t := x.joinedText(words, sep)
				t.exact = false
				x.nestedScript(a, call.Args[len(call.Args)-1], t)
			}
		}
		return
	}
}

// stdinBodies reads the here-documents and here-strings given to the
// command that prints into the shell's pipe (cat <<EOF | bash).
func (x *shellExtractor) stdinBodies(sh *syntax.Word, st *syntax.Stmt) {
	for _, r := range st.Redirs {
		switch {
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			x.nestedScript(sh, r.Hdoc, x.heredocText(r))
		case r.Op == syntax.WordHdoc && r.Word != nil:
			x.nestedScript(sh, r.Word, x.nestedText(r.Word, 0))
		}
	}
}

// heredocText is a here-document's body as the shell reading it gets it:
// as written after a quoted delimiter, else with the outer shell's
// expansions (kept as written).
func (x *shellExtractor) heredocText(r *syntax.Redirect) nestedText {
	if !quotedDelimiter(r.Word) {
		return x.nestedText(r.Hdoc, 0)
	}
	t := nestedText{exact: true}
	if s, e := x.off(r.Hdoc.Pos()), x.off(r.Hdoc.End()); s >= 0 && e <= len(x.str) && s <= e {
		t.add(x.str[s:e], s)
	}
	return t
}

// hasStdinRedirect reports whether a statement's standard input comes from
// a redirection rather than its pipe.
func hasStdinRedirect(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.RdrInOut:
			return true
		}
	}
	return false
}

func literalIs(w *syntax.Word, v string) bool {
	s, ok := wordLiteral(w)
	return ok && s == v
}
