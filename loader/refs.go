package loader

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileRef is a file of the repository a build file has its CI system
// read or run, as the file names it, at the place that names it: a GitLab
// include, a GitHub local action or reusable workflow, an uploaded
// Buildkite pipeline, a Dockerfile a build names with -f, a bake file
// bake reads with -f, a script a command runs, a Dockerfile an action's
// runs.image builds. Discovery follows them: the files are read as Kind
// whatever their names.
type FileRef struct {
	// Path is relative to the repository root, or a pattern (Glob): a
	// glob the file wrote, or a path with expansions, each read as *.
	Path string
	Glob bool
	// Via says how: include, uses, upload, build, bake, runs, image,
	// generator (a program whose output is uploaded as a pipeline:
	// buildgate cannot read it; Note says so).
	Via  string
	Kind Kind
	Pos  Pos
	// Note, when set, is an error of the file at Path (or of the
	// referring file when Path is not read): what buildgate could not
	// follow. Its relevance is that of a syntax error.
	Note string
	// Unread marks a note that says a file is not read at all (as a
	// bound does): reported whatever the relevance of the file.
	Unread bool
	// Shebang: the file is run as a program by its path, and read as
	// Kind only when its first line is a shell's #! (the kernel runs it
	// by that line whatever its name: ./ci/build.rocm).
	Shebang bool
	// NotForeign: the file is run by its path and read as Kind unless
	// its #! names another program (a file without one is run by the
	// shell: a Makefile's hack/check with #!/usr/bin/perl is not).
	NotForeign bool
	// raw is the path as written when it holds variables: References
	// resolves it with the values its file gives them (refs_values.go).
	raw string
}

// References are the files a parsed document has its CI system read or
// run (discovery follows them: docs/architecture.md). A file past a
// bound of its own parse has that bound among its errors.
func References(d Document) []FileRef {
	return uniqueRefs(references(d))
}

// uniqueRefs drops a reference named again the same way.
func uniqueRefs(refs []FileRef) []FileRef {
	type key struct {
		path, via, note, raw string
		kind                 Kind
		glob                 bool
	}
	seen := make(map[key]bool, len(refs))
	out := refs[:0]
	for _, r := range refs {
		k := key{r.Path, r.Via, r.Note, r.raw, r.Kind, r.Glob}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

func references(d Document) []FileRef {
	switch d := d.(type) {
	case *PipelineDocument:
		refs := append([]FileRef(nil), d.refs...)
		for _, r := range d.refs {
			if r.Via == "runs" || r.Via == "build" || r.Via == "upload" {
				for _, wd := range d.workdirs {
					refs = append(refs, r.inDir(wd))
				}
			}
		}
		for _, b := range d.Builds {
			if b.Via == "action" {
				refs = append(refs, actionRefs(b)...)
			}
		}
		return resolveRefs(refs, docValues(d))
	case *HCLDocument:
		return hclRefs(d)
	case *DockerfileDocument:
		return dockerfileRefs(d)
	case *ShellDocument:
		return resolveRefs(append(commandRefs(d.Script, path.Dir(d.Path)), pipRefs(d.Commands, nil, ".", path.Dir(d.Path))...), docValues(d))
	}
	return nil
}

// localRef is a ref to a file of the repository: not a URL, without a
// leading slash (GitLab's local: is from the root); a path with
// expansions is a pattern with each expansion read as *.
func localRef(s string) (string, bool, bool) {
	if s == "" || strings.Contains(s, "://") {
		return "", false, false
	}
	p, glob := expansionsAsGlob(strings.TrimPrefix(strings.TrimPrefix(s, "./"), "/"))
	return p, glob, p != ""
}

// dropQuotes removes a path's quotes (made once: a Replacer builds its
// tables on first use, which costs more than a short path's replacing).
var dropQuotes = strings.NewReplacer(`"`, "", `'`, "")

var expansionRe = regexp.MustCompile(`\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]|\$\[\[[^\]]*\]\]|` + "`[^`]*`")

// expansionsAsGlob reads each expansion of a path as *: whatever it
// expands to (within one path component), the file is among the matches.
// A path that keeps nothing literal names no file buildgate can tell ("").
func expansionsAsGlob(s string) (string, bool) {
	s = dropQuotes.Replace(s)
	if !strings.ContainsAny(s, "$`") {
		return s, strings.ContainsAny(s, "*?[{")
	}
	g := expansionRe.ReplaceAllString(s, "*")
	if strings.ContainsAny(g, "$`") || strings.Trim(g, "*/.") == "" {
		return "", false
	}
	return g, true
}

// includeRefs are the files of a GitLab include: value: a path, a list of
// paths, or mappings with local: (or project: of this repository, which
// GitLab reads from the pipeline's own commit).
func (p *pipeLoad) includeRefs(v *yaml.Node) {
	v = deref(v)
	items := []*yaml.Node{v}
	if v != nil && v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	for _, it := range items {
		it = deref(it)
		switch {
		case it == nil:
		case it.Kind == yaml.ScalarNode:
			p.ref(it.Value, "include", "", it)
		case it.Kind == yaml.MappingNode:
			var project *yaml.Node
			var files []*yaml.Node
			for _, f := range pairs(it, &p.visits) {
				l := deref(f[1])
				switch keyOf(f[0]) {
				case "local":
					if l != nil && l.Kind == yaml.ScalarNode {
						p.ref(l.Value, "include", "", l)
					}
				case "project":
					project = l
				case "file":
					files = listItems(l)
				}
			}
			if project != nil && project.Kind == yaml.ScalarNode && selfProject(project.Value) {
				for _, f := range files {
					p.ref(f.Value, "include", "", f)
				}
			}
		}
	}
}

// selfProject reports whether a GitLab include's project: is the pipeline's
// own repository, as the predefined variables name it.
func selfProject(v string) bool {
	v = strings.NewReplacer("${", "$", "}", "").Replace(strings.TrimSpace(v))
	switch v {
	case "$CI_PROJECT_PATH", "$CI_MERGE_REQUEST_SOURCE_PROJECT_PATH", "$CI_MERGE_REQUEST_PROJECT_PATH",
		"$CI_PROJECT_NAMESPACE/$CI_PROJECT_NAME", "$CI_PROJECT_ROOT_NAMESPACE/$CI_PROJECT_NAME":
		return true
	}
	return false
}

// usesRef is the file a step's uses: ./path runs: a reusable workflow, or
// a local action's action.yml (or action.yaml).
func (p *pipeLoad) usesRef(u *yaml.Node) {
	if u == nil || u.Kind != yaml.ScalarNode || !strings.HasPrefix(u.Value, "./") {
		return
	}
	target := strings.TrimPrefix(path.Clean(u.Value), "./")
	if strings.HasSuffix(target, ".yml") || strings.HasSuffix(target, ".yaml") {
		p.ref(target, "uses", "", u)
		return
	}
	p.ref(target+"/action.yml", "uses", "", u)
	p.ref(target+"/action.yaml", "uses", "", u)
}

// imageRef is the Dockerfile a Docker action builds (runs: image:, a path
// beside its action.yml; docker:// names an image, not a file).
func (p *pipeLoad) imageRef(runs *yaml.Node) {
	if runs == nil || runs.Kind != yaml.MappingNode {
		return
	}
	for _, kv := range pairs(runs, &p.visits) {
		v := deref(kv[1])
		if keyOf(kv[0]) == "image" && v != nil && v.Kind == yaml.ScalarNode && !strings.Contains(v.Value, "://") {
			p.ref(path.Join(path.Dir(p.doc.Path), v.Value), "image", KindDockerfile, v)
		}
	}
}

func (p *pipeLoad) ref(s, via string, kind Kind, at *yaml.Node) {
	if r, ok := refFor(s, via, kind, p.nodePos(at)); ok {
		p.doc.refs = append(p.doc.refs, r)
	}
}

// uploadValueOptions are the options of buildkite-agent pipeline upload
// that take the next word as their value (the agent's documentation);
// any other option is a switch, and every other word may be the file.
var uploadValueOptions = map[string]bool{
	"--job": true, "--format": true, "--redacted-vars": true, "--agent-access-token": true, "--endpoint": true,
	"--log-level": true, "--experiment": true, "--profile": true, "--signing-key-path": true, "--jwks-file": true,
	"--jwks-key-id": true, "--signing-aws-kms-key": true, "--signing-gcp-kms-key": true, "--changed-files-path": true,
	"--git-diff-base": true, "--trace-context-encoding": true, "--tracing-backend": true, "--tracing-service-name": true,
}

// readers are programs that print the files they are given (a pipeline
// through them is the files', transformed).
var readers = map[string]bool{"cat": true, "envsubst": true, "sed": true, "jq": true, "yq": true, "tee": true, "head": true, "tail": true, "awk": true, "sort": true, "grep": true, "tr": true, "m4": true}

// interpreters run the script file they are given.
var interpreters = map[string]bool{"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "ash": true, "mksh": true,
	"yash": true, "posh": true, "hush": true, "source": true, ".": true}

// stdinPaths name a process's standard input as a file.
var stdinPaths = map[string]bool{"/dev/stdin": true, "/proc/self/fd/0": true, "/dev/fd/0": true}

// openedFiles are the files `exec N< FILE` opens on descriptor fd in the
// commands before.
func openedFiles(cmds []ShellCommand, fd string) []Word {
	var out []Word
	for _, c := range cmds {
		if c.Name != "exec" {
			continue
		}
		for _, r := range c.Redirects {
			if (r.Op == "<" || r.Op == "<>") && r.Fd == fd && r.Word != nil {
				out = append(out, *r.Word)
			}
		}
	}
	return out
}

// procSubstRefs adds the files the readers inside a process substitution
// word print (<(cat FILE)).
func procSubstRefs(cmds []ShellCommand, w Word, add func(Word, string, Kind)) {
	for _, c := range cmds {
		if !inside(c.Pos, w.Pos) || len(c.Words) == 0 || !readers[path.Base(wordValue(c.Words[0]))] {
			continue
		}
		for _, a := range c.Words[1:] {
			add(a, "runs", KindShell)
		}
	}
}

// commandRefs are the files a script's commands have the CI system read
// or run (commands seen through their wrappers): the files buildkite-agent
// pipeline upload reads (its argument after any options, the file its
// standard input is redirected from, the files the commands before it in
// its pipeline read; a program there whose output it uploads is named
// as a generator), the Dockerfile docker build -f names, the bake file
// bake -f names, and the script bash FILE runs. dir is the directory of
// the script (a path is tried from the root and from there).
func commandRefs(s Script, dir string) []FileRef {
	var out []FileRef
	funcs := WrapperFunctions(s)
	cds, over := cdDirs(s, dir)
	copies := 0
	if over != nil {
		// A bound passed: the files run from the directories past it
		// are not looked for there.
		// Said where the script could hide what the rules look for
		// (long CI scripts change directory often).
		out = append(out, FileRef{Via: "runs", Kind: KindShell, Pos: *over,
			Note: fmt.Sprintf("this script changes into more than %d directories: the files it runs from the others are not looked for there (see docs/robustness.md)", maxCdDirs)})
	}
	add := func(w Word, via string, kind Kind) {
		v := refWordValue(w)
		if strings.HasPrefix(v, "-") {
			return
		}
		if r, ok := refFor(v, via, kind, w.Pos); ok {
			out = append(out, r)
			if strings.HasPrefix(v, "/") {
				return
			}
			if dir != "." && dir != "" {
				out = append(out, r.inDir(dir))
			}
			// From the directories the script changes into: a file it
			// names by a literal path (a glob or a path of variables there
			// would be one more pattern each).
			for _, d := range cds {
				if r.Glob || r.raw != "" {
					break
				}
				if copies++; copies > maxResolvedDoc {
					break
				}
				out = append(out, r.inDir(d))
			}
		}
	}
	for i, c := range s.Commands {
		e := Effective(c, funcs)
		if e < 0 {
			continue
		}
		ws := c.Words[e:]
		name := path.Base(wordValue(ws[0]))
		switch {
		case name == "buildkite-agent" && len(ws) >= 3 && literal(ws[1], "pipeline") && literal(ws[2], "upload"):
			out = append(out, uploadRefs(s.Commands, i, ws[3:], add)...)
		case name == "docker" || name == "podman":
			dockerRefs(s.Commands, i, ws, add)
		case interpreters[name]:
			interpreterRefs(s.Commands, i, ws, add)
		case isPython(name):
			if j := pythonScriptArg(ws); j > 0 {
				add(ws[j], "runs", KindShell)
			}
		case runByPath(wordValue(ws[0])):
			n := len(out)
			add(ws[0], "runs", KindShell)
			markRefs(out[n:], func(r *FileRef) { r.NotForeign = true })
		case runsProgram(wordValue(ws[0])):
			n := len(out)
			add(ws[0], "runs", KindShell)
			markRefs(out[n:], func(r *FileRef) { r.Shebang = true })
		}
	}
	if copies > maxResolvedDoc && len(out) > 0 {
		out = append(out, FileRef{Via: "runs", Kind: KindShell, Pos: out[0].Pos, Unread: true,
			Note: fmt.Sprintf("this script's references, tried from every directory it changes into, are more than %d paths: the rest are not looked for (see docs/robustness.md)", maxResolvedDoc)})
	}
	return out
}

// refWordValue is the path a word names for the references: its value,
// else its text (the references expand its variables with every value
// the file gives them), else, for a substitution they cannot read that
// the model resolved ($(echo x), a make variable's $(NAME)), that.
func refWordValue(w Word) string {
	switch {
	case w.Value != nil:
		return *w.Value
	case w.Resolved != nil && (strings.Contains(w.Text, "$(") || strings.Contains(w.Text, "`")):
		return *w.Resolved
	}
	return w.Text
}

// pipelineBefore are the indexes of the commands of command i's pipeline
// before it, nearest first: looked for back to the pipeline's start only
// (80,000 pipelines must not each look at every command).
func pipelineBefore(cmds []ShellCommand, i int) []int {
	c := cmds[i]
	var out []int
	for k := i - 1; k >= 0; k-- {
		prev := cmds[k]
		if before(prev.Pos, c.Pipeline.Pos) {
			break
		}
		if prev.Pipeline != nil && prev.Pipeline.ID == c.Pipeline.ID && prev.Pipeline.Pos == c.Pipeline.Pos {
			out = append(out, k)
		}
	}
	return out
}

// markRefs applies f to each reference.
func markRefs(rs []FileRef, f func(*FileRef)) {
	for i := range rs {
		f(&rs[i])
	}
}

// scriptArg is the index of the script file an interpreter runs (bash
// FILE, sh -e FILE, bash -eo pipefail FILE, source FILE), -1 for a script
// given as an argument (bash -c), or 0 for a shell reading its script from
// its standard input (no file: bash, bash -s ARGS). Options follow bash's
// manual: -o and -O take the next word, also at the end of a cluster
// (-eo pipefail), and so do --rcfile and --init-file.
func scriptArg(ws []Word) int {
	for j := 1; j < len(ws); j++ {
		v := wordValue(ws[j])
		switch {
		case v == "--" || v == "-":
			if j+1 < len(ws) {
				return j + 1
			}
			return 0
		case v == "--rcfile" || v == "--init-file":
			j++
		case strings.HasPrefix(v, "--"):
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			if v[0] == '-' && strings.ContainsRune(v, 'c') {
				return -1
			}
			if v[0] == '-' && strings.ContainsRune(v, 's') {
				return 0 // -s: the script is standard input, the rest its arguments
			}
			if last := v[len(v)-1]; last == 'o' || last == 'O' {
				j++
			}
		default:
			return j
		}
	}
	return 0
}

// runByPath reports whether a command's name is a file of the repository
// run by its path (./build.sh, ci/build-mooncake: a name with a slash is
// not looked up in PATH) that may be a shell script: no extension, or a
// shell's (a .py file is another language's). An absolute path is the
// image's or the runner's, not the repository's.
func runByPath(p string) bool {
	p = strings.Trim(p, `"'`) // a word not static is its text, quotes included
	if !strings.Contains(p, "/") || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "-") {
		return false
	}
	ext := path.Ext(path.Base(p))
	return ext == "" || ext == ".sh" || ext == ".bash"
}

// dockerRefs are the files a docker (or podman) build at index i reads:
// its -f files, and a Dockerfile on its standard input.
func dockerRefs(cmds []ShellCommand, i int, ws []Word, add func(Word, string, Kind)) {
	tool, rest := buildTool(ws)
	if tool == "" {
		return
	}
	kind := KindDockerfile
	if tool == "buildx bake" {
		kind = KindHCL
	}
	for _, f := range dockerOption(ws[rest:], tool, "--file") {
		add(f, "build", kind)
	}
	if stdinDockerfile(tool, ws[rest:]) {
		stdinFileRefs(cmds, i, "build", KindDockerfile, add)
	}
}

// interpreterRefs is the script a shell (or source) at index i runs: its
// file argument, what a process substitution prints, or its standard
// input (a file redirected to it, or what the commands before it in its
// pipeline print: cat FILE | bash).
func interpreterRefs(cmds []ShellCommand, i int, ws []Word, add func(Word, string, Kind)) {
	j := scriptArg(ws)
	if j > 0 && stdinPaths[wordValue(ws[j])] {
		j = 0 // bash /dev/stdin < FILE reads FILE
	}
	switch {
	case j > 0 && strings.HasPrefix(ws[j].Text, "<("):
		procSubstRefs(cmds, ws[j], add)
	case j > 0:
		add(ws[j], "runs", KindShell)
	case j == 0:
		stdinFileRefs(cmds, i, "runs", KindShell, add)
	}
}

// runsProgram reports whether a command's name is a file of the
// repository run by its path with an extension that names another kind
// (./ci/build.rocm, ci/step.py): the kernel runs it by its #! line, which
// discovery reads (FileRef.Shebang).
func runsProgram(p string) bool {
	p = strings.Trim(p, `"'`)
	return strings.Contains(p, "/") && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "-") && !runByPath(p)
}

// stdinFileRefs are the files a command at index i reads from its
// standard input (a shell's script, docker build -'s Dockerfile): the file
// it is redirected from (bash < FILE), and the files the readers before it
// in its pipeline print (cat FILE | bash).
func stdinFileRefs(cmds []ShellCommand, i int, via string, kind Kind, add func(Word, string, Kind)) {
	c := cmds[i]
	for _, r := range c.Redirects {
		switch {
		case r.Op == "<" && (r.Fd == "" || r.Fd == "0") && r.Word != nil:
			add(*r.Word, via, kind)
		case r.Op == "<&" && (r.Fd == "" || r.Fd == "0") && r.Word != nil:
			// bash <&3 after exec 3< FILE: the file the script opened
			// on that descriptor.
			for _, f := range openedFiles(cmds[:i], wordValue(*r.Word)) {
				add(f, via, kind)
			}
		}
	}
	if c.Pipeline == nil {
		return
	}
	for _, k := range pipelineBefore(cmds, i) {
		prev := cmds[k]
		e := Effective(prev, nil)
		if e < 0 || !readers[path.Base(wordValue(prev.Words[e]))] {
			continue
		}
		for _, w := range prev.Words[e+1:] {
			add(w, via, kind)
		}
		for _, r := range prev.Redirects {
			if r.Op == "<" && (r.Fd == "" || r.Fd == "0") && r.Word != nil {
				add(*r.Word, via, kind)
			}
		}
	}
}

// feeds adds the files a command reads: its arguments and its standard
// input.
func feeds(c ShellCommand, add func(Word, string, Kind)) {
	for _, w := range c.Words[1:] {
		add(w, "upload", KindPipeline)
	}
	stdinRefs(c, add)
}

// inside reports whether position a lies within b.
func inside(a, b Pos) bool {
	return (a.Line > b.Line || a.Line == b.Line && a.Column >= b.Column) &&
		(a.EndLine < b.EndLine || a.EndLine == b.EndLine && a.EndColumn <= b.EndColumn)
}

// stdinRefs gives the word a command's standard input is read from (< FILE).
func stdinRefs(c ShellCommand, add func(Word, string, Kind)) {
	for _, r := range c.Redirects {
		if r.Op == "<" && (r.Fd == "" || r.Fd == "0") && r.Word != nil {
			add(*r.Word, "upload", KindPipeline)
		}
	}
}

func literal(w Word, v string) bool { return w.Value != nil && *w.Value == v }
