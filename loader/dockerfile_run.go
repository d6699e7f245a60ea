package loader

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// run reads a RUN instruction's script: the command line joined as the
// builder joins it, and its heredoc bodies, parsed as shell.
func (d *dockerLoad) run(in *Instruction, c *instructions.RunCommand, m *mappedText, rest, lastCmdLine int, n *parser.Node) {
	// Mounts are only complete after Expand; keep ${VARS} as written.
	if err := c.Expand(func(w string) (string, error) { return w, nil }); err == nil {
		in.Mounts = []Mount{}
		mountFlags := []Flag{}
		for _, f := range in.Flags {
			if f.Name == "mount" {
				mountFlags = append(mountFlags, f)
			}
		}
		for i, mt := range instructions.GetMounts(c) {
			mo := Mount{Type: string(mt.Type), From: mt.From, Source: mt.Source, Target: mt.Target, Pos: in.Pos}
			if i < len(mountFlags) {
				mo.Pos = mountFlags[i].Pos
			}
			in.Mounts = append(in.Mounts, mo)
		}
	} else {
		d.doc.Errors = append(d.doc.Errors, Error{Message: "RUN flags: " + err.Error(), Syntax: true, Pos: in.Pos})
	}
	if in.ExecForm || !c.PrependShell {
		d.execScript(in)
		return
	}
	d.runScript(in, m, rest, lastCmdLine, n)
}

// runScript reads the shell script of a shell-form instruction whose
// command line starts at rest of m: a RUN's, a CMD's or ENTRYPOINT's (what
// the container runs when it starts), an ONBUILD RUN's (what a build FROM
// this image runs).
func (d *dockerLoad) runScript(in *Instruction, m *mappedText, rest, lastCmdLine int, n *parser.Node) {
	// The shell sees the joined command line followed by the heredoc bodies
	// exactly as they stand in the file.
	sh := m.suffix(rest)
	if isPython(d.stageShell()) && len(n.Heredocs) == 0 {
		// SHELL ["python3", "-c"]: the command line is Python code,
		// read for its static commands (python.go).
		span := func(s, e int) Pos { return sh.spanOf(d.idx, s, e) }
		textOf := func(s, e int) string { return sh.sourceText(d.idx.src, s, e) }
		start := "."
		if wd := d.workdir(); wd.known {
			start = wd.dir
		}
		script, errs := pythonScript(sh.text, start, span, textOf)
		d.doc.Errors = append(d.doc.Errors, errs...)
		in.Shell, in.ShellErrors = &script, []Error{}
		return
	}
	if len(n.Heredocs) > 0 {
		nl := d.idx.lineEnd(lastCmdLine)
		sh.text = append(sh.text, '\n')
		sh.segs = append(sh.segs, segment{at: len(sh.text) - 1, src: nl})
		s, e := d.idx.lineStart(lastCmdLine+1), d.idx.lineStart(n.EndLine+1)
		if s < e {
			sh.add(d.idx.src[s:e], s)
		}
	}
	if d.nested == 0 {
		d.nested = min(max(len(d.idx.src), 64<<10), maxNestedBytes)
	}
	src := shellSource{text: sh.text, values: d.runValues(), budget: &d.nested, span: func(s, e int) Pos { return sh.spanOf(d.idx, s, e) }}
	if end := d.idx.lineStart(n.EndLine + 1); end >= 0 && end <= len(d.idx.src) {
		src.rest = d.idx.src[end:]
	}
	if wd := d.workdir(); wd.known {
		src.dir = wd.dir
	} else {
		src.dirUnknown = true
	}
	if n := bytes.Count(sh.text, []byte{'$'}) + bytes.Count(sh.text, []byte{'`'}); n > maxShellWords {
		d.doc.Errors = append(d.doc.Errors, Error{Message: "this RUN's script: " + capError("expansions and substitutions ($ and `)", n, maxShellWords), Pos: in.Pos})
		in.ShellErrors = []Error{}
		return
	}
	if len(sh.text) > maxShellBytes {
		d.doc.Errors = append(d.doc.Errors, Error{Message: fmt.Sprintf("this RUN's script is %d bytes, over buildgate's limit of %d bytes for a script: not read (see docs/robustness.md)", len(sh.text), maxShellBytes), Pos: in.Pos})
		in.ShellErrors = []Error{}
		return
	}
	parses, errs, bound := parseShell(src)
	parsed, comments, walkErrs, nestedErrs := extractScript(src, parses)
	d.keepComments(comments)
	errs = append(errs, nestedErrs...)
	// Bounds passed are parts of the file buildgate did not read: document
	// errors (BG001), unlike shell syntax errors, which Docker ignores too.
	d.doc.Errors = append(append(d.doc.Errors, bound...), walkErrs...)
	// RUN <<EOF runs the heredoc itself as the script: parse its body too.
	// A body that is data (RUN <<EOF cat > f) is parsed for what it reads
	// the same as shell, but its # lines are comments only where buildkit
	// runs the body as a shell script: the command is that one heredoc,
	// and the body has no #! or a shell's (issue 26).
	cmdline := strings.TrimSpace(string(m.text[rest:]))
	if strings.HasPrefix(cmdline, "<<") {
		script := parser.MustParseHeredoc(cmdline) != nil
		// Each body is parsed from a copy of the whole text, blanked
		// around it: bound the copies.
		if len(parsed.Heredocs)*len(sh.text) > 4*maxShellBytes {
			d.doc.Errors = append(d.doc.Errors, Error{Message: fmt.Sprintf("this RUN has %d heredocs in %d bytes, over what buildgate reads: their scripts are not read (see docs/robustness.md)", len(parsed.Heredocs), len(sh.text)), Pos: in.Pos})
		}
		for _, h := range parsed.Heredocs {
			if len(parsed.Heredocs)*len(sh.text) > 4*maxShellBytes {
				break
			}
			start, end := d.bodyRange(sh, h)
			if start < 0 {
				continue
			}
			body := shellSource{text: onlyRange(sh.text, start, end), span: src.span, values: src.values, budget: src.budget, dir: src.dir, dirUnknown: src.dirUnknown, rest: src.rest}
			bp, be, bb := parseShell(body)
			bs, bc, bw, bn := extractScript(body, bp)
			if script && shellBody(h.Body) {
				d.keepComments(bc)
			}
			be = append(be, bn...)
			d.doc.Errors = append(append(d.doc.Errors, bb...), bw...)
			parsed.merge(bs)
			errs = append(errs, be...)
		}
	}
	if hasPip(&parsed) {
		stageEnv(&parsed, d.pipEnv())
	}
	in.Shell = &parsed
	in.ShellErrors = errs
	// What the shell parser cannot read of a RUN could be the source
	// build: its errors are the document's too (BG001 reports them where
	// they could hide something), not only the instruction's.
	for _, e := range errs {
		e.Syntax = true
		e.Message = "in this RUN's script: " + e.Message
		d.doc.Errors = append(d.doc.Errors, e)
	}
	if in.ShellErrors == nil {
		in.ShellErrors = []Error{}
	}
}

// bodyRange finds a heredoc body's offsets in the shell text: the body
// lines were copied there verbatim from the source.
func (d *dockerLoad) bodyRange(sh *mappedText, h ShellHeredoc) (int, int) {
	start, ok := sh.offsetOf(d.idx.lineStart(h.Pos.Line))
	if !ok {
		return -1, -1
	}
	end, ok := sh.offsetOf(d.idx.lineStart(h.Pos.EndLine + 1))
	if !ok {
		end = len(sh.text)
	}
	return start, end
}

// keepComments records where a RUN script's comments start.
func (d *dockerLoad) keepComments(cs []Word) {
	for _, c := range cs {
		d.doc.shellComments = append(d.doc.shellComments, c.Pos)
	}
}

// shellBody reports whether a RUN heredoc's body, run as the script, runs
// in a shell: no #!, or the #! of a shell (directly or through env).
func shellBody(body string) bool {
	if !strings.HasPrefix(body, "#!") {
		return true
	}
	line, _, _ := strings.Cut(body[2:], "\n")
	return nestedShells[shebangProgram(line)]
}

// shebangProgram is the program a #! line (without "#!") runs: its first
// word's name, or, through env, the first word env does not take as an
// option or an assignment.
func shebangProgram(line string) string {
	f := strings.Fields(line)
	if len(f) == 0 {
		return ""
	}
	prog := path.Base(f[0])
	if prog == "env" {
		for _, a := range f[1:] {
			if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
				return path.Base(a)
			}
		}
	}
	return prog
}

// runValues are the values the ARGs' defaults and the ENVs before a RUN
// give its variables (the global ARGs', then the stage's in order), for
// the scripts the RUN hands to a shell (ARG STEPS="…"; RUN eval "$STEPS").
// The map is kept and extended as the stage goes (it is read only while
// the RUN's script is extracted).
func (d *dockerLoad) runValues() map[string]string {
	stage := len(d.doc.Stages)
	if d.vals == nil || d.valStage != stage {
		d.vals, d.valStage, d.valUpTo = map[string]string{}, stage, 0
		for _, a := range d.doc.GlobalArgs {
			if a.Default != nil {
				d.vals[a.Name] = expandWith(*a.Default, d.vals)
			}
		}
	}
	if stage == 0 {
		return d.vals
	}
	ins := d.doc.Stages[stage-1].Instructions
	for ; d.valUpTo < len(ins); d.valUpTo++ {
		in := ins[d.valUpTo]
		for _, a := range in.ArgDefs {
			if a.Default != nil {
				d.vals[a.Name] = expandWith(*a.Default, d.vals)
			}
		}
		if in.Cmd == "env" {
			for _, e := range in.Env {
				d.vals[e.Key] = expandWith(e.Value, d.vals)
			}
		}
	}
	return d.vals
}

// expandWith is an ARG default or ENV value with the values before it put
// in place, as buildkit expands them ($X, ${X}, ${X:-d}); a variable
// without a value stays as written.
func expandWith(s string, vals map[string]string) string {
	if !strings.Contains(s, "$") || len(s) > 4096 {
		return s
	}
	out := dockerVarRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := dockerVarRe.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		if v, ok := vals[name]; ok && (v != "" || sub[3] == "") {
			return v
		}
		if sub[3] != "" {
			return sub[4]
		}
		return m
	})
	if len(out) > 4096 {
		return s
	}
	return out
}

var dockerVarRe = regexp.MustCompile(`\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(:?-([^}$]*))?\})`)
