package loader

import (
	"encoding/json"
	"fmt"
	"reflect"
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
func inlineDockerfile(rel string, src []byte, value string, keep []int, at Pos, atText string, where string) ([]InlineScript, []Error) {
	var doc *DockerfileDocument
	if keep != nil && len(keep) == len(value) {
		virt := blanked(src)
		for i, off := range keep {
			if off >= 0 && off < len(virt) && virt[off] != '\n' {
				virt[off] = value[i]
			}
		}
		doc = loadDockerfile(rel, virt)
	} else {
		doc = loadDockerfile(rel, []byte(value))
		placeAll(doc, at, atText)
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
// value's place, its text the value's text in the file.
func placeAll(doc *DockerfileDocument, at Pos, atText string) {
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
						ws[wi].Pos, ws[wi].Text = at, atText
					}
				}
				if c.Fetch != nil {
					c.Fetch.Pos, c.Fetch.URL.Pos, c.Fetch.URL.Text = at, at, atText
				}
				c.Redirects = nil
				c.Pipeline = nil
			}
			for ai := range s.Assignments {
				s.Assignments[ai].Pos, s.Assignments[ai].NamePos, s.Assignments[ai].Text = at, at, atText
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
			if a.Name != "dockerfile-inline" || !a.Static {
				continue
			}
			if n >= maxInlineDockerfiles {
				if n == maxInlineDockerfiles {
					doc.Errors = append(doc.Errors, Error{Message: fmt.Sprintf("this file holds more than %d inline Dockerfiles: this one and the rest are not read (see docs/robustness.md)", maxInlineDockerfiles), Pos: a.Pos})
				}
				n++
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
			at := a.Pos
			atText := a.ValueText
			if len(a.Strings) == 1 {
				at, atText = a.Strings[0].Pos, a.Strings[0].Text
			}
			scripts, errs := inlineDockerfile(doc.Path, h.src, value, keep, at, atText, "target."+wordValue(b.Labels[0])+".dockerfile-inline")
			doc.Scripts = append(doc.Scripts, scripts...)
			doc.Errors = append(doc.Errors, errs...)
		}
	}
}

// inlineShifted parses a Dockerfile given as a value whose line L, column
// C is the file's line L+dl, column C+dc, and places its elements there.
func inlineShifted(rel, value string, dl, dc int, where string) ([]InlineScript, []Error) {
	keep := make([]int, len(value))
	for i := range keep {
		keep[i] = i
	}
	scripts, errs := inlineDockerfile(rel, []byte(value), value, keep, Pos{}, "", where)
	for i := range scripts {
		shiftPositions(reflect.ValueOf(&scripts[i]).Elem(), dl, dc)
	}
	for i := range errs {
		shiftPositions(reflect.ValueOf(&errs[i]).Elem(), dl, dc)
	}
	return scripts, errs
}

var posType = reflect.TypeOf(Pos{})

// shiftPositions moves every Pos inside v by dl lines and dc columns.
func shiftPositions(v reflect.Value, dl, dc int) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == posType {
			p := v.Addr().Interface().(*Pos)
			p.Line, p.EndLine = p.Line+dl, p.EndLine+dl
			p.Column, p.EndColumn = p.Column+dc, p.EndColumn+dc
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				shiftPositions(v.Field(i), dl, dc)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			shiftPositions(v.Index(i), dl, dc)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			shiftPositions(v.Elem(), dl, dc)
		}
	}
}

// blanked is text with every byte but its line breaks a space: a file's
// text in which a part put back keeps its place.
func blanked(text []byte) []byte {
	out := make([]byte, len(text))
	for i, c := range text {
		if c == '\n' {
			out[i] = '\n'
		} else {
			out[i] = ' '
		}
	}
	return out
}
