package loader

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// commandBuilds records the Docker builds a script's commands start:
// docker build, docker image build, docker buildx build and docker buildx
// bake (podman build too), with the words of their --build-arg,
// --target, --set and -f options (and bake's targets).
func (p *pipeLoad) commandBuilds(ps *PipelineScript) {
	for _, c := range ps.Commands {
		if c.Name != "docker" && c.Name != "podman" {
			continue
		}
		tool, rest := buildTool(c.Words)
		if tool == "" {
			continue
		}
		b := DockerBuild{Via: "command", Tool: c.Name + " " + tool, Where: ps.Where,
			BuildArgs: []Word{}, Targets: []Word{}, Sets: []Word{}, Files: []Word{}, Pos: c.Pos}
		options := map[string]*[]Word{"--build-arg": &b.BuildArgs, "--target": &b.Targets, "--set": &b.Sets, "-f": &b.Files, "--file": &b.Files}
		for i := rest; i < len(c.Words); i++ {
			w := c.Words[i]
			v := w.Text
			if w.Value != nil {
				v = *w.Value
			}
			name, _, inline := strings.Cut(v, "=")
			if list, ok := options[name]; ok {
				if inline {
					*list = append(*list, w)
				} else if i+1 < len(c.Words) {
					*list = append(*list, c.Words[i+1])
					i++
				}
				continue
			}
			if tool == "buildx bake" && !strings.HasPrefix(v, "-") {
				b.Targets = append(b.Targets, w)
			}
		}
		p.doc.Builds = append(p.doc.Builds, b)
	}
}

// buildTool is the build subcommand of a docker command's words, and the
// index of the first word after it.
func buildTool(ws []Word) (string, int) {
	val := func(i int) string {
		if i < len(ws) && ws[i].Value != nil {
			return *ws[i].Value
		}
		return ""
	}
	switch {
	case val(1) == "build":
		return "build", 2
	case val(1) == "image" && val(2) == "build":
		return "image build", 3
	case val(1) == "buildx" && (val(2) == "build" || val(2) == "b"):
		return "buildx build", 3
	case val(1) == "buildx" && val(2) == "bake":
		return "buildx bake", 3
	}
	return "", 0
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
	default:
		return
	}
	b := DockerBuild{Via: "action", Tool: tool, Where: ctx.where,
		BuildArgs: []Word{}, Targets: []Word{}, Sets: []Word{}, Files: []Word{}, Pos: p.nodePos(with)}
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
		default:
			continue
		}
		m, ok := mapScalar(p.yx, v)
		if !ok {
			p.unmapped(v, "this input")
			continue
		}
		*list = append(*list, p.fields(m, seps)...)
	}
	p.doc.Builds = append(p.doc.Builds, b)
}

// GitLabIncludes are the local files a GitLab CI file includes
// (include: 'path', include: [{local: path}], …), relative to the
// repository root; they may be globs. Remote, project, template and
// component includes are not of this repository.
func GitLabIncludes(src []byte) []string {
	if len(src) > maxPipelineBytes {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	root := deref(doc.Content[0])
	if root == nil || root.Kind != yaml.MappingNode {
		return nil
	}
	var out []string
	count := 0
	local := func(s string) {
		if s != "" && !strings.Contains(s, "://") && !strings.Contains(s, "$") {
			out = append(out, strings.TrimPrefix(s, "/"))
		}
	}
	for _, kv := range pairs(root, &count) {
		if keyOf(kv[0]) != "include" {
			continue
		}
		v := deref(kv[1])
		items := []*yaml.Node{v}
		if v != nil && v.Kind == yaml.SequenceNode {
			items = v.Content
		}
		for _, it := range items {
			it = deref(it)
			switch {
			case it == nil:
			case it.Kind == yaml.ScalarNode:
				local(it.Value)
			case it.Kind == yaml.MappingNode:
				for _, f := range pairs(it, &count) {
					if l := deref(f[1]); keyOf(f[0]) == "local" && l != nil && l.Kind == yaml.ScalarNode {
						local(l.Value)
					}
				}
			}
		}
	}
	return out
}
