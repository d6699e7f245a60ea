package fix

// What a script unit does besides its own words: the variables it sets
// that the rest of the script sees, an assignment a kept read relies on,
// and the chains and options that are the source build's own.

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/buildgate/buildgate/finding"
	"mvdan.cc/sh/v3/syntax"
)

// buildTools are the programs whose `build` (or `buildx build`, `bake`)
// takes --build-arg NAME=VALUE options.
var buildTools = map[string]bool{"docker": true, "podman": true, "buildah": true, "nerdctl": true}

// buildArgs removes, from a `docker build` (buildx build, podman/buildah
// build) command of a script, the `--build-arg NAME=…` options whose NAME a
// finding names, as the CI pipeline planner does (issue 30: a script that
// passes the source build's arguments keeps its other options).
func (p *shPlan) buildArgs(c *syntax.CallExpr) {
	if len(c.Args) < 3 || !buildTools[c.Args[0].Lit()] {
		return
	}
	building := false
	for _, a := range c.Args[1:] {
		if l := a.Lit(); l == "build" || l == "bake" || l == "bud" {
			building = true
		}
	}
	if !building {
		return
	}
	for i := 1; i < len(c.Args); i++ {
		w := c.Args[i]
		first := w
		switch {
		case c.Args[i-1].Lit() == "--build-arg":
			first = c.Args[i-1]
		case strings.HasPrefix(w.Lit(), "--build-arg="):
		default:
			continue
		}
		is := p.in(w)
		if len(is) == 0 || !literalWord(w) {
			continue
		}
		// The finding must name the argument, not its value.
		name, _, _ := strings.Cut(strings.TrimPrefix(literalText(w), "--build-arg="), "=")
		if !p.named[name] && !p.nameAt(is, w, name) {
			continue
		}
		e, why := optionEdit(p.src, int(first.Pos().Offset()), int(w.End().Offset()))
		if why != "" {
			continue
		}
		p.inline = append(p.inline, e)
		for _, k := range is {
			p.fixed[k] = true
		}
	}
}

// nameAt reports whether one of the findings is on name's place in w.
func (p *shPlan) nameAt(is []int, w *syntax.Word, name string) bool {
	at := bytes.Index(p.src[w.Pos().Offset():w.End().Offset()], []byte(name))
	if at < 0 {
		return false
	}
	start := int(w.Pos().Offset()) + at
	for _, i := range is {
		if p.offs[i] >= start && p.offs[i] < start+len(name) {
			return true
		}
	}
	return false
}

// overwritten finds a removed assignment of a variable no finding names
// that a kept read after it, in the same function, would now see another
// value of: one a kept assignment before it gave (`read -r TAG` …
// `TAG="${MOONCAKE_CACHE_KEY}"` … `docker pull "x:${TAG}"`). A kept
// assignment between them sets it again, and then nothing changes.
// Positions are the script's own; the first such read is told.
func (p *shPlan) overwritten(f *syntax.File, edits []Edit) error {
	gone := func(off int) bool {
		if p.cut.cut[lineOf(p.src, off)] {
			return true
		}
		_, ok := Covering(edits, off)
		return ok
	}
	type site struct {
		fn, name string
		off      int
		set      bool
	}
	var sites []site
	var walk func(n syntax.Node, fn string)
	walk = func(n syntax.Node, fn string) {
		syntax.Walk(n, func(m syntax.Node) bool {
			switch x := m.(type) {
			case *syntax.FuncDecl:
				if m != n {
					walk(x.Body, x.Name.Value)
					return false
				}
			case *syntax.Assign:
				if x.Name != nil && !x.Naked {
					sites = append(sites, site{fn, x.Name.Value, int(x.Pos().Offset()), true})
				}
			case *syntax.ForClause:
				// A loop sets its variable (its last value stays after it).
				if wi, ok := x.Loop.(*syntax.WordIter); ok && wi.Name != nil {
					sites = append(sites, site{fn, wi.Name.Value, int(x.Pos().Offset()), true})
				}
			case *syntax.ParamExp:
				if x.Param != nil {
					sites = append(sites, site{fn, x.Param.Value, int(x.Pos().Offset()), false})
				}
			}
			return true
		})
	}
	walk(f, "")
	for i, a := range sites {
		if !a.set || p.named[a.name] || !gone(a.off) {
			continue
		}
		keptBefore := false
		for _, b := range sites[:i] {
			if b.set && b.fn == a.fn && b.name == a.name && !gone(b.off) {
				keptBefore = true
			}
		}
		if !keptBefore {
			continue // checkShell looks at reads of what only removed commands set
		}
		for _, r := range sites[i+1:] {
			if r.fn != a.fn || r.name != a.name || gone(r.off) {
				continue
			}
			if r.set {
				break // set again before any kept read
			}
			return fmt.Errorf("read %s on line %d with another value than the removed assignment on line %d gave it", a.name, lineOf(p.src, r.off), lineOf(p.src, a.off))
		}
	}
	return nil
}

// prepCmds prepare or report a source build's steps without doing work of
// their own: a chain of them and the build's own steps is the build.
var prepCmds = map[string]bool{"cd": true, "pushd": true, "popd": true, "mkdir": true, "rm": true, "echo": true, "printf": true, "true": true, ":": true, "ls": true}

// stateCmds change the shell running the script (its directory, options,
// variables): outside a subshell, a chain that runs one does more than
// the source build.
var stateCmds = map[string]bool{"cd": true, "pushd": true, "popd": true, "export": true, "set": true, "source": true, ".": true, "shopt": true, "umask": true, "alias": true, "unset": true, "declare": true, "eval": true}

// buildChain reports whether a statement is a source build of its own:
// a subshell, or an && chain, every command of which a finding names or
// only prepares (cd, mkdir, rm, echo), with at least one finding, and no
// output redirection. A subshell's cd and assignments stay inside it; a
// chain in the script's own shell may not change its state (issue 30:
// nixl's `( cd /tmp && git clone …Mooncake.git && … && ninja install )`).
func (p *shPlan) buildChain(st *syntax.Stmt, subshell bool) bool {
	if st.Background || st.Negated || len(st.Redirs) > 0 || len(p.in(st)) == 0 {
		return false
	}
	p.scope = p.buildScope(st)
	defer func() { p.scope = nil }()
	ok := true
	syntax.Walk(st, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryCmd:
			if x.Op != syntax.AndStmt {
				ok = false
			}
		case *syntax.Stmt:
			if len(x.Redirs) > 0 && x != st {
				for _, r := range x.Redirs {
					if r.Op != syntax.RdrIn && (r.Word == nil || r.Word.Lit() != "/dev/null") {
						ok = false
					}
				}
			}
		case *syntax.CallExpr:
			ok = ok && p.chainCall(st, x, subshell)
		case *syntax.DeclClause:
			// export X=… ending a RUN (above), its values' substitutions
			// (mktemp -d) with it; anywhere else a declaration is the
			// script's.
			ok = ok && p.opt.endsShell && st == p.lastTop
			return false
		case *syntax.IfClause, *syntax.ForClause, *syntax.WhileClause, *syntax.CaseClause, *syntax.FuncDecl, *syntax.TestClause:
			// A test decides whether the rest runs: that is an if, which
			// the unit rules weigh (true when the variable is empty?).
			ok = false
		}
		return ok
	})
	return ok && p.hasStep(st)
}

// chainCall weighs one command of a chain buildChain weighs: an
// assignment only in a subshell; in the script's own shell no command
// that changes its state, except in the chain that ends a RUN's script
// (podman's `set -x && export GOPATH=… && git clone … && rm -rf
// "$GOPATH"`: the shell ends with it, so nothing sees what it changes);
// and each a step of the build, a preparation of it, or a read of its
// variables.
func (p *shPlan) chainCall(st *syntax.Stmt, x *syntax.CallExpr, subshell bool) bool {
	if len(x.Args) == 0 {
		return subshell // an assignment: the subshell's own
	}
	name := x.Args[0].Lit()
	last := p.opt.endsShell && st == p.lastTop
	if !subshell && !last && stateCmds[name] {
		return false
	}
	shellState := last && (name == "set" || name == "export")
	prep := prepCmds[name] && p.prepares(x)
	return len(p.in(x)) > 0 || prep || shellState || p.readsSource(&syntax.Stmt{Cmd: x})
}

// buildPaths are what a unit or chain of the source build works on: the
// absolute paths its commands with findings name (the clone's directory,
// where it installs), and the variables it sets itself (GOPATH=$(mktemp
// -d) of podman's chain).
type buildPaths struct {
	paths []string
	vars  map[string]bool
}

func (p *shPlan) buildScope(n syntax.Node) *buildPaths {
	b := &buildPaths{vars: map[string]bool{}}
	syntax.Walk(n, func(m syntax.Node) bool {
		switch x := m.(type) {
		case *syntax.CallExpr:
			if len(x.Args) == 0 || len(p.in(x)) == 0 {
				return true
			}
			for _, w := range x.Args[1:] {
				if l := literalText(w); strings.HasPrefix(l, "/") {
					b.paths = append(b.paths, strings.TrimRight(l, "/"))
				}
			}
		case *syntax.Assign:
			if x.Name != nil {
				b.vars[x.Name.Value] = true
			}
		}
		return true
	})
	return b
}

// prepares reports whether a preparing command (cd, mkdir, rm, echo …)
// works only on what the source build works on: each argument an option,
// a relative path (inside the clone it changed into), a path at or below
// one its steps name, or a variable it sets or that is the source
// build's. `mkdir -p /var/lib/app` beside the build is other work (the
// red team's: a later step needs it).
func (p *shPlan) prepares(x *syntax.CallExpr) bool {
	name := x.Args[0].Lit()
	if name != "mkdir" && name != "rm" || p.scope == nil {
		// cd, pushd, popd, ls and echo change no file (what a cd
		// changes in the shell is weighed apart).
		return true
	}
	for _, w := range x.Args[1:] {
		l := literalText(w)
		switch {
		case strings.HasPrefix(l, "-"):
		case l != "" && onBuildPath(l, p.scope.paths):
		case l == "" && p.scope.ownVar(w, p):
		default:
			return false
		}
	}
	return true
}

// onBuildPath reports whether a path a mkdir or rm names is the source
// build's to make or remove: relative (inside the directory the build
// works in), a scratch directory's, or at or below a path its steps name.
// Shared by the script planner and a gated RUN's weighing (otherWork).
func onBuildPath(path string, paths []string) bool {
	path = strings.TrimRight(path, "/")
	if path != "" && !strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "$") && !strings.Contains(path, "..") || scratch(path) {
		return true
	}
	for _, bp := range paths {
		if path == bp || strings.HasPrefix(path, bp+"/") {
			return true
		}
	}
	return false
}

// ownVar reports whether a word starts with a variable the scope sets or
// that is the source build's ("$GOPATH/src/…", "${MC_DIR}").
func (b *buildPaths) ownVar(w *syntax.Word, p *shPlan) bool {
	var first syntax.WordPart
	if len(w.Parts) > 0 {
		first = w.Parts[0]
	}
	if dq, ok := first.(*syntax.DblQuoted); ok && len(dq.Parts) > 0 {
		first = dq.Parts[0]
	}
	pe, ok := first.(*syntax.ParamExp)
	return ok && pe.Param != nil && (b.vars[pe.Param.Value] || p.srcVar(pe.Param.Value))
}

// hasStep reports whether a finding of the source build's steps (a
// clone, a build) lies in n: a chain that only mentions its variables
// (`docker pull "cache:${MC_KEY:-latest}"`) is not the build.
func (p *shPlan) hasStep(n syntax.Node) bool {
	for _, i := range p.in(n) {
		if p.stepRule[i] {
			return true
		}
	}
	return false
}

// setsOther reports whether a statement sets, in a way that is not a
// plain assignment, a variable that is not the source build's: read,
// mapfile, printf -v, let, arithmetic assignment (`: $((n += 1))`), or an
// export or plain assignment of an environment-wide name (PATH, IFS and
// any other upper-case name no finding names), which later commands see.
func (p *shPlan) setsOther(st *syntax.Stmt) bool {
	other := false
	mark := func(name string) {
		if name != "" && !p.srcVar(name) {
			other = true
		}
	}
	syntax.Walk(st, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				for _, a := range x.Assigns {
					if a.Name != nil && upper(a.Name.Value) {
						mark(a.Name.Value)
					}
				}
				break
			}
			switch x.Args[0].Lit() {
			case "read", "mapfile", "readarray":
				for _, a := range x.Args[1:] {
					if l := a.Lit(); l != "" && !strings.HasPrefix(l, "-") {
						mark(l)
					}
				}
			case "printf":
				if len(x.Args) > 2 && x.Args[1].Lit() == "-v" {
					mark(x.Args[2].Lit())
				}
			case "let":
				other = true
			}
		case *syntax.DeclClause:
			for _, a := range x.Args {
				if a.Name != nil && (x.Variant.Value == "export" || upper(a.Name.Value)) {
					mark(a.Name.Value)
				}
			}
		case *syntax.BinaryArithm:
			switch x.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
				if w, ok := x.X.(*syntax.Word); ok {
					mark(w.Lit())
				}
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				if w, ok := x.X.(*syntax.Word); ok {
					mark(w.Lit())
				}
			}
		}
		return !other
	})
	return other
}

// upper reports whether a variable name is all upper case (an
// environment-wide name by convention).
func upper(name string) bool {
	return strings.ToUpper(name) == name && strings.ToLower(name) != name
}

// stepRules marks the findings of the source-build step rule.
func stepRules(fs []finding.Finding) []bool {
	out := make([]bool, len(fs))
	for i, f := range fs {
		out[i] = f.Name == ruleStep
	}
	return out
}

// scratch reports whether a path is a temporary directory's (/tmp,
// /var/tmp): what a build makes or removes there is its own.
func scratch(path string) bool {
	for _, t := range []string{"/tmp", "/var/tmp"} {
		if path == t || strings.HasPrefix(path, t+"/") {
			return true
		}
	}
	return false
}
