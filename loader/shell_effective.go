package loader

import (
	"fmt"
	"path"
	"strings"
)

// What a command runs is the command behind its wrappers: `sudo -E git
// clone …` runs git, `timeout 1800 make install` runs make, `env -S "bash
// ci/b.sh"` runs bash (commands.go has each wrapper's options). Every
// reader of a document — the built-in rules, a user's policy, the
// references discovery follows — wants that command, so the loader gives
// it: a command's name and words are the effective command's, and the
// words of the wrappers before it are its `wrappers`. A command whose
// wrappers run nothing (`command -v git`) is kept as written.

// lookThrough makes each command of a script the command its wrappers
// run; a command past maxWrappers is a part not read.
func lookThrough(s *Script) []Error {
	funcs := WrapperFunctions(*s)
	var errs []Error
	for i := range s.Commands {
		c := &s.Commands[i]
		splitStrings(c)
		e, bound := effective(*c, funcs)
		if bound {
			errs = append(errs, Error{Message: fmt.Sprintf("shell: this command runs through more than %d wrappers (env, sudo, nice …): what it runs is not read (see docs/robustness.md)", maxWrappers), Pos: c.Pos})
			continue
		}
		if e <= 0 {
			continue
		}
		c.Wrappers = append(c.Wrappers, c.Words[:e:e]...)
		c.Words = c.Words[e:]
		c.Name = wordValue(c.Words[0])
	}
	return errs
}

// splitStrings replaces the value of env's -S (--split-string) by the
// words it splits into: `env -S "bash ci/b.sh" x` runs bash ci/b.sh x.
// Each word is at its place in the value when the value is written
// plainly; else it keeps the value word's text and place.
func splitStrings(c *ShellCommand) {
	for i := 0; i < len(c.Words); i++ {
		if path.Base(wordValue(c.Words[i])) != "env" {
			continue
		}
		for j := i + 1; j < len(c.Words); j++ {
			v := wordValue(c.Words[j])
			var val Word
			var n int
			switch {
			case v == "-S" || v == "--split-string":
				if j+1 >= len(c.Words) {
					return
				}
				val, n = c.Words[j+1], 2
			case strings.HasPrefix(v, "--split-string="):
				val, n = suffixWord(c.Words[j], len("--split-string=")), 1
			case strings.HasPrefix(v, "-S"):
				val, n = suffixWord(c.Words[j], 2), 1
			case strings.HasPrefix(v, "-"):
				continue
			default:
				j = len(c.Words)
				continue
			}
			if val.Value == nil {
				return
			}
			fields := splitFields(val)
			words := append(append(append([]Word(nil), c.Words[:j]...), fields...), c.Words[j+n:]...)
			c.Words = words
			return
		}
		return
	}
}

// splitFields splits a literal word on white space, each field at its
// place when the word's text holds its value as is.
func splitFields(w Word) []Word {
	var out []Word
	plain := w.Value != nil && strings.Contains(w.Text, *w.Value) && !strings.Contains(*w.Value, "\n") && ascii(w.Text)
	base := 0
	if plain {
		base = strings.Index(w.Text, *w.Value)
	}
	v := *w.Value
	for i := 0; i < len(v); {
		for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
			i++
		}
		start := i
		for i < len(v) && v[i] != ' ' && v[i] != '\t' {
			i++
		}
		if start == i {
			continue
		}
		f := Word{Text: w.Text, Value: strp(v[start:i]), Pos: w.Pos}
		if plain {
			f.Text, f.Pos = v[start:i], shifted(w.Pos, base+start)
			f.Pos.EndLine, f.Pos.EndColumn = f.Pos.Line, f.Pos.Column+len(v[start:i])
		}
		out = append(out, f)
	}
	return out
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
