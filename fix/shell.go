package fix

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/loader"
	"mvdan.cc/sh/v3/syntax"
)

// Shell plans the removal of a script's source build (issue 17), in whole
// units only:
//   - a word of a list held in a string (`STAGES="base mc_src final"`) or
//     of a for loop's list, with one space beside it;
//   - a case branch whose only pattern a finding names;
//   - an assignment, export/local, or echo, printf or call of one of the
//     script's functions on lines of its own, every argument of which the
//     findings name (a format or an option aside), and then the empty
//     declarations of the variables such commands set in that function;
//   - an if whose every branch loses all its commands and whose conditions
//     only test.
//
// The result is parsed again and must not read a variable only a removed
// command set, or nothing in the file changes.
func Shell(path string, src []byte, fs []finding.Finding, opt Options) Plan {
	if doc := loader.Parse(loader.KindShell, path, src); len(doc.DocErrors()) > 0 {
		return declineAll(fs, "the script does not parse as bash reads it; fix it by hand")
	}
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), path)
	if err != nil {
		return declineAll(fs, "the script does not parse as bash reads it; fix it by hand")
	}
	offs := make([]int, len(fs))
	for i, fd := range fs {
		if offs[i], _, err = Offsets(src, fd.Pos); err != nil {
			offs[i] = -1
		}
	}
	// The variables removed commands set make their declarations
	// removable too, which can remove more: repeat until nothing changes.
	funcs, bodies := map[string]bool{}, map[string][]*syntax.Stmt{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok {
			funcs[fd.Name.Value] = true
			if b, ok := fd.Body.Cmd.(*syntax.Block); ok {
				bodies[fd.Name.Value] = b.Stmts
			}
		}
		return true
	})
	var p *shPlan
	writes := writesOf(f)
	vars := map[string]bool{}
	sites := map[string]int{}
	countSets(f, "", func(k string) { sites[k]++ })
	named := namedVars(f, offs)
	steps := stepRules(fs)
	for range 8 {
		p = &shPlan{src: src, offs: offs, funcs: funcs, funcBody: bodies, vars: vars, writes: writes, set: map[string]bool{}, setN: map[string]int{}, names: map[string]map[string]bool{}, fixed: make([]bool, len(fs)),
			named: named, opt: opt, sites: sites, stepRule: steps, unsafe: map[int]string{}, loopVar: map[string]bool{},
			cut: newLineCut(src, func(l []byte) bool { return l[0] == '#' })}
		if len(f.Stmts) > 0 {
			p.lastTop = f.Stmts[len(f.Stmts)-1]
		}
		p.stmts(f.Stmts)
		next := map[string]bool{}
		for k, n := range p.setN {
			if n >= sites[k] {
				next[k] = true
			}
		}
		if len(next) == len(vars) {
			break
		}
		vars = next
	}
	p.cut.tidy()
	edits := p.cut.edits()
	for _, e := range mergeDeletions(p.inline) {
		if !p.cut.cut[lineOf(src, e.Start)] {
			edits = append(edits, tidyDeletion(src, e))
		}
	}
	plan := Plan{Edits: edits}
	for i, fd := range fs {
		switch {
		case len(edits) > 0 && (p.fixed[i] || offs[i] >= 0 && p.cut.cut[lineOf(src, offs[i])]):
			plan.Fixed = append(plan.Fixed, fd)
		case p.unsafe[i] != "":
			plan.Declined = append(plan.Declined, Declined{Finding: fd, Reason: p.unsafe[i], Unsafe: true})
		default:
			plan.Declined = append(plan.Declined, Declined{Finding: fd, Reason: "not in a whole unit a fix removes (a list word, a case branch, a command every argument of which concerns the source build, an if around only such commands); change it by hand"})
		}
	}
	if len(edits) == 0 {
		return plan
	}
	if err := p.overwritten(f, edits); err != nil {
		// Its lines are the script's own already.
		return declineAll(fs, fmt.Sprintf("the fixed script would %v; fix it by hand", err))
	}
	fixed, err := Apply(src, edits)
	var gone []string
	if err == nil {
		gone, err = checkShell(path, fixed, p.names)
	}
	if err != nil {
		reason := fmt.Sprintf("the fixed script would %v; fix it by hand", oldLines(err, src, edits))
		if strings.HasPrefix(err.Error(), "not parse") {
			// The planner removed every command of a branch, loop or
			// function body that stays (an if with an else that keeps
			// work): the parse error's line would be one of the fixed
			// text, which the user never sees.
			reason = "removing what the findings name would leave the body of an if, a loop or a function that stays empty, which bash does not allow; change the script by hand"
			if p.statusKept {
				reason = "removing the if or loop around what the findings name would change an exit status (the command before it would end its function or script, or a $? after it would read another command's status); change the script by hand"
			}
		}
		out := declineAll(fs, reason)
		for i := range out.Declined {
			// A unit kept as unsafe can be why the rest fails the check
			// (it still reads what the rest removes): say so, so that
			// --unsafe-fixes is offered.
			if p.unsafe[i] != "" {
				out.Declined[i].Reason, out.Declined[i].Unsafe = p.unsafe[i], true
			}
		}
		return out
	}
	for _, n := range gone {
		plan.Gone = append(plan.Gone, Name{Kind: "variable", Name: n})
	}
	return plan
}

type shPlan struct {
	src   []byte
	offs  []int
	fn    string          // the function being planned, "" at the top
	funcs map[string]bool // the functions the script defines
	// funcBody are their bodies\' statements.
	funcBody map[string][]*syntax.Stmt
	// guarded is the statement that may not go (the list\'s status).
	guarded *syntax.Stmt
	vars    map[string]bool // function NUL name: only removed commands set it (the previous round)
	set     map[string]bool // function NUL name: some removed command sets it, this round
	setN    map[string]int  // function NUL name: how many of its assignments go, this round
	named   map[string]bool // the variables a finding names somewhere (their expansion or assignment)
	opt     Options
	sites   map[string]int  // function NUL name: how many assignments give it a value
	unsafe  map[int]string  // by finding: why its unit goes only with --unsafe-fixes
	loopVar map[string]bool // the variables of the loops over source-build names being weighed
	// statusKept: a statement stayed because removing it would change an
	// exit status (the reason a refusal gives).
	statusKept bool
	unitSites  map[string]int             // the assignments of the unit being weighed, as sites counts them
	inUnit     bool                       // weighing the body of a unit that holds a finding
	writes     []fileWrite                // the script's redirections into files
	lastTop    *syntax.Stmt               // the script's last top-level statement
	scope      *buildPaths                // what the unit or chain being weighed works on
	stepRule   []bool                     // by finding: a source-build step's (clone, build)
	names      map[string]map[string]bool // by function ("" at the top): the names removed commands set
	fixed      []bool
	cut        *lineCut
	inline     []Edit
}

func lineOf(src []byte, off int) int { return bytes.Count(src[:off], []byte("\n")) + 1 }

func (p *shPlan) in(n syntax.Node) []int {
	var out []int
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	for i, o := range p.offs {
		if o >= s && o < e {
			out = append(out, i)
		}
	}
	return out
}

// stmts plans a list of statements and reports whether all of them go.
func (p *shPlan) stmts(list []*syntax.Stmt) bool {
	all := len(list) > 0
	var kept *syntax.Stmt // the last statement that stays
	// A list inside a statement being weighed (an if's body) must not
	// lift that statement's guard.
	outer := p.guarded
	defer func() { p.guarded = outer }()
	for k, st := range list {
		p.guarded = outer
		// The last statement gives the list's exit status (a function's,
		// the script's): it may go only when the one left last always
		// succeeds as it did. A statement whose status the next one
		// reads ($?) may not go either.
		if k == len(list)-1 && kept != nil && !p.alwaysZero(kept, 0) || k+1 < len(list) && readsStatus(list[k+1]) {
			p.guarded = st
		}
		gone := p.stmt(st)
		if !gone {
			all, kept = false, st
		}
	}
	return all
}

// readsStatus reports whether a statement reads $? (the status of the one
// before it).
func readsStatus(st *syntax.Stmt) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			// $? and ${PIPESTATUS[…]}: the status of what ran before.
			if x.Param != nil && (x.Param.Value == "?" || x.Param.Value == "PIPESTATUS") {
				found = true
			}
		case *syntax.CallExpr:
			// A bare return or exit returns the last command's status.
			if len(x.Args) == 1 && (x.Args[0].Lit() == "return" || x.Args[0].Lit() == "exit") {
				found = true
			}
		}
		return !found
	})
	return found
}

// stmt plans one statement and reports whether it goes whole.
func (p *shPlan) stmt(st *syntax.Stmt) bool {
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if p.lists(st) {
			return false
		}
		if p.removable(st) {
			return p.remove(st)
		}
		p.buildArgs(c)
	case *syntax.DeclClause:
		if p.lists(st) {
			return false
		}
		if p.removable(st) {
			return p.remove(st)
		}
	case *syntax.IfClause:
		return p.ifStmt(st, c)
	case *syntax.CaseClause:
		if p.sourceCase(c) && st.Redirs == nil && !st.Background {
			return p.unit(st, "runs only when the source build is configured, but a branch does work that names no part of it")
		}
		p.caseBranches(c)
	case *syntax.ForClause:
		return p.forStmt(st, c)
	case *syntax.WhileClause:
		p.stmts(c.Do)
	case *syntax.Block:
		p.stmts(c.Stmts)
	case *syntax.Subshell:
		if p.buildChain(st, true) {
			return p.remove(st)
		}
		p.stmts(c.Stmts)
	case *syntax.BinaryCmd:
		if p.buildChain(st, false) {
			return p.remove(st)
		}
		// `[[ -n "$MC_KEY" ]] && …`: an if in short.
		if c.Op == syntax.AndStmt && testsOnly([]*syntax.Stmt{c.X}) && p.falseUnset([]*syntax.Stmt{c.X}) && st.Redirs == nil && !st.Background && !st.Negated {
			return p.unit(st, "runs only when the source build is configured, but does work that names no part of it")
		}
	case *syntax.FuncDecl:
		outer := p.fn
		p.fn = c.Name.Value
		p.stmt(c.Body)
		p.fn = outer
	}
	return false
}

// ifStmt plans an if: a unit on the source build's variables, or one
// whose every branch loses all its commands.
func (p *shPlan) ifStmt(st *syntax.Stmt, c *syntax.IfClause) bool {
	if st.Redirs != nil || st.Background || st.Negated {
		return false
	}
	if p.sourceIf(c) {
		return p.unit(st, "runs only when the source build is configured, but its body does work that names no part of it")
	}
	return p.ifGoes(c) && p.remove(st)
}

// caseBranches plans a case: a branch whose only pattern a finding names
// goes; the others are planned as lists.
func (p *shPlan) caseBranches(c *syntax.CaseClause) {
	for k, it := range c.Items {
		// The branch before falling through into this one (;&) would
		// fall into the next instead.
		into := k > 0 && c.Items[k-1].Op == syntax.Fallthrough
		if len(it.Patterns) == 1 && len(p.in(it.Patterns[0])) > 0 && !into && p.own(it.Pos(), it.End()) {
			p.cut.remove(int(it.Pos().Line()), int(it.End().Line()))
			continue
		}
		p.stmts(it.Stmts)
	}
}

// forStmt plans a for loop: a unit over only the source build's names,
// else the words of its list and its body.
func (p *shPlan) forStmt(st *syntax.Stmt, c *syntax.ForClause) bool {
	if wi, ok := c.Loop.(*syntax.WordIter); ok {
		if p.sourceLoop(wi) && st.Redirs == nil && !st.Background {
			return p.unit(st, "loops only over the source build's names, but its body does work that names no part of it")
		}
		p.loopWords(wi)
	}
	p.stmts(c.Do)
	return false
}

// remove cuts a statement's lines, when it has them to itself.
func (p *shPlan) remove(st *syntax.Stmt) bool {
	if st == p.guarded {
		p.statusKept = true
		return false
	}
	if !p.own(st.Pos(), st.End()) {
		return false
	}
	p.cut.remove(int(st.Pos().Line()), int(st.End().Line()))
	syntax.Walk(st, func(n syntax.Node) bool {
		if a, ok := n.(*syntax.Assign); ok && a.Name != nil {
			p.set[p.fn+"\x00"+a.Name.Value] = true
			if p.names[p.fn] == nil {
				p.names[p.fn] = map[string]bool{}
			}
			p.names[p.fn][a.Name.Value] = true
		}
		return true
	})
	countSets(st, p.fn, func(k string) { p.setN[k]++ })
	// A loop's variable keeps its last value after the loop: a read of it
	// after a removed loop is a read of what only a removed command set.
	syntax.Walk(st, func(n syntax.Node) bool {
		if f, ok := n.(*syntax.ForClause); ok {
			if wi, ok := f.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				if p.names[p.fn] == nil {
					p.names[p.fn] = map[string]bool{}
				}
				p.names[p.fn][wi.Name.Value] = true
			}
		}
		return true
	})
	return true
}

// own reports whether pos..end have their lines to themselves (a comment
// after them aside).
func (p *shPlan) own(pos, end syntax.Pos) bool {
	s, e := int(pos.Offset()), int(end.Offset())
	ls := bytes.LastIndexByte(p.src[:s], '\n') + 1
	if len(bytes.TrimSpace(bytes.TrimPrefix(p.src[ls:s], bom))) > 0 { // a byte order mark is no content (issue 30)
		return false
	}
	rest := p.src[e:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	rest = bytes.TrimSpace(rest)
	// The list's separator may follow, and a line continuation (a RUN's
	// `cmd; \`): the line goes with them.
	switch string(bytes.Join(bytes.Fields(rest), nil)) {
	case ";;", ";", ";\\":
		return true
	case "\\":
		// `cmd; \` with the separator the statement's own.
		return e > 0 && p.src[e-1] == ';'
	}
	return len(rest) == 0 || rest[0] == '#'
}

// removable reports whether a simple command, assignment or declaration
// concerns only the source build: every word but the command's name is
// named by a finding, or is a literal option or format, and at least one
// is named; or it only declares variables removed commands set.
func (p *shPlan) removable(st *syntax.Stmt) bool {
	if st.Background || st.Negated || st.Coprocess {
		return false
	}
	words, assigns, ok := p.recordedParts(st)
	if !ok {
		return false
	}
	// Nothing it writes (> file) or runs in a substitution may be lost:
	// only pure commands may run inside $(…). A line it appends to a
	// record (`echo "PGVECTOR=${PGVECTOR}" >> /.image_config`,
	// timescaledb-docker-ha's, issue 32) records only the source build
	// when its words do: it goes with it.
	if !appendsOnly(st.Redirs) || !p.pureSubst(st, 0) || !p.writtenBefore(st.Redirs) {
		return false
	}
	_, decl := st.Cmd.(*syntax.DeclClause)
	named, other := p.namedAssigns(assigns, decl)
	for _, w := range words {
		switch {
		case len(p.in(w)) > 0 && len(st.Redirs) > 0 && !p.onlySourceVars(w):
			// A record line that also records another variable
			// (`echo "PGVECTOR=${PGVECTOR} PG=${PG_VERSION}" >> f`).
			other++
		case len(p.in(w)) > 0:
			named++
		case literalWord(w) && (strings.HasPrefix(w.Lit(), "-") || strings.Contains(w.Lit(), "%")):
		default:
			other++
		}
	}
	return named > 0 && other == 0
}

// recordedParts are the arguments (its name aside) and the assignments
// of a command that only records or prints them, for removable to weigh;
// not ok for a command that does more.
func (p *shPlan) recordedParts(st *syntax.Stmt) (words []*syntax.Word, assigns []*syntax.Assign, ok bool) {
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) > 0 && len(c.Assigns) > 0 {
			return nil, nil, false // the assignments are the command's environment
		}
		// Only a command that records or prints (echo, printf, a function
		// of the script such as metadata_pair that only does so): another
		// program (docker, git, bash -c, cd) does work beyond the words a
		// finding names.
		if len(c.Args) > 0 {
			name := c.Args[0].Lit()
			records := name == "echo" || name == "printf" || p.funcs[name] && p.recordsOnly(name, 0)
			if !records {
				return nil, nil, false
			}
		}
		assigns = c.Assigns
		if len(c.Args) > 0 {
			words = c.Args[1:]
		}
	case *syntax.DeclClause:
		assigns = c.Args
	}
	return words, assigns, true
}

// namedAssigns counts the assignments (of a declaration, decl) that
// concern only the source build and those that do not.
func (p *shPlan) namedAssigns(assigns []*syntax.Assign, decl bool) (named, other int) {
	for _, a := range assigns {
		switch {
		case decl && a.Naked && a.Name != nil && p.sites[p.fn+"\x00"+a.Name.Value]+p.sites["\x00"+a.Name.Value] > 0 && !p.vars[p.fn+"\x00"+a.Name.Value] && !p.vars["\x00"+a.Name.Value]:
			// `export KEY` goes with the assignments of KEY (issue 30):
			// while one stays, a child process still needs it exported.
			other++
		case decl && a.Name != nil && p.vars[p.fn+"\x00"+a.Name.Value] && (a.Value == nil || emptyWord(a.Value)):
			named++ // local x / local x="" of a variable a removed command of this function sets
		case len(p.in(a)) > 0 && a.Array == nil && !listValue(a):
			// The finding names the value, not one word of a list in it
			// (arrays and strings of several words are lists: their words
			// go one by one, or the finding stays).
			named++
		default:
			other++
		}
	}
	return named, other
}

// ifGoes reports whether every branch of an if loses all its commands and
// every condition only tests.
func (p *shPlan) ifGoes(c *syntax.IfClause) bool {
	all := true
	for b := c; b != nil; b = b.Else {
		if !testsOnly(b.Cond) {
			all = false
		}
		if !p.stmts(b.Then) {
			all = false
		}
	}
	return all
}

// testsOnly reports whether conditions only test ([[ ]], [ ], test), so
// that removing them removes no effect.
func testsOnly(cond []*syntax.Stmt) bool {
	for _, st := range cond {
		switch c := st.Cmd.(type) {
		case *syntax.TestClause:
		case *syntax.CallExpr:
			if len(c.Assigns) > 0 || len(c.Args) == 0 || (c.Args[0].Lit() != "[" && c.Args[0].Lit() != "test") {
				return false
			}
		case *syntax.BinaryCmd:
			if !testsOnly([]*syntax.Stmt{c.X, c.Y}) {
				return false
			}
		default:
			return false
		}
		if len(st.Redirs) > 0 {
			return false
		}
	}
	return true
}

// onlySourceVars reports whether every expansion in a word is of the
// source build's variables, or of a name a finding in the word points at
// (`"PGVECTOR=${PGVECTOR}"`, the finding on the key).
func (p *shPlan) onlySourceVars(w *syntax.Word) bool {
	named := map[string]bool{}
	for _, i := range p.in(w) {
		o := p.offs[i]
		e := o
		for e < len(p.src) && (isAlnum(p.src[e]|0x20) || p.src[e] == '_') {
			e++
		}
		named[string(p.src[o:e])] = true
	}
	ok := true
	syntax.Walk(w, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if x.Param == nil || !p.srcVar(x.Param.Value) && !named[x.Param.Value] {
				ok = false
			}
		case *syntax.CmdSubst, *syntax.ArithmExp:
			ok = false
		}
		return ok
	})
	return ok
}

// writtenBefore reports whether each file a command appends to is written
// by an earlier redirection of the script: then the file is there
// without the line (the red team's `echo "V=$V" >> /etc/fa-version` that
// alone made the file a later `chmod` needs).
func (p *shPlan) writtenBefore(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		target := literalText(r.Word)
		if target == "" {
			return false
		}
		found := false
		for _, w := range p.writes {
			found = found || w.target == target && w.off < int(r.Pos().Offset())
		}
		if !found {
			return false
		}
	}
	return true
}

// fileWrite is a redirection of the script's output into a file.
type fileWrite struct {
	target string
	off    int
}

// writesOf are the script's redirections into files, in order.
func writesOf(f *syntax.File) []fileWrite {
	var out []fileWrite
	syntax.Walk(f, func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Redirect); ok && (r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.RdrAll || r.Op == syntax.AppAll || r.Op == syntax.RdrClob) {
			if t := literalText(r.Word); t != "" {
				out = append(out, fileWrite{t, int(r.Pos().Offset())})
			}
		}
		return true
	})
	return out
}
