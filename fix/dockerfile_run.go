package fix

// The RUNs a Dockerfile's removal plans: one that mounts a removed stage
// goes whole, loses its --mount flags, or loses the removed wheel's words
// in its install command.

import (
	"strings"

	"github.com/buildgate/buildgate/loader"
)

// runInstruction plans a RUN that mounts a removed stage: it goes whole
// when it only installs what the mounts give; only its --mount flags go
// when its commands do not use them; otherwise it is declined.
func (p *dockerPlan) runInstruction(cut *lineCut, ins loader.Instruction) {
	if p.onlyInstallsMounts(ins) {
		cut.remove(ins.Pos.Line, ins.Pos.EndLine)
		p.answer(ins.Pos, "")
		return
	}
	if !p.usesMounts(ins) {
		// The commands do not use what the removed stage gave: only
		// the --mount flags go.
		for _, m := range ins.Mounts {
			if !p.removed[strings.ToLower(m.From)] {
				continue
			}
			s, e, err := Offsets(p.src, m.Pos)
			if err != nil {
				return
			}
			e = skipContinued(p.src, e)
			p.inline = append(p.inline, Edit{Start: s, End: e})
			p.answerRange(s, e)
		}
		return
	}
	if p.installWordsOnly(ins) {
		return
	}
	p.answer(ins.Pos, "the RUN does more than install what the removed stage built; remove its --mount and the commands that use it by hand")
}

// installWordsOnly plans a RUN that installs the removed stage's wheel
// among others (`uv pip install /nixl/*.whl /mooncake/*.whl` under a
// mount of each): the removed stage's --mount flags go, and in each pip
// or uv install command the arguments under their targets, when the
// command keeps another requirement and nothing else in the RUN uses the
// targets. It reports whether it planned so.
func (p *dockerPlan) installWordsOnly(ins loader.Instruction) bool {
	if ins.Shell == nil {
		return false
	}
	var targets []string
	for _, m := range ins.Mounts {
		if p.removed[strings.ToLower(m.From)] {
			t := strings.TrimRight(m.Target, "/")
			if t == "" || strings.ContainsAny(t, "$") {
				return false
			}
			targets = append(targets, t)
		}
	}
	under := func(w string) bool {
		for _, t := range targets {
			if w == t || strings.HasPrefix(w, t+"/") {
				return true
			}
		}
		return false
	}
	var words []loader.Word
	for _, c := range ins.Shell.Commands {
		mine, ok := wheelWords(c, targets, under)
		if !ok {
			return false
		}
		words = append(words, mine...)
	}
	if len(words) == 0 {
		return false
	}
	var edits []Edit
	for _, m := range ins.Mounts {
		if !p.removed[strings.ToLower(m.From)] {
			continue
		}
		s, e, err := Offsets(p.src, m.Pos)
		if err != nil {
			return false
		}
		edits = append(edits, Edit{Start: s, End: skipContinued(p.src, e)})
	}
	for _, w := range words {
		s, e, err := Offsets(p.src, w.Pos)
		if err != nil {
			return false
		}
		for s > 0 && (p.src[s-1] == ' ' || p.src[s-1] == '\t') {
			s--
		}
		edits = append(edits, Edit{Start: s, End: e})
	}
	for _, e := range edits {
		p.inline = append(p.inline, e)
		p.answerRange(e.Start, e.End)
	}
	return true
}

// wheelWords are the words of one command of a RUN that install from the
// removed mounts' targets: requirement arguments of a pip or uv install
// that keeps another requirement. Not ok when the command uses a target
// another way (an option's value, another program, a variable that may
// reach it) or would install nothing without them.
func wheelWords(c loader.ShellCommand, targets []string, under func(string) bool) ([]loader.Word, bool) {
	reqs := map[string]int{}
	if c.Pip != nil {
		for _, r := range c.Pip.Requirements {
			reqs[r.Raw]++
		}
	}
	var mine []loader.Word
	for _, w := range c.Words {
		switch {
		case under(w.Text) && reqs[w.Text] == 1:
			mine = append(mine, w)
		case under(w.Text):
			// An option's value (-c /mc/constraints.txt, --find-links
			// /mc) or a word pip does not read as a requirement: taking
			// it out would hand the option another value.
			return nil, false
		case strings.Contains(w.Text, "$"):
			return nil, false // it may reach a target
		}
		for _, t := range targets {
			if strings.Contains(w.Text, t) && !under(w.Text) {
				return nil, false // the target used another way
			}
		}
	}
	if len(mine) == 0 {
		return nil, true
	}
	if c.Pip == nil || c.Pip.Op != "install" {
		return nil, false
	}
	others := len(c.Pip.Files)
	for _, r := range c.Pip.Requirements {
		if !under(r.Raw) {
			others++
		}
	}
	if others == 0 {
		return nil, false // the command would install nothing
	}
	return mine, true
}

// answerRange marks the findings starting in src[s:e] as fixed.
func (p *dockerPlan) answerRange(s, e int) {
	for i, o := range p.offs {
		if o >= s && o < e {
			p.fixed[i] = true
		}
	}
}

// usesMounts reports whether a command of a RUN uses a target of a mount
// from a removed stage.
func (p *dockerPlan) usesMounts(ins loader.Instruction) bool {
	for _, m := range ins.Mounts {
		if !p.removed[strings.ToLower(m.From)] {
			continue
		}
		t := strings.TrimRight(m.Target, "/")
		if t == "" {
			return true
		}
		// The command, without the flags (which name the target too). A
		// relative path or a variable may reach the target through the
		// WORKDIR: it counts as a use.
		for _, a := range ins.Args {
			if strings.Contains(a.Text, t) {
				return true
			}
			for _, w := range strings.Fields(a.Text) {
				w = strings.Trim(w, `"'`)
				if strings.HasPrefix(w, "$") || !strings.HasPrefix(w, "/") && !strings.HasPrefix(w, "-") && strings.ContainsAny(w, "/*") {
					return true
				}
			}
		}
		for _, h := range ins.Heredocs {
			if strings.Contains(h.Body, t) {
				return true
			}
		}
	}
	return false
}

func (p *dockerPlan) mountsRemoved(ins loader.Instruction) bool {
	for _, m := range ins.Mounts {
		if p.removed[strings.ToLower(m.From)] {
			return true
		}
	}
	return false
}

// onlyInstallsMounts reports whether every command of a RUN uses a
// target of a mount from a removed stage: without the stage, the RUN has
// nothing left to do.
func (p *dockerPlan) onlyInstallsMounts(ins loader.Instruction) bool {
	if ins.Shell == nil || len(ins.Shell.Commands) == 0 {
		return false
	}
	var targets []string
	for _, m := range ins.Mounts {
		if p.removed[strings.ToLower(m.From)] {
			if m.Target == "" {
				return false
			}
			targets = append(targets, strings.TrimRight(m.Target, "/"))
		}
	}
	for _, m := range ins.Mounts {
		if m.Type == "bind" && m.From != "" && !p.removed[strings.ToLower(m.From)] {
			return false // it installs from a stage that stays too
		}
	}
	under := func(w string) bool {
		for _, t := range targets {
			if w == t || strings.HasPrefix(w, t+"/") {
				return true
			}
		}
		return false
	}
	for _, c := range ins.Shell.Commands {
		uses := false
		for _, w := range c.Words {
			switch {
			case under(w.Text):
				uses = true
			case strings.HasPrefix(w.Text, "-") || installWords[w.Text]:
			default:
				return false // it installs or does something else too
			}
		}
		if !uses {
			return false
		}
	}
	return true
}

// installWords are the words of an install command that name no package:
// what is left of `uv pip install --system /mnt/x/*.whl` once the mounted
// paths and the options are taken out.
var installWords = map[string]bool{
	"uv": true, "pip": true, "pip3": true, "python": true, "python3": true, "install": true,
	"sudo": true, "env": true, "cd": true, "ls": true, "cp": true,
}
