package loader

import (
	"bytes"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"go.yaml.in/yaml/v3"
)

// A buildgate:ignore marker counts only in a real comment of its file's
// syntax (issue 26): text that looks like one inside a here-document's
// data, a quoted string, a LABEL value or a YAML string is not a comment
// to the tool that reads the file, and must not suppress anything. The
// markers scanSuppressions finds by their text are kept when their # (or
// //) is where the file's parse says a comment starts. pip's requirements
// files are the exception: pip's own rule (a # at a line's start or after
// white space) is what scanSuppressions matches.

// realComments keeps the markers that start a real comment of doc.
func realComments(doc Document, src []byte, ss []Suppression) []Suppression {
	if len(ss) == 0 {
		return nil
	}
	var starts []Pos
	switch d := doc.(type) {
	case *RequirementsDocument:
		return ss
	case *ShellDocument:
		for _, c := range d.Comments {
			starts = append(starts, c.Pos)
		}
	case *DockerfileDocument:
		starts = append(dockerCommentLines(d, src), d.shellComments...)
	case *HCLDocument:
		starts = hclComments(src)
	case *PipelineDocument:
		starts = d.comments
	}
	at := map[[2]int]bool{}
	for _, p := range starts {
		at[[2]int{p.Line, p.Column}] = true
	}
	out := ss[:0:0]
	for _, s := range ss {
		if at[[2]int{s.Pos.Line, s.Pos.Column}] {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// dockerCommentLines are the comments of a Dockerfile as buildkit reads
// them: a line whose first character past white space is #, outside the
// bodies of here-documents (which are the data of a file or a script,
// whose own comments the RUN's parse gives).
func dockerCommentLines(d *DockerfileDocument, src []byte) []Pos {
	x := newLineIndex(src)
	var bodies [][2]int
	add := func(ins []Instruction) {
		for _, in := range ins {
			for _, h := range in.Heredocs {
				bodies = append(bodies, [2]int{h.Pos.Line, h.Pos.EndLine})
			}
		}
	}
	add(d.Preamble)
	for _, st := range d.Stages {
		add(st.Instructions)
	}
	inBody := func(line int) bool {
		for _, b := range bodies {
			if line >= b[0] && line <= b[1] {
				return true
			}
		}
		return false
	}
	var out []Pos
	for line := 1; line <= x.lines(); line++ {
		text := []byte(x.lineText(line))
		t := bytes.TrimLeft(text, " \t\v\f\r")
		if len(t) == 0 || t[0] != '#' || inBody(line) {
			continue
		}
		off := x.lineStart(line) + len(text) - len(t)
		out = append(out, x.span(off, off+1))
	}
	return out
}

// hclComments are where the comments of an HCL file start, as its lexer
// reads them (# and // line comments, /* */ blocks).
func hclComments(src []byte) []Pos {
	if len(src) > maxHCLBytes {
		return nil // not read: its markers are no comments either
	}
	x := newLineIndex(src)
	toks, _ := hclsyntax.LexConfig(src, "", hcl.InitialPos)
	var out []Pos
	for _, t := range toks {
		if t.Type == hclsyntax.TokenComment {
			out = append(out, x.span(t.Range.Start.Byte, t.Range.Start.Byte+1))
		}
	}
	return out
}

// yamlComments records where the comments of a YAML document start: a #
// at a line's start or after white space that is inside no scalar of the
// document (a scalar's text is found as mapScalar maps it). The comments
// of scripts are recorded by their parse.
func (p *pipeLoad) yamlComments(doc *yaml.Node) {
	var spans [][2]int
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || seen[n] || depth > 100 || len(seen) > maxPipelineVisits {
			return
		}
		seen[n] = true
		if n.Kind == yaml.ScalarNode {
			if m, ok := p.mapScalar(n); ok && len(m.text) > 0 {
				spans = append(spans, [2]int{int(m.from[0]), int(m.to[len(m.to)-1])})
			} else if !ok {
				// Not placed: its line counts as a scalar's from its
				// start to the line's end.
				s := p.nodeStart(n)
				spans = append(spans, [2]int{s, p.idx.lineEnd(p.idx.lineOf(s))})
			}
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	src := p.idx.src
	for i := bytes.IndexByte(src, '#'); i >= 0; {
		if i == 0 || src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n' || src[i-1] == '\r' {
			// Scalars do not overlap: the last that starts before the #
			// is the only one that may hold it.
			k := sort.Search(len(spans), func(k int) bool { return spans[k][0] > i }) - 1
			if k < 0 || i >= spans[k][1] {
				p.doc.comments = append(p.doc.comments, p.idx.span(i, i+1))
			}
		}
		j := bytes.IndexByte(src[i+1:], '#')
		if j < 0 {
			break
		}
		i += 1 + j
	}
}
