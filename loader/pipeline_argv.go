package loader

import (
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// pluginCommand reads a Buildkite plugin's command (the docker and
// docker-compose plugins' command:, after their entrypoint: when it is
// given): an argument vector the container runs without a shell. It is a
// script of one command whose words are the vector's items, each at its
// place in the file; a shell among them given a script with -c (["sh",
// "-c", "git clone … && make install"]) has that script parsed as shell
// too, at its place. A command written as one string is a script of the
// container's shell, read as any script is.
func (p *pipeLoad) pluginCommand(entry, command *yaml.Node, where string) {
	cmd := deref(command)
	if cmd == nil {
		return
	}
	if cmd.Kind == yaml.ScalarNode && deref(entry) == nil {
		p.script(cmd, "command", pipeCtx{where: where})
		return
	}
	var items []*yaml.Node
	for _, n := range []*yaml.Node{deref(entry), cmd} {
		if n == nil {
			continue
		}
		items = append(items, listItems(n)...)
	}
	if len(items) == 0 || p.full(cmd) {
		return
	}
	ps := PipelineScript{Key: "command", Where: where, Shell: ShellExec, Pos: p.nodePos(cmd), Script: newScript()}
	c := ShellCommand{Words: make([]Word, 0, len(items)), Pos: p.nodePos(cmd)}
	maps := make([]*scalarMap, len(items))
	values := make([]string, len(items))
	for i, it := range items {
		m, ok := p.mapScalar(it)
		if !ok {
			p.unmapped(it, "this command's argument")
			return
		}
		if !p.keep(len(m.text), it) {
			return
		}
		maps[i], values[i] = m, it.Value
		c.Words = append(c.Words, Word{Text: m.source(p.idx.src, 0, len(m.text)), Value: strp(it.Value), Pos: m.span(p.idx, 0, len(m.text))})
	}
	p.words += len(c.Words)
	c.Name = values[0]
	ps.Value = strings.Join(values, " ")
	ps.Commands = append(ps.Commands, c)
	if sh, script := argvShellScript(values); script > 0 {
		sub := PipelineScript{Key: "command", Where: where, Shell: path.Base(values[sh]), Script: newScript()}
		p.parse(&sub, maps[script])
		ps.merge(sub.Script)
	}
	p.doc.Scripts = append(p.doc.Scripts, ps)
	p.commandBuilds(&ps)
}

// ShellExec is the Shell of a pipeline script that is an argument vector
// run without a shell (a plugin's command: array).
const ShellExec = "exec"

// argvShellScript finds, in an argument vector, a shell (sh, bash …,
// possibly after env or a path) given a script with -c: the indexes of the
// shell and of its script, or -1, -1.
func argvShellScript(argv []string) (int, int) {
	for i, a := range argv {
		if !nestedShells[path.Base(a)] {
			continue
		}
		hasC := false
		for j := i + 1; j < len(argv); j++ {
			o := argv[j]
			switch {
			case o == "--":
				// The options end: with -c, the script is next.
				if hasC && j+1 < len(argv) {
					return i, j + 1
				}
				return -1, -1
			case o == "--rcfile" || o == "--init-file":
				j++ // the option's value
			case strings.HasPrefix(o, "--"):
			case len(o) > 1 && (o[0] == '-' || o[0] == '+') && isLetters(o[1:]):
				if o[0] == '-' && strings.ContainsRune(o[1:], 'c') {
					hasC = true
				}
				if last := o[len(o)-1]; last == 'o' || last == 'O' {
					j++
				}
			case hasC:
				return i, j // bash -c SCRIPT: the first word that is no option
			default:
				return -1, -1 // a script file
			}
		}
		return -1, -1
	}
	return -1, -1
}
