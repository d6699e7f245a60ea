package loader

import (
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// commandBuilds records the Docker builds a script's commands start:
// docker build, docker image build, docker buildx build and docker buildx
// bake (podman build too), with the words of their --build-arg,
// --target, --set and -f options (and bake's targets).
func (p *pipeLoad) commandBuilds(ps *PipelineScript) {
	for _, c := range ps.Commands {
		e := Effective(c, nil)
		if e < 0 {
			continue
		}
		ws := c.Words[e:]
		name := wordValue(ws[0])
		if name != "docker" && name != "podman" {
			continue
		}
		tool, rest := buildTool(ws)
		if tool == "" {
			continue
		}
		b := DockerBuild{Via: "command", Tool: name + " " + tool, Where: ps.Where,
			BuildArgs: []Word{}, Targets: []Word{}, Sets: []Word{}, Files: []Word{}, Pos: c.Pos}
		lists := map[string]*[]Word{"--build-arg": &b.BuildArgs, "--target": &b.Targets, "--set": &b.Sets, "--file": &b.Files}
		for _, o := range buildOptions(tool, ws[rest:]) {
			if list, ok := lists[o.Name]; ok {
				// --build-arg=A=1 is one word, kept whole: the pack reads
				// the NAME of either form.
				v := o.Value
				if o.Whole != nil {
					v = *o.Whole
				}
				*list = append(*list, v)
			} else if o.Name == "" && tool == "buildx bake" {
				b.Targets = append(b.Targets, o.Value)
			}
		}
		p.doc.Builds = append(p.doc.Builds, b)
	}
}

// IsDockerBuild reports whether a command is a Docker build: docker (or
// podman) build, image build, builder build, buildx build or buildx bake,
// past global options.
func IsDockerBuild(c ShellCommand) bool {
	if len(c.Words) == 0 {
		return false
	}
	if n := wordValue(c.Words[0]); n != "docker" && n != "podman" {
		return false
	}
	tool, _ := buildTool(c.Words)
	return tool != ""
}

// action records a docker/build-push-action or docker/bake-action step
// from its with: inputs. Lists are one item a line (build-args), or a
// line or a comma (targets, files, set), as the actions split them.
func (p *pipeLoad) action(uses string, with *yaml.Node, ctx pipeCtx) {
	name, _, _ := strings.Cut(strings.ToLower(uses), "@")
	var tool string
	switch name {
	case "docker/build-push-action":
		tool = "build-push-action"
	case "docker/bake-action":
		tool = "bake-action"
	case "actions/checkout":
		p.checkout(with)
		return
	default:
		return
	}
	b := DockerBuild{Via: "action", Tool: tool, Where: ctx.where,
		BuildArgs: []Word{}, Targets: []Word{}, Sets: []Word{}, Files: []Word{}, Contexts: []Word{}, Pos: p.nodePos(with)}
	for _, kv := range pairs(with, &p.visits) {
		v := deref(kv[1])
		if v == nil || v.Kind != yaml.ScalarNode {
			continue
		}
		var list *[]Word
		seps := "\n,"
		switch keyOf(kv[0]) {
		case "build-args":
			list, seps = &b.BuildArgs, "\n"
		case "target", "targets":
			list = &b.Targets
		case "set":
			list, seps = &b.Sets, "\n"
		case "file", "files":
			list = &b.Files
		case "context", "source":
			// The build context or the bake definition: a repository
			// URL is a remote one (pipeline_sources.go).
			list, seps = &b.Contexts, "\n"
		default:
			continue
		}
		m, ok := p.mapScalar(v)
		if !ok {
			p.unmapped(v, "this input")
			continue
		}
		*list = append(*list, p.fields(m, seps)...)
	}
	p.doc.Builds = append(p.doc.Builds, b)
}

// plugins reads a Buildkite step's plugins: each {name#version: config}.
// The docker plugin's environment (and env) lists are environment
// assignments; the docker-compose plugin's args (and build-args) build
// arguments (a build "via" "plugin"). A plugin's command is the
// container's argument vector (pluginCommand).
func (p *pipeLoad) plugins(n *yaml.Node, ctx pipeCtx) {
	n = deref(n)
	if n == nil || !p.visit(n, rolePlugins) {
		return
	}
	var entries [][2]*yaml.Node
	switch n.Kind {
	case yaml.SequenceNode:
		for _, it := range n.Content {
			switch m := deref(it); {
			case m != nil && m.Kind == yaml.MappingNode:
				entries = append(entries, pairs(m, &p.visits)...)
			case m != nil && m.Kind == yaml.ScalarNode:
				p.pluginHooks(m)
			}
		}
	case yaml.MappingNode:
		entries = pairs(n, &p.visits)
	}
	for _, kv := range entries {
		p.pluginHooks(deref(kv[0]))
		p.plugin(kv, ctx)
	}
}

// BuildkiteHooks are the hooks the Buildkite agent runs from a
// repository's .buildkite/hooks and from a plugin's hooks directory, as
// scripts whatever their first line (the agent's documentation).
var BuildkiteHooks = []string{"environment", "pre-checkout", "checkout", "post-checkout", "pre-command", "command",
	"post-command", "pre-artifact", "post-artifact", "pre-exit"}

// pluginHooks are the hooks of a plugin the repository holds (a name that
// is a path: `- ./.buildkite/plugins/build`): the agent runs them.
func (p *pipeLoad) pluginHooks(name *yaml.Node) {
	if name == nil || name.Kind != yaml.ScalarNode {
		return
	}
	dir, _, _ := strings.Cut(name.Value, "#")
	if !strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../") {
		return
	}
	for _, h := range BuildkiteHooks {
		p.ref(path.Join(dir, "hooks", h), "runs", KindShell, name)
	}
}

// plugin reads one plugin of a step: {name#version: config}.
func (p *pipeLoad) plugin(kv [2]*yaml.Node, ctx pipeCtx) {
	name, _, _ := strings.Cut(keyOf(kv[0]), "#")
	cfg := deref(kv[1])
	if cfg == nil || cfg.Kind != yaml.MappingNode {
		return
	}
	where := ctx.where + "." + keyOf(kv[0])
	b := DockerBuild{Via: "plugin", Tool: name, Where: where, BuildArgs: []Word{}, Targets: []Word{}, Sets: []Word{}, Files: []Word{}, Pos: p.nodePos(cfg)}
	var entry, command *yaml.Node
	for _, c := range pairs(cfg, &p.visits) {
		switch keyOf(c[0]) {
		case "entrypoint":
			entry = c[1]
		case "command":
			command = c[1]
		}
	}
	if command != nil {
		p.pluginCommand(entry, command, where+".command")
	}
	for _, c := range pairs(cfg, &p.visits) {
		v := deref(c[1])
		if v == nil {
			continue
		}
		switch keyOf(c[0]) {
		case "environment", "env":
			p.pluginEnv(v, where)
		case "args", "build-args":
			p.pluginArgs(v, &b)
		case "target":
			if v.Kind != yaml.ScalarNode {
				continue
			}
			if m, ok := p.mapScalar(v); ok {
				b.Targets = append(b.Targets, p.fields(m, "\n")...)
			}
		}
	}
	if len(b.BuildArgs)+len(b.Targets) > 0 {
		p.doc.Builds = append(p.doc.Builds, b)
	}
}

// pluginEnv reads a plugin's environment: a mapping, or a list of
// NAME=value strings.
func (p *pipeLoad) pluginEnv(v *yaml.Node, where string) {
	if v.Kind == yaml.MappingNode {
		p.env(v, "environment", pipeCtx{where: where})
		return
	}
	for _, it := range listItems(v) {
		p.listAssignment(it, "environment")
	}
}

// pluginArgs reads a plugin's build arguments: a mapping (its keys) or a
// list.
func (p *pipeLoad) pluginArgs(v *yaml.Node, b *DockerBuild) {
	if v.Kind == yaml.MappingNode {
		for _, a := range pairs(v, &p.visits) {
			if k := deref(a[0]); k != nil && k.Kind == yaml.ScalarNode {
				if km, ok := p.mapScalar(k); ok {
					b.BuildArgs = append(b.BuildArgs, Word{Text: km.source(p.idx.src, 0, len(km.text)), Value: strp(k.Value), Pos: km.span(p.idx, 0, len(km.text))})
				}
			}
		}
		return
	}
	for _, it := range listItems(v) {
		if m, ok := p.mapScalar(it); ok {
			b.BuildArgs = append(b.BuildArgs, p.fields(m, "\n")...)
		} else {
			p.unmapped(it, "this build argument")
		}
	}
}

// listItems are the scalars of a list (or the one scalar).
func listItems(n *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	budget := 10000
	scalars(n, &out, 0, &budget)
	return out
}

// listAssignment is an environment entry written NAME=value (or NAME,
// which passes the variable on) as one string of a list.
func (p *pipeLoad) listAssignment(n *yaml.Node, decl string) {
	if p.full(n) {
		return
	}
	m, ok := p.mapScalar(n)
	if !ok {
		p.unmapped(n, "this environment variable")
		return
	}
	name, value, _ := strings.Cut(n.Value, "=")
	if name == "" {
		return
	}
	s, e := p.nodeStart(n), p.scalarEnd(n, m)
	vs := min(len(name)+1, len(m.text))
	a := Assignment{Name: name, Text: string(p.idx.src[s:e]), ValueText: m.source(p.idx.src, vs, len(m.text)), Value: strp(value),
		Array: []Word{}, Words: []Word{}, Decl: decl, NamePos: m.span(p.idx, 0, len(name)), Pos: p.idx.span(s, e)}
	p.words++
	p.doc.Env = append(p.doc.Env, a)
}
