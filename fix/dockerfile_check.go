package fix

// The check of a fixed Dockerfile: parsed again as buildkit reads it, it
// must not refer to anything the fix removed.

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/buildgate/buildgate/loader"
)

var varRef = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)

// checkDockerfile parses a fixed Dockerfile as buildkit reads it and
// looks for what the removal left dangling: a stage built FROM, copied
// or mounted from a removed stage, a removed ARG still expanded where no
// ARG declares it.
func checkDockerfile(path string, src []byte, removed map[string]bool, args []string, had []loader.Error) error {
	doc, ok := loader.Parse(loader.KindDockerfile, path, src).(*loader.DockerfileDocument)
	if !ok {
		return fmt.Errorf("not be a Dockerfile")
	}
	before := map[string]int{}
	for _, e := range had {
		before[e.Message]++
	}
	for _, e := range doc.Errors {
		if before[e.Message] == 0 {
			return fmt.Errorf("not parse (line %d: %s)", e.Pos.Line, e.Message)
		}
		before[e.Message]--
	}
	declared := map[string]bool{}
	for _, a := range doc.GlobalArgs {
		declared[a.Name] = true
	}
	if err := defaultsNameRemoved(doc, removed); err != nil {
		return err
	}
	removedArg := map[string]bool{}
	for _, a := range args {
		removedArg[a] = true
	}
	var all []loader.Instruction
	all = append(all, doc.Preamble...)
	for _, st := range doc.Stages {
		if removed[strings.ToLower(st.Base.Text)] {
			return fmt.Errorf("build stage %q FROM the removed stage %q", st.Name, st.Base.Text)
		}
		all = append(all, st.Instructions...)
	}
	for _, ins := range all {
		for _, a := range ins.ArgDefs {
			declared[a.Name] = true
			// A stage's bare ARG takes the global default the fix removed:
			// the value would silently become empty.
			if a.Default == nil && removedArg[a.Name] && !globalDeclared(doc, a.Name) {
				return fmt.Errorf("leave a bare ARG %s (line %d) whose value came from a removed declaration (a global default or a build argument)", a.Name, ins.Pos.Line)
			}
		}
		for _, e := range ins.Env {
			declared[e.Key] = true
		}
		if err := fromRemoved(ins, removed); err != nil {
			return err
		}
	}
	return expandsRemovedArg(all, args, declared)
}

// defaultsNameRemoved finds an ARG whose default names a removed stage:
// FROM ${ARG} and --from=${ARG} expand it, and the stage is gone.
func defaultsNameRemoved(doc *loader.DockerfileDocument, removed map[string]bool) error {
	var defaults []loader.ArgDef
	defaults = append(defaults, doc.GlobalArgs...)
	for _, ins := range doc.Preamble {
		defaults = append(defaults, ins.ArgDefs...)
	}
	for _, st := range doc.Stages {
		for _, ins := range st.Instructions {
			defaults = append(defaults, ins.ArgDefs...)
		}
	}
	for _, a := range defaults {
		if a.Default == nil {
			continue
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(*a.Default), func(r rune) bool { return r > 0x7f || !wordClass("stage")(byte(r)) }) {
			if removed[w] {
				return fmt.Errorf("keep ARG %s (line %d), whose default names the removed stage %q (FROM or --from may expand it)", a.Name, a.Pos.Line, w)
			}
		}
	}
	return nil
}

// fromRemoved finds what an instruction takes from a stage the fix
// removed: a COPY --from or a mount of it by name, or any by number when
// a stage goes (removing one may shift what the number means).
func fromRemoved(ins loader.Instruction, removed map[string]bool) error {
	if len(removed) > 0 && stageNumber(copyFrom(ins)) {
		return fmt.Errorf("shift what --from=%s names (a stage is removed before or at it; line %d)", copyFrom(ins), ins.Pos.Line)
	}
	for _, m := range ins.Mounts {
		if len(removed) > 0 && stageNumber(m.From) {
			return fmt.Errorf("shift what from=%s names (a stage is removed before or at it; line %d)", m.From, ins.Pos.Line)
		}
	}
	if from := copyFrom(ins); removed[strings.ToLower(from)] {
		return fmt.Errorf("copy from the removed stage %q (line %d)", from, ins.Pos.Line)
	}
	for _, m := range ins.Mounts {
		if removed[strings.ToLower(m.From)] {
			return fmt.Errorf("mount the removed stage %q (line %d)", m.From, ins.Pos.Line)
		}
	}
	return nil
}

// stageNumber reports whether a --from or from= names a stage by its
// number.
func stageNumber(from string) bool {
	return from != "" && strings.Trim(from, "0123456789") == ""
}

// expandsRemovedArg finds a removed ARG (args, which it sorts) that an
// instruction or its heredocs still expand where no ARG or ENV of the
// fixed file declares it.
func expandsRemovedArg(all []loader.Instruction, args []string, declared map[string]bool) error {
	sort.Strings(args)
	for _, ins := range all {
		text := ins.Original
		for _, h := range ins.Heredocs {
			text += "\n" + h.Body
		}
		for _, m := range varRef.FindAllStringSubmatch(text, -1) {
			if i := sort.SearchStrings(args, m[1]); i < len(args) && args[i] == m[1] && !declared[m[1]] {
				return fmt.Errorf("expand the removed ARG %s (line %d)", m[1], ins.Pos.Line)
			}
		}
	}
	return nil
}

// copyFrom is the stage (or image) a COPY --from names, "" for none.
func copyFrom(ins loader.Instruction) string {
	if ins.CopyFrom != nil && ins.CopyFrom.Value != nil {
		return *ins.CopyFrom.Value
	}
	for _, f := range ins.Flags {
		if f.Name == "from" {
			return f.Value
		}
	}
	return ""
}

func globalDeclared(doc *loader.DockerfileDocument, name string) bool {
	for _, a := range doc.GlobalArgs {
		if a.Name == name {
			return true
		}
	}
	return false
}

// unreadable reports whether a Dockerfile's errors leave its structure
// unknown: an error that is not one of a RUN's own (a requirement pip
// refuses, a script's syntax) is buildkit's, which the planner cannot
// plan around. A file with only a RUN's errors is fixed around them
// (untouchedErrors).
func unreadable(doc *loader.DockerfileDocument) bool {
	var runs []loader.Pos
	all := append([]loader.Instruction(nil), doc.Preamble...)
	for _, st := range doc.Stages {
		all = append(all, st.Instructions...)
	}
	for _, ins := range all {
		if ins.Cmd == "run" {
			runs = append(runs, ins.Pos)
		}
	}
	for _, e := range doc.Errors {
		inRun := false
		for _, r := range runs {
			inRun = inRun || e.Syntax && e.Pos.Line >= r.Line && max(e.Pos.EndLine, e.Pos.Line) <= r.EndLine
		}
		if !inRun {
			return true
		}
	}
	return false
}

// untouchedErrors refuses edits that touch a line holding an error of the
// file: what cannot be read is not changed.
func untouchedErrors(src []byte, errs []loader.Error, edits []Edit) error {
	for _, e := range errs {
		for _, ed := range edits {
			l0, l1 := lineOf(src, ed.Start), lineOf(src, max(ed.End-1, ed.Start))
			if e.Pos.Line <= l1 && max(e.Pos.EndLine, e.Pos.Line) >= l0 {
				return fmt.Errorf("change line %d, which holds what cannot be read (%s)", e.Pos.Line, e.Message)
			}
		}
	}
	return nil
}

// sameInstructions checks that the fixed file has the instructions the
// plan keeps, no fewer: an edit that left a line continued into the next
// instruction would join them (buildkit skips empty continuation lines:
// `RUN pip install einops \` then `USER app` is one RUN).
func sameInstructions(path string, doc *loader.DockerfileDocument, fixed []byte, cut *lineCut) error {
	count := func(d *loader.DockerfileDocument) int {
		n := len(d.Preamble)
		for _, st := range d.Stages {
			n += len(st.Instructions)
		}
		return n
	}
	kept := 0
	all := append([]loader.Instruction(nil), doc.Preamble...)
	for _, st := range doc.Stages {
		all = append(all, st.Instructions...)
	}
	for _, ins := range all {
		gone := true
		for l := ins.Pos.Line; l <= max(ins.Pos.EndLine, ins.Pos.Line); l++ {
			gone = gone && cut.cut[l]
		}
		if !gone {
			kept++
		}
	}
	after, ok := loader.Parse(loader.KindDockerfile, path, fixed).(*loader.DockerfileDocument)
	if !ok || count(after) != kept {
		return fmt.Errorf("join two instructions (%d instructions where %d stay)", count(after), kept)
	}
	return nil
}
