package loader

import (
	"path"
	"strings"
)

// uploadRefs are the files the upload at index i reads: its arguments
// (args, after the command's name and wrappers), its standard input, and
// what the commands before it in its pipeline read or print.
func uploadRefs(cmds []ShellCommand, i int, args []Word, add func(Word, string, Kind)) []FileRef {
	var out []FileRef
	c := cmds[i]
	for j := 0; j < len(args); j++ {
		if v := wordValue(args[j]); uploadValueOptions[v] {
			j++
			continue
		}
		add(args[j], "upload", KindPipeline)
	}
	// Commands inside its words ($(cat f), <(cat f)) and its
	// redirections (<<< "$(cat f)").
	spans := []Pos{c.Pos}
	for _, r := range c.Redirects {
		if r.Word != nil {
			spans = append(spans, r.Word.Pos)
		}
	}
	for _, n := range cmds {
		for _, sp := range spans {
			if n.Pos != c.Pos && inside(n.Pos, sp) {
				feeds(n, add)
				break
			}
		}
	}
	stdinRefs(c, add)
	if c.Pipeline == nil {
		return out
	}
	for _, k := range pipelineBefore(cmds, i) {
		prev := cmds[k]
		e := Effective(prev, nil)
		if e < 0 {
			continue
		}
		name := path.Base(wordValue(prev.Words[e]))
		switch {
		case readers[name] || name == "echo" || name == "printf":
			feeds(prev, add)
		case interpreters[name] || strings.HasPrefix(name, "python") || strings.HasPrefix(wordValue(prev.Words[e]), "./") || name == "node" || name == "ruby" || name == "perl":
			// A program prints the pipeline: what it prints cannot be
			// read. Its file is read as a script, and says so.
			j := e
			if !strings.HasPrefix(wordValue(prev.Words[e]), "./") {
				j = -1
				if a := scriptArg(prev.Words[e:]); a > 0 {
					j = e + a
				}
			}
			if j >= e && j < len(prev.Words) {
				gen := prev.Words[j]
				if r, glob, ok := localRef(wordValue(gen)); ok {
					out = append(out, FileRef{Path: r, Glob: glob, Via: "generator", Pos: gen.Pos,
						Note: "its output is uploaded as a Buildkite pipeline, which buildgate cannot read: what it prints is not checked"})
				}
			}
		default:
			feeds(prev, add)
		}
	}
	return out
}
