package loader

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// node takes what the document holds of one node of a script.
func (x *shellExtractor) node(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.Stmt:
		x.stdinScript(n)
		x.writtenScript(n)
	case *syntax.BinaryCmd:
		x.ops.binary(n, x.stack)
		x.pipedScript(n)
	case *syntax.FuncDecl:
		x.funcDecl(n)
	case *syntax.CallExpr:
		x.call(n)
	case *syntax.DeclClause:
		variant := ""
		if n.Variant != nil {
			variant = n.Variant.Value
		}
		for _, a := range n.Args {
			if a.Name != nil {
				x.assign(a, variant)
			}
		}
	case *syntax.ParamExp:
		if n.Param != nil {
			x.script.Expansions = append(x.script.Expansions, Expansion{
				Name: n.Param.Value, Text: x.nodeText(n), Function: x.function(), Pos: x.nodeSpan(n),
			})
		}
	case *syntax.ForClause:
		x.forLoop(n)
	case *syntax.CaseClause:
		x.casePatterns(n)
	case *syntax.Redirect:
		x.heredoc(n)
	case *syntax.Comment:
		x.comment(n)
	}
}

func (x *shellExtractor) funcDecl(n *syntax.FuncDecl) {
	name := ""
	namePos := x.nodeSpan(n)
	if n.Name != nil {
		name = n.Name.Value
		namePos = x.nodeSpan(n.Name)
	}
	x.script.Functions = append(x.script.Functions, ShellFunction{Name: name, NamePos: namePos, Pos: x.nodeSpan(n)})
	x.funcs = append(x.funcs, name)
}

// unquoted reports whether a word has no quoted part (its expansions are
// split into fields).
func unquoted(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return false
		}
	}
	return true
}

// call is a simple command: its assignments, and its words as a command.
func (x *shellExtractor) call(n *syntax.CallExpr) {
	for _, a := range n.Assigns {
		x.assign(a, "")
	}
	if len(n.Args) == 0 {
		return
	}
	c := ShellCommand{Words: make([]Word, 0, len(n.Args)), Function: x.function(), Pos: x.nodeSpan(n)}
	for _, a := range n.Args {
		w := x.word(a)
		if w.Value == nil {
			if r, ok := x.resolve(a); ok {
				w.Resolved = &r
				if unquoted(a) && strings.ContainsAny(r, " \t\n") {
					// An unquoted expansion is split into fields
					// (GIT="git -C /x"; $GIT clone …).
					for _, f := range strings.Fields(r) {
						c.Words = append(c.Words, Word{Text: w.Text, Resolved: strp(f), Pos: w.Pos})
					}
					continue
				}
			}
		}
		c.Words = append(c.Words, w)
	}
	if len(c.Words) > 1 && x.wrapperVar(n.Args[0]) {
		// $SUDO cmd …, where SUDO is sudo or nothing: cmd runs.
		c.Wrappers, c.Words = c.Words[:1:1], c.Words[1:]
	}
	x.placeCommand(&c)
	x.placeDir(&c, n, n.Args)
	c.Name = wordValue(c.Words[0])
	x.script.Commands = append(x.script.Commands, c)
	x.nested(n.Args)
	x.evalScript(c, n.Args)
	x.pythonInline(n.Args)
	x.procSubstScript(n.Args)
}

func (x *shellExtractor) forLoop(n *syntax.ForClause) {
	it, ok := n.Loop.(*syntax.WordIter)
	if !ok || it.Name == nil {
		return
	}
	f := ForLoop{Var: it.Name.Value, Words: make([]Word, 0, len(it.Items)), Function: x.function(), Pos: x.nodeSpan(n)}
	for _, w := range it.Items {
		f.Words = append(f.Words, x.word(w))
	}
	x.script.ForLoops = append(x.script.ForLoops, f)
}

func (x *shellExtractor) casePatterns(n *syntax.CaseClause) {
	subject := ""
	if n.Word != nil {
		subject = x.nodeText(n.Word)
	}
	for _, item := range n.Items {
		for _, p := range item.Patterns {
			w := x.word(p)
			x.script.CasePatterns = append(x.script.CasePatterns, CasePattern{
				Subject: subject, Text: w.Text, Value: w.Value, Function: x.function(), Pos: w.Pos,
			})
		}
	}
}

func (x *shellExtractor) heredoc(n *syntax.Redirect) {
	if n.Hdoc == nil {
		return
	}
	delim := ""
	if n.Word != nil {
		delim = x.nodeText(n.Word)
	}
	x.script.Heredocs = append(x.script.Heredocs, ShellHeredoc{
		Delimiter: delim, Body: x.nodeText(n.Hdoc), Function: x.function(), Pos: x.nodeSpan(n.Hdoc),
	})
}

// comment runs to the end of its line; the parser's Text may have lost
// bytes (NUL), so it is taken from the source.
func (x *shellExtractor) comment(n *syntax.Comment) {
	start := x.off(n.Hash)
	end := start
	for end < len(x.src.text) && x.src.text[end] != '\n' {
		end++
	}
	text := strings.TrimRight(x.str[start:end], "\r")
	x.comments = append(x.comments, Word{
		Text: x.textAt(start, start+len(text)), Value: strp(strings.TrimSpace(strings.TrimPrefix(text, "#"))),
		Pos: x.src.span(start, start+len(text)),
	})
}
