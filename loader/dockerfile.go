package loader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
)

// DockerfileDocument is a Dockerfile parsed with buildkit's parser.
type DockerfileDocument struct {
	Header
	Directives []Directive   `json:"directives"`
	GlobalArgs []ArgDef      `json:"global_args"`
	Preamble   []Instruction `json:"preamble"`
	Stages     []Stage       `json:"stages"`
	Warnings   []LintWarning `json:"warnings"`
	Errors     []Error       `json:"errors"`
	// Image is what the file says of the machine its images run on
	// (dockerfile_image.go): the environment pip evaluates markers in.
	Image ImageEnv `json:"image"`
	// shellComments are where the comments of its RUN scripts start
	// (realComments).
	shellComments []Pos
}

// DocErrors implements Document.
func (d *DockerfileDocument) DocErrors() []Error { return d.Errors }

// Directive is a parser directive such as "# syntax=..." or "# escape=`".
type Directive struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Pos   Pos    `json:"pos"`
}

// Stage is a FROM and the instructions up to the next FROM; Instructions
// starts with the FROM itself. Name keeps the
// spelling of the file (buildkit lowercases it); Pos spans the whole stage.
type Stage struct {
	Name         string        `json:"name"`
	NameWord     *Word         `json:"name_word"`
	Index        int           `json:"index"`
	Base         Word          `json:"base"`
	Platform     *Word         `json:"platform"`
	Pos          Pos           `json:"pos"`
	Instructions []Instruction `json:"instructions"`
}

// Instruction is one Dockerfile instruction; Pos spans its physical lines,
// heredoc bodies included. Fields after Args are filled for the instructions
// they belong to and are null or empty elsewhere.
type Instruction struct {
	Cmd         string    `json:"cmd"`
	Original    string    `json:"original"`
	Flags       []Flag    `json:"flags"`
	Args        []Word    `json:"args"`
	ExecForm    bool      `json:"exec_form"`
	ArgDefs     []ArgDef  `json:"arg_defs"`
	Env         []EnvPair `json:"env"`
	Mounts      []Mount   `json:"mounts"`
	CopyFrom    *Word     `json:"copy_from"`
	Heredocs    []Heredoc `json:"heredocs"`
	Shell       *Script   `json:"shell"`
	ShellErrors []Error   `json:"shell_errors"`
	Pos         Pos       `json:"pos"`
}

// Flag is an instruction flag such as --mount=type=cache,target=/x.
type Flag struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Text  string `json:"text"`
	Pos   Pos    `json:"pos"`
}

// ArgDef is one name declared by an ARG instruction; Default is unquoted and
// null when the ARG has none.
type ArgDef struct {
	Name    string  `json:"name"`
	Default *string `json:"default"`
	NamePos Pos     `json:"name_pos"`
	Pos     Pos     `json:"pos"`
}

// EnvPair is one key set by ENV (or LABEL).
type EnvPair struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Pos   Pos    `json:"pos"`
}

// Mount is a RUN --mount; Pos is the flag's.
type Mount struct {
	Type   string `json:"type"`
	From   string `json:"from"`
	Source string `json:"source"`
	Target string `json:"target"`
	Pos    Pos    `json:"pos"`
}

// Heredoc is a here-document attached to RUN, COPY or ADD; Pos spans its body.
type Heredoc struct {
	Name   string `json:"name"`
	Body   string `json:"body"`
	Expand bool   `json:"expand"`
	Chomp  bool   `json:"chomp"`
	Pos    Pos    `json:"pos"`
}

// LintWarning is a warning of buildkit's own Dockerfile checks.
type LintWarning struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	URL     string `json:"url"`
	Pos     Pos    `json:"pos"`
}

// maxDockerfileErrors bounds recovery: each error blanks lines and re-parses.
const maxDockerfileErrors = 50

type dockerLoad struct {
	idx    *lineIndex
	escape byte
	doc    *DockerfileDocument
	lint   *linter.Linter
	// outline skips what RUN instructions hold (their scripts, mounts,
	// heredocs): see Outline.
	outline bool
	// vals are the values ARGs and ENVs give so far in the stage valStage
	// up to its instruction valUpTo (runValues, kept as it goes: a stage
	// of 19,000 RUNs must not be walked again for each).
	vals     map[string]string
	valStage int
	valUpTo  int
	// nested is the budget of scripts nested in RUNs (bash -c, eval …)
	// the whole file shares.
	nested int
	// wd is the working directory of stage wdStage up to its instruction
	// wdUpTo, finalWD each earlier stage's last (dockerfile_workdir.go).
	wd      wdState
	wdStage int
	wdUpTo  int
	finalWD map[int]wdState
	// pipInherited is each stage's PIP_*/UV_* settings from the stages
	// it is built FROM, made once per stage (dockerfile_env.go).
	pipInherited map[int][]pipEnvSetting
	// sh is the program of stage shStage's last SHELL up to its
	// instruction shUpTo (stageShell).
	sh      string
	shStage int
	shUpTo  int
}

func loadDockerfile(path string, src []byte) *DockerfileDocument {
	return loadDockerfileAs(path, src, false)
}

func loadDockerfileAs(path string, src []byte, outline bool) *DockerfileDocument {
	doc := &DockerfileDocument{
		Header:     Header{Kind: KindDockerfile, Path: path},
		Directives: []Directive{}, GlobalArgs: []ArgDef{}, Preamble: []Instruction{},
		Stages: []Stage{}, Warnings: []LintWarning{}, Errors: []Error{},
		Image: ImageEnv{Arches: []string{}, Pythons: []string{}, Pos: Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1}},
	}
	d := &dockerLoad{idx: newLineIndex(src), doc: doc, outline: outline}
	if len(src) > maxDockerfileBytes {
		doc.Errors = append(doc.Errors, Error{Message: sizeBoundError("Dockerfile", len(src), maxDockerfileBytes), Pos: d.idx.span(0, 0)})
		return doc
	}
	// buildkit's parser holds about 1 KB per instruction: count them (an
	// overestimate: every line that starts with a letter) before it runs.
	if n := instructionLines(src); n > maxDockerInstrs {
		doc.Errors = append(doc.Errors, Error{Message: capError("instruction lines", n, maxDockerInstrs), Pos: d.idx.span(0, 0)})
		return doc
	}
	d.directives()
	d.lint = linter.New(&linter.Config{Warn: d.warn})

	// buildkit's parser stops at the first error; blank the failing lines
	// (line numbers stay) and parse again so the rest is still loaded.
	text := src
	var res *parser.Result
	for attempt := 0; ; attempt++ {
		r, err := parser.Parse(bytes.NewReader(text))
		if err == nil {
			res = r
			break
		}
		first, last := errorLines(err, d.idx.lines())
		d.errorAt(err, first, last)
		if attempt >= maxDockerfileErrors || strings.Contains(err.Error(), "file with no instructions") {
			break
		}
		text = blankLines(text, d.idx, first, last)
	}
	if res == nil {
		return doc
	}
	if n := len(res.AST.Children); n > maxDockerInstrs {
		doc.Errors = append(doc.Errors, Error{Message: capError("instructions", n, maxDockerInstrs), Pos: d.idx.span(0, 0)})
		return doc
	}
	for _, w := range res.Warnings {
		pos := Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1}
		if w.Location != nil && w.Location.Start.Line > 0 {
			pos = d.idx.linesSpan(w.Location.Start.Line, max(w.Location.End.Line, w.Location.Start.Line))
		}
		doc.Warnings = append(doc.Warnings, LintWarning{Rule: "NoEmptyContinuation", Message: w.Short, URL: w.URL, Pos: pos})
	}
	d.instructions(res.AST)
	doc.Image = imageEnv(doc)
	return doc
}

func (d *dockerLoad) warn(rule, _, url, msg string, loc []parser.Range) {
	pos := Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1}
	if len(loc) > 0 && loc[0].Start.Line > 0 {
		pos = d.idx.linesSpan(loc[0].Start.Line, max(loc[0].End.Line, loc[0].Start.Line))
	}
	d.doc.Warnings = append(d.doc.Warnings, LintWarning{Rule: rule, Message: msg, URL: url, Pos: pos})
}

// errorLines returns the lines a parser error points at.
func errorLines(err error, lines int) (int, int) {
	var le *parser.LocationError
	if !errors.As(err, &le) || len(le.Locations) == 0 || len(le.Locations[0]) == 0 {
		return max(lines, 1), max(lines, 1)
	}
	rs := le.Locations[0]
	first := max(rs[0].Start.Line, 1)
	last := max(rs[len(rs)-1].End.Line, first)
	return first, min(last, max(lines, 1))
}

func (d *dockerLoad) errorAt(err error, first, last int) {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i > 0 && strings.HasPrefix(msg, "dockerfile parse error") {
		msg = msg[i+2:]
	}
	d.doc.Errors = append(d.doc.Errors, Error{Message: msg, Syntax: true, Pos: d.idx.linesSpan(max(first, 1), max(last, 1))})
}

func blankLines(text []byte, idx *lineIndex, first, last int) []byte {
	out := bytes.Clone(text)
	for i := idx.lineStart(first); i < idx.lineEnd(last) && i < len(out); i++ {
		if out[i] != '\n' {
			out[i] = ' '
		}
	}
	return out
}

func (d *dockerLoad) directives() {
	d.escape = '\\'
	// buildkit's own directive parser: what counts as a directive (any
	// white space around "#", the name and "=") must be exactly what the
	// builder reads, or a "#\fescape=`" line changes the escape character
	// for Docker and not for buildgate, and hides a RUN's continuation.
	var dp parser.DirectiveParser
	for line := 1; line <= d.idx.lines(); line++ {
		text := d.idx.lineText(line)
		if line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		dir, err := dp.ParseLine([]byte(text))
		if err != nil || dir == nil {
			break
		}
		if dir.Name == "escape" && (dir.Value == "`" || dir.Value == `\`) {
			d.escape = dir.Value[0]
		}
		s := d.idx.lineStart(line)
		d.doc.Directives = append(d.doc.Directives, Directive{Name: dir.Name, Value: dir.Value, Pos: d.idx.span(s, d.idx.lineEnd(line))})
	}
}

// continuation is buildkit's line-continuation test without its regular
// expression (([^\\])\\[ \t]*$|^\\[ \t]*$, run on every line, is most of a
// large file's parse time): the line ends in the escape character, not
// escaped itself, then spaces or tabs. keep is how much of the line stays.
func (d *dockerLoad) continuation(raw []byte) (keep int, ok bool) {
	t := bytes.TrimRight(raw, " \t")
	n := len(t)
	if n == 0 || t[n-1] != d.escape {
		return 0, false
	}
	if n == 1 {
		return 0, true
	}
	if t[n-2] == d.escape {
		return 0, false
	}
	return n - 1, true
}

// logical rebuilds buildkit's joined instruction line with a map back to the
// source, and returns the last physical line the instruction text used
// (heredoc bodies follow it).
func (d *dockerLoad) logical(n *parser.Node) (*mappedText, int) {
	m := &mappedText{}
	line := n.StartLine
	last := n.StartLine
	first := true
	for line <= n.EndLine {
		s, e := d.idx.lineStart(line), d.idx.lineEnd(line)
		raw := d.idx.src[s:e]
		raw = bytes.TrimRight(raw, "\r")
		last = line
		line++
		if first {
			trimmed := bytes.TrimLeft(raw, " \t\v\f\r\n\uFEFF")
			s += len(raw) - len(trimmed)
			raw = trimmed
		} else {
			if isCommentLine(raw) {
				continue
			}
			if len(bytes.TrimSpace(raw)) == 0 {
				continue
			}
		}
		first = false
		if keep, ok := d.continuation(raw); ok {
			m.add(raw[:keep], s)
			continue
		}
		m.add(raw, s)
		break
	}
	return m, last
}

func isCommentLine(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\v\f\r")
	return len(t) > 0 && t[0] == '#'
}

func (d *dockerLoad) instructions(ast *parser.Node) {
	var stage *Stage
	for _, n := range ast.Children {
		in, parsed := d.instruction(n)
		if st, ok := parsed.(*instructions.Stage); ok {
			d.doc.Stages = append(d.doc.Stages, d.stage(st, in))
			stage = &d.doc.Stages[len(d.doc.Stages)-1]
		}
		if stage == nil {
			if in.Cmd == "arg" {
				d.doc.GlobalArgs = append(d.doc.GlobalArgs, in.ArgDefs...)
			} else if in.Cmd != "from" {
				d.doc.Errors = append(d.doc.Errors, Error{Message: fmt.Sprintf("%s instruction before the first FROM", strings.ToUpper(in.Cmd)), Syntax: true, Pos: in.Pos})
			}
			d.doc.Preamble = append(d.doc.Preamble, in)
			continue
		}
		stage.Instructions = append(stage.Instructions, in)
		stage.Pos.EndLine, stage.Pos.EndColumn = in.Pos.EndLine, in.Pos.EndColumn
	}
}

func (d *dockerLoad) stage(st *instructions.Stage, from Instruction) Stage {
	s := Stage{Index: len(d.doc.Stages), Pos: from.Pos, Instructions: []Instruction{}}
	s.Base = Word{Text: "", Value: strp(st.BaseName), Pos: from.Pos}
	args := from.Args
	if len(args) > 0 {
		s.Base = args[0]
		s.Base.Value = strp(st.BaseName)
	}
	if len(args) >= 3 && strings.EqualFold(args[1].Text, "as") {
		w := args[2]
		s.NameWord = &w
		s.Name = w.Text
	}
	for _, f := range from.Flags {
		if f.Name == "platform" {
			w := Word{Text: f.Text, Value: strp(f.Value), Pos: f.Pos}
			s.Platform = &w
		}
	}
	return s
}

// instruction builds the element for one node; the second result is what
// buildkit's instructions package made of it (nil when it failed).
func (d *dockerLoad) instruction(n *parser.Node) (Instruction, any) {
	m, lastCmdLine := d.logical(n)
	in := Instruction{
		Cmd: strings.ToLower(n.Value), Original: n.Original, Flags: []Flag{}, Args: []Word{},
		Heredocs: []Heredoc{}, Pos: d.idx.linesSpan(n.StartLine, n.EndLine),
	}
	// Span from the keyword, not the line start.
	if len(m.segs) > 0 {
		sp := m.spanOf(d.idx, 0, len(m.text))
		in.Pos.Line, in.Pos.Column = sp.Line, sp.Column
	}
	text := m.text
	toks := splitTokens(text, 0, d.escape)
	rest := len(text)
	if len(toks) > 0 {
		rest = toks[0].end
		toks = toks[1:]
	}
	// Flags come first and are taken one token each, as buildkit does.
	for i := 0; i < len(n.Flags) && i < len(toks); i++ {
		t := toks[i]
		raw := string(text[t.start:t.end])
		name, val, _ := strings.Cut(strings.TrimLeft(n.Flags[i], "-"), "=")
		in.Flags = append(in.Flags, Flag{Name: name, Value: val, Text: raw, Pos: m.spanOf(d.idx, t.start, t.end)})
		rest = t.end
	}
	// buildkit drops a "--" that ends the flags (extractBuilderFlags).
	if i := len(n.Flags); i < len(toks) && string(text[toks[i].start:toks[i].end]) == "--" {
		rest = toks[i].end
	}
	for rest < len(text) && isShellSpace(text[rest]) {
		rest++
	}
	in.ExecForm = n.Attributes["json"]
	values := nodeArgs(n)
	argToks := argTokens(in.Cmd, in.ExecForm, text, rest, d.escape)
	if in.Cmd == "onbuild" && len(argToks) == 1 {
		// The trigger is an instruction of its own: its text is the value.
		values = []string{string(text[argToks[0].start:argToks[0].end])}
	}
	for i, t := range argToks {
		w := Word{Text: string(text[t.start:t.end]), Pos: m.spanOf(d.idx, t.start, t.end)}
		if len(values) == len(argToks) {
			w.Value = strp(values[i])
		} else if in.ExecForm {
			var v string
			if json.Unmarshal(text[t.start:t.end], &v) == nil {
				w.Value = strp(v)
			}
		}
		in.Args = append(in.Args, w)
	}
	d.heredocs(&in, n, lastCmdLine)

	parsed, err := instructions.ParseInstructionWithLinter(n, d.lint)
	if err != nil {
		d.doc.Errors = append(d.doc.Errors, Error{Message: err.Error(), Syntax: true, Pos: in.Pos})
		return in, nil
	}
	d.typed(&in, parsed, argToks, m, rest, lastCmdLine, n)
	return in, parsed
}

func (d *dockerLoad) flagWord(flags []Flag, name, value string) *Word {
	for _, f := range flags {
		if f.Name == name {
			return &Word{Text: f.Text, Value: strp(value), Pos: f.Pos}
		}
	}
	return nil
}

func (d *dockerLoad) pairs(kvs instructions.KeyValuePairs, toks []token, m *mappedText, whole Pos) []EnvPair {
	out := []EnvPair{}
	for i, kv := range kvs {
		p := EnvPair{Key: kv.Key, Value: dockerValue(kv.Value, d.escape), Pos: whole}
		if len(toks) == len(kvs) {
			p.Pos = m.spanOf(d.idx, toks[i].start, toks[i].end)
		} else if len(toks) > 0 && len(kvs) == 1 {
			p.Pos = m.spanOf(d.idx, toks[0].start, toks[len(toks)-1].end)
		}
		out = append(out, p)
	}
	return out
}

// heredocs finds each heredoc body's physical lines after the command text.
func (d *dockerLoad) heredocs(in *Instruction, n *parser.Node, lastCmdLine int) {
	line := lastCmdLine + 1
	for _, h := range n.Heredocs {
		first := line
		for ; line <= n.EndLine; line++ {
			t := strings.TrimRight(d.idx.lineText(line), "\r\n")
			if h.Chomp {
				t = strings.TrimLeft(t, "\t")
			}
			if t == h.Name {
				break
			}
		}
		pos := d.idx.span(d.idx.lineStart(first), d.idx.lineStart(first))
		if line > first {
			pos = d.idx.linesSpan(first, line-1)
		}
		in.Heredocs = append(in.Heredocs, Heredoc{Name: h.Name, Body: h.Content, Expand: h.Expand, Chomp: h.Chomp, Pos: pos})
		line++
	}
}
