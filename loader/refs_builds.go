package loader

import (
	"encoding/json"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The Dockerfiles a build names other than with `docker build -f`: a bake
// target's `dockerfile` (read from its context), the `file:` of
// docker/build-push-action and the `files:` of docker/bake-action, and a
// Dockerfile given on standard input (`docker build - < F`, `docker build
// -f - . < F`, `cat F | docker build -`). Each is read as its kind
// whatever its name, like the files `docker build -f` names.

// hclRefs are the Dockerfiles a bake file's targets name: `dockerfile`
// joined to the target's `context` (from the root, where bake usually
// runs, and from the bake file's directory), and alone.
func hclRefs(d *HCLDocument) []FileRef {
	var out []FileRef
	dir := path.Dir(d.Path)
	for _, b := range d.Blocks {
		if b.Type != "target" {
			continue
		}
		var file, ctx *Attribute
		for i := range b.Attributes {
			switch b.Attributes[i].Name {
			case "dockerfile":
				file = &b.Attributes[i]
			case "context":
				ctx = &b.Attributes[i]
			}
		}
		f, ok := staticString(file)
		if !ok || strings.Contains(f, "://") {
			continue
		}
		c, _ := staticString(ctx)
		if strings.Contains(c, "://") || strings.HasPrefix(c, "target:") {
			c = ""
		}
		for _, p := range []string{path.Join(c, f), path.Join(dir, c, f), f} {
			if r, ok := refFor(p, "build", KindDockerfile, file.Pos); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// staticString is an attribute's value when it is a static string.
func staticString(a *Attribute) (string, bool) {
	if a == nil || !a.Static {
		return "", false
	}
	var s string
	if json.Unmarshal(a.Value, &s) != nil || s == "" {
		return "", false
	}
	return s, true
}

// actionRefs are the files a docker/build-push-action or bake-action
// step names in its with: inputs.
func actionRefs(b DockerBuild) []FileRef {
	kind := KindDockerfile
	if b.Tool == "bake-action" {
		kind = KindHCL
	}
	var out []FileRef
	for _, f := range b.Files {
		if r, ok := refFor(wordValue(f), "build", kind, f.Pos); ok {
			out = append(out, r)
		}
	}
	return out
}

// stdinDockerfile reports whether a docker build reads its Dockerfile
// from standard input: a context of "-", or -f -.
func stdinDockerfile(tool string, args []Word) bool {
	if tool == "buildx bake" {
		return false
	}
	for _, o := range buildOptions(tool, args) {
		if wordValue(o.Value) == "-" && (o.Name == "" || o.Name == "--file") {
			return true
		}
	}
	return false
}

// shellTemplateRefs reads a GitHub custom shell (`shell: bash -e
// ci/run.sh {0}`) as the command it is: the runner runs it with {0} the
// step's script file, so the files it names are run too.
func (p *pipeLoad) shellTemplateRefs(v *yaml.Node) {
	at := p.nodePos(v)
	var c ShellCommand
	for _, f := range strings.Fields(strings.ReplaceAll(v.Value, "{0}", "/tmp/step-script")) {
		c.Words = append(c.Words, Word{Text: f, Value: strp(f), Pos: at})
	}
	if len(c.Words) > 0 {
		c.Name = *c.Words[0].Value
		p.doc.refs = append(p.doc.refs, commandRefs(Script{Commands: []ShellCommand{c}}, ".")...)
	}
}
