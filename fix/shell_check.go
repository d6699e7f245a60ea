package fix

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What the shell planner asks of a statement before removing it, and of
// the script after: does it always succeed, does it run anything but pure
// commands, is a removed variable still read.

// alwaysZero reports whether a statement always exits 0 (echo, printf,
// an assignment or declaration without a command substitution, a call of
// the script's function that ends so, an if whose branches end so).
func (p *shPlan) alwaysZero(st *syntax.Stmt, depth int) bool {
	if st == nil || st.Negated || len(st.Redirs) > 0 || depth > 8 {
		return false
	}
	quiet := func(n syntax.Node) bool {
		ok := true
		syntax.Walk(n, func(m syntax.Node) bool {
			if _, sub := m.(*syntax.CmdSubst); sub {
				ok = false
			}
			return ok
		})
		return ok
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return quiet(c)
		}
		switch name := c.Args[0].Lit(); {
		case name == "echo" || name == "printf" || name == ":" || name == "true":
			return true
		case name == "set" && quiet(c) && setOptionsOnly(c.Args[1:]):
			// `set -ex` (a RUN's first line): shell options, which set
			// accepts with status 0.
			return true
		case p.funcs[name]:
			body := p.funcBody[name]
			return len(body) > 0 && p.alwaysZero(body[len(body)-1], depth+1)
		}
	case *syntax.DeclClause:
		return quiet(c)
	case *syntax.IfClause:
		for b := c; b != nil; b = b.Else {
			if len(b.Then) == 0 || !p.alwaysZero(b.Then[len(b.Then)-1], depth+1) {
				return false
			}
		}
		return true
	case *syntax.Block:
		return len(c.Stmts) > 0 && p.alwaysZero(c.Stmts[len(c.Stmts)-1], depth+1)
	case *syntax.ForClause:
		// A loop's status is its body's last command's, 0 when it never
		// runs.
		return len(c.Do) > 0 && p.alwaysZero(c.Do[len(c.Do)-1], depth+1)
	}
	return false
}

// pureCmds change nothing outside their output: what may run inside a
// command substitution of a command the fix removes.
var pureCmds = map[string]bool{
	"echo": true, "printf": true, "sha256sum": true, "sha1sum": true, "md5sum": true,
	"cut": true, "head": true, "tail": true, "tr": true, "sed": true, "grep": true,
	"basename": true, "dirname": true, "cat": true, "sort": true, "uniq": true, "wc": true,
	"true": true, ":": true, "false": true, "test": true, "[": true, "return": true,
	"mapfile": true, "readarray": true, "read": true, "local": true, "sha512sum": true,
	"b2sum": true, "stat": true, "readlink": true, "realpath": true, "jq": true, "ls": true,
	"date": true, "paste": true, "fold": true, "rev": true, "nl": true, "seq": true,
	"expr": true, "column": true, "comm": true, "join": true, "od": true, "xxd": true,
}

// pureAwk reports whether an awk command only prints: its program (the
// first word that is not an option or an option's value) is a literal
// that neither runs commands (system, a pipe) nor writes a file (print >
// "f"; a comparison with > is not told from it, so none may be there
// after print or printf).
func pureAwk(args []*syntax.Word) bool {
	for i := 1; i < len(args); i++ {
		a := args[i].Lit()
		switch {
		case a == "-v" || a == "-F" || a == "-f":
			if a == "-f" {
				return false // a program file is not read here
			}
			i++
			continue
		case strings.HasPrefix(a, "-"):
			continue
		}
		if !literalWord(args[i]) {
			return false
		}
		prog := literalText(args[i])
		if strings.Contains(prog, "system") || strings.Contains(prog, "getline") || strings.Contains(prog, "fflush") || strings.Contains(prog, "close(") {
			return false
		}
		for _, stmt := range strings.FieldsFunc(prog, func(r rune) bool { return r == ';' || r == '\n' || r == '{' || r == '}' }) {
			t := strings.TrimSpace(stmt)
			if (strings.HasPrefix(t, "print") || strings.HasPrefix(t, "printf")) && strings.ContainsAny(t, ">|") {
				return false
			}
		}
		return true
	}
	return false
}

// pureSubst reports whether every command that runs inside a command or
// process substitution of n is pure: a pureCmd (sed without -i), git
// rev-parse/describe/ls-remote/show/log, or a function of the script whose
// commands are; no output redirection but to /dev/null or a descriptor.
func (p *shPlan) pureSubst(n syntax.Node, depth int) bool {
	ok := true
	syntax.Walk(n, func(m syntax.Node) bool {
		switch x := m.(type) {
		case *syntax.CmdSubst:
			ok = ok && p.pureStmts(x.Stmts, depth)
		case *syntax.ProcSubst:
			ok = ok && p.pureStmts(x.Stmts, depth)
		}
		return ok
	})
	return ok
}

var pureGit = map[string]bool{"rev-parse": true, "describe": true, "ls-remote": true, "show": true, "log": true}

func (p *shPlan) pureStmts(list []*syntax.Stmt, depth int) bool {
	if depth > 8 {
		return false
	}
	ok := true
	for _, st := range list {
		syntax.Walk(st, func(m syntax.Node) bool {
			switch x := m.(type) {
			case *syntax.Redirect:
				switch x.Op {
				case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut:
					if x.Word == nil || x.Word.Lit() != "/dev/null" {
						ok = false
					}
				}
			case *syntax.CallExpr:
				if len(x.Args) == 0 {
					break
				}
				switch name := x.Args[0].Lit(); {
				case name == "sed":
					for _, a := range x.Args[1:] {
						if strings.HasPrefix(a.Lit(), "-i") || a.Lit() == "--in-place" {
							ok = false
						}
					}
				case name == "git":
					ok = ok && len(x.Args) > 1 && pureGit[x.Args[1].Lit()]
				case name == "awk" || name == "gawk" || name == "mawk":
					ok = ok && pureAwk(x.Args)
				case pureCmds[name]:
				case p.funcs[name]:
					ok = ok && p.pureStmts(p.funcBody[name], depth+1)
				default:
					ok = false
				}
			}
			return ok
		})
	}
	return ok
}

// recordsOnly reports whether a function of the script only prints or
// records its arguments: pure commands, local declarations, appends to an
// array (add_dependency_cache_target's TARGETS+=("$1")); no other
// assignment (a flag set for later) and nothing else run.
func (p *shPlan) recordsOnly(name string, depth int) bool {
	body := p.funcBody[name]
	if depth > 8 || len(body) == 0 {
		return false
	}
	for _, st := range body {
		switch c := st.Cmd.(type) {
		case *syntax.DeclClause:
			if v := c.Variant.Value; v != "local" && v != "declare" && v != "typeset" {
				return false
			}
		case *syntax.CallExpr:
			if len(c.Args) == 0 {
				for _, a := range c.Assigns {
					if !a.Append || a.Array == nil {
						return false
					}
				}
			}
		default:
			return false
		}
		if len(st.Redirs) > 0 || !p.pureStmts([]*syntax.Stmt{st}, depth+1) {
			return false
		}
	}
	return true
}

// checkShell parses a fixed script and looks for a variable read that
// only a removed command set: in an expansion or, bare, in arithmetic; in
// the function the command was in (where no assignment is left there), or
// anywhere (where none is left in the file). A
// valueless export/local/declare does not set it.
//
// It returns the names no assignment is left for: those must not be
// named anywhere else in the script either (`[[ -v NAME ]]`, `declare -p
// NAME`, `--build-arg NAME` passing the environment's value, a prefix
// `${!NAME@}`), nor may the script source another file (which could read
// them); other files are Resolve's.
func checkShell(path string, src []byte, removed map[string]map[string]bool) ([]string, error) {
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), path)
	if err != nil {
		return nil, fmt.Errorf("not parse (%w)", err)
	}
	uses := &shellUses{sets: map[string]map[string]bool{}, reads: map[string][]shellRead{}}
	uses.walk(f, "")
	setAnywhere := anyFunction(uses.sets)
	removedAnywhere := anyFunction(removed)
	if err := uses.readsRemoved(removed, setAnywhere, removedAnywhere); err != nil {
		return nil, err
	}
	var gone []string
	for n := range removedAnywhere {
		if !setAnywhere[n] {
			gone = append(gone, n)
		}
	}
	sort.Strings(gone)
	if len(gone) == 0 {
		return nil, nil
	}
	if uses.sources != "" {
		return nil, fmt.Errorf("source %s, which may read %s", uses.sources, gone[0])
	}
	for _, pre := range uses.prefixes {
		for _, n := range gone {
			if strings.HasPrefix(n, pre) {
				return nil, fmt.Errorf("list the variables named %s… (${!%s@}), %s among them", pre, pre, n)
			}
		}
	}
	if err := namesGone(f, src, gone); err != nil {
		return nil, err
	}
	return gone, nil
}

// shellUses is what a script does with variables, for checkShell:
// assignments and reads by function ("" for the top and everything
// outside functions), the prefixes it lists and the first file it
// sources.
type shellUses struct {
	sets     map[string]map[string]bool
	reads    map[string][]shellRead
	prefixes []string // ${!PREFIX@} and ${!PREFIX*}
	sources  string   // the first file the script sources
}

// shellRead is a variable read, with its line.
type shellRead struct {
	name string
	line uint
}

// walk records the uses of n, in function fn; a function declared in it
// is walked as its own.
func (s *shellUses) walk(n syntax.Node, fn string) {
	syntax.Walk(n, func(m syntax.Node) bool {
		switch x := m.(type) {
		case *syntax.FuncDecl:
			if m != n {
				s.walk(x, x.Name.Value)
				return false
			}
		case *syntax.Assign:
			if x.Name != nil && !x.Naked {
				if s.sets[fn] == nil {
					s.sets[fn] = map[string]bool{}
				}
				s.sets[fn][x.Name.Value] = true
			}
		case *syntax.ParamExp:
			if x.Param != nil {
				s.reads[fn] = append(s.reads[fn], shellRead{x.Param.Value, x.Pos().Line()})
				if x.Excl && x.Names != 0 {
					s.prefixes = append(s.prefixes, x.Param.Value)
				}
			}
		case *syntax.ForClause:
			// A loop sets its variable.
			if wi, ok := x.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				s.set(fn, wi.Name.Value)
			}
		case *syntax.CallExpr:
			// read, mapfile and printf -v set the variables they name.
			if len(x.Args) > 1 {
				switch x.Args[0].Lit() {
				case "read", "mapfile", "readarray":
					for _, a := range x.Args[1:] {
						if l := a.Lit(); l != "" && !strings.HasPrefix(l, "-") {
							s.set(fn, l)
						}
					}
				case "printf":
					if x.Args[1].Lit() == "-v" && len(x.Args) > 2 {
						s.set(fn, x.Args[2].Lit())
					}
				}
			}
			if len(x.Args) > 1 && s.sources == "" {
				if c := x.Args[0].Lit(); c == "source" || c == "." {
					s.sources = fmt.Sprintf("%s (line %d)", literalText(x.Args[1]), x.Pos().Line())
				}
			}
		case *syntax.ArithmExp, *syntax.ArithmCmd:
			s.arithmReads(x, fn)
		}
		return true
	})
}

func (s *shellUses) set(fn, name string) {
	if s.sets[fn] == nil {
		s.sets[fn] = map[string]bool{}
	}
	s.sets[fn][name] = true
}

// arithmReads records the bare words of arithmetic as reads: $(( N + 1 ))
// reads N.
func (s *shellUses) arithmReads(x syntax.Node, fn string) {
	syntax.Walk(x, func(a syntax.Node) bool {
		if w, ok := a.(*syntax.Word); ok {
			if lit := w.Lit(); lit != "" {
				s.reads[fn] = append(s.reads[fn], shellRead{lit, w.Pos().Line()})
			}
		}
		return true
	})
}

// readsRemoved finds a read of a variable only a removed command set: in
// the function it was removed from, where no assignment is left there, or
// anywhere, where none is left in the file. The first such read in the
// file is named, whatever the order functions are kept in.
func (s *shellUses) readsRemoved(removed map[string]map[string]bool, setAnywhere, removedAnywhere map[string]bool) error {
	var first *shellRead
	for fn, rs := range s.reads {
		for i, r := range rs {
			inFn := fn != "" && removed[fn][r.name] && !s.sets[fn][r.name]
			global := removedAnywhere[r.name] && !setAnywhere[r.name]
			if (inFn || global) && (first == nil || r.line < first.line || r.line == first.line && r.name < first.name) {
				first = &rs[i]
			}
		}
	}
	if first != nil {
		return fmt.Errorf("read %s, which only a removed command set (line %d)", first.name, first.line)
	}
	return nil
}

// anyFunction is the names of every function's set, as one set.
func anyFunction(byFunction map[string]map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, names := range byFunction {
		for n := range names {
			out[n] = true
		}
	}
	return out
}

// namesGone finds a variable no assignment is left for that the script
// still names anywhere else in its words (comments aside): [[ -v NAME ]],
// declare -p NAME, --build-arg NAME, compgen -v PREFIX. Of several, the
// first by line (then by name) is told.
func namesGone(f *syntax.File, src []byte, gone []string) error {
	names := make([]Name, len(gone))
	for i, n := range gone {
		names[i] = Name{Kind: "variable", Name: n}
	}
	u := newUniverse([]*Change{{Gone: names}})
	m := mentions{}
	u.shellWords(m, f)
	u.listedAll(m, joinedText(src))
	if len(m) > 0 {
		first := Name{}
		for n, l := range m {
			if first.Name == "" || l < m[first] || l == m[first] && n.Name < first.Name {
				first = n
			}
		}
		return fmt.Errorf("name %s, which only a removed command set (line %d of the fixed script)", first.Name, m[first])
	}
	return nil
}

// setOptionsOnly reports whether set's arguments are literal options
// (-e, -eux, +x, -o pipefail), which it sets with status 0.
func setOptionsOnly(args []*syntax.Word) bool {
	for i, a := range args {
		l := a.Lit()
		switch {
		case l == "-o" || l == "+o":
			if i+1 >= len(args) || args[i+1].Lit() == "" {
				return false
			}
		case len(l) > 1 && (l[0] == '-' || l[0] == '+') && strings.Trim(l[1:], "abefhkmnptuvxBCEHPT") == "":
		case i > 0 && (args[i-1].Lit() == "-o" || args[i-1].Lit() == "+o"):
		default:
			return false
		}
	}
	return true
}
