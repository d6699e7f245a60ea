package loader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"
)

// PipelineDocument is a CI pipeline (issue 19): a Buildkite pipeline, a
// GitHub Actions workflow or composite action, a GitLab CI file, or a
// YAML file configured as a pipeline. It keeps what a source build can
// hide in one: environment assignments, the commands it runs (parsed as
// shell, each word's position in the YAML file) and the Docker builds it
// starts. docs/documents.md has its fields.
type PipelineDocument struct {
	Header
	// System is the CI system the file's place names: buildkite,
	// github, gitlab, or "" (configured, or a file a GitLab CI file
	// includes), which reads the keys of every system.
	System string `json:"system"`
	// Env are the environment assignments at every level (env: of
	// Buildkite and GitHub Actions, variables: of GitLab).
	Env []Assignment `json:"env"`
	// Scripts are the command strings, parsed as shell.
	Scripts []PipelineScript `json:"scripts"`
	// Builds are the Docker builds the pipeline starts.
	Builds []DockerBuild `json:"builds"`
	// Fetches are the repositories its steps check out (actions/checkout
	// with repository:), as a command's fetch (pipeline_sources.go).
	Fetches []Fetch `json:"fetches,omitempty"`
	Errors  []Error `json:"errors"`
	// refs are the local files it has its CI system read or run
	// (References).
	refs []FileRef
	// workdirs are the working directories its steps set (GitHub's
	// working-directory): a script's relative paths are read from each.
	workdirs []string
	// comments are where its comments start, YAML's and its scripts'
	// (realComments).
	comments []Pos
}

// DocErrors implements Document.
func (d *PipelineDocument) DocErrors() []Error { return d.Errors }

func (d *PipelineDocument) setErrors(e []Error) { d.Errors = e }

// PipelineScript is one command string, or a list of them that the CI
// system runs as one script (lines of one shell), parsed as shell.
type PipelineScript struct {
	// Key is the key it is the value of: commands, command, run, script,
	// before_script, after_script.
	Key string `json:"key"`
	// Where is its place in the file: steps[3].commands.
	Where string `json:"where"`
	// Shell is the shell that runs it when the file says (bash, sh,
	// pwsh, python …); "" is the system's default (a POSIX shell).
	// Every script is parsed as shell; only a POSIX shell's syntax
	// errors are errors of the file.
	Shell string `json:"shell"`
	// Dir is the directory it starts in when the file says (GitHub's
	// working-directory: a step's, or defaults.run's), absent for the
	// workspace.
	Dir string `json:"dir,omitempty"`
	// Value is the script as the shell gets it.
	Value  string `json:"value"`
	Pos    Pos    `json:"pos"`
	Script        // flattened: functions, assignments, commands …
}

// DockerBuild is a Docker build a pipeline starts: a docker build,
// buildx build or buildx bake command of one of its scripts ("command"),
// or a docker/build-push-action or docker/bake-action step ("action").
// Each list holds the values of one option (--build-arg, --target,
// --set, -f), as words of the file.
type DockerBuild struct {
	Via       string `json:"via"`
	Tool      string `json:"tool"`
	Where     string `json:"where"`
	BuildArgs []Word `json:"build_args"`
	Targets   []Word `json:"targets"`
	Sets      []Word `json:"sets"`
	Files     []Word `json:"files"`
	// Contexts are its build contexts (build-push-action's context,
	// bake-action's source, compose's context and additional_contexts).
	Contexts []Word `json:"contexts,omitempty"`
	Pos      Pos    `json:"pos"`
}

// Bounds of a pipeline file (docs/robustness.md): yaml's nodes cost some
// 200 bytes each, so the file is kept smaller than a script; aliases are
// followed, each node at most once per shell it may run in, and the walk
// stops after maxPipelineVisits nodes (a billion-laughs file is an
// error, not a hang).
const (
	maxPipelineBytes  = 1 << 20
	maxPipelineVisits = 200000
	// maxPipelineElements bounds env entries and words (of scripts,
	// actions and plugins) per file:
	// each element a finding may be costs some 3 KB converted; the
	// largest real pipeline seen (vLLM's test-amd.yaml, 140 KB) has
	// 2,916.
	maxPipelineElements = 50000
	// maxPipelineText bounds the bytes of text a pipeline's document
	// holds (scripts, values, words): a 1 MiB file holds some 2-3 MiB,
	// and aliases of one large anchor would hold it again and again.
	maxPipelineText = 8 << 20
)

// mapScalar is mapScalar once per node.
func (p *pipeLoad) mapScalar(n *yaml.Node) (*scalarMap, bool) {
	if m, ok := p.maps[n]; ok {
		return m, m != nil
	}
	m, ok := mapScalar(p.yx, n)
	if !ok {
		p.maps[n] = nil
		return m, false
	}
	p.maps[n] = m
	return m, true
}

// keep charges n bytes of text to the document, and reports (once) when
// the file holds more than buildgate keeps of one pipeline.
func (p *pipeLoad) keep(n int, at *yaml.Node) bool {
	p.kept += n
	if p.kept <= maxPipelineText {
		return true
	}
	p.passed(&p.textOver, at, fmt.Sprintf("the file's scripts and values (its aliases expanded) are over %d bytes, more than buildgate keeps of a pipeline (see docs/robustness.md): the rest is not read", maxPipelineText))
	return false
}

// passed records, once per bound (its flag), that the file passed it: an
// error at the node (the file's start when there is none).
func (p *pipeLoad) passed(flag *bool, at *yaml.Node, msg string) {
	if *flag {
		return
	}
	*flag = true
	pos := p.idx.span(0, 0)
	if at != nil {
		pos = p.nodePos(at)
	}
	p.doc.Errors = append(p.doc.Errors, Error{Message: msg, Pos: pos})
}

// pipeLoad is one pipeline file being read.
type pipeLoad struct {
	idx  *lineIndex
	yx   *yamlIndex
	doc  *PipelineDocument
	seen map[seenKey]bool
	// vals: the env values read so far, up to doc.Env[valsUpTo]; later:
	// those of the whole document, read before the walk (envValues).
	vals, later map[string]string
	valsUpTo    int
	// inlines counts the inline Dockerfiles of a compose file read.
	inlines int
	// seenEnv are the env entries read, by key node.
	seenEnv map[*yaml.Node]bool
	// maps are the scalars mapped, by node (an anchor used many times
	// is mapped once); kept counts the bytes of text the document
	// holds, which aliases could multiply without it.
	maps     map[*yaml.Node]*scalarMap
	kept     int
	textOver bool
	// topIndex is topMap's values by key, for !reference.
	topIndex map[string]*yaml.Node
	// windows memoizes gitlabWindows by job name; jobs are the
	// top-level mapping's values by key.
	windows map[string]bool
	jobs    map[string]*yaml.Node
	// topMap is the current document's top-level mapping (GitLab's
	// !reference [job, key] is resolved in it).
	topMap *yaml.Node
	visits int
	over   bool
	words  int
	parser *syntax.Parser
}

type seenKey struct {
	n     *yaml.Node
	shell string
}

// pipeCtx is what a node inherits: its place and the shell its scripts
// run in.
type pipeCtx struct {
	where string
	shell string
	// dir is the working directory its scripts start in (GitHub's
	// working-directory, a step's or defaults.run's), "" for the
	// workspace.
	dir string
}

func loadPipeline(rel string, src []byte) *PipelineDocument {
	return loadPipelineAs(rel, src, pipelineSystem(rel))
}

func loadPipelineAs(rel string, src []byte, system string) *PipelineDocument {
	doc := &PipelineDocument{Header: Header{Kind: KindPipeline, Path: rel}, System: system,
		Env: []Assignment{}, Scripts: []PipelineScript{}, Builds: []DockerBuild{}, Errors: []Error{}}
	p := &pipeLoad{idx: newLineIndex(src), yx: newYAMLIndex(src), doc: doc, seen: map[seenKey]bool{}, seenEnv: map[*yaml.Node]bool{}, maps: map[*yaml.Node]*scalarMap{}}
	if len(src) > maxPipelineBytes {
		doc.Errors = append(doc.Errors, Error{Message: sizeBoundError("CI pipeline (YAML) file", len(src), maxPipelineBytes), Pos: p.idx.span(0, 0)})
		return doc
	}
	if utf16BOM(src) {
		// yaml would decode it; the CI systems and buildgate's
		// positions read UTF-8.
		doc.Errors = append(doc.Errors, Error{Message: "the file is UTF-16 (it starts with a UTF-16 byte order mark): buildgate reads UTF-8 pipelines only, so it is not read", Pos: p.idx.span(0, 0)})
		return doc
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			doc.Errors = append(doc.Errors, p.yamlError(err))
			break
		}
		// Each document has its own jobs.
		p.windows, p.topMap, p.topIndex = nil, nil, nil
		p.later = prescanEnv(&n)
		if system == "compose" {
			p.compose(&n)
			continue
		}
		p.walk(&n, pipeCtx{})
		if bytes.Contains(src, []byte("buildgate:ignore")) {
			p.yamlComments(&n)
		}
	}
	return doc
}

var yamlLineRe = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// yamlError is a YAML syntax error at the line yaml names.
func (p *pipeLoad) yamlError(err error) Error {
	msg := err.Error()
	line := 1
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
		}
		msg = msg[len(m[0]):]
	}
	line = min(max(line, 1), max(p.idx.lines(), 1))
	return Error{Message: "YAML: " + msg + " (the CI system does not read the file either)", Syntax: true, Pos: p.idx.linesSpan(line, line)}
}

// nodeStart is the offset of a node's content (after its anchor and tag).
func (p *pipeLoad) nodeStart(n *yaml.Node) int {
	return skipProperties(p.idx.src, p.yx.offsetAt(n.Line, n.Column))
}

func (p *pipeLoad) nodePos(n *yaml.Node) Pos {
	s := p.nodeStart(n)
	return p.idx.span(s, s)
}

// deref follows an alias (nil for a dangling one).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// visit counts a node against the walk's bound, and reports whether it is
// the first time the node is seen in this shell.
func (p *pipeLoad) visit(n *yaml.Node, shell string) bool {
	if p.over {
		return false
	}
	p.visits++
	if p.visits > maxPipelineVisits {
		p.passed(&p.over, n, fmt.Sprintf("the file's aliases and nodes make over %d nodes to read, more than buildgate reads (see docs/robustness.md): the rest is not read", maxPipelineVisits))
		return false
	}
	k := seenKey{n, shell}
	if p.seen[k] {
		return false
	}
	p.seen[k] = true
	return true
}

func (p *pipeLoad) walk(n *yaml.Node, ctx pipeCtx) {
	n = deref(n)
	if n == nil || !p.visit(n, ctx.shell) {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if d := deref(c); d != nil && d.Kind == yaml.MappingNode {
				p.topMap = d
			}
			p.walk(c, ctx)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p.walk(c, pipeCtx{where: fmt.Sprintf("%s[%d]", ctx.where, i), shell: ctx.shell, dir: ctx.dir})
		}
	case yaml.MappingNode:
		p.mapping(n, ctx)
	}
}

// pairs are a mapping's key/value pairs, merge keys (<<) resolved: the
// merged mappings' pairs come first, as the mapping's own override them.
// Each pair counts against *count; past maxPipelineVisits no more come
// (merge keys of merge keys are a billion laughs too).
func pairs(n *yaml.Node, count *int) [][2]*yaml.Node {
	return mergedPairs(n, 0, count)
}

func mergedPairs(n *yaml.Node, depth int, count *int) [][2]*yaml.Node {
	var own, merged [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content) && *count <= maxPipelineVisits; i += 2 {
		*count++
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag != "!!str" && depth < 8 {
			vs := []*yaml.Node{v}
			if d := deref(v); d != nil && d.Kind == yaml.SequenceNode {
				vs = d.Content
			}
			for _, x := range vs {
				if d := deref(x); d != nil && d.Kind == yaml.MappingNode {
					merged = append(merged, mergedPairs(d, depth+1, count)...)
				}
			}
			continue
		}
		own = append(own, [2]*yaml.Node{k, v})
	}
	return append(merged, own...)
}

func keyOf(k *yaml.Node) string {
	if k = deref(k); k != nil && k.Kind == yaml.ScalarNode {
		return k.Value
	}
	return ""
}

func (p *pipeLoad) mapping(n *yaml.Node, ctx pipeCtx) {
	ps := pairs(n, &p.visits)
	if p.visits > maxPipelineVisits {
		p.visit(n, "")
	}
	p.duplicates(n)
	uses, with := p.mappingShell(ps, &ctx)
	top := ctx.where == "" && p.is("gitlab")
	for _, kv := range ps {
		key := keyOf(kv[0])
		where := key
		if ctx.where != "" {
			where = ctx.where + "." + key
		}
		child := pipeCtx{where: where, shell: ctx.shell, dir: ctx.dir}
		if top && child.shell == "" && p.gitlabWindows(key, kv[1], ps) {
			child.shell = "pwsh"
		}
		p.keyRefs(key, kv[1], ctx)
		switch {
		case p.envKey(key):
			p.env(kv[1], key, child)
		case p.scriptKey(key):
			p.script(kv[1], key, child)
		case inputValue(ctx.where, key):
			// An input's default or the value an include passes is what
			// `${{ inputs.x }}` or `$[[ inputs.x ]]` puts in a script: read
			// as one, its syntax errors saying nothing (it may be data).
			p.script(kv[1], key, pipeCtx{where: where, shell: "input"})
		case key == "plugins" && p.is("buildkite"):
			p.plugins(kv[1], child)
		default:
			p.walk(kv[1], child)
		}
	}
	if with != nil && with.Kind == yaml.MappingNode {
		p.withArgs(uses, with, ctx)
	}
}

// is reports whether the pipeline is of the system, or of one not known
// (read as every system would).
func (p *pipeLoad) is(sys string) bool { return p.doc.System == sys || p.doc.System == "" }

// mappingShell reads what a mapping says of the shell of the scripts in
// it (into ctx), and of the action a step uses (uses, with).
func (p *pipeLoad) mappingShell(ps [][2]*yaml.Node, ctx *pipeCtx) (uses string, with *yaml.Node) {
	github := p.is("github")
	for _, kv := range ps {
		switch keyOf(kv[0]) {
		case "with":
			with = deref(kv[1])
		case "uses":
			if v := deref(kv[1]); v != nil && v.Kind == yaml.ScalarNode {
				uses = v.Value
			}
		case "shell":
			if v := deref(kv[1]); github && v != nil && v.Kind == yaml.ScalarNode {
				ctx.shell = shellName(v.Value)
			}
		case "defaults":
			if s, ok := defaultShell(kv[1], &p.visits); ok && github {
				ctx.shell = s
			}
			if d, ok := defaultDir(kv[1], &p.visits); ok && github {
				ctx.dir = d
			}
		case "working-directory":
			if v := deref(kv[1]); github && v != nil && v.Kind == yaml.ScalarNode && !strings.Contains(v.Value, "${{") {
				ctx.dir = joinDir(".", v.Value)
			}
		case "runs-on":
			if github && ctx.shell == "" && p.runsOnWindows(kv[1], ctx.where) {
				ctx.shell = "pwsh"
			}
		}
	}
	return uses, with
}

// keyRefs follows the files a key names: GitLab's include, an action's
// uses, an action's runs.image.
func (p *pipeLoad) keyRefs(key string, v *yaml.Node, ctx pipeCtx) {
	switch key {
	case "include":
		if p.is("gitlab") {
			p.includeRefs(v)
		}
	case "uses":
		if p.is("github") {
			p.usesRef(deref(v))
		}
	case "runs":
		if p.is("github") && ctx.where == "" {
			p.imageRef(deref(v))
		}
	case "working-directory":
		if s := deref(v); p.is("github") && s != nil && s.Kind == yaml.ScalarNode && len(p.doc.workdirs) < maxCdDirs {
			if d := path.Clean(strings.TrimPrefix(s.Value, "./")); d != "." && !strings.HasPrefix(d, "..") && !strings.HasPrefix(d, "/") {
				p.doc.workdirs = append(p.doc.workdirs, d)
			}
		}
	case "shell":
		if s := deref(v); p.is("github") && s != nil && s.Kind == yaml.ScalarNode && strings.Contains(s.Value, "{0}") {
			p.shellTemplateRefs(s)
		}
	}
}

// withArgs reads a step's with: for the action it uses, and, for a
// container step, its args: the arguments of the image's entrypoint
// (docker://docker:cli runs docker).
func (p *pipeLoad) withArgs(uses string, with *yaml.Node, ctx pipeCtx) {
	p.action(uses, with, ctx)
	if !strings.HasPrefix(uses, "docker://") {
		return
	}
	for _, kv := range pairs(with, &p.visits) {
		if keyOf(kv[0]) == "args" {
			p.script(kv[1], "args", pipeCtx{where: ctx.where + ".with.args", shell: ctx.shell})
		}
	}
}

// resolveRef is the node GitLab's !reference [job, key, …] points at in
// the current document (nil when it is elsewhere: another file's job).
// The document's jobs are indexed once; each step counts as a visit.
func (p *pipeLoad) resolveRef(n *yaml.Node) *yaml.Node {
	if p.topMap == nil || len(n.Content) < 2 {
		return nil
	}
	if p.topIndex == nil {
		p.topIndex = map[string]*yaml.Node{}
		for _, kv := range pairs(p.topMap, &p.visits) {
			p.topIndex[keyOf(kv[0])] = kv[1] // the last wins, as GitLab merges
		}
	}
	first := deref(n.Content[0])
	if first == nil || first.Kind != yaml.ScalarNode {
		return nil
	}
	cur := p.topIndex[first.Value]
	for _, k := range n.Content[1:] {
		p.visits++
		k, cur = deref(k), deref(cur)
		if k == nil || k.Kind != yaml.ScalarNode || cur == nil || cur.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(cur.Content); i += 2 {
			if keyOf(cur.Content[i]) == k.Value {
				next = cur.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		cur = next
	}
	return deref(cur)
}

// duplicates reports a GitHub workflow mapping's duplicated keys: YAML 1.2
// forbids them and GitHub rejects the file. GitLab keeps the last (coq's
// .gitlab-ci.yml has two variables: in a job) and Buildkite's reader
// accepts them too, so there they are no error. Both are read.
func (p *pipeLoad) duplicates(n *yaml.Node) {
	if p.doc.System != "github" {
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value == "<<" {
			continue
		}
		if seen[k.Value] {
			p.doc.Errors = append(p.doc.Errors, Error{Message: fmt.Sprintf("YAML: the key %q is already defined in this mapping: YAML forbids it and GitHub Actions rejects the file (buildgate reads both)", k.Value), Syntax: true, Pos: p.nodePos(k)})
			continue
		}
		seen[k.Value] = true
	}
}

func (p *pipeLoad) envKey(key string) bool {
	switch p.doc.System {
	case "gitlab":
		return key == "variables"
	case "":
		return key == "env" || key == "variables"
	}
	return key == "env"
}

func (p *pipeLoad) scriptKey(key string) bool {
	switch p.doc.System {
	case "buildkite":
		return key == "command" || key == "commands"
	case "github":
		return key == "run"
	case "gitlab":
		return key == "script" || key == "before_script" || key == "after_script" || key == "pre_get_sources_script"
	}
	switch key {
	case "command", "commands", "run", "script", "before_script", "after_script", "pre_get_sources_script":
		return true
	}
	return false
}

func utf16BOM(src []byte) bool {
	return bytes.HasPrefix(src, []byte{0xFF, 0xFE}) || bytes.HasPrefix(src, []byte{0xFE, 0xFF})
}
