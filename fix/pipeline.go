package fix

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
)

// Pipeline plans the removal of what a CI pipeline passes to a source
// build (issue 19), in two units:
//   - an environment entry (env:, variables:) a source-build-arg finding
//     starts at, its lines and nothing else (not the last of its
//     mapping: an empty env: is a null some systems refuse);
//   - a --build-arg NAME=… or --build-arg=NAME=… (or --set
//     TARGET.args.NAME=…, as two words) option of a docker build or
//     buildx command of a script, whose NAME a finding
//     points at: the whole line when the option is alone on a line the
//     shell continues with a backslash (a literal block of one option per
//     line), else the option's words and the blanks before them.
//
// The fixed file is read again: it must read with no new error, every
// script must keep exactly its other words and the env its other entries,
// or nothing in the file changes.
func Pipeline(path string, src []byte, fs []finding.Finding) Plan {
	doc, ok := loader.Parse(loader.KindPipeline, path, src).(*loader.PipelineDocument)
	if !ok || len(doc.Errors) > 0 {
		return declineAll(fs, "the pipeline does not read without errors; fix it by hand")
	}
	pp := &pipePlan{src: src, doc: doc, goneEnv: map[int]bool{}, goneWords: map[[3]int]bool{}, lines: bytes.Split(src, []byte("\n")), findingLine: map[int]bool{}}
	for _, fd := range fs {
		// A line a finding is on is the source build's: what reads an
		// entry there goes with it (a --build-arg NAME=$NAME option).
		for l := fd.Pos.Line; l <= max(fd.Pos.Line, fd.Pos.EndLine); l++ {
			pp.findingLine[l] = true
		}
	}
	var plan Plan
	for _, fd := range fs {
		if reason := pp.finding(fd); reason != "" {
			plan.Declined = append(plan.Declined, Declined{Finding: fd, Reason: reason})
			continue
		}
		plan.Fixed = append(plan.Fixed, fd)
	}
	if len(pp.edits) == 0 {
		return plan
	}
	fixed, err := Apply(src, pp.edits)
	if err == nil {
		err = pp.check(path, fixed)
	}
	if err != nil {
		return declineAll(fs, fmt.Sprintf("the fixed pipeline would %v; fix it by hand", err))
	}
	plan.Edits = pp.edits
	for i, e := range doc.Env { // in file order: reasons are the same run to run
		if pp.goneEnv[i] {
			plan.Gone = append(plan.Gone, Name{Kind: "variable", Name: e.Name})
		}
	}
	return plan
}

type pipePlan struct {
	src   []byte
	doc   *loader.PipelineDocument
	edits []Edit
	// goneEnv are the env entries removed (by index); goneWords the
	// words (script, command, word).
	goneEnv   map[int]bool
	goneWords map[[3]int]bool
	lines     [][]byte // the file's lines, split once
	// findingLine are the lines findings are on.
	findingLine map[int]bool
	reads       map[string][]int // varReads, made when an entry is first planned
}

func startsAt(p, q finding.Pos) bool { return p.Line == q.Line && p.Column == q.Column }

// inside reports whether position p starts within w.
func inside(p, w finding.Pos) bool {
	after := p.Line > w.Line || p.Line == w.Line && p.Column >= w.Column
	before := p.Line < w.EndLine || p.Line == w.EndLine && p.Column < w.EndColumn
	return after && before
}

// finding plans one finding's removal, or says why not.
func (pp *pipePlan) finding(fd finding.Finding) string {
	if fd.Name != ruleArg && fd.Name != ruleCache {
		return "a pipeline's fix removes environment entries and --build-arg options only; change the rest by hand"
	}
	for i, e := range pp.doc.Env {
		if !startsAt(fd.Pos, e.Pos) {
			continue
		}
		if pp.goneEnv[i] {
			return ""
		}
		return pp.env(i)
	}
	for si, s := range pp.doc.Scripts {
		for ci, c := range s.Commands {
			if !dockerBuild(c) {
				continue
			}
			for wi, w := range c.Words {
				if !inside(fd.Pos, w.Pos) {
					continue
				}
				return pp.option(si, ci, wi)
			}
		}
	}
	return "not an environment entry or a --build-arg option of a docker build; change it by hand"
}

// dockerBuild reports a docker build or buildx build/bake command, as the
// loader recognises one (docker run … build --build-arg is the
// container's command, not a build's option).
func dockerBuild(c loader.ShellCommand) bool { return loader.IsDockerBuild(c) }

// env removes the lines of env entry i.
func (pp *pipePlan) env(i int) string {
	e := pp.doc.Env[i]
	left := false
	for j, o := range pp.doc.Env {
		if o.Decl == e.Decl && !pp.goneEnv[j] && j != i && pp.sameMapping(o, e) {
			left = true
			break
		}
	}
	if !left {
		return "the last entry of its mapping: removing it leaves an empty mapping; remove the whole key by hand"
	}
	s, end, err := Offsets(pp.src, e.Pos)
	if err != nil {
		return err.Error()
	}
	// A block scalar's value ends with its line break: the entry's
	// lines end there, not with the next line.
	for end > s && pp.src[end-1] == '\n' {
		end--
	}
	ls, le := lineBounds(pp.src, s, end)
	if strings.TrimSpace(string(pp.src[ls:s])) != "" || strings.TrimSpace(stripComment(string(pp.src[end:le]))) != "" {
		return "the entry shares its line with another (a flow mapping); change it by hand"
	}
	if pp.reads == nil {
		pp.reads = varReads(pp.lines)
	}
	first, last := lineOf(pp.src, ls), lineOf(pp.src, max(le-1, ls))
	for _, l := range pp.reads[e.Name] {
		if (l < first || l > last) && !pp.findingLine[l] {
			return fmt.Sprintf("line %d still reads %s (a step under set -u would fail, another would get it empty); remove them together by hand", l, e.Name)
		}
	}
	pp.goneEnv[i] = true
	pp.edits = append(pp.edits, Edit{Start: ls, End: le})
	return ""
}

// varReads indexes, once per file, the lines that read each variable
// ($NAME, ${NAME…}, a CI expression's env.NAME), comment lines aside.
func varReads(lines [][]byte) map[string][]int {
	ident := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	out := map[string][]int{}
	for n, line := range lines {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		for k := 0; k < len(line); k++ {
			var from int
			switch {
			case line[k] == '$' && k+1 < len(line) && line[k+1] == '{':
				from = k + 2
			case line[k] == '$':
				from = k + 1
			case bytes.HasPrefix(line[k:], []byte("env.")) && (k == 0 || !ident(line[k-1])):
				from = k + 4
			default:
				continue
			}
			e := from
			for e < len(line) && ident(line[e]) {
				e++
			}
			if e > from {
				name := string(line[from:e])
				if l := out[name]; len(l) == 0 || l[len(l)-1] != n+1 {
					out[name] = append(out[name], n+1)
				}
				k = e - 1
			}
		}
	}
	return out
}

// sameMapping reports whether two env entries are of one mapping: the
// same column, and no line between them that is less indented (blank
// lines and comments aside).
func (pp *pipePlan) sameMapping(a, b loader.Assignment) bool {
	if a.Pos.Column != b.Pos.Column {
		return false
	}
	lo, hi := min(a.Pos.Line, b.Pos.Line), max(a.Pos.Line, b.Pos.Line)
	for l := lo + 1; l < hi && l <= len(pp.lines); l++ {
		t := strings.TrimRight(string(pp.lines[l-1]), "\r")
		trimmed := strings.TrimLeft(t, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if len(t)-len(trimmed) < a.Pos.Column-1 {
			return false
		}
	}
	return true
}

// stripComment is a line's rest without a YAML comment.
func stripComment(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		return s[:i]
	}
	if strings.HasPrefix(strings.TrimSpace(s), "#") {
		return ""
	}
	return s
}

// lineBounds are the start of the line holding s and the start of the
// line after the one holding end (the end of the file at most).
func lineBounds(src []byte, s, end int) (int, int) {
	ls := bytes.LastIndexByte(src[:s], '\n') + 1
	le := len(src)
	if i := bytes.IndexByte(src[end:], '\n'); i >= 0 {
		le = end + i + 1
	}
	return ls, le
}

// optionEdit is the edit removing an option that spans src[s:end] from a
// command line: its line when it is alone on a continued line (or on the
// last one, with the backslash before it), else its words and the blanks
// before them; why it cannot be cut otherwise.
func optionEdit(src []byte, s, end int) (Edit, string) {
	ls, le := lineBounds(src, s, end)
	rest := strings.TrimRight(string(src[end:le]), " \t\r\n")
	if strings.TrimSpace(string(src[ls:s])) == "" && strings.TrimSpace(rest) == `\` {
		// Alone on a continued line: the line goes.
		return Edit{Start: ls, End: le}, ""
	}
	if b, ok := lastContinued(src, ls, s); ok && strings.TrimSpace(rest) == "" {
		// Alone on the last line of a continued command: the line goes
		// with the backslash that continued the line before it, which
		// would otherwise continue onto nothing (issue 30).
		return Edit{Start: b, End: end + len(rest)}, ""
	}
	b := s
	for b > ls && (src[b-1] == ' ' || src[b-1] == '\t') {
		b--
	}
	if b == ls {
		return Edit{}, "the option starts its line; change it by hand"
	}
	return Edit{Start: b, End: end}, ""
}

// lastContinued reports, for an option starting at s on the line starting
// at ls with nothing before it, whether the line before ends with a
// continuation backslash, and where the blanks before that backslash
// start.
func lastContinued(src []byte, ls, s int) (int, bool) {
	if strings.TrimSpace(string(src[ls:s])) != "" || ls < 2 {
		return 0, false
	}
	i := ls - 1 // the newline ending the line before
	if i > 0 && src[i-1] == '\r' {
		i--
	}
	if i == 0 || src[i-1] != '\\' {
		return 0, false
	}
	b := i - 1
	for b > 0 && (src[b-1] == ' ' || src[b-1] == '\t') {
		b--
	}
	return b, true
}

// option removes the --build-arg (or --set) option word wi of a command
// belongs to.
func (pp *pipePlan) option(si, ci, wi int) string {
	ws := pp.doc.Scripts[si].Commands[ci].Words
	val := func(i int) string {
		if i >= 0 && i < len(ws) && ws[i].Value != nil {
			return *ws[i].Value
		}
		return ""
	}
	first := wi
	switch {
	case val(wi-1) == "--build-arg" || val(wi-1) == "--set" && strings.Contains(ws[wi].Text, ".args."):
		first = wi - 1
	case strings.HasPrefix(ws[wi].Text, "--build-arg="):
	default:
		return "not the value of a --build-arg option; change it by hand"
	}
	if pp.goneWords[[3]int{si, ci, wi}] {
		return ""
	}
	s, _, err := Offsets(pp.src, ws[first].Pos)
	if err != nil {
		return err.Error()
	}
	_, end, err := Offsets(pp.src, ws[wi].Pos)
	if err != nil {
		return err.Error()
	}
	e, why := optionEdit(pp.src, s, end)
	if why != "" {
		return why
	}
	pp.edits = append(pp.edits, e)
	for i := first; i <= wi; i++ {
		pp.goneWords[[3]int{si, ci, i}] = true
	}
	return ""
}

// check reads the fixed pipeline again: no error, the same scripts and
// commands, each with exactly its words not removed, and the env entries
// not removed.
func (pp *pipePlan) check(path string, fixed []byte) error {
	doc, ok := loader.Parse(loader.KindPipeline, path, fixed).(*loader.PipelineDocument)
	if !ok || len(doc.Errors) > 0 {
		return fmt.Errorf("not read as the CI system reads it")
	}
	var want, got []string
	for i, e := range pp.doc.Env {
		if !pp.goneEnv[i] {
			want = append(want, e.Name+"="+*e.Value)
		}
	}
	for _, e := range doc.Env {
		got = append(got, e.Name+"="+*e.Value)
	}
	if strings.Join(want, "\x00") != strings.Join(got, "\x00") {
		return fmt.Errorf("change other environment entries")
	}
	if len(doc.Scripts) != len(pp.doc.Scripts) {
		return fmt.Errorf("change its scripts")
	}
	for si, s := range pp.doc.Scripts {
		ns := doc.Scripts[si]
		if len(ns.Commands) != len(s.Commands) {
			return fmt.Errorf("change the commands of %s", s.Where)
		}
		for ci, c := range s.Commands {
			var w1, w2 []string
			for wi, w := range c.Words {
				if !pp.goneWords[[3]int{si, ci, wi}] {
					w1 = append(w1, wordKey(w))
				}
			}
			for _, w := range ns.Commands[ci].Words {
				w2 = append(w2, wordKey(w))
			}
			if strings.Join(w1, "\x00") != strings.Join(w2, "\x00") {
				return fmt.Errorf("change other words of a command of %s", s.Where)
			}
		}
	}
	return nil
}

func wordKey(w loader.Word) string {
	if w.Value != nil {
		return "=" + *w.Value
	}
	return "~" + w.Text
}
