package loader

import (
	"path"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// The directory a RUN starts in (the build model's directories): its
// stage's last WORKDIR before it, a relative WORKDIR joined to the one
// before, a stage built FROM another stage of the file starting in that
// stage's last WORKDIR. Without a WORKDIR a stage starts where its base
// image says, which buildgate does not know: "." stands for it, as for
// the start of a script. A WORKDIR whose variables have no static value
// makes the directory unknown.

// wdState is a stage's working directory so far.
type wdState struct {
	dir   string
	known bool
}

// workdir is where a RUN of the current stage starts, as it stands now.
func (d *dockerLoad) workdir() wdState {
	stage := len(d.doc.Stages)
	if stage == 0 {
		return wdState{dir: ".", known: true}
	}
	if d.wdStage != stage {
		d.wdStage, d.wdUpTo = stage, 0
		d.wd = d.inheritedWD(stage - 1)
	}
	ins := d.doc.Stages[stage-1].Instructions
	for ; d.wdUpTo < len(ins); d.wdUpTo++ {
		d.wd = d.applyWD(d.wd, ins[d.wdUpTo])
	}
	return d.wd
}

// inheritedWD is where stage k starts: the final WORKDIR of the earlier
// stage it is built FROM, else ".".
func (d *dockerLoad) inheritedWD(k int) wdState {
	if d.finalWD == nil {
		d.finalWD = map[int]wdState{}
	}
	base := strings.ToLower(wordValue(d.doc.Stages[k].Base))
	for j := k - 1; j >= 0; j-- {
		if strings.ToLower(d.doc.Stages[j].Name) != base || base == "" {
			continue
		}
		if wd, ok := d.finalWD[j]; ok {
			return wd
		}
		// Stages are built FROM earlier ones only: j < k, so this ends.
		wd := d.inheritedWD(j)
		for _, in := range d.doc.Stages[j].Instructions {
			wd = d.applyWD(wd, in)
		}
		d.finalWD[j] = wd
		return wd
	}
	return wdState{dir: ".", known: true}
}

// applyWD is the working directory after instruction in.
func (d *dockerLoad) applyWD(wd wdState, in Instruction) wdState {
	if in.Cmd != "workdir" || len(in.Args) == 0 {
		return wd
	}
	v := wordValue(in.Args[0])
	if strings.Contains(v, "$") {
		if v = expandWith(v, d.runValues()); strings.Contains(v, "$") {
			return wdState{} // a variable without a value
		}
	}
	if strings.HasPrefix(v, "/") {
		return wdState{dir: path.Clean(v), known: true}
	}
	if !wd.known {
		return wd
	}
	return wdState{dir: path.Join(wd.dir, v), known: true}
}

// onbuild reads the script of ONBUILD RUN …, which every build FROM this
// image runs: the trigger's command line after RUN and its flags.
func (d *dockerLoad) onbuild(in *Instruction, m *mappedText, rest, lastCmdLine int, n *parser.Node) {
	toks := splitTokens(m.text, rest, d.escape)
	if len(toks) < 2 || !strings.EqualFold(string(m.text[toks[0].start:toks[0].end]), "run") {
		return
	}
	at := toks[1].start
	for _, t := range toks[1:] {
		if !strings.HasPrefix(string(m.text[t.start:t.end]), "--") {
			at = t.start
			break
		}
		at = t.end
	}
	if strings.HasPrefix(strings.TrimSpace(string(m.text[at:])), "[") {
		return // exec form
	}
	d.runScript(in, m, at, lastCmdLine, n)
}

// stageShell is the program the current stage's last SHELL runs shell-form
// instructions with ("" for the default, /bin/sh).
func (d *dockerLoad) stageShell() string {
	stage := len(d.doc.Stages)
	if stage == 0 {
		return ""
	}
	if d.shStage != stage {
		d.shStage, d.shUpTo, d.sh = stage, 0, ""
	}
	ins := d.doc.Stages[stage-1].Instructions
	for ; d.shUpTo < len(ins); d.shUpTo++ {
		if in := ins[d.shUpTo]; in.Cmd == "shell" && len(in.Args) > 0 {
			d.sh = wordValue(in.Args[0])
		}
	}
	return d.sh
}
