package loader

import (
	"bytes"
	"path"
	"strings"
)

// inlinePipelines reads a pipeline a script uploads from a here-document
// (buildkite-agent pipeline upload <<EOF, or cat <<EOF | buildkite-agent
// pipeline upload: solana's pattern): the body is a Buildkite pipeline,
// and what it has the CI system run is what the script does, at its place
// in the script. Its scripts' commands, assignments and environment are
// added to the script's (each word where the body has it: the body is
// read from the file's own lines); its errors are the script's.
func inlinePipelines(doc *ShellDocument, src []byte) {
	funcs := WrapperFunctions(doc.Script)
	var bodies []ShellHeredoc
	for i, c := range doc.Commands {
		e := Effective(c, funcs)
		if e < 0 || len(c.Words) < e+3 || path.Base(wordValue(c.Words[e])) != "buildkite-agent" ||
			!literal(c.Words[e+1], "pipeline") || !literal(c.Words[e+2], "upload") {
			continue
		}
		bodies = append(bodies, heredocsOf(doc.Script, c)...)
		if c.Pipeline == nil {
			continue
		}
		for k := i - 1; k >= 0; k-- {
			p := doc.Commands[k]
			if p.Pipeline != nil && p.Pipeline.ID == c.Pipeline.ID && p.Pipeline.Pos == c.Pipeline.Pos {
				bodies = append(bodies, heredocsOf(doc.Script, p)...)
			}
		}
	}
	if len(bodies) == 0 {
		return
	}
	idx := newLineIndex(src)
	for _, h := range bodies {
		b := h.Pos
		// The closing delimiter is no line of the body.
		if b.EndLine > b.Line && strings.TrimSpace(idx.lineText(b.EndLine)) == strings.Trim(h.Delimiter, `'"`) {
			b.EndLine--
		}
		if b.Line < 1 || b.EndLine < b.Line {
			continue
		}
		// The body's lines, after as many line breaks as lines before it:
		// every position the pipeline's loader gives is the script's.
		text := append(bytes.Repeat([]byte{'\n'}, b.Line-1), src[idx.lineStart(b.Line):idx.lineStart(b.EndLine+1)]...)
		pd := loadPipelineAs(doc.Path, text, "buildkite")
		doc.Assignments = append(doc.Assignments, pd.Env...)
		for _, s := range pd.Scripts {
			doc.merge(s.Script)
		}
		for _, e := range pd.Errors {
			e.Message = "in the pipeline this script uploads: " + e.Message
			doc.Errors = append(doc.Errors, e)
		}
	}
}

// heredocsOf are the spans of the here-documents a command reads on its
// standard input (its << and <<- redirections).
func heredocsOf(s Script, c ShellCommand) []ShellHeredoc {
	var out []ShellHeredoc
	for _, r := range c.Redirects {
		if (r.Op != "<<" && r.Op != "<<-") || r.Word == nil {
			continue
		}
		for _, h := range s.Heredocs {
			if h.Delimiter == r.Word.Text && h.Pos.Line > r.Pos.Line {
				out = append(out, h)
				break
			}
		}
	}
	return out
}
