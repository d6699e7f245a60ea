package loader

import (
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileRef is a local file a build file has its CI system read or run, as the
// file names it (relative to the repository root; it may be a glob), at
// the place that names it. Via says how: include (GitLab CI's include:,
// a child pipeline's trigger: include:), uses (a GitHub local action or
// reusable workflow), upload (buildkite-agent pipeline upload).
type FileRef struct {
	Path string
	Via  string
	Pos  Pos
}

// References are the local files a parsed pipeline or shell script has
// its CI system read or run (discovery follows them: docs/architecture.md).
// A file past a bound of its own parse has that bound among its errors.
func References(d Document) []FileRef {
	switch d := d.(type) {
	case *PipelineDocument:
		return d.refs
	case *ShellDocument:
		return uploadRefs(d.Script.Commands)
	}
	return nil
}

// localRef is a ref to a file of the repository: not a URL, no
// expansion, without a leading slash (GitLab's local: is from the root).
func localRef(s string) (string, bool) {
	if s == "" || strings.Contains(s, "://") || strings.Contains(s, "$") {
		return "", false
	}
	return strings.TrimPrefix(s, "/"), true
}

// includeRefs are the local files of a GitLab include: value: a path, a
// list of paths, or mappings with local:.
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
			p.ref(it.Value, "include", it)
		case it.Kind == yaml.MappingNode:
			for _, f := range pairs(it, &p.visits) {
				if l := deref(f[1]); keyOf(f[0]) == "local" && l != nil && l.Kind == yaml.ScalarNode {
					p.ref(l.Value, "include", l)
				}
			}
		}
	}
}

// usesRef is the file a step's uses: ./path runs: a reusable workflow, or
// a local action's action.yml (or action.yaml).
func (p *pipeLoad) usesRef(u *yaml.Node) {
	if u == nil || u.Kind != yaml.ScalarNode || !strings.HasPrefix(u.Value, "./") {
		return
	}
	target := strings.TrimPrefix(path.Clean(u.Value), "./")
	if strings.HasSuffix(target, ".yml") || strings.HasSuffix(target, ".yaml") {
		p.ref(target, "uses", u)
		return
	}
	p.ref(target+"/action.yml", "uses", u)
	p.ref(target+"/action.yaml", "uses", u)
}

func (p *pipeLoad) ref(s, via string, at *yaml.Node) {
	if r, ok := localRef(s); ok {
		p.doc.refs = append(p.doc.refs, FileRef{Path: r, Via: via, Pos: p.nodePos(at)})
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

// uploadRefs are the files buildkite-agent pipeline upload reads in these
// commands: its file argument (after any options), the file its standard
// input is redirected from, and the files the commands before it in its
// pipeline read (cat ci/gen.yml | buildkite-agent pipeline upload).
// Words that name no file are passed over by discovery.
func uploadRefs(cmds []ShellCommand) []FileRef {
	var out []FileRef
	add := func(w Word) {
		if w.Value == nil || strings.HasPrefix(*w.Value, "-") {
			return
		}
		if r, ok := localRef(strings.TrimPrefix(*w.Value, "./")); ok {
			out = append(out, FileRef{Path: r, Via: "upload", Pos: w.Pos})
		}
	}
	for i, c := range cmds {
		if path.Base(c.Name) != "buildkite-agent" || len(c.Words) < 3 || !literal(c.Words[1], "pipeline") || !literal(c.Words[2], "upload") {
			continue
		}
		for j := 3; j < len(c.Words); j++ {
			w := c.Words[j]
			if w.Value != nil && uploadValueOptions[*w.Value] {
				j++
				continue
			}
			add(w)
		}
		stdinRefs(c, add)
		if c.Pipeline == nil {
			continue
		}
		for k := i - 1; k >= 0; k-- {
			prev := cmds[k]
			if prev.Pipeline == nil || prev.Pipeline.ID != c.Pipeline.ID || prev.Pipeline.Pos != c.Pipeline.Pos {
				continue
			}
			for _, w := range prev.Words[1:] {
				add(w)
			}
			stdinRefs(prev, add)
		}
	}
	return out
}

// stdinRefs gives the word a command's standard input is read from (< FILE).
func stdinRefs(c ShellCommand, add func(Word)) {
	for _, r := range c.Redirects {
		if r.Op == "<" && (r.Fd == "" || r.Fd == "0") && r.Word != nil {
			add(*r.Word)
		}
	}
}

func literal(w Word, v string) bool { return w.Value != nil && *w.Value == v }
