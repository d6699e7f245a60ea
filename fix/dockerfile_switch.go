package fix

import (
	"path"
	"strings"

	"github.com/buildgate/buildgate/loader"
	"mvdan.cc/sh/v3/syntax"
)

// switches are the switches of the source build the plan removes: names
// every definition of which goes, an `ENV BUILD_MOONCAKE="1"` (one key,
// the finding on it) or an ARG declaration a finding names (`ARG
// INSTALL_MOONCAKE=1`). A name some other ENV (of several keys, with
// another value, suppressed) or ARG still defines is no switch: it may
// still be on.
func (p *dockerPlan) switches() map[string]bool {
	going, kept := map[string]bool{}, map[string]bool{}
	note := func(name string, goes bool) {
		if goes {
			going[name] = true
		} else {
			kept[name] = true
		}
	}
	for _, a := range p.doc.GlobalArgs {
		note(a.Name, p.onDef(a))
	}
	all := append([]loader.Instruction(nil), p.doc.Preamble...)
	for _, st := range p.doc.Stages {
		all = append(all, st.Instructions...)
	}
	for _, ins := range all {
		// RUN conditions are read as bash: under another SHELL, no switch
		// makes a RUN dormant.
		if ins.Cmd == "shell" && (len(ins.Args) == 0 || !posixShell(ins.Args[0].Text)) {
			return nil
		}
		for _, a := range ins.ArgDefs {
			note(a.Name, p.onDef(a))
		}
		if ins.Cmd == "env" {
			for _, e := range ins.Env {
				note(e.Key, len(ins.Env) == 1 && p.onKey(e))
			}
		}
	}
	out := map[string]bool{}
	for k := range going {
		if !kept[k] {
			out[k] = true
		}
	}
	return out
}

// dormant reports whether a RUN is, as a whole, an if that only runs when
// a removed switch is on (`if [ "$BUILD_MOONCAKE" = "1" ]; then …; fi`):
// once the switch is gone its condition is false and the RUN does
// nothing, so it goes whole (sglang's rocm.Dockerfile and ROCm/ATOM's
// build Mooncake this way). An else may only print (`echo "skipped"`):
// the build log loses that line, nothing else changes.
func dormant(ins loader.Instruction, switches map[string]bool) bool {
	if ins.Cmd != "run" || len(switches) == 0 || ins.Shell == nil || len(ins.Args) != 1 || len(ins.Heredocs) > 0 {
		return false
	}
	// A mount can set the switch inside the RUN (--mount=type=secret,env=X).
	for _, f := range ins.Flags {
		for k := range switches {
			if strings.Contains(f.Value, "env="+k) {
				return false
			}
		}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(ins.Args[0].Text), "")
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	st := f.Stmts[0]
	ic, ok := st.Cmd.(*syntax.IfClause)
	if !ok || st.Negated || st.Background || len(st.Redirs) > 0 || len(ic.Cond) != 1 {
		return false
	}
	if e := ic.Else; e != nil && (len(e.Cond) > 0 || e.Else != nil || !printsOnly(e.Then)) {
		return false
	}
	return falseWhenUnset(ic.Cond[0], switches)
}

// printsOnly reports whether statements only print (echo, printf, :,
// true), without redirections.
func printsOnly(list []*syntax.Stmt) bool {
	for _, st := range list {
		c, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 || len(st.Redirs) > 0 || st.Background {
			return false
		}
		switch c.Args[0].Lit() {
		case "echo", "printf", ":", "true":
		default:
			return false
		}
		for _, w := range c.Args {
			if !quietWord(w) {
				return false // "$(pip install …)" runs a command
			}
		}
	}
	return true
}

// quietWord reports whether expanding a word runs nothing and sets
// nothing: literals, quotes, plain $X / ${X}.
func quietWord(w *syntax.Word) bool {
	ok := true
	syntax.Walk(w, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ExtGlob:
			ok = false
		case *syntax.ParamExp:
			if x.Exp != nil || x.Repl != nil || x.Slice != nil || x.Index != nil {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// falseWhenUnset reports whether a condition is a test that is false when
// its switch variable is empty: `[ "$X" = "1" ]`, `[[ $X == true ]]`,
// `test "$X" = yes`, `[ -n "$X" ]`.
func falseWhenUnset(cond *syntax.Stmt, switches map[string]bool) bool {
	if cond.Negated || len(cond.Redirs) > 0 {
		return false
	}
	switch c := cond.Cmd.(type) {
	case *syntax.TestClause:
		return falseWhenUnsetTest(c, switches)
	case *syntax.CallExpr:
		return falseWhenUnsetCommand(c, switches)
	}
	return false
}

// falseWhenUnsetTest is falseWhenUnset for bash's [[ … ]]:
// `[[ $X == 1 ]]` (the right side a pattern without a glob) or
// `[[ -n $X ]]`, where the switch needs no quotes.
func falseWhenUnsetTest(c *syntax.TestClause, switches map[string]bool) bool {
	switch x := c.X.(type) {
	case *syntax.BinaryTest:
		l, lok := x.X.(*syntax.Word)
		r, rok := x.Y.(*syntax.Word)
		// [[ $X == 1 ]]: the right side is a pattern, so no glob.
		return lok && rok && (x.Op == syntax.TsMatchShort || x.Op == syntax.TsMatch) && switchWord(l, switches) && nonEmptyLiteral(r) && !strings.ContainsAny(r.Lit(), "*?[]")
	case *syntax.UnaryTest:
		w, ok := x.X.(*syntax.Word)
		return ok && x.Op == syntax.TsNempStr && switchWord(w, switches)
	}
	return false
}

// falseWhenUnsetCommand is falseWhenUnset for the test command, `[ … ]`
// or `test …`: `[ "$X" = 1 ]`, or `[ -n "$X" ]` with the switch quoted.
func falseWhenUnsetCommand(c *syntax.CallExpr, switches map[string]bool) bool {
	a := c.Args
	if len(c.Assigns) > 0 || len(a) == 0 {
		return false
	}
	switch a[0].Lit() {
	case "[":
		if a[len(a)-1].Lit() != "]" {
			return false
		}
		a = a[1 : len(a)-1]
	case "test":
		a = a[1:]
	default:
		return false
	}
	switch {
	case len(a) == 3 && (a[1].Lit() == "=" || a[1].Lit() == "=="):
		return switchWord(a[0], switches) && nonEmptyLiteral(a[2])
	case len(a) == 2 && a[0].Lit() == "-n":
		// [ -n $X ] unquoted is [ -n ] when X is empty: true.
		return switchWord(a[1], switches) && doubleQuoted(a[1])
	}
	return false
}

// switchWord reports whether a word is a plain expansion of a switch, $X,
// ${X} or "$X" (no default, index, indirection or length), which expands
// to nothing once the switch is gone.
func switchWord(w *syntax.Word, switches map[string]bool) bool {
	var parts []syntax.WordPart
	if len(w.Parts) == 1 {
		if dq, ok := w.Parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		} else {
			parts = w.Parts
		}
	}
	if len(parts) != 1 {
		return false
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	return ok && pe.Param != nil && switches[pe.Param.Value] && pe.Exp == nil && pe.Index == nil && !pe.Excl && !pe.Length
}

// doubleQuoted reports whether a word is one double-quoted string.
func doubleQuoted(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	_, ok := w.Parts[0].(*syntax.DblQuoted)
	return ok
}

// nonEmptyLiteral reports whether a word is a literal that is not empty:
// what an empty switch never equals.
func nonEmptyLiteral(w *syntax.Word) bool {
	return literalWord(w) && !emptyWord(w)
}

// posixShell reports whether a SHELL's program is sh, bash or dash.
func posixShell(prog string) bool {
	prog = strings.Trim(prog, `"[] `)
	if i := strings.LastIndexByte(prog, '/'); i >= 0 {
		prog = prog[i+1:]
	}
	return prog == "sh" || prog == "bash" || prog == "dash"
}

// unsafeSwitches are, for a safe fix, the switches kept because a RUN
// they gate names no part of the source build (ROCm/ATOM's RDMA provider
// under INSTALL_MOONCAKE): with the switch, that step goes on running.
func (p *dockerPlan) unsafeSwitches() map[string]int {
	out := map[string]int{}
	if p.opt.Unsafe || len(p.sw) == 0 {
		return out
	}
	for _, st := range p.doc.Stages {
		if p.removed[strings.ToLower(st.Name)] {
			continue
		}
		for _, ins := range st.Instructions[1:] {
			if !dormant(ins, p.sw) || p.any(ins.Pos) && p.otherWork(ins) == "" {
				continue
			}
			for k := range p.sw {
				if strings.Contains(ins.Original, k) {
					if _, ok := out[k]; !ok {
						out[k] = ins.Pos.Line
					}
				}
			}
		}
	}
	return out
}

// keptSwitch reports whether an ENV or ARG defines a switch a safe fix
// keeps, with the line of the step that keeps it.
func (p *dockerPlan) keptSwitch(ins loader.Instruction) (int, bool) {
	for _, a := range ins.ArgDefs {
		if l, ok := p.keepSw[a.Name]; ok {
			return l, true
		}
	}
	if ins.Cmd == "env" {
		for _, e := range ins.Env {
			if l, ok := p.keepSw[e.Key]; ok {
				return l, true
			}
		}
	}
	return 0, false
}

// otherWork is the first command of a RUN gated on the source build's
// switch that does work besides the source build ("" when none): not a
// command a finding names, a test, an echo, a cd, nor a mkdir or rm of
// what the build's own commands name or of a scratch directory. A
// system package install beside the build is other work (froststeam's
// sglang image: a later step removed a package the gated RUN had put
// there; the red team's `mkdir -p /var/lib/...` a later RUN needs).
func (p *dockerPlan) otherWork(ins loader.Instruction) string {
	if ins.Shell == nil {
		return ""
	}
	var paths []string
	for _, c := range ins.Shell.Commands {
		if !p.anyIn(c.Pos) {
			continue
		}
		for _, w := range c.Words[1:] {
			if t := cleanPath(w.Text); strings.HasPrefix(t, "/") && !strings.Contains(t, "$") {
				paths = append(paths, t)
			}
		}
	}
	for _, c := range ins.Shell.Commands {
		if writesFile(c) {
			// echo … >> /etc/passwd: a file another step may read.
			return strings.Join(wordTexts(c.Words), " ") + " >"
		}
		if p.anyIn(c.Pos) || pureCmds[c.Name] && c.Name != "sed" || gitQuery(c) || buildTool(c) {
			continue
		}
		switch c.Name {
		case "[", "[[", "test", "echo", "printf", "true", ":", "cd", "pushd", "popd", "set", "ls", "exit", "nproc", "uname":
			continue
		case "mkdir", "rm":
			if pathsOfBuild(c, paths) {
				continue
			}
		}
		return strings.Join(wordTexts(c.Words), " ")
	}
	return ""
}

// pathsOfBuild reports whether every path a mkdir or rm names is the
// build's (onBuildPath).
func pathsOfBuild(c loader.ShellCommand, paths []string) bool {
	for _, w := range c.Words[1:] {
		if t := cleanPath(w.Text); !strings.HasPrefix(t, "-") && !onBuildPath(t, paths) {
			return false
		}
	}
	return true
}

func wordTexts(ws []loader.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Text
	}
	return out
}

// gitQuery reports whether a git command only reads (rev-parse, log,
// describe, status, diff): `echo "Mooncake commit: $(git rev-parse
// HEAD)"` in ROCm/ATOM's gated clone.
func gitQuery(c loader.ShellCommand) bool {
	if c.Name != "git" {
		return false
	}
	for _, w := range c.Words[1:] {
		if strings.HasPrefix(w.Text, "-") {
			continue
		}
		switch w.Text {
		case "rev-parse", "log", "describe", "status", "diff", "show", "ls-files", "ls-remote":
			return true
		}
		return false
	}
	return false
}

// anyIn reports whether a finding starts inside pos (by offset: a
// one-line `if …; then git clone … && useradd app; fi` holds findings on
// the line of commands that have none).
func (p *dockerPlan) anyIn(pos loader.Pos) bool {
	s, e, err := Offsets(p.src, pos)
	if err != nil {
		return p.any(pos)
	}
	for _, o := range p.offs {
		if o >= s && o < e {
			return true
		}
	}
	return false
}

// writesFile reports whether a command redirects its output into a file
// (not /dev/null, not a descriptor).
func writesFile(c loader.ShellCommand) bool {
	for _, r := range c.Redirects {
		if strings.Contains(r.Op, ">") && !strings.Contains(r.Op, "&") && r.Word != nil && r.Word.Text != "/dev/null" {
			return true
		}
	}
	return false
}

// buildTool reports whether a command is a build tool's (make, cmake,
// ninja, go, cargo, a setup.py): in a gated RUN it is the source build's
// compile, which lint reports where it runs in the clone.
func buildTool(c loader.ShellCommand) bool {
	if compilers[path.Base(c.Name)] {
		return true
	}
	if c.Name == "python" || c.Name == "python3" {
		for _, w := range c.Words[1:] {
			if w.Text == "setup.py" {
				return true
			}
		}
	}
	return false
}

// compilers compile what is in their directory.
var compilers = map[string]bool{"make": true, "cmake": true, "ninja": true, "meson": true, "cargo": true, "go": true, "bazel": true, "scons": true, "configure": true}
