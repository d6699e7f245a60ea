package loader

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// PipelineRefs are the local files a pipeline has its CI system read or
// run, relative to the repository root (they may be globs): GitLab CI's
// include: (every document of the file, the include: of a child
// pipeline's trigger: too; remote, project, template and component
// includes are not this repository's), GitHub's local actions and
// reusable workflows (uses: ./path), and the files a Buildkite step
// uploads (buildkite-agent pipeline upload FILE).
func PipelineRefs(src []byte) []string {
	if len(src) > maxPipelineBytes {
		return nil
	}
	var out []string
	local := func(s string) {
		if s != "" && !strings.Contains(s, "://") && !strings.Contains(s, "$") {
			out = append(out, strings.TrimPrefix(s, "/"))
		}
	}
	count := 0
	includes := func(v *yaml.Node) {
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
	var visit func(n *yaml.Node, depth int)
	visit = func(n *yaml.Node, depth int) {
		n = deref(n)
		if n == nil || depth > 50 || count > maxPipelineVisits {
			return
		}
		count++
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				visit(c, depth+1)
			}
		case yaml.MappingNode:
			for _, kv := range pairs(n, &count) {
				switch keyOf(kv[0]) {
				case "include":
					includes(kv[1])
				case "uses":
					if u := deref(kv[1]); u != nil && u.Kind == yaml.ScalarNode && strings.HasPrefix(u.Value, "./") {
						target := strings.TrimPrefix(path.Clean(u.Value), "./")
						if strings.HasSuffix(target, ".yml") || strings.HasSuffix(target, ".yaml") {
							out = append(out, target)
						} else {
							out = append(out, target+"/action.yml", target+"/action.yaml")
						}
					}
				}
				visit(kv[1], depth+1)
			}
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for docs := 0; docs < 100; docs++ {
		var doc yaml.Node
		if dec.Decode(&doc) != nil {
			break
		}
		visit(&doc, 0)
	}
	for _, m := range uploadRe.FindAllSubmatch(src, 150) {
		local(string(m[1]))
	}
	return out
}

// uploadRe is a Buildkite step uploading a pipeline file.
var uploadRe = regexp.MustCompile(`pipeline\s+upload\s+(?:--\S+\s+)*["']?([^\s"'$;|&]+\.(?:ya?ml|json))`)
