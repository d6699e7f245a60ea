package loader

import (
	"fmt"
	"path"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// Scripts a Dockerfile holds outside shell-form RUNs (issue 28): a COPY or
// ADD here-document written to a file that is a script (`COPY <<EOS
// /tmp/b.sh` then `RUN bash /tmp/b.sh`), and the script an exec-form RUN,
// CMD or ENTRYPOINT hands a shell (`["bash", "-c", "git clone …"]`). Each is
// the instruction's `shell`, read as a RUN's is.

// copyScripts reads the here-documents of a COPY or ADD that become
// scripts: its destination (or the here-document's name under a
// destination directory) looks like one or is named later in the file.
func (d *dockerLoad) copyScripts(in *Instruction, endLine int) {
	if len(in.Heredocs) == 0 || len(in.Args) == 0 {
		return
	}
	dest := wordValue(in.Args[len(in.Args)-1])
	var rest []byte
	if end := d.idx.lineStart(endLine + 1); end >= 0 && end <= len(d.idx.src) {
		rest = d.idx.src[end:]
	}
	mt := &mappedText{}
	for _, h := range in.Heredocs {
		file := dest
		if strings.HasSuffix(dest, "/") {
			file = path.Join(dest, h.Name)
		}
		if !scriptFile(file, h.Body, "", rest) || h.Pos.EndLine < h.Pos.Line {
			continue
		}
		s, e := d.idx.lineStart(h.Pos.Line), d.idx.lineStart(h.Pos.EndLine+1)
		if s < 0 || e > len(d.idx.src) || s >= e {
			continue
		}
		mt.add(d.idx.src[s:e], s)
	}
	if len(mt.text) == 0 {
		return
	}
	d.scriptOf(in, mt.text, func(s, e int) Pos { return mt.spanOf(d.idx, s, e) }, nil, "COPY's here-document")
}

// execScript reads the script of an exec-form instruction that runs a
// shell with -c: ["bash", "-c", "SCRIPT"]. The script's elements are
// placed at the JSON string that holds it (its escapes make a finer
// place unreliable).
func (d *dockerLoad) execScript(in *Instruction) {
	if !in.ExecForm || len(in.Args) < 3 || in.Args[0].Value == nil {
		return
	}
	if !nestedShells[path.Base(*in.Args[0].Value)] {
		return
	}
	for i := 1; i+1 < len(in.Args); i++ {
		o := wordValue(in.Args[i])
		if o != "-c" && !clusterEndsInC(o) {
			if strings.HasPrefix(o, "-") {
				continue
			}
			return
		}
		w := in.Args[i+1]
		if w.Value == nil {
			return
		}
		v := *w.Value
		span := func(int, int) Pos { return w.Pos }
		textOf := func(int, int) string { return w.Text }
		if w.Text == `"`+v+`"` && w.Pos.Line == w.Pos.EndLine && ascii(v) {
			// Written without escapes: each byte is at its column.
			span = func(s, e int) Pos {
				p := shifted(w.Pos, 1+s)
				p.EndLine, p.EndColumn = p.Line, w.Pos.Column+1+e
				return p
			}
			textOf = nil
		}
		d.scriptOf(in, []byte(v), span, textOf, "exec form's script")
		return
	}
}

// scriptOf parses text as the instruction's shell script.
func (d *dockerLoad) scriptOf(in *Instruction, text []byte, span func(s, e int) Pos, textOf func(s, e int) string, what string) {
	if len(text) > maxShellBytes {
		d.doc.Errors = append(d.doc.Errors, Error{Message: fmt.Sprintf("this %s is %d bytes, over buildgate's limit of %d bytes for a script: not read (see docs/robustness.md)", what, len(text), maxShellBytes), Pos: in.Pos})
		return
	}
	if d.nested == 0 {
		d.nested = min(max(len(d.idx.src), 64<<10), maxNestedBytes)
	}
	src := shellSource{text: text, values: d.runValues(), budget: &d.nested, span: span, textOf: textOf}
	if wd := d.workdir(); wd.known {
		src.dir = wd.dir
	} else {
		src.dirUnknown = true
	}
	parses, errs, bound := parseShell(src)
	parsed, _, walkErrs, nestedErrs := extractScript(src, parses)
	d.doc.Errors = append(append(d.doc.Errors, bound...), walkErrs...)
	errs = append(errs, nestedErrs...)
	for _, e := range errs {
		e.Syntax = true
		e.Message = "in this " + what + ": " + e.Message
		d.doc.Errors = append(d.doc.Errors, e)
	}
	if hasPip(&parsed) {
		stageEnv(&parsed, d.pipEnv())
	}
	in.Shell = &parsed
	in.ShellErrors = append([]Error{}, errs...)
}

// typed fills what an instruction of each type holds: ARG definitions, ENV
// and LABEL pairs, the scripts of RUN, CMD, ENTRYPOINT, ONBUILD and of COPY
// and ADD here-documents, COPY --from.
func (d *dockerLoad) typed(in *Instruction, parsed any, argToks []token, m *mappedText, rest, lastCmdLine int, n *parser.Node) {
	switch c := parsed.(type) {
	case *instructions.ArgCommand:
		in.ArgDefs = []ArgDef{}
		for i, kv := range c.Args {
			def := ArgDef{Name: kv.Key, Pos: in.Pos, NamePos: in.Pos}
			if kv.Value != nil {
				def.Default = strp(dockerValue(*kv.Value, d.escape))
			}
			if len(argToks) == len(c.Args) {
				t := argToks[i]
				def.Pos = m.spanOf(d.idx, t.start, t.end)
				def.NamePos = m.spanOf(d.idx, t.start, min(t.end, t.start+len(kv.Key)))
			}
			in.ArgDefs = append(in.ArgDefs, def)
		}
	case *instructions.EnvCommand:
		in.Env = d.pairs(c.Env, argToks, m, in.Pos)
	case *instructions.LabelCommand:
		in.Env = d.pairs(c.Labels, argToks, m, in.Pos)
	case *instructions.RunCommand:
		if !d.outline {
			d.run(in, c, m, rest, lastCmdLine, n)
		}
	case *instructions.CmdCommand:
		if !d.outline && c.PrependShell && !in.ExecForm {
			d.runScript(in, m, rest, lastCmdLine, n)
		} else if !d.outline {
			d.execScript(in)
		}
	case *instructions.EntrypointCommand:
		if !d.outline && c.PrependShell && !in.ExecForm {
			d.runScript(in, m, rest, lastCmdLine, n)
		} else if !d.outline {
			d.execScript(in)
		}
	case *instructions.OnbuildCommand:
		if !d.outline {
			d.onbuild(in, m, rest, lastCmdLine, n)
		}
	case *instructions.CopyCommand:
		if !d.outline {
			d.copyScripts(in, n.EndLine)
		}
		if c.From != "" {
			in.CopyFrom = d.flagWord(in.Flags, "from", c.From)
		}
	case *instructions.AddCommand:
		if !d.outline {
			d.copyScripts(in, n.EndLine)
		}
	}
}
