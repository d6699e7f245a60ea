package loader

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Roles of a node in the walk's seen set beside the shells: a mapping
// read as an env: block, a value read as a script.
const (
	roleEnv     = "\x00env"
	roleScript  = "\x00script:"
	rolePlugins = "\x00plugins"
)

// unmapped is a scalar whose value could not be matched to the file: not
// read, and said so (BG001), never placed at a guessed position.
func (p *pipeLoad) unmapped(n *yaml.Node, what string) {
	if n.Tag == "!!binary" {
		p.doc.Errors = append(p.doc.Errors, Error{Message: fmt.Sprintf("this value is !!binary (base64 the CI system decodes and runs): buildgate does not decode it, so %s is not read; write it as text", what), Pos: p.nodePos(n)})
		return
	}
	p.doc.Errors = append(p.doc.Errors, Error{Message: fmt.Sprintf("buildgate could not match this YAML value to its text in the file, so %s is not read (please report it)", what), Pos: p.nodePos(n)})
}

// scalarEnd is the offset just after a scalar's text (its closing quote
// included).
func (p *pipeLoad) scalarEnd(n *yaml.Node, m *scalarMap) int {
	src := p.idx.src
	start := p.nodeStart(n)
	end := start
	if len(m.to) > 0 {
		end = int(m.to[len(m.to)-1])
	}
	style := n.Style &^ (yaml.TaggedStyle | yaml.FlowStyle)
	q := byte(0)
	switch style {
	case yaml.DoubleQuotedStyle:
		q = '"'
	case yaml.SingleQuotedStyle:
		q = '\''
	}
	if q == 0 {
		return end
	}
	if len(m.to) == 0 {
		end = start + 1
	}
	// The closing quote, past white space and line breaks folded away.
	for i := end; i < len(src); i++ {
		if src[i] == q {
			return i + 1
		}
		if !isYAMLSpace(src[i]) && src[i] != '\\' {
			break
		}
	}
	return end
}

// env reads an env: (or variables:) mapping into assignments.
func (p *pipeLoad) env(n *yaml.Node, decl string, ctx pipeCtx) {
	n = deref(n)
	if n != nil && n.Kind == yaml.SequenceNode && n.Tag == "!reference" {
		n = p.resolveRef(n)
	}
	if n == nil || n.Kind != yaml.MappingNode {
		// env: ${{ fromJSON(…) }} and the like: nothing to read as
		// assignments, but what is in it is walked.
		p.walk(n, ctx)
		return
	}
	if !p.visit(n, roleEnv) {
		return
	}
	p.duplicates(n)
	for _, kv := range pairs(n, &p.visits) {
		k, v := deref(kv[0]), deref(kv[1])
		if k == nil || k.Kind != yaml.ScalarNode || v == nil {
			continue
		}
		// An entry merged into many mappings (env: {<<: *common}) is
		// one entry of the file, read once.
		if p.seenEnv[kv[0]] {
			continue
		}
		p.seenEnv[kv[0]] = true
		if v.Kind == yaml.MappingNode {
			// GitLab's NAME: {value: …, description: …}.
			var val *yaml.Node
			for _, kv2 := range pairs(v, &p.visits) {
				if keyOf(kv2[0]) == "value" {
					val = deref(kv2[1])
				}
			}
			v = val
		}
		if v == nil || v.Kind != yaml.ScalarNode {
			continue
		}
		p.assignment(kv[0], v, decl)
	}
}

// assignment is one NAME: value of an env mapping: its position runs from
// the name to the end of the value.
func (p *pipeLoad) assignment(key, v *yaml.Node, decl string) {
	k := deref(key)
	if p.textOver || p.full(k) {
		return
	}
	km, ok := p.mapScalar(k)
	if !ok {
		p.unmapped(k, "this environment variable")
		return
	}
	if key.Kind == yaml.AliasNode {
		// *name as a key: the entry is where the alias is, its name
		// the alias's text.
		ks := p.nodeStart(key)
		ke := ks + 1
		for ke < len(p.idx.src) && isAnchorChar(p.idx.src[ke]) {
			ke++
		}
		km = &scalarMap{}
		for i := ks; i < ke; i++ {
			km.emit(p.idx.src[i], i, i+1)
		}
		k = &yaml.Node{Kind: yaml.ScalarNode, Value: deref(key).Value, Line: key.Line, Column: key.Column}
	}
	vm, ok := p.mapScalar(v)
	if !ok {
		p.unmapped(v, "this environment variable's value")
		return
	}
	src := p.idx.src
	ks := p.nodeStart(k)
	ke := p.scalarEnd(k, km)
	vs := p.nodeStart(v)
	ve := max(p.scalarEnd(v, vm), ke)
	if vs > ve || vs < ke {
		vs = ve
	}
	if !p.keep(2*(ve-ks)+len(vm.text), k) {
		return
	}
	value := v.Value
	a := Assignment{
		Name: k.Value, Text: string(src[ks:ve]), ValueText: string(src[vs:ve]), Value: &value,
		Array: []Word{}, Words: p.fields(vm, " \t\n"), Decl: decl,
		NamePos: km.span(p.idx, 0, len(km.text)), Pos: p.idx.span(ks, ve),
	}
	if len(km.text) == 0 {
		a.NamePos = p.idx.span(ks, ks)
	}
	p.words++
	p.doc.Env = append(p.doc.Env, a)
}

// full reports (once) that the file has more elements than buildgate reads.
func (p *pipeLoad) full(n *yaml.Node) bool {
	if p.words <= maxPipelineElements {
		return false
	}
	// The walk's flag: past either bound, nothing more is read.
	p.passed(&p.over, n, fmt.Sprintf("the file has over %d elements (words, commands, variables), over buildgate's limit per pipeline: the rest is not read (see docs/robustness.md)", maxPipelineElements))
	return true
}

// fields splits a mapped value on the separators into words of the file.
func (p *pipeLoad) fields(m *scalarMap, seps string) []Word {
	out := []Word{}
	t := m.text
	for i := 0; i < len(t); {
		if strings.IndexByte(seps, t[i]) >= 0 {
			i++
			continue
		}
		j := i
		for j < len(t) && strings.IndexByte(seps, t[j]) < 0 {
			j++
		}
		s, e := i, j
		for s < e && (t[s] == ' ' || t[s] == '\t') {
			s++
		}
		for e > s && (t[e-1] == ' ' || t[e-1] == '\t' || t[e-1] == '\r') {
			e--
		}
		if s < e {
			if p.full(nil) {
				return out
			}
			w := Word{Text: m.source(p.idx.src, s, e), Value: strp(string(t[s:e])), Pos: m.span(p.idx, s, e)}
			if !p.keep(len(w.Text)+e-s, nil) {
				return out
			}
			p.words++
			out = append(out, w)
		}
		i = j
	}
	return out
}

// scalars collects the command strings of a script key's value: a string,
// or a list of them (GitLab nests lists; its !reference [job, key] tags
// point at scripts read where they are).
// Aliases can make a short list expand without end (a billion laughs):
// each node looked at is taken from budget, and the walk stops at zero
// (reporting false).
func scalars(n *yaml.Node, out *[]*yaml.Node, depth int, budget *int) bool {
	return scalarsOf(n, out, depth, budget, nil)
}

// scalarsOf is scalars with GitLab's !reference [job, key] resolved by
// resolve (nil: not followed).
func scalarsOf(n *yaml.Node, out *[]*yaml.Node, depth int, budget *int, resolve func(*yaml.Node) *yaml.Node) bool {
	n = deref(n)
	if n == nil || depth > 10 {
		return true
	}
	if *budget--; *budget < 0 {
		return false
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag != "!!null" {
			*out = append(*out, n)
		}
	case yaml.SequenceNode:
		if n.Tag == "!reference" {
			if resolve != nil {
				if r := resolve(n); r != nil {
					return scalarsOf(r, out, depth+1, budget, resolve)
				}
			}
			return true
		}
		for _, c := range n.Content {
			if !scalarsOf(c, out, depth+1, budget, resolve) {
				return false
			}
		}
	}
	return true
}

// script reads the value of a script key: its command strings, which the
// CI system runs as the lines of one shell, parsed as shell with every
// position in the file.
func (p *pipeLoad) script(n *yaml.Node, key string, ctx pipeCtx) {
	d := deref(n)
	if d == nil || p.textOver || !p.visit(d, roleScript+ctx.shell) {
		return
	}
	var items []*yaml.Node
	before := maxPipelineVisits - p.visits
	budget := before
	ok := scalarsOf(d, &items, 0, &budget, p.resolveRef)
	p.visits += before - budget // beside what resolving references counted
	if !ok {
		p.visit(d, roleScript) // past the bound: said once
		return
	}
	if len(items) == 0 {
		p.walk(d, ctx) // a mapping under a script key is not a script
		return
	}
	// The items' text is charged before it is copied: a list of
	// aliases of one large anchor must not be copied once per use.
	maps := map[*yaml.Node]*scalarMap{}
	total := 0
	for _, it := range items {
		im, ok := maps[it]
		if !ok {
			if im, ok = p.mapScalar(it); !ok {
				p.unmapped(it, "this script")
				return
			}
			maps[it] = im
		}
		total += len(im.text) + 1
		if total > maxShellBytes {
			p.doc.Errors = append(p.doc.Errors, Error{Message: fmt.Sprintf("the script of %s is over %d bytes (its list's aliases included), over buildgate's limit for a script: not read (see docs/robustness.md)", ctx.where, maxShellBytes), Pos: p.nodePos(it)})
			return
		}
	}
	if !p.keep(total, d) {
		return
	}
	m := &scalarMap{}
	for _, it := range items {
		m.join(maps[it])
	}
	if p.doc.System == "buildkite" {
		m = buildkiteUnescape(m)
	}
	last := items[len(items)-1]
	lm := maps[last]
	ps := PipelineScript{Key: key, Where: ctx.where, Shell: ctx.shell, Dir: ctx.dir, Value: string(m.text),
		Pos: p.idx.span(p.nodeStart(items[0]), p.scalarEnd(last, lm)), Script: newScript()}
	if !p.full(d) {
		p.parse(&ps, m)
	}
	p.doc.Scripts = append(p.doc.Scripts, ps)
	p.commandBuilds(&ps)
}

// commandShell reports whether a shell runs command lines as a POSIX shell
// reads them, word by word (PowerShell, cmd): its syntax errors as shell
// may hide commands.
func commandShell(s string) bool { return s == "pwsh" || s == "powershell" || s == "cmd" }

// envValues are the static values the pipeline's env: and variables:
// read so far give (the last of a name), for the scripts its steps hand
// to a shell (eval "$STEPS").
func (p *pipeLoad) envValues() map[string]string {
	if len(p.doc.Env) == 0 && len(p.later) == 0 {
		return nil
	}
	// Kept and extended as entries come (a pipeline of thousands of
	// scripts must not copy its env for each).
	if p.vals == nil {
		p.vals = map[string]string{}
		for k, v := range p.later {
			p.vals[k] = v
		}
	}
	for ; p.valsUpTo < len(p.doc.Env); p.valsUpTo++ {
		if a := p.doc.Env[p.valsUpTo]; a.Value != nil {
			p.vals[a.Name] = *a.Value
		}
	}
	return p.vals
}

// foreignNote says a script is another language's, read as shell.
func foreignNote(posix bool, shell string) string {
	if posix {
		return ""
	}
	return " (the script runs in " + shell + ", read as shell for what of it reads the same: what the shell cannot read may hide commands)"
}

// parse reads a script as shell. GitHub's ${{ … }} expressions (and
// GitLab's $[[ inputs ]]) are evaluated before the shell sees the
// script: each is read as an expansion of the same length ($___…), so
// that it is neither a syntax error nor a literal word.
func (p *pipeLoad) parse(ps *PipelineScript, m *scalarMap) {
	text := maskExpressions(m.text)
	if ps.Shell == "pwsh" || ps.Shell == "powershell" || ps.Shell == "cmd" {
		// A backslash is no escape to PowerShell or cmd ("a\"; git clone
		// … is a string, then a command): read as a slash, which keeps
		// every offset, so that bash's escapes cannot hide commands.
		text = bytes.ReplaceAll(text, []byte(`\`), []byte(`/`))
	}
	if n := bytes.Count(text, []byte{'$'}) + bytes.Count(text, []byte{'`'}); n > maxShellWords {
		p.doc.Errors = append(p.doc.Errors, Error{Message: "this script: " + capError("expansions and substitutions ($ and `)", n, maxShellWords), Pos: ps.Pos})
		return
	}
	// The words a script can have are at most its fields: past the
	// file's element bound, it is not parsed (an overestimate, so a
	// pipeline near the bound is refused rather than read past it).
	if n := countFields(text); p.words+n > maxPipelineElements {
		p.words += n
		p.full(nil)
		return
	}
	if p.parser == nil {
		p.parser = newShellParser()
	}
	src := shellSource{
		text:   text,
		dir:    ps.Dir,
		values: p.envValues(),
		span:   func(s, e int) Pos { return m.span(p.idx, s, e) },
		textOf: func(s, e int) string { return m.source(p.idx.src, s, e) },
		parser: p.parser,
	}
	parses, errs, bound := parseShell(src)
	script, comments, werrs, serrs := extractScript(src, parses)
	if hashComments(ps.Shell) {
		for _, c := range comments {
			p.doc.comments = append(p.doc.comments, c.Pos)
		}
	}
	if isPython(ps.Shell) {
		// shell: python: the script's static commands (python.go).
		py, perrs := pythonScript(text, ps.Dir, src.span, src.textOf)
		script.merge(py)
		p.doc.Errors = append(p.doc.Errors, perrs...)
	}
	ps.Script = script
	p.doc.refs = append(p.doc.refs, commandRefs(script, ".")...)
	// A script of another shell (PowerShell, Python) is read as shell
	// too, for what of it reads the same (docker build --build-arg …
	// does): naming a job for Windows must not hide its commands. Its
	// syntax errors are syntax errors all the same, reported where they
	// could hide what the rules look for (the file mentions it): a
	// PowerShell `& git clone …` is a shell syntax error that hides the
	// clone. A bound its reading passes is one too, not a part left unread.
	posix := posixShell(ps.Shell)
	if !posix && !commandShell(ps.Shell) {
		// Python, node …: another language altogether, whose build
		// steps are the build model's to read (issue 28); its text as
		// shell is what reads the same, and its errors say nothing.
		errs, serrs = nil, nil
		for i := range bound {
			bound[i].Syntax = true
		}
	}
	for _, e := range append(errs, serrs...) {
		e.Syntax = true
		e.Message = "in the script of " + ps.Where + ": " + e.Message + foreignNote(posix, ps.Shell)
		p.doc.Errors = append(p.doc.Errors, e)
	}
	for _, e := range bound {
		if !posix {
			e.Syntax = true
			e.Message += foreignNote(posix, ps.Shell)
		}
		p.doc.Errors = append(p.doc.Errors, e)
	}
	p.doc.Errors = append(p.doc.Errors, werrs...)
	p.words += len(script.Assignments) + len(script.Expansions) + len(script.ForLoops) + len(script.CasePatterns) + len(script.Heredocs)
	for _, c := range script.Commands {
		p.words += 1 + len(c.Words)
	}
}

// maskExpressions replaces each GitHub expression ${{ … }} (and GitLab's
// input interpolation $[[ … ]]) by $ and underscores, keeping every
// offset. A closing }} inside a string literal of the expression ('}}',
// quotes doubled inside) does not end it, as GitHub's reader has it.
func maskExpressions(text []byte) []byte {
	if !bytes.Contains(text, []byte("${{")) && !bytes.Contains(text, []byte("$[[")) {
		return text
	}
	out := bytes.Clone(text)
	for i := 0; i+2 < len(out); i++ {
		opens := out[i+1] == '{' && out[i+2] == '{' || out[i+1] == '[' && out[i+2] == '['
		if out[i] != '$' || !opens {
			continue
		}
		closer := out[i+1] + 2 // '}' or ']'
		end := -1
		inString := false
		for k := i + 3; k+1 < len(out); k++ {
			switch {
			case out[k] == '\'' && inString && k+1 < len(out) && out[k+1] == '\'':
				k++
			case out[k] == '\'':
				inString = !inString
			case !inString && out[k] == closer && out[k+1] == closer:
				end = k + 2
			}
			if end >= 0 {
				break
			}
		}
		if end < 0 {
			break
		}
		for k := i + 1; k < end; k++ {
			out[k] = '_'
		}
		i = end - 1
	}
	return out
}

// buildkiteUnescape is what Buildkite's interpolation leaves of a command
// when the pipeline is uploaded (buildkite/interpolate's grammar): $$ and
// \$ are a $, \\ stays as it is. ${NAME} is left to the shell here: the
// same variable either way.
func buildkiteUnescape(m *scalarMap) *scalarMap {
	if !bytes.Contains(m.text, []byte("$$")) && !bytes.Contains(m.text, []byte(`\$`)) {
		return m
	}
	out := &scalarMap{text: make([]byte, 0, len(m.text)), from: make([]int32, 0, len(m.text)), to: make([]int32, 0, len(m.text))}
	t := m.text
	for i := 0; i < len(t); i++ {
		if i+1 < len(t) && t[i] == '\\' && t[i+1] == '\\' {
			out.emit(t[i], int(m.from[i]), int(m.to[i]))
			out.emit(t[i+1], int(m.from[i+1]), int(m.to[i+1]))
			i++
			continue
		}
		if i+1 < len(t) && (t[i] == '$' || t[i] == '\\') && t[i+1] == '$' {
			out.emit('$', int(m.from[i]), int(m.to[i+1]))
			i++
			continue
		}
		out.emit(t[i], int(m.from[i]), int(m.to[i]))
	}
	return out
}

// countFields counts the runs of text between white space.
func countFields(t []byte) int {
	n, in := 0, false
	for _, b := range t {
		space := b == ' ' || b == '\t' || b == '\n' || b == '\r'
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}
