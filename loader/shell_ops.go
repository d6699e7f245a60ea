package loader

import "mvdan.cc/sh/v3/syntax"

// shellOps places the simple commands of a script in its pipelines and
// and-or lists, as the shell runs them: what ShellCommand's Pipeline and
// After say, so that a policy asks "curl … | sh" in one query and a
// reader of the build model knows what reads what.
type shellOps struct {
	pipes int
	place map[*syntax.Stmt]pipeAt
	after map[*syntax.Stmt]string
}

// pipeAt is a statement's pipeline (its outermost | node) and index.
type pipeAt struct {
	id, index int
	top       *syntax.BinaryCmd
}

// binary records what a && b, a || b and a | b | c make of their
// statements; stack is the walk's, n last.
func (o *shellOps) binary(n *syntax.BinaryCmd, stack []syntax.Node) {
	switch n.Op {
	case syntax.AndStmt, syntax.OrStmt:
		if o.after == nil {
			o.after = map[*syntax.Stmt]string{}
		}
		o.after[firstStmt(n.Y)] = n.Op.String()
	case syntax.Pipe, syntax.PipeAll:
		// a | b | c is (a | b) | c: the outermost pipe numbers them all.
		if len(stack) >= 3 {
			if p, ok := stack[len(stack)-3].(*syntax.BinaryCmd); ok && isPipe(p.Op) {
				return
			}
		}
		if o.place == nil {
			o.place = map[*syntax.Stmt]pipeAt{}
		}
		for i, st := range pipeElems(n, nil) {
			o.place[st] = pipeAt{id: o.pipes, index: i, top: n}
		}
		o.pipes++
	}
}

func isPipe(op syntax.BinCmdOperator) bool { return op == syntax.Pipe || op == syntax.PipeAll }

// pipeElems are a pipeline's statements in order.
func pipeElems(n *syntax.BinaryCmd, out []*syntax.Stmt) []*syntax.Stmt {
	for _, st := range []*syntax.Stmt{n.X, n.Y} {
		if st == nil {
			continue
		}
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && isPipe(b.Op) && len(st.Redirs) == 0 {
			out = pipeElems(b, out)
			continue
		}
		out = append(out, st)
	}
	return out
}

// firstStmt is the statement that runs first in st: in a && (b | c), b.
func firstStmt(st *syntax.Stmt) *syntax.Stmt {
	for st != nil {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || b.X == nil {
			return st
		}
		st = b.X
	}
	return st
}

// placeCommand fills a simple command's redirections, pipeline place and
// operator from the statement it is the command of (the walk's stack
// holds the statement just below the command).
func (x *shellExtractor) placeCommand(c *ShellCommand) {
	if len(x.stack) < 2 {
		return
	}
	st, ok := x.stack[len(x.stack)-2].(*syntax.Stmt)
	if !ok {
		return
	}
	for _, r := range st.Redirs {
		sr := ShellRedirect{Op: r.Op.String(), Pos: x.nodeSpan(r)}
		if r.N != nil {
			sr.Fd = r.N.Value
		}
		if r.Word != nil {
			w := x.word(r.Word)
			sr.Word = &w
		}
		c.Redirects = append(c.Redirects, sr)
	}
	if p, ok := x.ops.place[st]; ok {
		c.Pipeline = &PipePlace{ID: p.id, Index: p.index, Pos: x.nodeSpan(p.top)}
	}
	c.After = x.ops.after[st]
}
