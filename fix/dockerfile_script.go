package fix

// A RUN of a kept stage planned as the script it is (issue 32:
// timescaledb-docker-ha's `RUN set -ex; if [ -n "${PGVECTOR}" ]; then git
// clone …; make install; fi`, an install line of a RUN that records the
// source build's variable). The shell planner (Shell) reads the RUN's
// script in place: a copy of the Dockerfile whose bytes outside the
// script are blanks keeps every offset, line and column, so its edits
// are the Dockerfile's. What it leaves decides: nothing but `set`, and
// the whole instruction goes; lines inside the RUN, and they go; an edit
// on its first line (where RUN is) or its last (which ends the
// continuation) is declined.

import (
	"bytes"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
)

// runScript plans a shell-form RUN whose findings no whole instruction
// answers. It reports whether it planned anything.
func (p *dockerPlan) runScript(cut *lineCut, ins loader.Instruction) bool {
	if ins.Cmd != "run" || ins.ExecForm || ins.Shell == nil || len(ins.Heredocs) > 0 || len(ins.Args) != 1 {
		return false
	}
	start, _, err := Offsets(p.src, ins.Args[0].Pos)
	if err != nil {
		return false
	}
	_, end, err := Offsets(p.src, ins.Pos)
	if err != nil || end <= start {
		return false
	}
	var fs []finding.Finding
	var idx []int
	for i, f := range p.fs {
		if p.offs[i] >= start && p.offs[i] < end {
			fs = append(fs, f)
			idx = append(idx, i)
		}
	}
	if len(fs) == 0 {
		return false
	}
	script := blankOutside(p.src, start, end)
	opt := p.opt
	opt.endsShell = true
	plan := Shell("RUN", script, fs, opt)
	if len(plan.Edits) == 0 {
		return false
	}
	left, err := Apply(script, plan.Edits)
	if err != nil {
		return false
	}
	if onlySetLeft(left) {
		// The RUN was the source build and nothing else.
		cut.remove(ins.Pos.Line, ins.Pos.EndLine)
		p.answer(ins.Pos, "")
		return true
	}
	first, last := ins.Pos.Line, ins.Pos.EndLine
	for _, e := range plan.Edits {
		l0 := lineOf(p.src, e.Start)
		l1 := lineOf(p.src, max(e.End-1, e.Start))
		if l0 <= first || l1 >= last {
			return false // the RUN keyword's line, or the continuation's end
		}
	}
	p.inline = append(p.inline, plan.Edits...)
	for _, fd := range plan.Fixed {
		for k, f := range fs {
			if f == fd {
				p.fixed[idx[k]] = true
			}
		}
	}
	for _, d := range plan.Declined {
		for k, f := range fs {
			if f == d.Finding && p.reason[idx[k]] == "" {
				p.reason[idx[k]] = d.Reason
				p.unsafe[idx[k]] = d.Unsafe
			}
		}
	}
	return true
}

// blankOutside is src with every byte outside [start, end) a space, line
// ends kept: the RUN's script where it is in the file.
func blankOutside(src []byte, start, end int) []byte {
	out := bytes.Clone(src)
	for i := range out {
		if (i < start || i >= end) && out[i] != '\n' {
			out[i] = ' '
		}
	}
	return out
}

// onlySetLeft reports whether a script holds no command but `set` (its
// options) and `:` once the plan's edits are made.
func onlySetLeft(script []byte) bool {
	doc, ok := loader.Parse(loader.KindShell, "RUN", script).(*loader.ShellDocument)
	if !ok || len(doc.Errors) > 0 {
		return false
	}
	for _, c := range doc.Commands {
		if c.Name != "set" && c.Name != ":" && c.Name != "true" {
			return false
		}
	}
	return true
}
