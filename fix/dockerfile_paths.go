package fix

// Where a Dockerfile's instructions work: the WORKDIR a relative COPY
// destination is below, and the text a word's removal takes.

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/buildgate/buildgate/loader"
)

// wordEdit is the edit that takes a word out of an instruction: the word
// with the blanks before it; its whole line when it is alone on a line of
// a continued instruction, with the backslash that continued the line
// before when it was the instruction's last line (else that line would
// continue into the next instruction: buildkit skips empty continuation
// lines).
func (p *dockerPlan) wordEdit(word, ins loader.Pos) (Edit, bool) {
	s, e, err := Offsets(p.src, word)
	if err != nil {
		return Edit{}, false
	}
	ls := bytes.LastIndexByte(p.src[:s], '\n') + 1
	le := len(p.src)
	if i := bytes.IndexByte(p.src[e:], '\n'); i >= 0 {
		le = e + i
	}
	before := bytes.TrimSpace(p.src[ls:s])
	after := bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimRight(p.src[e:le], " \t\r"), []byte("\\")))
	line := lineOf(p.src, s)
	if len(before) == 0 && len(after) == 0 && line > ins.Line {
		end := min(le+1, len(p.src))
		if line == ins.EndLine {
			// The last line goes: the line before ends the
			// instruction now, without its backslash.
			prev := bytes.LastIndexByte(p.src[:ls-1], '\n') + 1
			text := bytes.TrimRight(p.src[prev:ls-1], " \t\r")
			if bytes.HasSuffix(text, []byte("\\")) {
				cut := prev + len(bytes.TrimRight(text[:len(text)-1], " \t"))
				return Edit{Start: cut, End: le}, true
			}
		}
		return Edit{Start: ls, End: end}, true
	}
	for s > ls && (p.src[s-1] == ' ' || p.src[s-1] == '\t') {
		s--
	}
	return Edit{Start: s, End: e}, true
}

// workdirAt is the working directory an instruction runs in: its stage's
// WORKDIRs before it, joined as buildkit does, from "/" or from the
// working directory the stage it builds FROM ends with. Not known when a
// WORKDIR holds a variable.
func (p *dockerPlan) workdirAt(ins loader.Instruction) (string, bool) {
	for i, st := range p.doc.Stages {
		if ins.Pos.Line >= st.Pos.Line && ins.Pos.Line <= st.Pos.EndLine {
			return p.stageWorkdir(i, ins.Pos.Line, 0)
		}
	}
	return "", false
}

// stageWorkdir is the working directory of stage i before line (its end
// for line 0).
func (p *dockerPlan) stageWorkdir(i, line, depth int) (string, bool) {
	st := p.doc.Stages[i]
	wd := "/"
	if depth > len(p.doc.Stages) {
		return "", false
	}
	for j := 0; j < i; j++ {
		if other := p.doc.Stages[j]; other.Name != "" && strings.EqualFold(other.Name, st.Base.Text) {
			base, ok := p.stageWorkdir(j, 0, depth+1)
			if !ok {
				return "", false
			}
			wd = base
		}
	}
	for _, o := range st.Instructions {
		if line > 0 && o.Pos.Line >= line {
			break
		}
		if o.Cmd != "workdir" || len(o.Args) == 0 {
			continue
		}
		d := strings.Trim(o.Args[0].Text, `"'`)
		if strings.Contains(d, "$") {
			return "", false
		}
		if strings.HasPrefix(d, "/") {
			wd = path.Clean(d)
		} else {
			wd = path.Join(wd, d)
		}
	}
	return wd, true
}

// outputUse says which kept instruction uses a path a removed step of
// the source build wrote ("" when none): a RUN holding a step that goes
// whole names the absolute paths it writes (its clone's directory, the
// `-d /dist` its wheels go to); a later instruction that stays and names
// one (`COPY --from=build /dist/ /wheels/`, `pip install /dist/*.whl`)
// would find nothing there.
func (p *dockerPlan) outputUse(cut *lineCut) string {
	all := p.allInstructions()
	gone := func(ins loader.Instruction) bool {
		for l := ins.Pos.Line; l <= max(ins.Pos.EndLine, ins.Pos.Line); l++ {
			if !cut.cut[l] {
				return false
			}
		}
		return true
	}
	for i, ins := range all {
		if ins.Cmd != "run" || ins.Shell == nil || !gone(ins) || !p.flagged(ruleStep, ins.Pos) || p.inRemovedStage(ins) {
			continue
		}
		var written []string
		for _, c := range ins.Shell.Commands {
			for _, w := range writtenPaths(c) {
				if t := cleanPath(w); strings.HasPrefix(t, "/") && len(t) > 1 && !strings.ContainsAny(t, "$*?") {
					written = append(written, t)
				}
			}
		}
		for _, later := range all[i+1:] {
			if gone(later) || p.inRemovedStage(later) {
				continue
			}
			text := instructionText(later)
			for _, w := range written {
				if mentionsPath(text, w) {
					return fmt.Sprintf("line %d uses %s, which the source build's step at line %d writes", later.Pos.Line, w, ins.Pos.Line)
				}
			}
		}
	}
	return ""
}

// writtenPaths are the paths a command makes: a clone's directory, where
// setup.py or pip puts the wheels it builds (-d, --dist-dir, -w,
// --wheel-dir), a directory mkdir makes, where cp or mv copies to.
func writtenPaths(c loader.ShellCommand) []string {
	var out []string
	ws := c.Words
	switch {
	case c.Fetch != nil && c.Fetch.Kind == "clone" && c.Fetch.Into != nil:
		out = append(out, *c.Fetch.Into)
	case c.Name == "mkdir":
		for _, w := range ws[1:] {
			if !strings.HasPrefix(w.Text, "-") {
				out = append(out, w.Text)
			}
		}
	case (c.Name == "cp" || c.Name == "mv") && len(ws) > 2:
		out = append(out, ws[len(ws)-1].Text)
	}
	for i, w := range ws {
		switch {
		case (w.Text == "-d" || w.Text == "--dist-dir" || w.Text == "-w" || w.Text == "--wheel-dir") && i+1 < len(ws):
			out = append(out, ws[i+1].Text)
		case strings.HasPrefix(w.Text, "--dist-dir=") || strings.HasPrefix(w.Text, "--wheel-dir="):
			out = append(out, w.Text[strings.Index(w.Text, "=")+1:])
		}
	}
	return out
}
