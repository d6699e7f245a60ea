package fix

// Reading a YAML or JSON file (a CI pipeline, a compose file, bake JSON)
// for the names a removal takes away, as its owners read it: scalars and
// keys, whole words only; the scripts it runs, as bash reads them.

import (
	"bytes"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"
)

// scriptKeys are the keys whose string values (or list items) a CI system
// runs as shell: GitHub's run, GitLab's script/before_script/
// after_script, Buildkite's command(s), compose's command/entrypoint.
var scriptKeys = map[string]bool{"run": true, "script": true, "before_script": true, "after_script": true, "command": true, "commands": true, "entrypoint": true}

// yamlNames adds the names a YAML or JSON text names: a key or a scalar
// equal to a stage or target name, or a whitespace- or comma-separated
// field of one (`targets: [a, b]`, `--target=NAME`, `NAME.platform=…`);
// the scripts it runs read as bash reads them (shellWords: echo's words
// and command names are not references); a variable wherever its name
// stands as a word (`${MOONCAKE_BRANCH}`, `${{ env.X }}`). It reports
// false when the text does not parse as YAML (the caller reads it as
// text then).
func (u *universe) yamlNames(m mentions, text []byte, bakeOwn, pipeline bool) bool {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(text))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if err.Error() == "EOF" {
				break
			}
			return false
		}
		doc.Content = append(doc.Content, &n)
	}
	// The values a CI file gives its variables (env:, variables:,
	// matrix: lists, inputs' defaults) stand for them in its scripts
	// (${DEP}, ${{ matrix.dep }}), as a script's own assignments do.
	u.yamlValues = map[string][]string{}
	for _, d := range doc.Content {
		collectYAMLValues(d, "", u.yamlValues)
	}
	defer func() { u.yamlValues = nil }()
	// Bake JSON's variables, at their defaults, stand for ${NAME} in its
	// strings ("target": "export_${DEP}").
	bakeVars := map[string]string{}
	if bakeOwn {
		for _, d := range doc.Content {
			jsonBakeVars(d, bakeVars)
		}
	}
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, key)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				// A CI file's keys are its own (job ids, step keys), and
				// its `name:` values are titles: no stage or target.
				if pipeline && k.Value == "name" {
					continue
				}
				if !pipeline {
					u.scalarNames(m, k.Value, k.Line, bakeOwn, "")
				}
				walk(n.Content[i+1], k.Value)
			}
		case yaml.AliasNode:
			// The anchor is read where it is defined.
		case yaml.ScalarNode:
			line := n.Line
			if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				line++ // a block scalar's text starts on the next line
			}
			if scriptKeys[key] {
				if u.yamlScript(m, n.Value, line) {
					return
				}
			}
			u.scalarNames(m, n.Value, line, bakeOwn, key)
			if strings.Contains(n.Value, "${") && len(bakeVars) > 0 {
				u.scalarNames(m, expandBakeVars(n.Value, bakeVars), line, bakeOwn, key)
			}
		}
	}
	for _, d := range doc.Content {
		walk(d, "")
	}
	return true
}

// yamlScript reads a script a YAML value holds as bash reads it, its
// lines counted from line; false when bash would not parse it.
func (u *universe) yamlScript(m mentions, script string, line int) bool {
	// A CI expression (${{ github.sha }}) is the CI system's, replaced
	// before the shell runs: a word to bash.
	// ${{ matrix.dep }}, ${{ env.X }}, ${{ inputs.x }}, ${{ vars.X }}
	// are the values the file gives them: ${dep}; a literal inside
	// another expression (${{ inputs.t || 'mooncake-rocm-ci' }}) is a
	// word of its own.
	script = ciExpr.ReplaceAllStringFunc(script, func(e string) string {
		if sm := ciVar.FindStringSubmatch(e); sm != nil {
			return "${" + sm[1] + "}"
		}
		var lits []string
		for _, q := range ciLit.FindAllStringSubmatch(e, -1) {
			lits = append(lits, q[1])
		}
		if len(lits) > 0 {
			return strings.Join(lits, " ")
		}
		return "CIEXPR"
	})
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return false
	}
	sub := mentions{}
	saved := u.allListed
	u.allListed = nil
	u.shellWords(sub, f)
	u.listedAll(sub, joinedText([]byte(script)))
	u.allListed = saved
	for n, l := range sub {
		m.add(n, line+l-1)
	}
	return true
}

var (
	ciExpr = regexp.MustCompile(`\$\{\{[^}\n]*\}\}`)
	ciVar  = regexp.MustCompile(`^\$\{\{\s*(?:matrix|env|inputs|vars|github\.event\.inputs)\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}$`)
	ciLit  = regexp.MustCompile(`'([^']*)'`)
)

// collectYAMLValues gathers the literal values a CI file gives its
// variables: the scalars under env:, variables: and matrix: (lists
// included) and the default of each input.
func collectYAMLValues(n *yaml.Node, key string, out map[string][]string) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			collectYAMLValues(c, key, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			switch key {
			case "env", "variables", "matrix":
				for _, s := range scalarsOf(v) {
					out[k] = append(out[k], strings.Fields(s)...)
				}
			case "inputs":
				if v.Kind == yaml.MappingNode {
					for j := 0; j+1 < len(v.Content); j += 2 {
						if v.Content[j].Value == "default" {
							out[k] = append(out[k], strings.Fields(v.Content[j+1].Value)...)
						}
					}
				}
			}
			collectYAMLValues(v, k, out)
		}
	}
}

// scalarsOf are a node's scalar values: itself, or a list's items.
func scalarsOf(n *yaml.Node) []string {
	switch n.Kind {
	case yaml.ScalarNode:
		return []string{n.Value}
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind == yaml.ScalarNode {
				out = append(out, c.Value)
			}
		}
		return out
	}
	return nil
}

// scalarNames adds what one key or scalar names: a stage or target the
// whole scalar is (`target: build_mooncake`, a list item), or, under a
// key that says it holds them (`targets`, `STAGES`), each of its
// whitespace- or comma-separated fields; prose (`name: build from
// source`) names none. Variables count as words.
func (u *universe) scalarNames(m mentions, s string, line int, bakeOwn bool, key string) {
	all := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '\n' })
	lk := strings.ToLower(key)
	listy := strings.Contains(lk, "target") || strings.Contains(lk, "stage") || len(all) <= 1
	for _, field := range all {
		// Out of a key that holds names, only a field that cannot be a
		// word of prose counts (mooncake-rocm-ci, build_mooncake): "build
		// from source" names no stage `source`.
		if !listy && !identLike(field) {
			continue
		}
		for _, cand := range fieldForms(field) {
			for _, class := range []string{"stage", "target"} {
				w := cand
				if class == "stage" {
					w = strings.ToLower(w)
				}
				for _, n := range u.byClass[class][w] {
					m.add(n, line)
				}
			}
		}
	}
	// Variables: a word of the variable's class anywhere (an expansion
	// names it, ${MOONCAKE_BRANCH}, env.MOONCAKE_BRANCH).
	if len(u.byClass["variable"]) > 0 {
		tmp := mentions{}
		u.words(tmp, []byte(s), line, bakeOwn, false)
		for n, l := range tmp {
			if n.Kind == "variable" || n.Kind == "bake variable" || n.Kind == "bake function" {
				m.add(n, l)
			}
		}
	}
}

// fieldForms are the names a field may be: itself, its value after an
// option (`--target=NAME`), what precedes a `.` (`NAME.platform=…`) or an
// `=` (`NAME=value`), and a `target:NAME` context's name, quotes aside.
func fieldForms(f string) []string {
	f = strings.Trim(f, `"'[](){}`)
	out := []string{f}
	if strings.HasPrefix(f, "-") {
		if _, v, ok := strings.Cut(f, "="); ok {
			f = v
			out = append(out, f)
		}
	}
	if k, _, ok := strings.Cut(f, "="); ok {
		out = append(out, k)
	}
	if k, _, ok := strings.Cut(f, "."); ok {
		out = append(out, k)
	}
	if _, v, ok := strings.Cut(f, "target:"); ok {
		out = append(out, v)
	}
	return out
}

// identLike reports whether a field is a name no prose spells: it holds
// a '-', '_', '.', ':' or a digit between letters.
func identLike(f string) bool {
	return strings.ContainsAny(strings.Trim(f, `"'.,:;()[]{}`), "-_.:0123456789")
}

// jsonBakeVars gathers bake JSON's `"variable": {"NAME": {"default": V}}`.
func jsonBakeVars(n *yaml.Node, out map[string]string) {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			jsonBakeVars(c, out)
		}
		return
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "variable" || n.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		vs := n.Content[i+1]
		for j := 0; j+1 < len(vs.Content); j += 2 {
			def := vs.Content[j+1]
			if def.Kind != yaml.MappingNode {
				continue
			}
			for k := 0; k+1 < len(def.Content); k += 2 {
				if def.Content[k].Value == "default" && def.Content[k+1].Kind == yaml.ScalarNode {
					out[vs.Content[j].Value] = def.Content[k+1].Value
				}
			}
		}
	}
}

// expandBakeVars puts each ${NAME} bake knows in place.
func expandBakeVars(s string, vars map[string]string) string {
	return bakeInterp.ReplaceAllStringFunc(s, func(e string) string {
		if v, ok := vars[strings.TrimSpace(e[2:len(e)-1])]; ok {
			return v
		}
		return e
	})
}

var bakeInterp = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*\}`)
