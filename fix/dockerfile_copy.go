package fix

// A COPY from a removed stage, and what uses what it put in place: the
// wheels it copied among others into a shared directory (axolotl's
// `COPY --from=flash-attn-builder …/flash_attn-*.whl wheels` beside
// deepspeed's), installed later by words of one pip command, go with it;
// a RUN that works inside the tree it copied (`cd /workspace/builds/bnb
// && python3 setup.py install`) could not run without it and goes too
// (issue 32). Anything else that may reach what it copied keeps the COPY.

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/buildgate/buildgate/loader"
)

// copyUse is what a later instruction does with a removed COPY's files.
type copyUse struct {
	ins   loader.Instruction
	whole bool          // the whole instruction goes
	words []loader.Word // else these install words go
	maybe string        // what makes its removal unsafe ("" when none)
}

// planCopies weighs, before anything is cut, the COPYs from removed
// stages and what uses their files, all at once (their files may share a
// directory and one install command). A use that may reach what they
// copied makes the removal unsafe: without --unsafe-fixes the stages they
// copy from stay, with the COPYs, their findings declined as unsafe.
func (p *dockerPlan) planCopies() {
	p.copies = nil
	for _, other := range p.allInstructions() {
		if other.Cmd == "copy" && p.removed[strings.ToLower(copyFrom(other))] && !p.inRemovedStage(other) {
			p.copies = append(p.copies, other)
		}
	}
	uses, why := p.copyUses(p.copies)
	p.copyWhy, p.copyUsed = why, uses
	if !strings.HasPrefix(why, maybePrefix) {
		return
	}
	reason := fmt.Sprintf("unsafe fix: %s, which a COPY from the removed stage may have filled; `buildgate fix --unsafe-fixes` removes the stage and its COPYs", strings.TrimPrefix(why, maybePrefix))
	// Every source-build stage stays (a kept one may build FROM
	// another, through an ARG: nixl's mooncake-src FROM
	// ${MOONCAKE_IMAGE}), with the COPYs.
	for _, st := range p.doc.Stages {
		if name := strings.ToLower(st.Name); name != "" && p.removed[name] {
			p.markUnsafe(st.Pos, reason)
			delete(p.removed, name)
			p.keptStage[name] = true
		}
	}
	for _, c := range p.copies {
		p.markUnsafe(c.Pos, reason)
	}
	p.copyWhy = ""
	p.copies = nil
}

// markUnsafe declines the findings on the lines of pos as unsafe fixes.
func (p *dockerPlan) markUnsafe(pos loader.Pos, reason string) {
	for i, f := range p.fs {
		if within(f.Pos, pos) && !p.fixed[i] {
			p.unsafe[i] = true
			p.reason[i] = reason
		}
	}
}

// copyInstruction applies the plan of the COPYs from removed stages at
// the first of them.
func (p *dockerPlan) copyInstruction(cut *lineCut, ins loader.Instruction) {
	if p.copiesPlanned {
		return
	}
	p.copiesPlanned = true
	if p.copyWhy != "" {
		for _, c := range p.copies {
			p.answer(c.Pos, p.copyWhy)
		}
		return
	}
	for _, c := range p.copies {
		cut.remove(c.Pos.Line, c.Pos.EndLine)
		p.answer(c.Pos, "")
	}
	for _, u := range p.copyUsed {
		if u.whole {
			cut.remove(u.ins.Pos.Line, u.ins.Pos.EndLine)
			p.answer(u.ins.Pos, "")
			continue
		}
		for _, w := range u.words {
			if ed, ok := p.wordEdit(w.Pos, u.ins.Pos); ok {
				p.inline = append(p.inline, ed)
				p.answerRange(ed.Start, ed.End)
			}
		}
	}
}

// inRemovedStage reports whether an instruction is in a removed stage.
func (p *dockerPlan) inRemovedStage(ins loader.Instruction) bool {
	for _, st := range p.doc.Stages {
		if p.removed[strings.ToLower(st.Name)] && ins.Pos.Line >= st.Pos.Line && ins.Pos.Line <= st.Pos.EndLine {
			return true
		}
	}
	return false
}

// placed are the paths a COPY puts in place, as later instructions would
// write them: dest/base(source) for each source (its files land in dest
// when dest is a directory: several sources, a wildcard, a trailing
// slash, or a source directory's contents), and dest itself. A dest with
// a variable is not known.
func placed(ins loader.Instruction) (dest string, files []string, ok bool) {
	if len(ins.Args) < 2 {
		return "", nil, false
	}
	dest = cleanPath(ins.Args[len(ins.Args)-1].Text)
	if dest == "" || dest == "." || strings.ContainsAny(dest, "$*?[") {
		return "", nil, false
	}
	for _, a := range ins.Args[:len(ins.Args)-1] {
		src := strings.TrimRight(a.Text, "/")
		if strings.Contains(src, "$") || src == "" {
			return "", nil, false
		}
		files = append(files, path.Join(dest, path.Base(src)))
		if !strings.ContainsAny(path.Base(src), "*?[") {
			// It may be a directory, whose contents land in dest:
			// anything below dest may be its.
			files = append(files, path.Join(dest, "*"))
		}
	}
	return dest, files, true
}

// cleanPath is a path as written without quotes, "./" and a trailing
// slash.
func cleanPath(s string) string {
	s = strings.Trim(s, `"'`)
	s = strings.TrimPrefix(s, "./")
	if s != "/" {
		s = strings.TrimRight(s, "/")
	}
	return s
}

// copyUses are the instructions after the first of the COPYs that use
// what they put in place, each with what goes of it; why, when not empty,
// says why the COPYs cannot go. Another COPY or ADD into the same
// directory writes there and uses nothing of it.
func (p *dockerPlan) copyUses(copies []loader.Instruction) ([]copyUse, string) {
	var dests, files []string
	for _, c := range copies {
		d, fs, ok := placed(c)
		if !ok {
			return nil, fmt.Sprintf("the destination or sources of the COPY at line %d are not known statically; remove it and what uses it by hand", c.Pos.Line)
		}
		dests, files = append(dests, d), append(files, fs...)
		if !strings.HasPrefix(d, "/") {
			// A relative destination is below the stage's WORKDIR:
			// later instructions may name it either way.
			wd, known := p.workdirAt(c)
			if !known {
				return nil, fmt.Sprintf("the COPY at line %d copies to %s below a WORKDIR not known statically; remove it and what uses it by hand", c.Pos.Line, d)
			}
			dests = append(dests, path.Join(wd, d))
			for _, f := range fs {
				files = append(files, path.Join(wd, f))
			}
		}
	}
	var uses []copyUse
	maybe := ""
	after := false
	for _, other := range p.allInstructions() {
		if len(copies) > 0 && other.Pos == copies[0].Pos {
			after = true
		}
		if !after || other.Cmd == "copy" || other.Cmd == "add" || p.inRemovedStage(other) {
			continue
		}
		named := false
		for _, d := range dests {
			named = named || mentionsPath(instructionText(other), d)
		}
		if !named {
			continue
		}
		u, why := p.copyUse(other, dests, files)
		if strings.HasPrefix(why, maybePrefix) {
			if maybe == "" {
				maybe = fmt.Sprintf("line %d %s", other.Pos.Line, strings.TrimPrefix(why, maybePrefix))
			}
			continue
		}
		if why != "" {
			return nil, fmt.Sprintf("line %d %s, which a COPY from the removed stage fills; remove them together by hand", other.Pos.Line, why)
		}
		if u != nil {
			uses = append(uses, *u)
			if u.maybe != "" && maybe == "" {
				maybe = fmt.Sprintf("line %d %s", other.Pos.Line, u.maybe)
			}
		}
	}
	if maybe != "" && !p.opt.Unsafe {
		return nil, maybePrefix + maybe
	}
	return uses, ""
}

func (p *dockerPlan) allInstructions() []loader.Instruction {
	all := append([]loader.Instruction(nil), p.doc.Preamble...)
	for _, st := range p.doc.Stages {
		all = append(all, st.Instructions...)
	}
	return all
}

func instructionText(ins loader.Instruction) string {
	text := ins.Original
	for _, h := range ins.Heredocs {
		text += "\n" + h.Body
	}
	return text
}

// mentionsPath reports whether text names dest as a path: dest itself or
// below it, not inside a longer name (wheels_old, /opt/wheels2).
func mentionsPath(text, dest string) bool {
	if dest == "/" {
		// A COPY into the root (nixl's `COPY --from=mooncake-src /out/ /`
		// of a whole install tree): every absolute path is below it.
		return rootPathRe.MatchString(text)
	}
	for i := 0; ; {
		j := strings.Index(text[i:], dest)
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len(dest)
		before := s == 0 || strings.ContainsRune(" \t\n=:\"'(", rune(text[s-1])) || dest[0] != '/' && text[s-1] == '/' && s >= 2 && text[s-2] == '.'
		afterOK := e == len(text) || strings.ContainsRune("/ \t\n\"';)&|\\", rune(text[e]))
		if before && afterOK {
			return true
		}
		i = s + 1
	}
}

// copyUse classifies one later instruction that names a COPY's dest:
// nil when it uses other files there (another stage's wheels), a use
// when what it does with the copied files can go with them, else why not.
func (p *dockerPlan) copyUse(ins loader.Instruction, dests, files []string) (*copyUse, string) {
	if ins.Cmd != "run" || ins.Shell == nil || len(ins.Heredocs) > 0 {
		return nil, pathUse(instructionText(ins), dests, files)
	}
	if p.insideTree(ins, dests, files) {
		return &copyUse{ins: ins, whole: true}, ""
	}
	var words []loader.Word
	maybe := ""
	for _, c := range ins.Shell.Commands {
		reqs := map[string]int{}
		if c.Pip != nil {
			for _, r := range c.Pip.Requirements {
				reqs[r.Raw]++
			}
		}
		mine := 0
		for _, w := range c.Words {
			if !mentionsAny(w.Text, dests) {
				continue
			}
			kind := copied(w.Text, dests, files)
			if kind == "no" || p.ownEditAt(w.Pos) {
				// Another's, or a finding's own fix replaces it (the
				// published pin for the package's local wheel).
				continue
			}
			if c.Pip == nil || c.Pip.Op != "install" || reqs[w.Text] != 1 {
				if kind == "maybe" {
					return nil, maybePrefix + "uses " + w.Text
				}
				return nil, "uses " + w.Text
			}
			if kind == "maybe" && maybe == "" {
				// A wheel glob under a directory the COPY filled with a
				// directory's contents: what it installs is likely, not
				// surely, what the stage built.
				maybe = "installs " + w.Text
			}
			words = append(words, w)
			mine++
		}
		if mine > 0 && mine == len(c.Pip.Requirements)+len(c.Pip.Files) && !p.ownFixIn(ins.Pos) {
			// The command installs only what the stage built (and no
			// finding's own fix puts the published pin there).
			if len(ins.Shell.Commands) == 1 {
				return &copyUse{ins: ins, whole: true, maybe: maybe}, ""
			}
			return nil, "installs only the copied files among other commands"
		}
	}
	if len(words) == 0 {
		return nil, ""
	}
	return &copyUse{ins: ins, words: words, maybe: maybe}, ""
}

// ownEditAt reports whether a finding's own fix edits the text at pos.
func (p *dockerPlan) ownEditAt(pos loader.Pos) bool {
	s, e, err := Offsets(p.src, pos)
	if err != nil {
		return false
	}
	for _, o := range p.opt.OwnEdits {
		if o.Start < e && o.End > s || o.Start == s && o.End == s {
			return true
		}
	}
	return false
}

// ownFixIn reports whether a finding's own fix edits the lines of pos
// (BG201 adding the published pin to the install command whose wheels
// go): the command then stays, with the pin for its words.
func (p *dockerPlan) ownFixIn(pos loader.Pos) bool {
	s, e, err := Offsets(p.src, pos)
	if err != nil {
		return false
	}
	for _, o := range p.opt.OwnEdits {
		if o.Start >= s && o.Start <= e {
			return true
		}
	}
	return false
}

// rootPathRe finds an absolute path in a text: a / at its start or after
// a separator.
var rootPathRe = regexp.MustCompile(`(^|[\s=:"'(])/`)

// maybePrefix marks a use that may reach the copied files and may not
// (a path below a directory whose contents a COPY put there among
// others'): removing the COPY is then an unsafe fix, not a refused one.
const maybePrefix = "\x00maybe:"

// pathUse says how an instruction other than a RUN's script uses the
// dests ("" when it names only other files there): its paths below them
// as copied classifies them.
func pathUse(text string, dests, files []string) string {
	maybe := ""
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(" \t\n\"'=:,[]", r) }) {
		if !mentionsAny(f, dests) {
			continue
		}
		switch copied(f, dests, files) {
		case "yes":
			return "uses " + f
		case "maybe":
			maybe = maybePrefix + "uses " + f
		}
	}
	return maybe
}

// copied says whether a word names what the COPY put in place: "yes"
// (one of the files, or below one), "no" (another file in dest: a name
// the copied glob cannot match), "maybe" (a glob that may match both).
func copied(word string, dests, files []string) string {
	w := cleanPath(word)
	for _, f := range files {
		if path.Base(f) == "*" && strings.HasPrefix(w, strings.TrimSuffix(path.Dir(f), "/")+"/") {
			return "maybe" // below a directory whose contents it copied
		}
	}
	for _, f := range files {
		if w == f || strings.HasPrefix(w, f+"/") {
			return "yes"
		}
		if ok, _ := path.Match(f, w); ok && !strings.ContainsAny(w, "*?[") {
			return "yes"
		}
	}
	for _, d := range dests {
		if w == d {
			return "maybe" // the whole directory
		}
	}
	for _, f := range files {
		if path.Dir(w) != path.Dir(f) {
			continue
		}
		if compatible(path.Base(w), path.Base(f)) {
			return "maybe"
		}
	}
	return "no"
}

// compatible reports whether two names, either a glob, may name the same
// file: their literal beginnings and endings agree.
func compatible(a, b string) bool {
	pa, sa := literalEnds(a)
	pb, sb := literalEnds(b)
	prefixOK := strings.HasPrefix(pa, pb) || strings.HasPrefix(pb, pa)
	suffixOK := strings.HasSuffix(sa, sb) || strings.HasSuffix(sb, sa)
	return prefixOK && suffixOK
}

// literalEnds are the text before a glob's first and after its last
// wildcard (the whole name twice for a literal).
func literalEnds(g string) (string, string) {
	i := strings.IndexAny(g, "*?[")
	if i < 0 {
		return g, g
	}
	j := strings.LastIndexAny(g, "*?]")
	return g[:i], g[j+1:]
}

// insideTree reports whether a RUN works only inside a tree the COPYs
// put in place and no other instruction fills (bitsandbytes' copied
// clone, `cd /workspace/builds/bitsandbytes && python3 setup.py
// install`): its first command changes into it, and every other one
// builds or installs what is there (python setup.py, pip install ., make,
// cmake, ninja) or prepares that (mkdir, rm, echo of relative paths).
// Without the COPY it could not run at all; any other work (pip install
// requests, useradd) keeps it.
func (p *dockerPlan) insideTree(ins loader.Instruction, dests, files []string) bool {
	cs := ins.Shell.Commands
	if len(cs) < 2 || cs[0].Name != "cd" || len(cs[0].Words) != 2 || copied(cs[0].Words[1].Text, dests, files) == "no" {
		return false
	}
	if !p.ownTree(cleanPath(cs[0].Words[1].Text), dests) {
		return false
	}
	for _, c := range cs[1:] {
		if !buildsHere(c) {
			return false
		}
	}
	return true
}

// ownTree reports whether a directory is one of dests (or below one)
// that no kept COPY or ADD also writes into: what is there is the
// removed stage's alone.
func (p *dockerPlan) ownTree(dir string, dests []string) bool {
	ours := false
	for _, d := range dests {
		ours = ours || dir == d || strings.HasPrefix(dir, strings.TrimSuffix(d, "/")+"/")
	}
	if !ours {
		return false
	}
	for _, other := range p.allInstructions() {
		if other.Cmd != "copy" && other.Cmd != "add" || p.removed[strings.ToLower(copyFrom(other))] || p.inRemovedStage(other) || len(other.Args) < 2 {
			continue
		}
		od := cleanPath(other.Args[len(other.Args)-1].Text)
		if od == dir || strings.HasPrefix(dir, strings.TrimSuffix(od, "/")+"/") || strings.HasPrefix(od, strings.TrimSuffix(dir, "/")+"/") {
			return false
		}
	}
	return true
}

// buildsHere reports whether a command builds or installs what is in its
// directory, or only prepares that, naming no path outside it and
// writing no file by a redirection (`echo … >> /etc/passwd`).
func buildsHere(c loader.ShellCommand) bool {
	if writesFile(c) {
		return false
	}
	for _, w := range c.Words[1:] {
		t := cleanPath(w.Text)
		if strings.HasPrefix(t, "/") || strings.Contains(t, "..") || strings.HasPrefix(t, "$") {
			return false
		}
	}
	if buildTool(c) {
		return true
	}
	switch c.Name {
	case "echo", "mkdir", "rm", "ls":
		return true
	case "python", "python3":
		for _, w := range c.Words[1:] {
			if w.Text == "build" || w.Text == "-m" {
				return true
			}
		}
	case "pip", "pip3":
		if c.Pip == nil || c.Pip.Op != "install" && c.Pip.Op != "wheel" {
			return false
		}
		for _, r := range c.Pip.Requirements {
			if r.LocalPath == nil {
				return false // a package from an index: other work
			}
		}
		return len(c.Pip.Requirements)+len(c.Pip.Files) > 0
	}
	return false
}

func mentionsAny(text string, dests []string) bool {
	for _, d := range dests {
		if mentionsPath(text, d) {
			return true
		}
	}
	return false
}
