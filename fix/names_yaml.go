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
func (u *universe) yamlNames(m mentions, text []byte, bakeOwn bool) bool {
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
				u.scalarNames(m, k.Value, k.Line, bakeOwn, "")
				walk(n.Content[i+1], k.Value)
			}
		case yaml.AliasNode:
			// The anchor is read where it is defined.
		case yaml.ScalarNode:
			line := n.Line
			if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				line++ // a block scalar's text starts on the next line
			}
			if scriptKeys[key] || strings.Contains(n.Value, "\n") {
				if u.yamlScript(m, n.Value, line) {
					return
				}
			}
			u.scalarNames(m, n.Value, line, bakeOwn, key)
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
	script = ciExpr.ReplaceAllString(script, "CIEXPR")
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

var ciExpr = regexp.MustCompile(`\$\{\{[^}\n]*\}\}`)

// scalarNames adds what one key or scalar names: a stage or target the
// whole scalar is (`target: build_mooncake`, a list item), or, under a
// key that says it holds them (`targets`, `STAGES`), each of its
// whitespace- or comma-separated fields; prose (`name: build from
// source`) names none. Variables count as words.
func (u *universe) scalarNames(m mentions, s string, line int, bakeOwn bool, key string) {
	fields := []string{strings.TrimSpace(s)}
	if lk := strings.ToLower(key); strings.Contains(lk, "target") || strings.Contains(lk, "stage") || !strings.ContainsAny(strings.TrimSpace(s), " \t\n") {
		fields = strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '\n' })
	}
	for _, field := range fields {
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
