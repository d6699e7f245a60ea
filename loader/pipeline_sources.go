package loader

import (
	"fmt"
	"path"
	"strings"

	"github.com/buildgate/buildgate/repoid"
	"go.yaml.in/yaml/v3"
)

// What a pipeline fetches and builds besides its scripts' commands (the
// build model's fetches, issue 28): a checkout of another repository
// (actions/checkout with repository:, into its path: under the
// workspace, where the job's scripts start), and compose files' builds
// (their context, Dockerfile, inline Dockerfile and build arguments).

// checkout reads actions/checkout's with: repository and path.
func (p *pipeLoad) checkout(with *yaml.Node) {
	if with == nil || with.Kind != yaml.MappingNode {
		return
	}
	var repo *yaml.Node
	into, host := ".", "github.com"
	for _, kv := range pairs(with, &p.visits) {
		v := deref(kv[1])
		if v == nil || v.Kind != yaml.ScalarNode {
			continue
		}
		switch keyOf(kv[0]) {
		case "repository":
			repo = v
		case "path":
			into = path.Clean(v.Value)
		case "github-server-url":
			if h, ok := repoid.Of(v.Value + "/x/y"); ok {
				host = strings.Split(h, "/")[0]
			}
		}
	}
	if repo == nil || strings.Contains(repo.Value, "${{") {
		return
	}
	id, ok := repoid.Of("https://" + host + "/" + strings.TrimPrefix(repo.Value, "/"))
	if !ok {
		return
	}
	m, ok := p.mapScalar(repo)
	if !ok {
		p.unmapped(repo, "this repository")
		return
	}
	w := Word{Text: m.source(p.idx.src, 0, len(m.text)), Value: strp(repo.Value), Pos: m.span(p.idx, 0, len(m.text))}
	p.doc.Fetches = append(p.doc.Fetches, Fetch{Kind: "clone", URL: w, Repository: id, Into: strp(into), Pos: w.Pos})
}

// isCompose reports whether a file's name is a compose file's.
func isCompose(base string) bool {
	return strings.HasPrefix(base, "docker-compose") || strings.HasPrefix(base, "compose")
}

// compose reads a compose file's services' builds.
func (p *pipeLoad) compose(root *yaml.Node) {
	top := deref(root)
	if top != nil && top.Kind == yaml.DocumentNode && len(top.Content) > 0 {
		top = deref(top.Content[0])
	}
	if top == nil || top.Kind != yaml.MappingNode {
		return
	}
	for _, kv := range pairs(top, &p.visits) {
		if keyOf(kv[0]) != "services" {
			continue
		}
		services := deref(kv[1])
		if services == nil || services.Kind != yaml.MappingNode {
			continue
		}
		for _, svc := range pairs(services, &p.visits) {
			s := deref(svc[1])
			if s == nil || s.Kind != yaml.MappingNode {
				continue
			}
			for _, f := range pairs(s, &p.visits) {
				if keyOf(f[0]) == "build" {
					p.composeBuild(deref(f[1]), "services."+keyOf(svc[0])+".build")
				}
			}
		}
	}
}

// composeBuild reads one service's build: a context path, or a mapping.
func (p *pipeLoad) composeBuild(b *yaml.Node, where string) {
	if b == nil {
		return
	}
	d := DockerBuild{Via: "compose", Tool: "compose", Where: where, BuildArgs: []Word{}, Targets: []Word{}, Sets: []Word{}, Files: []Word{}, Contexts: []Word{}, Pos: p.nodePos(b)}
	dir := path.Dir(p.doc.Path)
	context, dockerfile := ".", "Dockerfile"
	scalar := func(v *yaml.Node) (Word, bool) {
		if v == nil || v.Kind != yaml.ScalarNode {
			return Word{}, false
		}
		m, ok := p.mapScalar(v)
		if !ok {
			p.unmapped(v, "this value")
			return Word{}, false
		}
		return Word{Text: m.source(p.idx.src, 0, len(m.text)), Value: strp(v.Value), Pos: m.span(p.idx, 0, len(m.text))}, true
	}
	if b.Kind == yaml.ScalarNode {
		if w, ok := scalar(b); ok {
			d.Contexts = append(d.Contexts, w)
			context = b.Value
		}
	}
	var inline *yaml.Node
	if b.Kind == yaml.MappingNode {
		for _, kv := range pairs(b, &p.visits) {
			v := deref(kv[1])
			switch keyOf(kv[0]) {
			case "context":
				if w, ok := scalar(v); ok {
					d.Contexts = append(d.Contexts, w)
					context = v.Value
				}
			case "dockerfile":
				if w, ok := scalar(v); ok {
					d.Files = append(d.Files, w)
					dockerfile = v.Value
				}
			case "target":
				if w, ok := scalar(v); ok {
					d.Targets = append(d.Targets, w)
				}
			case "args":
				d.BuildArgs = append(d.BuildArgs, p.composeArgs(v)...)
			case "additional_contexts":
				for _, c := range p.composeArgs(v) {
					if c.Value != nil {
						_, u, _ := strings.Cut(*c.Value, "=")
						c.Value = strp(u)
						d.Contexts = append(d.Contexts, c)
					}
				}
			case "dockerfile_inline":
				inline = v
			}
		}
	}
	if inline != nil && inline.Kind == yaml.ScalarNode {
		if p.inlines++; p.inlines > maxInlineDockerfiles {
			if p.inlines == maxInlineDockerfiles+1 {
				p.doc.Errors = append(p.doc.Errors, Error{Message: fmt.Sprintf("this file holds more than %d inline Dockerfiles: this one and the rest are not read (see docs/robustness.md)", maxInlineDockerfiles), Pos: p.nodePos(inline)})
			}
		} else {
			p.composeInline(inline, where)
		}
	} else if !strings.Contains(context, "://") && !strings.Contains(dockerfile, "$") {
		df := dockerfile
		if !strings.HasPrefix(df, "/") {
			df = path.Join(dir, context, dockerfile)
		}
		p.ref(df, "builds", KindDockerfile, b)
	}
	p.doc.Builds = append(p.doc.Builds, d)
}

// composeArgs are a build's args (or additional_contexts) as NAME=value
// words: a mapping, or a list of NAME=value strings.
func (p *pipeLoad) composeArgs(v *yaml.Node) []Word {
	var out []Word
	if v == nil {
		return out
	}
	if v.Kind == yaml.MappingNode {
		for _, a := range pairs(v, &p.visits) {
			k, val := deref(a[0]), deref(a[1])
			if k == nil || k.Kind != yaml.ScalarNode {
				continue
			}
			km, ok := p.mapScalar(k)
			if !ok {
				continue
			}
			w := Word{Text: km.source(p.idx.src, 0, len(km.text)), Value: strp(k.Value), Pos: km.span(p.idx, 0, len(km.text))}
			if val != nil && val.Kind == yaml.ScalarNode {
				w.Value = strp(k.Value + "=" + val.Value)
			}
			out = append(out, w)
		}
		return out
	}
	for _, it := range listItems(v) {
		if m, ok := p.mapScalar(it); ok {
			out = append(out, Word{Text: m.source(p.idx.src, 0, len(m.text)), Value: strp(it.Value), Pos: m.span(p.idx, 0, len(m.text))})
		}
	}
	return out
}

// composeInline reads a dockerfile_inline's RUNs into the file's scripts.
func (p *pipeLoad) composeInline(v *yaml.Node, where string) {
	m, ok := p.mapScalar(v)
	if !ok {
		p.unmapped(v, "this Dockerfile")
		return
	}
	var scripts []InlineScript
	var errs []Error
	if dl, dc, ok := p.blockShift(m, v.Value); ok {
		// A block scalar: the Dockerfile is the file's lines less one
		// indentation, parsed as the compose file gives it and placed
		// back (a heredoc's terminator is at its line's start only so).
		scripts, errs = inlineShifted(p.doc.Path, v.Value, dl, dc, where+".dockerfile_inline")
	} else {
		scripts, errs = inlineDockerfile(p.doc.Path, p.idx.src, v.Value, nil, m.span(p.idx, 0, len(m.text)), m.source(p.idx.src, 0, len(m.text)), where+".dockerfile_inline")
	}
	for _, s := range scripts {
		p.doc.Scripts = append(p.doc.Scripts, PipelineScript{Key: "dockerfile_inline", Where: s.Where, Value: s.Instruction, Pos: s.Pos, Script: s.Script})
	}
	p.doc.Errors = append(p.doc.Errors, errs...)
}

// blockShift is the lines and columns a block scalar's text is shifted by
// in the file, when every byte of it is the file's at one indentation.
func (p *pipeLoad) blockShift(m *scalarMap, value string) (int, int, bool) {
	if string(m.text) != value || len(m.text) == 0 {
		return 0, 0, false
	}
	dl, dc := -1, -1
	line, col := 1, 1
	for i, b := range m.text {
		if b != '\n' {
			if int(m.to[i])-int(m.from[i]) != 1 {
				return 0, 0, false
			}
			pos := p.idx.span(int(m.from[i]), int(m.to[i]))
			if dl < 0 {
				dl, dc = pos.Line-line, pos.Column-col
			} else if pos.Line-line != dl || pos.Column-col != dc {
				return 0, 0, false
			}
			col++
			continue
		}
		line, col = line+1, 1
	}
	return dl, dc, dl >= 0
}
