package loader

import (
	"encoding/json"
	"fmt"
)

// A Dockerfile can be written inside another file: bake's
// `dockerfile-inline` and compose's `dockerfile_inline` (issue 28). Its
// RUNs are code of the build like any Dockerfile's; the file that holds
// it gets them as its scripts, read by buildkit's parser as a Dockerfile
// of its own would be.
//
// When the Dockerfile's text is the file's bytes (an HCL heredoc, a YAML
// block scalar), it is parsed in place: the holding file's text with
// everything else blanked, so that every position is exact. Otherwise (a
// quoted string with escapes) it is parsed from its value and each of its
// elements is placed at the value.

// InlineScript is the script of a RUN of a Dockerfile written inside the
// file.
type InlineScript struct {
	// Where names the value that holds the Dockerfile:
	// target.NAME.dockerfile-inline, services.NAME.build.dockerfile_inline.
	Where string `json:"where"`
	// Instruction is the RUN as buildkit joins it.
	Instruction string `json:"instruction"`
	Pos         Pos    `json:"pos"`
	Script             // flattened: functions, assignments, commands …
}

// maxInlineDockerfiles bounds the inline Dockerfiles read in one file.
const maxInlineDockerfiles = 64

// inlineDockerfile parses a Dockerfile held in src: in place when keep
// (the source offsets of the Dockerfile's bytes, one per byte of value)
// maps each of its bytes to the file, else from value with every element
// at the place at.
func inlineDockerfile(rel string, src []byte, value string, keep []int, at Pos, where string) ([]InlineScript, []Error) {
	var doc *DockerfileDocument
	if keep != nil && len(keep) == len(value) {
		virt := make([]byte, len(src))
		for i, c := range src {
			if c == '\n' {
				virt[i] = '\n'
			} else {
				virt[i] = ' '
			}
		}
		for i, off := range keep {
			if off >= 0 && off < len(virt) && virt[off] != '\n' {
				virt[off] = value[i]
			}
		}
		doc = loadDockerfile(rel, virt)
	} else {
		doc = loadDockerfile(rel, []byte(value))
		placeAll(doc, at)
	}
	var out []InlineScript
	for _, st := range doc.Stages {
		for _, in := range st.Instructions {
			if in.Shell != nil {
				out = append(out, InlineScript{Where: where, Instruction: in.Original, Pos: in.Pos, Script: *in.Shell})
			}
		}
	}
	var errs []Error
	for _, e := range doc.Errors {
		e.Message = fmt.Sprintf("in the Dockerfile of %s: %s", where, e.Message)
		errs = append(errs, e)
	}
	return out, errs
}

// placeAll puts every element of a Dockerfile parsed from a value at the
// value's place.
func placeAll(doc *DockerfileDocument, at Pos) {
	for si := range doc.Stages {
		for ii := range doc.Stages[si].Instructions {
			in := &doc.Stages[si].Instructions[ii]
			in.Pos = at
			if in.Shell == nil {
				continue
			}
			s := in.Shell
			for ci := range s.Commands {
				c := &s.Commands[ci]
				c.Pos = at
				for _, ws := range [][]Word{c.Words, c.Wrappers} {
					for wi := range ws {
						ws[wi].Pos = at
					}
				}
				if c.Fetch != nil {
					c.Fetch.Pos, c.Fetch.URL.Pos = at, at
				}
				c.Redirects = nil
				c.Pipeline = nil
			}
			for ai := range s.Assignments {
				s.Assignments[ai].Pos, s.Assignments[ai].NamePos = at, at
				s.Assignments[ai].Words, s.Assignments[ai].Array = []Word{}, nil
			}
			s.Expansions, s.ForLoops, s.CasePatterns, s.Heredocs, s.Functions = []Expansion{}, []ForLoop{}, []CasePattern{}, []ShellHeredoc{}, []ShellFunction{}
		}
	}
	for i := range doc.Errors {
		doc.Errors[i].Pos = at
	}
}

// hclInline reads the dockerfile-inline of a bake file's targets.
func (h *hclLoad) hclInline(doc *HCLDocument) {
	n := 0
	for _, b := range doc.Blocks {
		if b.Type != "target" || len(b.Labels) == 0 {
			continue
		}
		for _, a := range b.Attributes {
			if a.Name != "dockerfile-inline" || !a.Static || n >= maxInlineDockerfiles {
				continue
			}
			var value string
			if json.Unmarshal(a.Value, &value) != nil {
				continue
			}
			n++
			var keep []int
			// A heredoc or a string without escapes: its bytes are the
			// file's, in order.
			if len(a.Strings) == 1 && a.Strings[0].Value != nil && *a.Strings[0].Value == value && a.Strings[0].Text == value {
				s := h.idx.lineStart(a.Strings[0].Pos.Line) + a.Strings[0].Pos.Column - 1
				if s >= 0 && s+len(value) <= len(h.src) && string(h.src[s:s+len(value)]) == value {
					keep = make([]int, len(value))
					for i := range keep {
						keep[i] = s + i
					}
				}
			}
			scripts, errs := inlineDockerfile(doc.Path, h.src, value, keep, a.Pos, "target."+wordValue(b.Labels[0])+".dockerfile-inline")
			doc.Scripts = append(doc.Scripts, scripts...)
			doc.Errors = append(doc.Errors, errs...)
		}
	}
}
