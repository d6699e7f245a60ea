package loader

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Commands named indirectly (issue 28): through an alias of the script
// (`alias g=git; g clone …`: dash expands aliases in scripts, and bash with
// expand_aliases), through a command substitution that prints a static
// word (`$(echo git) clone …`), and through xargs fed by a pipe (`echo URL
// | xargs git clone`: xargs appends the words it reads). Each is read as
// the command it runs, its words at the places that spell them.

// maxAliases bounds the aliases a script defines that are followed.
const maxAliases = 256

// expandAliases replaces a command's first word that is an alias the
// script defined before it by the alias's words.
func expandAliases(s *Script) {
	aliases := map[string]Word{}
	for i := range s.Commands {
		c := &s.Commands[i]
		if len(c.Words) == 0 {
			continue
		}
		if wordValue(c.Words[0]) == "alias" {
			for _, w := range c.Words[1:] {
				v, ok := val(w)
				name, body, found := strings.Cut(v, "=")
				if !ok || !found || name == "" || len(aliases) >= maxAliases {
					continue
				}
				aliases[name] = Word{Text: w.Text, Value: strp(body), Pos: w.Pos}
			}
			continue
		}
		if arr := arrayCommand(s, i, c.Words[0]); arr != nil {
			c.Words = append(arr, c.Words[1:]...)
			c.Name = wordValue(c.Words[0])
			continue
		}
		a, ok := aliases[wordValue(c.Words[0])]
		if !ok || strings.TrimSpace(*a.Value) == "" {
			continue
		}
		fields := splitFields(Word{Text: *a.Value, Value: a.Value, Pos: c.Words[0].Pos})
		for k := range fields {
			fields[k].Text, fields[k].Pos = c.Words[0].Text, c.Words[0].Pos
		}
		c.Words = append(fields, c.Words[1:]...)
		c.Name = wordValue(c.Words[0])
	}
}

// arrayCommand is the words of an array a command runs as its words
// ("${cmd[@]}"), when the last assignment of the array before it has
// static elements; each at the place of the command's word.
func arrayCommand(s *Script, at int, w Word) []Word {
	t := strings.Trim(w.Text, `"`)
	if !strings.HasPrefix(t, "${") || !strings.HasSuffix(t, "[@]}") && !strings.HasSuffix(t, "[*]}") {
		return nil
	}
	name := t[2 : len(t)-4]
	pos := s.Commands[at].Pos
	for k := len(s.Assignments) - 1; k >= 0; k-- {
		a := s.Assignments[k]
		if a.Name != name || !before(a.Pos, pos) {
			continue
		}
		if len(a.Array) == 0 || a.Append {
			return nil
		}
		var out []Word
		for _, e := range a.Array {
			if e.Value == nil {
				return nil
			}
			out = append(out, Word{Text: w.Text, Value: e.Value, Pos: w.Pos})
		}
		return out
	}
	return nil
}

// echoed is what a command substitution of echo prints when its words are
// static: `$(echo git)`.
func echoed(cs *syntax.CmdSubst) (string, bool) {
	if len(cs.Stmts) != 1 || cs.Stmts[0].Redirs != nil {
		return "", false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 {
		return "", false
	}
	if name, _ := wordLiteral(call.Args[0]); name != "echo" {
		return "", false
	}
	var out []string
	for _, a := range call.Args[1:] {
		v, ok := wordLiteral(a)
		if !ok || strings.HasPrefix(v, "-") && len(out) == 0 {
			return "", false
		}
		out = append(out, v)
	}
	return strings.Join(out, " "), true
}

// xargsFed appends to a command run by xargs the words the command before
// it in its pipeline prints (echo or printf of static words), or puts
// them in place of xargs's -I replacement string.
func xargsFed(s *Script) {
	for i := range s.Commands {
		c := &s.Commands[i]
		if c.Pipeline == nil || c.Pipeline.Index == 0 || !hasWrapper(c, "xargs") {
			continue
		}
		var feed []Word
		for j := i - 1; j >= 0; j-- {
			p := s.Commands[j]
			if before(p.Pos, c.Pipeline.Pos) {
				break // before the pipeline
			}
			if p.Pipeline == nil || p.Pipeline.ID != c.Pipeline.ID || p.Pipeline.Pos != c.Pipeline.Pos || p.Pipeline.Index != c.Pipeline.Index-1 {
				continue
			}
			if n := path.Base(p.Name); n == "echo" || n == "printf" && len(p.Words) == 2 {
				for _, w := range p.Words[1:] {
					if v, ok := val(w); ok && (!strings.HasPrefix(v, "-") || len(feed) > 0) {
						for _, f := range splitFields(Word{Text: w.Text, Value: strp(v), Pos: w.Pos}) {
							f.Text, f.Pos = w.Text, w.Pos
							feed = append(feed, f)
						}
					}
				}
			}
			break
		}
		if len(feed) == 0 {
			continue
		}
		if rep, ok := xargsReplace(c.Wrappers); ok {
			for k := range c.Words {
				if v, ok := val(c.Words[k]); ok && v == rep {
					c.Words[k] = feed[0]
				}
			}
			continue
		}
		c.Words = append(c.Words, feed...)
	}
}

// hasWrapper reports whether a command runs through the program named.
func hasWrapper(c *ShellCommand, name string) bool {
	for _, w := range c.Wrappers {
		if path.Base(wordValue(w)) == name {
			return true
		}
	}
	return false
}

// xargsReplace is xargs's -I (or -i, --replace) string, if given.
func xargsReplace(ws []Word) (string, bool) {
	for k, w := range ws {
		v := wordValue(w)
		switch {
		case v == "-I" && k+1 < len(ws):
			return wordValue(ws[k+1]), true
		case strings.HasPrefix(v, "-I") && len(v) > 2:
			return v[2:], true
		case v == "-i" || v == "--replace":
			return "{}", true
		case strings.HasPrefix(v, "--replace="):
			return strings.TrimPrefix(v, "--replace="), true
		}
	}
	return "", false
}
