package fix

import (
	"fmt"
	"strings"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
)

// The source-build rules a Dockerfile's fixes answer, by rule name (the
// names are the built-in pack's METADATA; ids can be renumbered).
const (
	ruleStage = "source-build-stage"
	ruleArg   = "source-build-arg"
	ruleStep  = "source-build-step"
	ruleCache = "source-build-cache"
)

// Plan is what fixing one file does: the edits, the findings they answer
// and the findings left, each with why.
type Plan struct {
	Edits    []Edit
	Fixed    []finding.Finding
	Declined []Declined
	// Gone are the names the edits remove that other files may still
	// use; Resolve refuses the plan where one does.
	Gone []Name
	// Notes say what a removal also takes away that no finding is about
	// (system packages a removed RUN installed), for the person who runs
	// fix to weigh.
	Notes []string
	// needed is the line of a kept instruction that uses what a removed
	// step of the source build wrote (Dockerfile plans again, keeping
	// the steps).
	needed string
}

// Declined is a finding a fix does not answer, and why.
type Declined struct {
	Finding finding.Finding
	Reason  string
	// Unsafe: the finding's fix changes what the build does beyond its
	// own element, and only --unsafe-fixes applies it.
	Unsafe bool
}

// SourceBuildRule reports whether a finding is one a removal fix may
// answer.
func SourceBuildRule(name string) bool {
	switch name {
	case ruleStage, ruleArg, ruleStep, ruleCache:
		return true
	}
	return false
}

// Dockerfile plans the removal of a Dockerfile's source build (issue 17):
// the stages the findings name (with the stages built FROM them, which
// must be named too), the ARG and ENV instructions of the source build,
// the RUNs that only install what a removed stage built (their --mount
// from= it) and the COPY --from of a removed stage. Only whole
// instructions and stages go, with the comments of a paragraph that loses
// everything else; the result is parsed again and must not refer to a
// removed stage or ARG, or nothing in the file is changed.
func Dockerfile(path string, src []byte, fs []finding.Finding, opt Options) Plan {
	plan := dockerfile(path, src, fs, opt, nil)
	// The steps of one source build stand or go together: a kept step
	// (a gated RUN doing other work: ROCm/ATOM's dependencies RUN) needs
	// the clone a removed one made. Plan again with every instruction
	// holding a step kept, as the kept one is.
	var kept *keepSteps
	fixedStep := false
	for _, f := range plan.Fixed {
		fixedStep = fixedStep || f.Name == ruleStep
	}
	for _, d := range plan.Declined {
		if d.Finding.Name == ruleStep && kept == nil {
			kept = &keepSteps{line: d.Finding.Pos.Line, unsafe: d.Unsafe}
		}
	}
	if plan.needed != "" && kept == nil {
		// A kept instruction uses what a removed step wrote (the red
		// team's COPY --from=build /dist/ after the RUN that built
		// /dist goes): the steps stay.
		kept = &keepSteps{needs: plan.needed}
	}
	if kept == nil || !fixedStep || len(plan.Edits) == 0 {
		return plan
	}
	again := dockerfile(path, src, fs, opt, kept)
	if len(again.Edits) == 0 {
		// The file cannot be fixed without them: all of it is what the
		// kept step is (unsafe when it is).
		for i := range again.Declined {
			if kept.unsafe && !again.Declined[i].Unsafe {
				again.Declined[i].Unsafe = true
				again.Declined[i].Reason = fmt.Sprintf("unsafe fix: the source build's step at line %d stays (it does other work), and the other steps with it; `buildgate fix --unsafe-fixes` removes them all", kept.line)
			}
		}
	}
	return again
}

// keepSteps asks a plan to keep every instruction holding a step of the
// source build, as the step at line is kept (unsafe when it is).
type keepSteps struct {
	line   int
	unsafe bool
	needs  string // or: why a kept instruction needs them
}

func dockerfile(path string, src []byte, fs []finding.Finding, opt Options, keep *keepSteps) Plan {
	doc, ok := loader.Parse(loader.KindDockerfile, path, src).(*loader.DockerfileDocument)
	if !ok || unreadable(doc) {
		return declineAll(fs, "the file does not parse as buildkit reads it; fix it by hand")
	}
	cut := newLineCut(src, func(l []byte) bool { return l[0] == '#' })
	for _, d := range doc.Directives {
		cut.keep[d.Pos.Line] = true
	}
	p := dockerPlan{src: src, doc: doc, fs: fs, fixed: make([]bool, len(fs)), reason: make([]string, len(fs)), unsafe: make([]bool, len(fs)), removed: map[string]bool{}, offs: make([]int, len(fs)), opt: opt, keptStage: map[string]bool{}, keep: keep}
	for i, fd := range fs {
		if o, _, err := Offsets(src, fd.Pos); err == nil {
			p.offs[i] = o
		} else {
			p.offs[i] = -1
		}
	}

	if why := p.removedStages(); why != "" {
		return declineAll(fs, why)
	}
	p.planCopies()
	p.sw = p.switches()
	p.keepSw = p.unsafeSwitches()
	var removedArgs []string
	for _, st := range doc.Stages {
		if p.removed[strings.ToLower(st.Name)] {
			cut.remove(st.Pos.Line, st.Pos.EndLine)
			p.answer(st.Pos, "")
			continue
		}
		if st.Name != "" && p.keptStage[strings.ToLower(st.Name)] {
			continue
		}
		for _, ins := range st.Instructions[1:] {
			removedArgs = append(removedArgs, p.instruction(cut, ins)...)
		}
	}
	for _, ins := range doc.Preamble {
		removedArgs = append(removedArgs, p.instruction(cut, ins)...)
	}
	removedArgs = append(removedArgs, p.stageArgs(cut)...)
	removedArgs = append(removedArgs, p.orphanArgs(cut)...)
	p.toolPaths(cut)
	cut.tidy()
	edits := cut.edits()
	for _, e := range p.inline {
		if !cut.cut[lineOf(src, e.Start)] {
			edits = append(edits, e)
		}
	}
	plan := p.result(edits)
	if len(plan.Edits) == 0 {
		return plan
	}
	fixed, err := Apply(src, plan.Edits)
	if err == nil {
		err = untouchedErrors(src, doc.Errors, plan.Edits)
	}
	if err == nil {
		err = sameInstructions(path, doc, fixed, cut)
	}
	if err == nil {
		err = checkDockerfile(path, fixed, p.removed, removedArgs, doc.Errors)
	}
	if err != nil {
		return declineAll(fs, fmt.Sprintf("the fixed file would %v; fix it by hand", oldLines(err, src, plan.Edits)))
	}
	for _, st := range doc.Stages {
		if st.Name != "" && p.removed[strings.ToLower(st.Name)] {
			plan.Gone = append(plan.Gone, Name{Kind: "stage", Name: st.Name})
		}
	}
	plan.Notes = p.notes
	if p.keep == nil {
		plan.needed = p.outputUse(cut)
	}
	return plan
}

// removedStages marks the stages whose FROM a stage finding names, and
// says why the plan cannot be made ("" when it can): a kept stage built
// FROM a removed one, or a removed last stage (what `docker build`
// builds without --target: the stage before it would become the image).
func (p *dockerPlan) removedStages() string {
	for _, st := range p.doc.Stages {
		if st.Name != "" && p.flagged(ruleStage, st.Instructions[0].Pos) {
			p.removed[strings.ToLower(st.Name)] = true
		}
	}
	for _, st := range p.doc.Stages {
		if p.removed[strings.ToLower(st.Name)] {
			continue
		}
		if base := strings.ToLower(st.Base.Text); p.removed[base] {
			return fmt.Sprintf("stage %q builds FROM %q, a stage of the source build, and is not part of it itself; remove or rebase it by hand", st.Name, st.Base.Text)
		}
	}
	if n := len(p.doc.Stages); n > 0 && p.doc.Stages[n-1].Name != "" && p.removed[strings.ToLower(p.doc.Stages[n-1].Name)] {
		return fmt.Sprintf("stage %q is the last one, which a build without --target builds; removing it would change what such a build produces; remove it by hand", p.doc.Stages[n-1].Name)
	}
	return ""
}

type dockerPlan struct {
	src     []byte
	offs    []int // each finding's byte offset, -1 when it does not fit
	inline  []Edit
	doc     *loader.DockerfileDocument
	fs      []finding.Finding
	fixed   []bool
	reason  []string
	removed map[string]bool // stage names, lower case
	sw      map[string]bool // ENV switches of the source build that go
	// keepSw are the switches a safe fix keeps, each with the line of a
	// RUN it gates that names no part of the source build (removing the
	// switch would stop that step: an unsafe fix).
	keepSw map[string]int
	notes  []string
	unsafe []bool // by finding: declined as an unsafe fix
	opt    Options
	// copiesPlanned: the COPYs from removed stages were planned
	// together (dockerfile_copy.go): copies, what uses their files
	// (copyUsed), or why they stay (copyWhy).
	copiesPlanned bool
	// keep: every instruction holding a step of the source build stays
	// (Dockerfile).
	keep *keepSteps
	// keptStage are the source-build stages kept whole, their removal an
	// unsafe fix (planCopies): nothing in them is planned.
	keptStage map[string]bool
	copies    []loader.Instruction
	copyUsed  []copyUse
	copyWhy   string
}

// flagged reports whether a finding of the rule lies on the lines of pos.
func (p *dockerPlan) flagged(rule string, pos finding.Pos) bool {
	for _, f := range p.fs {
		if f.Name == rule && within(f.Pos, pos) {
			return true
		}
	}
	return false
}

func within(f, pos finding.Pos) bool {
	end := pos.EndLine
	if end == 0 {
		end = pos.Line
	}
	return f.Line >= pos.Line && f.Line <= end
}

// answer marks the findings on the lines of pos as fixed, or, with a
// reason, as declined (unless another fix answers them).
func (p *dockerPlan) answer(pos finding.Pos, reason string) {
	for i, f := range p.fs {
		if within(f.Pos, pos) {
			if reason == "" {
				p.fixed[i] = true
			} else if p.reason[i] == "" {
				p.reason[i] = reason
			}
		}
	}
}

// instruction plans one instruction of a kept stage (or of the preamble)
// and returns the ARG names it removes.
func (p *dockerPlan) instruction(cut *lineCut, ins loader.Instruction) []string {
	if p.keep != nil && p.flagged(ruleStep, ins.Pos) {
		p.keepStep(ins)
		return nil
	}
	// A RUN gated on a removed switch goes whether or not a finding names
	// it (ATOM's ionic-provider step mentions no Mooncake name).
	if dormant(ins, p.sw) {
		p.dormantRun(cut, ins)
		return nil
	}
	if !p.any(ins.Pos) {
		return nil
	}
	if line, ok := p.keptSwitch(ins); ok {
		for i, f := range p.fs {
			if within(f.Pos, ins.Pos) && !p.fixed[i] {
				p.unsafe[i] = true
				p.reason[i] = fmt.Sprintf("unsafe fix: removing this switch also stops the RUN at line %d, which does work besides the source build (it may be needed without it); `buildgate fix --unsafe-fixes` removes both", line)
			}
		}
		return nil
	}
	switch {
	case ins.Cmd == "arg":
		return p.argInstruction(cut, ins)
	case ins.Cmd == "env" && len(ins.Env) == 1 && p.onKey(ins.Env[0]):
		// Only the switch itself (ENV BUILD_MOONCAKE=1), not an ENV whose
		// value merely mentions the source build.
		cut.remove(ins.Pos.Line, ins.Pos.EndLine)
		p.answer(ins.Pos, "")
		return []string{ins.Env[0].Key}
	case ins.Cmd == "copy" && p.removed[strings.ToLower(copyFrom(ins))]:
		// What the COPY put in place goes with it, or it stays
		// (dockerfile_copy.go).
		p.copyInstruction(cut, ins)
	case ins.Cmd == "run" && p.mountsRemoved(ins):
		p.runInstruction(cut, ins)
	case p.runScript(cut, ins):
		// Planned as the script it is (dockerfile_script.go).
	default:
		p.answer(ins.Pos, "no whole instruction of the source build to remove here; change it by hand")
	}
	return nil
}

// keepStep keeps an instruction holding a step of the source build, as
// the plan's keep says (Dockerfile).
func (p *dockerPlan) keepStep(ins loader.Instruction) {
	reason := fmt.Sprintf("the source build's step at line %d stays, and this one, whose work it may need, with it; fix them by hand", p.keep.line)
	if p.keep.needs != "" {
		reason = p.keep.needs + "; remove them together by hand"
	}
	if p.keep.unsafe {
		reason = fmt.Sprintf("unsafe fix: the source build's step at line %d stays (it does other work), and this one, whose work it may need, with it; `buildgate fix --unsafe-fixes` removes them all", p.keep.line)
	}
	for i, f := range p.fs {
		if within(f.Pos, ins.Pos) && !p.fixed[i] {
			p.reason[i], p.unsafe[i] = reason, p.keep.unsafe
		}
	}
}

// dormantRun plans a RUN gated on a removed switch: it goes, unless it
// names no part of the source build or also does other work (then it
// stays with its switch, an unsafe fix).
func (p *dockerPlan) dormantRun(cut *lineCut, ins loader.Instruction) {
	if !p.any(ins.Pos) && !p.opt.Unsafe {
		return // kept with its switch (unsafeSwitches)
	}
	if other := p.otherWork(ins); other != "" && !p.opt.Unsafe {
		for i, f := range p.fs {
			if within(f.Pos, ins.Pos) && !p.fixed[i] {
				p.unsafe[i] = true
				p.reason[i] = fmt.Sprintf("unsafe fix: the RUN runs only with the source build's switch but also does other work (`%s`), which later steps may need; `buildgate fix --unsafe-fixes` removes it", other)
			}
		}
		return // kept with its switch (unsafeSwitches)
	}
	cut.remove(ins.Pos.Line, ins.Pos.EndLine)
	p.answer(ins.Pos, "")
	if pkgs := systemPackages(ins); len(pkgs) > 0 {
		p.notes = append(p.notes, fmt.Sprintf("line %d: the removed RUN also installed system packages (%s); add back those the image still needs (the published wheel may need some at run time)", ins.Pos.Line, strings.Join(pkgs, ", ")))
	}
}

// argInstruction plans an ARG a finding names and returns the names it
// removes: the whole instruction when every name it declares is the
// source build's, only those keys when it declares others too on a line
// of its own; otherwise nothing (it is declined).
func (p *dockerPlan) argInstruction(cut *lineCut, ins loader.Instruction) []string {
	n := 0
	for _, a := range ins.ArgDefs {
		if p.onDef(a) {
			n++
		}
	}
	if n > 0 && n < len(ins.ArgDefs) && ins.Pos.Line == ins.Pos.EndLine {
		return p.argKeys(ins)
	}
	if n > 0 && n == len(ins.ArgDefs) {
		cut.remove(ins.Pos.Line, ins.Pos.EndLine)
		p.answer(ins.Pos, "")
		names := make([]string, 0, n)
		for _, a := range ins.ArgDefs {
			names = append(names, a.Name)
		}
		return names
	}
	p.answer(ins.Pos, "the ARG declares names outside the source build too; remove its source-build names by hand")
	return nil
}

// argKeys removes, from a one-line ARG that declares other names too, the
// keys a finding names: each goes with the space after it (before it, for
// the last). It returns their names, or nil where a key's position does
// not fit the file.
func (p *dockerPlan) argKeys(ins loader.Instruction) []string {
	var names []string
	for _, a := range ins.ArgDefs {
		if !p.onDef(a) {
			continue
		}
		s, e, err := Offsets(p.src, a.Pos)
		if err != nil {
			return nil
		}
		if e2 := skipBlank(p.src, e); e2 > e && e2 < len(p.src) && p.src[e2] != '\n' && p.src[e2] != '\r' {
			e = e2
		} else {
			for s > 0 && (p.src[s-1] == ' ' || p.src[s-1] == '\t') {
				s--
			}
		}
		p.inline = append(p.inline, Edit{Start: s, End: e})
		p.answerRange(s, e)
		names = append(names, a.Name)
	}
	return names
}

// skipBlank is the offset past the spaces and tabs at i.
func skipBlank(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}

// skipContinued is the offset of the next word after i: past spaces,
// tabs and line continuations (a backslash ending a line).
func skipContinued(src []byte, i int) int {
	for {
		j := skipBlank(src, i)
		switch {
		case j+1 < len(src) && src[j] == '\\' && src[j+1] == '\n':
			i = j + 2
		case j+2 < len(src) && src[j] == '\\' && src[j+1] == '\r' && src[j+2] == '\n':
			i = j + 3
		default:
			return j
		}
	}
}

// any reports whether a finding lies on the lines of pos.
func (p *dockerPlan) any(pos finding.Pos) bool {
	for _, f := range p.fs {
		if within(f.Pos, pos) {
			return true
		}
	}
	return false
}

// onKey reports whether a source-build-arg finding points at an ENV's
// key.
func (p *dockerPlan) onKey(e loader.EnvPair) bool {
	for _, f := range p.fs {
		if f.Name == ruleArg && f.Pos.Line == e.Pos.Line && f.Pos.Column == e.Pos.Column {
			return true
		}
	}
	return false
}

// onDef reports whether a source-build-arg finding points at the ARG
// name itself (a finding on another name of the same line does not
// count for this one).
func (p *dockerPlan) onDef(a loader.ArgDef) bool {
	for _, f := range p.fs {
		if f.Name == ruleArg && f.Pos.Line == a.NamePos.Line && f.Pos.Column >= a.Pos.Column && (a.Pos.EndLine > a.Pos.Line || f.Pos.Column < max(a.Pos.EndColumn, a.Pos.Column+1)) {
			return true
		}
	}
	return false
}

func (p *dockerPlan) result(edits []Edit) Plan {
	plan := planOf(edits, p.fs, p.fixed, p.reason, "not on an instruction a fix removes")
	for i := range plan.Declined {
		for j, f := range p.fs {
			if p.unsafe[j] && f.Pos == plan.Declined[i].Finding.Pos && f.Rule == plan.Declined[i].Finding.Rule {
				plan.Declined[i].Unsafe = true
			}
		}
	}
	return plan
}

// planOf is the plan of a file's edits: each finding fixed (when there
// are edits), or declined for its reason, or for otherwise.
func planOf(edits []Edit, fs []finding.Finding, fixed []bool, reason []string, otherwise string) Plan {
	plan := Plan{Edits: edits}
	for i, f := range fs {
		switch {
		case fixed[i] && len(edits) > 0:
			plan.Fixed = append(plan.Fixed, f)
		case reason[i] != "":
			plan.Declined = append(plan.Declined, Declined{Finding: f, Reason: reason[i]})
		default:
			plan.Declined = append(plan.Declined, Declined{Finding: f, Reason: otherwise})
		}
	}
	return plan
}

func declineAll(fs []finding.Finding, reason string) Plan {
	var p Plan
	for _, f := range fs {
		p.Declined = append(p.Declined, Declined{Finding: f, Reason: reason})
	}
	return p
}
