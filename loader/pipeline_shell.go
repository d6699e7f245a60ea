package loader

import (
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Which shell runs a pipeline's script: what the file says of it.

// shellName is the program of a shell: setting (bash -e {0} is bash).
func shellName(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	name := f[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

func defaultShell(n *yaml.Node, count *int) (string, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return "", false
	}
	for _, kv := range pairs(n, count) {
		if keyOf(kv[0]) != "run" {
			continue
		}
		r := deref(kv[1])
		if r == nil || r.Kind != yaml.MappingNode {
			continue
		}
		for _, kv2 := range pairs(r, count) {
			if v := deref(kv2[1]); keyOf(kv2[0]) == "shell" && v != nil && v.Kind == yaml.ScalarNode {
				return shellName(v.Value), true
			}
		}
	}
	return "", false
}

// defaultDir is the working-directory of a defaults: run: mapping.
func defaultDir(n *yaml.Node, count *int) (string, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return "", false
	}
	for _, kv := range pairs(n, count) {
		r := deref(kv[1])
		if keyOf(kv[0]) != "run" || r == nil || r.Kind != yaml.MappingNode {
			continue
		}
		for _, kv2 := range pairs(r, count) {
			if v := deref(kv2[1]); keyOf(kv2[0]) == "working-directory" && v != nil && v.Kind == yaml.ScalarNode && !strings.Contains(v.Value, "${{") {
				return joinDir(".", v.Value), true
			}
		}
	}
	return "", false
}

// windowsName matches a name that says Windows.
var windowsName = regexp.MustCompile(`(?i)windows|\bwin(32|64)?\b|msvc|powershell|pwsh`)

// runsOnWindows reports a GitHub job that runs on Windows, where run: is
// PowerShell unless a shell is given: runner labels naming Windows, or
// labels from an expression (runs-on: ${{ inputs.os }}) in a job or
// workflow file named for Windows (moby's .windows.yml).
func (p *pipeLoad) runsOnWindows(n *yaml.Node, where string) bool {
	n = deref(n)
	if n == nil {
		return false
	}
	if n.Kind == yaml.ScalarNode {
		v := strings.ToLower(n.Value)
		if strings.Contains(v, "${{") {
			job := where[strings.LastIndexByte(where, '.')+1:]
			return windowsName.MatchString(job) || windowsName.MatchString(path.Base(p.doc.Path))
		}
		return strings.HasPrefix(v, "windows")
	}
	if n.Kind == yaml.SequenceNode {
		for _, c := range n.Content {
			if p.runsOnWindows(c, where) {
				return true
			}
		}
	}
	return false
}

// gitlabWindows reports a GitLab job (or template) that runs on a Windows
// runner, whose shell is PowerShell: its name says Windows, or its tags
// do, its own or those of a job it extends in the same file (GitLab
// follows extends 11 levels deep). Answers are kept per job name, and the
// jobs indexed by name, so that extends chains cost each job once.
func (p *pipeLoad) gitlabWindows(name string, job *yaml.Node, top [][2]*yaml.Node) bool {
	if p.windows == nil {
		p.windows = map[string]bool{}
		p.jobs = map[string]*yaml.Node{}
		for _, kv := range top {
			if k := keyOf(kv[0]); p.jobs[k] == nil {
				p.jobs[k] = kv[1]
			}
		}
	}
	return p.windowsJob(name, job, 0)
}

func (p *pipeLoad) windowsJob(name string, job *yaml.Node, depth int) bool {
	if w, ok := p.windows[name]; ok {
		return w
	}
	p.windows[name] = false // a cycle of extends answers no
	job = deref(job)
	if job == nil || job.Kind != yaml.MappingNode || depth > 11 {
		return false
	}
	w := windowsName.MatchString(name)
	var parents []string
	budget := 10000
	for i := 0; i+1 < len(job.Content) && !w; i += 2 {
		v := deref(job.Content[i+1])
		if v == nil {
			continue
		}
		var items []*yaml.Node
		scalars(v, &items, 0, &budget)
		switch keyOf(job.Content[i]) {
		case "tags":
			for _, it := range items {
				w = w || windowsName.MatchString(it.Value)
			}
		case "extends":
			for _, it := range items {
				parents = append(parents, it.Value)
			}
		}
	}
	for _, parent := range parents {
		if w {
			break
		}
		if pj, ok := p.jobs[parent]; ok {
			w = p.windowsJob(parent, pj, depth+1)
		}
	}
	p.windows[name] = w
	return w
}

// posixShell reports whether a script run by shell s is shell, whose
// syntax errors are the file's.
func posixShell(s string) bool {
	switch s {
	case "", "bash", "sh", "dash", "ash", "ksh", "zsh":
		return true
	}
	return false
}

// hashComments reports whether a line starting with # is a comment to the
// program that runs a script: a POSIX shell, PowerShell, Python. For any
// other (cat {0}, node {0}, cmd) the text is data, and a marker in it
// suppresses nothing (issue 26).
func hashComments(s string) bool {
	switch s {
	case "pwsh", "powershell", "python", "python3":
		return true
	}
	return posixShell(s)
}

// inputValue reports whether a key holds an input's value: the default
// of a GitHub workflow's or action's input, or a GitLab spec input's, and
// a value an include passes (include[0].inputs.NAME).
func inputValue(where, key string) bool {
	if key == "default" {
		parent := where
		if i := strings.LastIndex(parent, "."); i >= 0 {
			parent = parent[:i]
		}
		return parent == "inputs" || strings.HasSuffix(parent, ".inputs")
	}
	return strings.HasPrefix(where, "include") && strings.HasSuffix(where, ".inputs")
}

// maxPrescanNodes bounds the nodes prescanEnv looks at.
const maxPrescanNodes = 200_000

// prescanEnv is the static value of each name the document's env:,
// variables: and environment: mappings give, wherever they stand (a step's
// env: may follow its run:), when every such entry of a name agrees;
// aliases are not followed.
func prescanEnv(root *yaml.Node) map[string]string {
	out := map[string]string{}
	conflict := map[string]bool{}
	seen := 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || n.Kind == yaml.AliasNode || seen > maxPrescanNodes {
			return
		}
		seen++
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if (k.Value == "env" || k.Value == "variables" || k.Value == "environment") && v.Kind == yaml.MappingNode {
					for j := 0; j+1 < len(v.Content); j += 2 {
						name, val := v.Content[j], v.Content[j+1]
						if name.Kind != yaml.ScalarNode || val.Kind != yaml.ScalarNode || conflict[name.Value] {
							continue
						}
						if old, ok := out[name.Value]; ok && old != val.Value {
							conflict[name.Value] = true
							delete(out, name.Value)
							continue
						}
						out[name.Value] = val.Value
					}
				}
				walk(v)
			}
			return
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
	return out
}
