package loader

import (
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The working directory each command runs in, as bash would have it (the
// build model's directories, issue 28): cd, pushd and popd change it for
// the commands after them in the same shell; a subshell ( … ), a command
// substitution, a process substitution, each command of a pipeline and a
// background job run in a copy of the shell, so what they change is gone
// after them; a script run by bash -c starts where its command ran and
// changes nothing outside; eval runs in the shell itself. A function's body
// is read where it is defined (it is most often called from there).
//
// A directory is a path: absolute when the script says so, else relative
// to where the script starts ("." is that start). A Dockerfile RUN starts
// in its stage's WORKDIR when one is set. A directory the script does not
// spell out statically (cd "$X" with X unknown, cd $(mktemp -d)) is
// unknown: a command's dir is then null, until an absolute cd.

// dirState is one shell's working directory.
type dirState struct {
	dir   string
	known bool
	prev  string // OLDPWD, for cd -
	stack []string
}

// maxDirStack bounds pushd's stack (pushd in a loop of 10,000 lines).
const maxDirStack = 64

// maxDirLen bounds a directory's path: past it the directory is unknown.
const maxDirLen = 1024

// scopes are the nodes of the walk's stack that run in a copy of the
// shell, outermost first.
func (x *shellExtractor) scopes() []syntax.Node {
	var out []syntax.Node
	for i, n := range x.stack {
		switch n := n.(type) {
		case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.FuncDecl:
			out = append(out, n)
		case *syntax.Stmt:
			if n.Background || n.Coprocess {
				out = append(out, n)
			} else if i > 0 {
				if b, ok := x.stack[i-1].(*syntax.BinaryCmd); ok && isPipe(b.Op) {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// shellDir is the state of the shell a command at the walk's place runs
// in: each copy of the shell starts as its parent is when it starts.
func (x *shellExtractor) shellDir() *dirState {
	if x.dirs == nil {
		x.dirs = map[syntax.Node]*dirState{}
		if x.root == nil {
			x.root = &dirState{dir: ".", known: true}
		}
	}
	cur := x.root
	for _, s := range x.scopes() {
		st, ok := x.dirs[s]
		if !ok {
			cp := *cur
			cp.stack = append([]string(nil), cur.stack...)
			st = &cp
			x.dirs[s] = st
		}
		cur = st
	}
	return cur
}

// placeDir gives command c the directory it runs in and, when it is cd,
// pushd or popd, changes the shell's for the commands after it.
func (x *shellExtractor) placeDir(c *ShellCommand, call syntax.Node, args []*syntax.Word) {
	st := x.shellDir()
	if st.known {
		c.Dir = strp(st.dir)
	}
	// The change comes after the command's words are expanded (cd
	// $(mktemp -d): mktemp runs where cd does): when the walk leaves it.
	if x.after == nil {
		x.after = map[syntax.Node]func(){}
	}
	x.after[call] = func() { x.changeFor(c.Words, st, args) }
}

// changeFor applies a cd, pushd or popd of words ws to the shell st.
func (x *shellExtractor) changeFor(ws []Word, st *dirState, args []*syntax.Word) {
	c := &ShellCommand{Words: ws}
	e := Effective(*c, nil)
	if e < 0 {
		return
	}
	name := wordValue(c.Words[e])
	if name != "cd" && name != "pushd" && name != "popd" {
		return
	}
	var target *string
	for i := e + 1; i < len(c.Words); i++ {
		v := c.Words[i].Value
		if v != nil && strings.HasPrefix(*v, "-") && *v != "-" && len(*v) > 1 && target == nil {
			if *v == "--" {
				continue
			}
			if name == "popd" || name == "pushd" {
				// +N/-N rotate the stack: not followed.
				st.known = false
				return
			}
			continue // cd -L, -P, -e, -@
		}
		if v == nil && i < len(args) {
			if r, ok := x.resolve(args[i]); ok {
				v = &r
			}
		}
		if v == nil {
			if sym, ok := symbolic(c.Words[i].Text); ok {
				v = &sym
			}
		}
		if v == nil {
			st.known = false
			return
		}
		target = v
		break
	}
	switch name {
	case "popd":
		if len(st.stack) == 0 {
			st.known = false
			return
		}
		top := st.stack[len(st.stack)-1]
		st.stack = st.stack[:len(st.stack)-1]
		st.prev, st.dir, st.known = st.dir, top, top != ""
		return
	case "pushd":
		if target == nil {
			st.known = false
			return
		}
		if len(st.stack) < maxDirStack {
			old := st.dir
			if !st.known {
				old = ""
			}
			st.stack = append(st.stack, old)
		}
	}
	x.changeDir(st, target)
}

// changeDir moves the shell to target (nil: cd alone, to $HOME).
func (x *shellExtractor) changeDir(st *dirState, target *string) {
	t := "~"
	if target != nil {
		t = *target
	}
	old, oldKnown := st.dir, st.known
	switch {
	case t == "-":
		if st.prev == "" {
			st.known = false
			return
		}
		st.dir, st.known = st.prev, true
	case t == "" || t == "~" || strings.HasPrefix(t, "~/"):
		// $HOME is not known: "~" stands for it.
		st.dir, st.known = path.Clean(t), true
	case strings.HasPrefix(t, "/") || strings.HasPrefix(t, "$"):
		st.dir, st.known = path.Clean(t), true
	case oldKnown:
		st.dir = joinDir(old, t)
	default:
		return
	}
	if len(st.dir) > maxDirLen {
		// cd x in a loop (or 80,000 evals of it): a path no build
		// has, and one that would grow with the script.
		st.known = false
		return
	}
	if oldKnown {
		st.prev = old
	}
}

// symbolic is the directory a word names with a variable the script
// gives no static value, as written: "${SRC}/Mooncake" is $SRC/Mooncake,
// so that a clone into "$SRC/Mooncake" and a cd to it meet. Only a word
// that starts with the variable is one (quotes dropped, ${X} spelled $X).
func symbolic(text string) (string, bool) {
	t := strings.NewReplacer(`"`, "", "'", "").Replace(text)
	if !strings.HasPrefix(t, "$") || strings.ContainsAny(t, " \t\n") || len(t) > 256 {
		return "", false
	}
	t = bracedVar.ReplaceAllString(t, "$$$1")
	return t, true
}

var bracedVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// joinDir is dir/rel, cleaned ("." for the start).
func joinDir(dir, rel string) string {
	if strings.HasPrefix(rel, "/") {
		return path.Clean(rel)
	}
	return path.Join(dir, rel)
}

// resolve is a word's value with the one static value of each of its
// variables put in place (the last static assignment before it, the
// file's values outside the script: ARG defaults, ENV, a pipeline's env;
// ${X:-d} is d when X has none); false when a part has none (a command
// substitution, a variable that may hold anything).
func (x *shellExtractor) resolve(w *syntax.Word) (string, bool) {
	var b strings.Builder
	ok := x.resolveParts(&b, w.Parts, false)
	if !ok || b.Len() > 4096 {
		return "", false
	}
	return b.String(), true
}

func (x *shellExtractor) resolveParts(b *strings.Builder, ps []syntax.WordPart, quoted bool) bool {
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				b.WriteString(unescapeDouble(p.Value))
			} else {
				b.WriteString(unescapeUnquoted(p.Value))
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if !x.resolveParts(b, p.Parts, true) {
				return false
			}
		case *syntax.ParamExp:
			v, ok := x.paramValue(p)
			if !ok {
				return false
			}
			b.WriteString(v)
		case *syntax.CmdSubst:
			v, ok := echoed(p)
			if !ok {
				return false
			}
			b.WriteString(v)
		default:
			return false
		}
		if b.Len() > 4096 {
			return false
		}
	}
	return true
}

// paramValue is the one static value of $X, ${X} or ${X:-d} / ${X-d}.
func (x *shellExtractor) paramValue(p *syntax.ParamExp) (string, bool) {
	if v, ok := x.staticValue(p); ok {
		return v, true
	}
	if p.Param == nil || p.Exp == nil || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Length || p.Excl {
		return "", false
	}
	if p.Exp.Op != syntax.DefaultUnsetOrNull && p.Exp.Op != syntax.DefaultUnset {
		return "", false
	}
	bare := *p
	bare.Exp = nil
	if v, ok := x.staticValue(&bare); ok && (v != "" || p.Exp.Op == syntax.DefaultUnset) {
		return v, true
	}
	if x.assigned(p.Param.Value) {
		return "", false // set somewhere, not statically: may hold anything
	}
	if p.Exp.Word == nil {
		return "", true
	}
	return x.resolve(p.Exp.Word)
}

// assigned reports whether the script assigns name anywhere.
func (x *shellExtractor) assigned(name string) bool {
	for _, a := range x.script.Assignments {
		if a.Name == name {
			return true
		}
	}
	x.laterValue(name)
	_, ok := x.allValues[name]
	return ok
}
