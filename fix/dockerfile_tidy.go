package fix

// What a Dockerfile's removal tidies beyond the findings: the ARGs that
// only chose a removed stage, the PATH entry of a toolchain only removed
// steps installed, and the notes on what a removed RUN installed.

import (
	"path"
	"slices"
	"strings"

	"github.com/buildgate/buildgate/loader"
)

// toolPaths cuts an `ENV PATH=DIR:${PATH}` of a kept stage whose DIR (its
// `/bin` aside) only removed instructions mention: the toolchain the
// source build installed there (ROCm/ATOM's Go under /usr/local/go) is
// gone with them, and the PATH entry with it (issue 30). One that a kept
// instruction mentions too stays.
func (p *dockerPlan) toolPaths(cut *lineCut) {
	var all []loader.Instruction
	for _, st := range p.doc.Stages {
		all = append(all, st.Instructions...)
	}
	gone := func(ins loader.Instruction) bool { return cut.cut[ins.Pos.Line] }
	for _, st := range p.doc.Stages {
		if p.removed[strings.ToLower(st.Name)] {
			continue
		}
		for _, ins := range st.Instructions[1:] {
			if ins.Cmd != "env" || len(ins.Env) != 1 || ins.Env[0].Key != "PATH" || gone(ins) {
				continue
			}
			dir := pathEntry(ins.Env[0].Value)
			if dir == "" {
				continue
			}
			inGone, inKept := false, false
			base := path.Base(dir) // go, for /usr/local/go
			for _, o := range all {
				if o.Pos.Line == ins.Pos.Line {
					continue
				}
				// A kept step that runs the toolchain by name (`go
				// build`) needs the PATH entry, wherever it got the
				// toolchain from.
				if !gone(o) && o.Pos.Line > ins.Pos.Line && runsTool(o, base) {
					inKept = true
				}
				// A kept step that unpacks it there (`tar -C /usr/local`
				// of a go tarball) installs the toolchain itself.
				if !gone(o) && strings.Contains(o.Original, path.Dir(dir)) && hasToken(o.Original, base) {
					inKept = true
				}
				if !strings.Contains(o.Original, dir) {
					continue
				}
				if gone(o) {
					inGone = true
				} else {
					inKept = true
				}
			}
			if inGone && !inKept {
				cut.remove(ins.Pos.Line, ins.Pos.EndLine)
				p.answer(ins.Pos, "")
			}
		}
	}
}

// pathEntry is the directory a PATH value puts before or after ${PATH}
// ("/usr/local/go/bin:${PATH}" is /usr/local/go), "" for another shape.
func pathEntry(v string) string {
	var entry string
	switch {
	case strings.HasSuffix(v, ":${PATH}"):
		entry = strings.TrimSuffix(v, ":${PATH}")
	case strings.HasSuffix(v, ":$PATH"):
		entry = strings.TrimSuffix(v, ":$PATH")
	case strings.HasPrefix(v, "${PATH}:"):
		entry = strings.TrimPrefix(v, "${PATH}:")
	case strings.HasPrefix(v, "$PATH:"):
		entry = strings.TrimPrefix(v, "$PATH:")
	default:
		return ""
	}
	if strings.ContainsAny(entry, ":$") || !strings.HasPrefix(entry, "/") {
		return ""
	}
	entry = strings.TrimSuffix(strings.TrimSuffix(entry, "/"), "/bin")
	if strings.Count(entry, "/") < 2 {
		return "" // /usr, /opt: too wide to tell
	}
	return entry
}

// stageArgs cuts an ARG whose every default is the name of a removed
// stage (`ARG MOONCAKE_IMAGE=mooncake-build`, for `FROM ${MOONCAKE_IMAGE}`)
// when no instruction that stays expands it: it only chose a stage of the
// source build (issue 30, nixl's Dockerfile.rocm). It returns the names.
func (p *dockerPlan) stageArgs(cut *lineCut) []string {
	return p.cutArgs(cut, func(all []loader.Instruction, ins loader.Instruction, a loader.ArgDef) bool {
		return a.Default != nil && p.removed[strings.ToLower(strings.Trim(*a.Default, `"'`))] && !p.expanded(all, cut, ins, a.Name, false)
	})
}

// cutArgs cuts each ARG instruction no finding is on whose every name
// goes (by goes), and returns the names.
func (p *dockerPlan) cutArgs(cut *lineCut, goes func(all []loader.Instruction, ins loader.Instruction, a loader.ArgDef) bool) []string {
	all := append([]loader.Instruction(nil), p.doc.Preamble...)
	for _, st := range p.doc.Stages {
		all = append(all, st.Instructions...)
	}
	var names []string
	for _, ins := range all {
		if ins.Cmd != "arg" || len(ins.ArgDefs) == 0 || cut.cut[ins.Pos.Line] || p.any(ins.Pos) {
			continue
		}
		ok := true
		for _, a := range ins.ArgDefs {
			ok = ok && goes(all, ins, a)
		}
		if !ok {
			continue
		}
		cut.remove(ins.Pos.Line, ins.Pos.EndLine)
		for _, a := range ins.ArgDefs {
			names = append(names, a.Name)
		}
	}
	return names
}

// expanded reports whether an instruction other than decl expands the
// ARG name: one that stays, or (removed) one the plan cuts.
func (p *dockerPlan) expanded(all []loader.Instruction, cut *lineCut, decl loader.Instruction, name string, removed bool) bool {
	// An ARG in a stage is that stage's (buildkit scopes it): only its
	// stage's instructions read it. A heredoc's body is read too.
	for _, st := range p.doc.Stages {
		if decl.Pos.Line >= st.Pos.Line && decl.Pos.Line <= st.Pos.EndLine {
			all = st.Instructions
		}
	}
	for _, o := range all {
		if o.Pos.Line != decl.Pos.Line && cut.cut[o.Pos.Line] == removed && expands(instructionText(o), name) {
			return true
		}
	}
	return false
}

// expands reports whether text expands the variable name ($NAME,
// ${NAME…}).
func expands(t, name string) bool {
	for k := strings.Index(t, "$"); k >= 0; k = strings.Index(t, "$") {
		t = strings.TrimPrefix(t[k+1:], "{")
		if strings.HasPrefix(t, name) && (len(t) == len(name) || !isAlnum(t[len(name)]|0x20) && t[len(name)] != '_') {
			return true
		}
	}
	return false
}

// systemPackages are the packages a RUN's apt-get, apt, yum, dnf, apk or
// zypper install commands name (options aside).
func systemPackages(ins loader.Instruction) []string {
	var out []string
	if ins.Shell == nil {
		return nil
	}
	for _, c := range ins.Shell.Commands {
		switch c.Name {
		case "apt-get", "apt", "yum", "dnf", "microdnf", "apk", "zypper":
		default:
			continue
		}
		installing := false
		for _, w := range c.Words[1:] {
			switch {
			case w.Text == "install" || w.Text == "add":
				installing = true
			case installing && !strings.HasPrefix(w.Text, "-") && !strings.ContainsAny(w.Text, "$/"):
				out = append(out, w.Text)
			}
		}
	}
	return out
}

// runsTool reports whether an instruction runs a program whose name starts
// with base (`go`, `gofmt` for /usr/local/go), in shell or exec form
// (`RUN ["go", "build"]`, `CMD ["go", "version"]`, `ENTRYPOINT`).
func runsTool(o loader.Instruction, base string) bool {
	if o.Shell != nil {
		for _, c := range o.Shell.Commands {
			if strings.HasPrefix(path.Base(c.Name), base) {
				return true
			}
		}
	}
	switch o.Cmd {
	case "run", "cmd", "entrypoint":
		if t := strings.TrimSpace(strings.SplitN(o.Original, " ", 2)[len(strings.SplitN(o.Original, " ", 2))-1]); strings.HasPrefix(t, "[") {
			first := strings.Trim(strings.TrimSpace(strings.SplitN(strings.TrimPrefix(t, "["), ",", 2)[0]), `"' ]`)
			return strings.HasPrefix(path.Base(first), base)
		}
		return o.Cmd != "run" && hasToken(o.Original, base)
	}
	return false
}

// hasToken reports whether text holds word as a run of letters, digits or
// '_' of its own (`go` in `go.dev/dl/go1.22.tar.gz`).
func hasToken(text, word string) bool {
	return slices.Contains(strings.FieldsFunc(text, func(r rune) bool {
		return r != '_' && (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z')
	}), word) || strings.Contains(text, word+"1.") // go1.22
}

// orphanArgs cuts an ARG of a kept stage (or a global one) that only
// removed instructions read: with them gone nothing reads it (ROCm/ATOM's
// IONIC_DEB_URL once the gated ionic step goes). It returns the names.
func (p *dockerPlan) orphanArgs(cut *lineCut) []string {
	return p.cutArgs(cut, func(all []loader.Instruction, ins loader.Instruction, a loader.ArgDef) bool {
		return p.expanded(all, cut, ins, a.Name, true) && !p.expanded(all, cut, ins, a.Name, false)
	})
}
