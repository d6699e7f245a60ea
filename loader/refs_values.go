package loader

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// A reference whose path is written with variables (`bash "$S"`, `pipeline
// upload ci/$F`, GitLab's `include: local: $INCLUDE`) names the file the
// variables' values make. The values a file gives its variables (its
// assignments, its env: or variables: entries, a for loop's words) are
// tried first, as the shell or the CI system would expand them; an
// expansion no value is known for is read as a glob of every file it may
// name (loader.FileRef), and a path that is nothing but such expansions
// names no file buildgate can tell: that is said at the reference
// (unresolvedNote), never dropped.

const (
	// maxValuesPerName bounds the values one variable is tried with, and
	// maxResolved the paths one reference is resolved to (their product
	// could be large in a file that assigns many values).
	maxValuesPerName = 1024
	maxResolved      = 1024
	// maxResolvedDoc bounds the paths all of a file's references resolve
	// to (each is looked for on disk); past it the rest keep their glob
	// reading and the file says so (BG001).
	maxResolvedDoc = 20_000
)

// unresolvedNote is said at a reference whose path is only expansions with
// no value in the file: which file it names is decided outside it (a CI
// variable, an input, a file read at run time).
const unresolvedNote = "the file this command reads or runs is named only by variables without a value in this file (%s): buildgate cannot tell which file it is, so it is not read (see docs/robustness.md)"

// varRe is one expansion of a variable: $NAME, ${NAME}, ${NAME:-default},
// ${NAME-default}.
var varRe = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-=]([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// values are the static values a file gives each variable.
type values map[string][]string

// overKey lists, in a values map, the variables given more values than
// maxValuesPerName: a path made with one of them is not resolved in full.
const overKey = "\x00over"

func (v values) add(name string, val *string) {
	if val == nil || name == "" {
		return
	}
	for _, x := range v[name] {
		if x == *val {
			return
		}
	}
	if len(v[name]) >= maxValuesPerName {
		if !slices.Contains(v[overKey], name) {
			v[overKey] = append(v[overKey], name)
		}
		return
	}
	v[name] = append(v[name], *val)
}

// script adds a script's assignments and loop variables. A value made of
// other variables (X="${X:-docker/bake.hcl}", F="$DIR/ci.yml") is what
// their values make, the defaults included, once the static ones are
// known (two rounds: a chain of three is rare in build scripts).
func (v values) script(s Script) {
	var made []Assignment
	for _, a := range s.Assignments {
		switch {
		case a.Append:
		case a.Value != nil:
			v.add(a.Name, a.Value)
		case strings.Contains(a.ValueText, "$"):
			made = append(made, a)
		}
	}
	for _, f := range s.ForLoops {
		for _, w := range f.Words {
			v.add(f.Var, w.Value)
		}
	}
	for range 2 {
		for _, a := range made {
			raw := dropQuotes.Replace(a.ValueText)
			xs, _ := expandValues(raw, v)
			for _, x := range xs {
				// Only a value made whole: one with expansions left (a
				// command substitution) is not a value of the file's.
				if !strings.ContainsAny(x, "$`") {
					v.add(a.Name, &x)
				}
			}
		}
	}
}

// docValues are the values a document gives its variables.
func docValues(d Document) values {
	v := values{}
	switch d := d.(type) {
	case *ShellDocument:
		for name, val := range d.vars {
			v.add(name, strp(val))
		}
		v.script(d.Script)
	case *PipelineDocument:
		for _, a := range d.Env {
			v.add(a.Name, a.Value)
		}
		for _, s := range d.Scripts {
			v.script(s.Script)
		}
	}
	return v
}

// resolveRefs replaces each reference written with variables by the paths
// their values make; one with a variable without a value keeps its glob
// reading, and one left naming no file gets unresolvedNote.
func resolveRefs(refs []FileRef, vals values) []FileRef {
	var out []FileRef
	// A script names the same few variables many times: each path is
	// resolved once.
	memo := map[string][]string{}
	notes := map[string]string{}
	total, over := 0, false
	for _, r := range refs {
		if r.raw == "" {
			out = append(out, r)
			continue
		}
		resolved, ok := memo[r.raw]
		if !ok && total > maxResolvedDoc {
			if !over {
				over = true
				out = append(out, FileRef{Via: r.Via, Kind: r.Kind, Pos: r.Pos, Unread: true,
					Note: fmt.Sprintf("this file's references with variables resolve to more than %d paths, more than buildgate looks for: the rest are read only as globs (see docs/robustness.md)", maxResolvedDoc)})
			}
			if r.Path != "" {
				out = append(out, r)
			}
			continue
		}
		if !ok {
			var complete bool
			resolved, complete = expandValues(r.raw, vals)
			memo[r.raw] = resolved
			total += len(resolved)
			if !complete {
				// A bound passed: the paths tried are not all the path
				// may name. The glob reading (each variable as *) names
				// every one; without one, it is said at the reference
				// (always for what the CI system reads as a pipeline,
				// where it could hide what the rules look for otherwise).
				if r.Path != "" {
					out = append(out, r)
				} else {
					out = append(out, FileRef{Via: r.Via, Kind: r.Kind, Pos: r.Pos, Unread: r.Via == "include" || r.Via == "upload" || r.Via == "uses",
						Note: fmt.Sprintf("the variables of this path take more values in this file than buildgate tries (%d per variable, %d paths per reference): not every file it may name is read (see docs/robustness.md)", maxValuesPerName, maxResolved)})
				}
			}
		}
		usable := 0
		for _, p := range resolved {
			if strings.ContainsAny(p, "$`") {
				continue // not made whole: the glob reading below stands
			}
			usable++
			if lp, glob, ok := localRef(p); ok {
				out = append(out, FileRef{Path: lp, Glob: glob, Via: r.Via, Kind: r.Kind, Pos: r.Pos, Note: r.Note})
			}
		}
		switch {
		case usable > 0:
			// The file's own values name the file; a glob of every file
			// the expansion may name would read unrelated ones.
		case r.Path != "":
			out = append(out, r)
		default:
			note, ok := notes[r.raw]
			if !ok {
				note = strings.Replace(unresolvedNote, "%s", unresolvedNames(r.raw), 1)
				notes[r.raw] = note
			}
			r.Note = note
			// A pipeline the CI system reads from an unknown file may be
			// the whole build: always said. A script or Dockerfile named
			// so is said where the file could hide what the rules look
			// for (`bash "$1"` in a helper is common and harmless).
			r.Unread = r.Via == "include" || r.Via == "upload" || r.Via == "uses"
			out = append(out, r)
		}
	}
	return out
}

// expandValues is the paths raw makes with every combination of the known
// values of its variables, or nil when one of them has none. An expansion
// with a default (${A:-x}) without a value is its default.
func expandValues(raw string, vals values) ([]string, bool) {
	out := []string{""}
	last := 0
	complete := true
	for _, m := range varRe.FindAllStringSubmatchIndex(raw, -1) {
		lit := raw[last:m[0]]
		last = m[1]
		name := submatch(raw, m, 1)
		if name == "" {
			name = submatch(raw, m, 3)
		}
		choices := vals[name]
		if len(choices) == 0 && m[4] >= 0 {
			choices = []string{raw[m[4]:m[5]]}
		}
		if len(choices) == 0 {
			return nil, true
		}
		if slices.Contains(vals[overKey], name) {
			complete = false
		}
		var next []string
		for _, prefix := range out {
			for _, c := range choices {
				if len(next) < maxResolved {
					next = append(next, prefix+lit+c)
				} else {
					complete = false
				}
			}
		}
		out = next
	}
	if last == 0 {
		return nil, true
	}
	for i := range out {
		out[i] += raw[last:]
	}
	return out, complete
}

func submatch(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

// unresolvedNames lists the variables of a path, for the note.
func unresolvedNames(raw string) string {
	var names []string
	for _, m := range varRe.FindAllStringSubmatch(raw, 8) {
		n := m[1] + m[3]
		names = append(names, "$"+n)
	}
	if len(names) == 0 {
		return strings.TrimSpace(raw)
	}
	return strings.Join(names, ", ")
}

// refFor is the reference a path as written makes: a file or a glob of
// the root (localRef), and the path as written when it holds variables,
// for resolveRefs. dir, when set, is the directory the path is read from
// as well (a script's own).
func refFor(v, via string, kind Kind, pos Pos) (FileRef, bool) {
	r := FileRef{Via: via, Kind: kind, Pos: pos}
	if strings.Contains(v, "://") {
		return r, false
	}
	// A path from the checkout's root as the CI system names it
	// ($GITHUB_WORKSPACE/ci/x, $(pwd)/ci/x …) is a path of the repository.
	if m := rootPrefixRe.FindStringIndex(dropQuotes.Replace(v)); m != nil {
		v = dropQuotes.Replace(v)[m[1]:]
	}
	r.Path, r.Glob, _ = localRef(v)
	if strings.ContainsAny(v, "$") {
		r.raw = dropQuotes.Replace(strings.TrimPrefix(v, "./"))
	}
	return r, r.Path != "" || r.raw != ""
}

// rootPrefixRe is the checkout's root as CI systems and scripts name it
// at the start of a path: GitHub's workspace (variable or expression),
// GitLab's project directory, Buildkite's checkout path, the working
// directory ($PWD, $(pwd): the root, or a directory the script changed
// into, which inDir tries), and git's top level; Buildkite writes $$ for $.
var rootPrefixRe = regexp.MustCompile(`^\$?(?:\$\{\{\s*github\.workspace\s*\}\}|\$\{?(?:GITHUB_WORKSPACE|CI_PROJECT_DIR|BUILDKITE_BUILD_CHECKOUT_PATH|PWD|WORKSPACE)\}?|\$\(\s*pwd\s*\)|` + "`pwd`" + `|\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\))/+`)

// inDir is a reference read from dir as well as from the root.
func (r FileRef) inDir(dir string) FileRef {
	if r.Path != "" {
		r.Path = path.Join(dir, r.Path)
	}
	if r.raw != "" {
		r.raw = dir + "/" + r.raw
	}
	return r
}

// maxCdDirs bounds the directories a script's references are also read
// from.
const maxCdDirs = 256

// scriptDirRe is how a script names its own directory: $(dirname "$0"),
// $(dirname "${BASH_SOURCE[0]}"), ${0%/*}, `dirname $0`, and the same in
// $(cd … && pwd).
var scriptDirRe = regexp.MustCompile(`\$\(\s*cd\s+"?\$\(\s*dirname\s+"?\$(?:\{BASH_SOURCE(?:\[0\])?\}|\{?0\}?)"?\s*\)"?\s*(?:&&|;)\s*pwd\s*\)|\$\(\s*dirname\s+"?\$(?:\{BASH_SOURCE(?:\[0\])?\}|\{?0\}?)"?\s*\)|` + "`dirname \"?\\$\\{?0\\}?\"?`" + `|\$\{0%/\*\}|\$\{BASH_SOURCE(?:\[0\])?%/\*\}`)

// cdDirs are the directories a script changes into with cd or pushd (a
// literal path, or one made from the script's own directory): a file it
// then runs by a relative path is read from each, as well as from the
// root and the script's directory (which directory holds at the command
// is not tracked: each is tried).
func cdDirs(s Script, dir string) ([]string, *Pos) {
	var out []string
	var over *Pos
	cds := 0
	seen := map[string]bool{}
	for _, c := range s.Commands {
		if (c.Name != "cd" && c.Name != "pushd") || len(c.Words) < 2 {
			continue
		}
		if cds >= maxCdDirs {
			if over == nil {
				over = &c.Pos
			}
			continue
		}
		cds++
		w := c.Words[len(c.Words)-1]
		v := wordValue(w)
		if w.Value == nil {
			v = scriptDirRe.ReplaceAllLiteralString(dropQuotes.Replace(w.Text), dir)
			if strings.ContainsAny(v, "$`") {
				continue
			}
		}
		if v == "" || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "-") || strings.HasPrefix(v, "~") {
			continue
		}
		for _, d := range []string{path.Clean(v), path.Join(dir, v)} {
			if d != "." && !strings.HasPrefix(d, "../") && d != ".." && !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out, over
}
