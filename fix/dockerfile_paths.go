package fix

// Where a Dockerfile's instructions work: the WORKDIR a relative COPY
// destination is below, and the text a word's removal takes.

import (
	"bytes"
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
