package fix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/buildgate/buildgate/loader"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Name is something a fix removes from one file that another file can
// still name: a Dockerfile stage (`docker build --target`, a bake target's
// `target =`), a bake target or group (`docker buildx bake NAME`, another
// bake file's group), a bake variable or function (another bake file
// loaded with it), a script's variable (a child process, a sourced file,
// a bake variable read from the environment).
type Name struct {
	Kind string // "stage", "target", "group", "bake variable", "bake function", "variable"
	Name string
}

func (n Name) String() string { return n.Kind + " " + n.Name }

// hclKind is the block type of a bake file's own name, "" for others.
func (n Name) hclKind() string {
	switch n.Kind {
	case "target", "group":
		return n.Kind
	case "bake variable", "bake function":
		return strings.TrimPrefix(n.Kind, "bake ")
	}
	return ""
}

// A name stands as a word where the bytes around it cannot belong to it:
// a variable is letters, digits and '_' ("$MC.tar.gz", "$MC-rocm" name
// MC); a bake target or group may hold '-' but not '.' (`--set
// NAME.platform=`, `target.NAME.tags`); a stage may hold both (buildkit:
// [a-z][a-z0-9-_.]*) and is compared without regard to case.
func wordClass(kind string) func(byte) bool {
	alnum := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	switch kind {
	case "stage":
		return func(c byte) bool { return alnum(c) || c == '-' || c == '.' }
	case "target", "group":
		return func(c byte) bool { return alnum(c) || c == '-' }
	}
	return alnum
}

// universe is every name some change removes, by the class of word it is
// found as, for lookups while a file is read once.
type universe struct {
	byClass map[string]map[string][]Name // "stage" (lower case), "target", "variable" -> word -> names
	prefix  bool                         // some variable could be listed by prefix
	// parts are the lower-case alphanumeric parts of the stage and target
	// names (for anyPart).
	parts map[string]bool
	// allListed are the lines of commands that list every variable (env,
	// compgen -v without a prefix) in the file being read.
	allListed []int
	needles   [][]byte // lower case, for the cheap pre-check
}

func newUniverse(changes []*Change) *universe {
	u := &universe{byClass: map[string]map[string][]Name{"stage": {}, "target": {}, "variable": {}}, parts: map[string]bool{}}
	seen := map[Name]bool{}
	for _, c := range changes {
		for _, n := range c.Gone {
			if seen[n] || n.Name == "" {
				continue
			}
			seen[n] = true
			class, word := "variable", n.Name
			switch n.Kind {
			case "stage":
				class, word = "stage", strings.ToLower(n.Name)
				u.addParts(word)
			case "target", "group":
				class = "target"
				u.addParts(strings.ToLower(n.Name))
			case "variable":
				u.prefix = true
			}
			u.byClass[class][word] = append(u.byClass[class][word], n)
			u.needles = append(u.needles, []byte(strings.ToLower(n.Name)))
		}
	}
	return u
}

func (u *universe) addParts(name string) {
	for _, p := range strings.FieldsFunc(name, func(r rune) bool { return r > 0x7f || !isAlnum(byte(r)) }) {
		if len(p) >= 3 {
			u.parts[p] = true
		}
	}
}

// mentions are the names of the universe a file names, each with the
// first line it does so on.
type mentions map[Name]int

func (m mentions) add(n Name, line int) {
	if l, ok := m[n]; !ok || line < l {
		m[n] = line
	}
}

// words adds the names of the universe that text (starting at line) holds
// as words; a bake file's own variables and functions only where bakeOwn
// (bake JSON spells them ${NAME}; a script naming one only sets the
// environment bake would read).
//
// In a script's literal words (shellLit) a variable's name only counts as
// a whole word between the bytes a shell word can hold: `--build-arg
// NAME`, `-v NAME`, `--build-arg=NAME`; "mc-ci" does not name $mc (an
// expansion is a node of its own there, "$MC.tar.gz" names MC).
func (u *universe) words(m mentions, text []byte, line int, bakeOwn, shellLit bool) {
	for class, names := range u.byClass {
		if len(names) == 0 {
			continue
		}
		in := wordClass(class)
		if shellLit && class == "variable" {
			in = wordClass("stage")
		}
		t := text
		if class == "stage" {
			t = asciiLower(text)
		}
		l := line
		for i := 0; i < len(t); {
			if t[i] == '\n' {
				l++
			}
			if !in(t[i]) {
				i++
				continue
			}
			j := i
			for j < len(t) && in(t[j]) {
				j++
			}
			// NAME=value is an assignment's name (BUILD_MOONCAKE=0), not
			// a stage or a target.
			assign := j < len(t) && t[j] == '='
			for _, n := range names[string(t[i:j])] {
				if assign && class != "variable" {
					continue
				}
				if bakeOwn || n.Kind != "bake variable" && n.Kind != "bake function" {
					m.add(n, l)
				}
			}
			i = j
		}
	}
}

// asciiLower lowers A-Z only, so that offsets stay those of the input.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// errUnknown is a file whose names cannot be told: it could not be read
// or parsed within buildgate's bounds.
var errUnknown = errors.New("cannot be read within buildgate's bounds")

// namesIn are the names of the universe the file at p names, as it will
// be (text). A Dockerfile or a requirements file names none of them (a
// stage is another Dockerfile's, a target bake's, a variable reaches a
// Dockerfile only through a build argument something else passes).
// Scripts are read through their syntax tree (words, quoted strings,
// heredocs, expansions; not comments) and bake files through their
// tokens (not comments) and, for their own kinds of names, structurally
// (a variable or function used, a target in targets/inherits/target:/
// target.NAME, not declared in the same file: bake merges them); other
// files (bake JSON, compose files) as text without whole-line comments.
func (u *universe) namesIn(p string, text []byte) (mentions, error) {
	m := mentions{}
	kind, known := loader.DetectName(p)
	if known && kind == loader.KindDockerfile {
		return m, nil
	}
	if known && kind == loader.KindRequirements {
		// pip expands ${NAME} (upper case, digits, _) from the
		// environment in requirements files: a removed export may be read.
		u.requirementsVars(m, text)
		return m, nil
	}
	// The cheap pre-check, one pass: the text's words, with quotes and
	// line continuations taken out (build_"moon"cake, build_moon\
	// cake), against every name; and anything that lists variables.
	if !u.anyWord(joinedText(text)) && (!u.prefix || !listsVariables(text)) && !u.anyPart(text) {
		return m, nil
	}
	switch {
	case strings.HasSuffix(p, ".hcl"):
		if errs := loader.Parse(loader.KindHCL, p, text).DocErrors(); len(errs) > 0 {
			return nil, fmt.Errorf("%w: %s", errUnknown, errs[0].Message)
		}
		f, diags := hclsyntax.ParseConfig(text, p, hcl.InitialPos)
		if diags.HasErrors() {
			return nil, fmt.Errorf("%w: %s", errUnknown, diags.Error())
		}
		declared, used := hclRefs(f.Body.(*hclsyntax.Body))
		for word, line := range used {
			kind, name, _ := strings.Cut(word, " ")
			if declared[word] {
				continue
			}
			for _, n := range u.byClass["variable"][name] {
				if n.hclKind() == kind {
					m.add(n, line)
				}
			}
			for _, n := range u.byClass["target"][name] {
				if n.hclKind() == kind || kind == "target" && n.Kind == "group" {
					m.add(n, line)
				}
			}
		}
		toks, _ := hclsyntax.LexConfig(text, p, hcl.InitialPos)
		for k, tok := range toks {
			// An identifier is a variable, a function or an attribute,
			// never a stage (BUILD_MOONCAKE = "0"); comments name nothing;
			// a block's label names the block (variable "BUILD_MOONCAKE"), not
			// a stage; the structural reading above counted it as a block.
			if tok.Type == hclsyntax.TokenComment || tok.Type == hclsyntax.TokenIdent {
				continue
			}
			if tok.Type == hclsyntax.TokenQuotedLit && k+2 < len(toks) && toks[k+1].Type == hclsyntax.TokenCQuote &&
				(toks[k+2].Type == hclsyntax.TokenOBrace || toks[k+2].Type == hclsyntax.TokenOQuote) {
				// variable "NAME" reads the environment's NAME, which a
				// script may export.
				u.variable(m, string(tok.Bytes), tok.Range.Start.Line)
				continue
			}
			// The bake file's own kinds of names counted above; in its
			// text, a stage (target = "NAME") or an environment variable
			// (variable "NAME" reads it).
			u.wordsExcept(m, tok.Bytes, tok.Range.Start.Line)
		}
	case known && kind == loader.KindShell || !known && shellLike(text):
		if errs := loader.Parse(loader.KindShell, p, text).DocErrors(); len(errs) > 0 {
			u.textWords(m, text, false)
			return m, nil
		}
		// The loader read it, so bash's parser does too; should it not,
		// the text stands in (comments and all: more names, never fewer).
		if f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(text), p); err == nil {
			u.allListed = nil
			u.shellWords(m, f)
			u.listedAll(m, joinedText(text))
		} else {
			u.textWords(m, text, false)
		}
	default:
		u.textWords(m, text, strings.HasSuffix(p, ".json"))
	}
	return m, nil
}

// joinedText is text without quotes and line continuations, so that a
// word a shell joins is one word here too.
func joinedText(text []byte) []byte {
	out := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"' || c == '\'':
			continue
		case c == '\\' && i+1 < len(text) && text[i+1] == '\n':
			i++
			continue
		case c == '\\' && i+2 < len(text) && text[i+1] == '\r' && text[i+2] == '\n':
			i += 2
			continue
		}
		out = append(out, text[i])
	}
	return out
}

// anyPart reports whether text holds, as an alphanumeric run, a part of a
// stage or target name (mooncake, rocm of mooncake-rocm-ci) next to a
// brace or an expansion: bash may build the name there
// ({nixl,mooncake}-rocm-ci, "${dep}-rocm-ci"), so the file is parsed.
func (u *universe) anyPart(text []byte) bool {
	if len(u.parts) == 0 || !bytes.ContainsAny(text, "{$") {
		return false
	}
	low := asciiLower(text)
	for i := 0; i < len(low); {
		if !isAlnum(low[i]) {
			i++
			continue
		}
		j := i
		for j < len(low) && isAlnum(low[j]) {
			j++
		}
		if u.parts[string(low[i:j])] {
			return true
		}
		i = j
	}
	return false
}

func isAlnum(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' }

// anyWord reports whether text holds any name of the universe as a word of
// its class (without regard to kinds or case: a pre-check).
func (u *universe) anyWord(text []byte) bool {
	m := mentions{}
	u.words(m, text, 1, true, true)
	if len(m) > 0 {
		return true
	}
	u.words(m, text, 1, true, false)
	return len(m) > 0
}

// listsVariables reports whether a text may list variables by a prefix
// or all at once: ${!P@}, compgen -v / -A variable, env or printenv
// without a name, export -p, declare -p/-x, set.
func listsVariables(text []byte) bool {
	for _, w := range [][]byte{[]byte("${!"), []byte("compgen"), []byte("printenv"), []byte("export -p"), []byte("declare -"), []byte("env |"), []byte("env|"), []byte("set |")} {
		if bytes.Contains(text, w) {
			return true
		}
	}
	return false
}

// requirementsVars adds the variables a requirements file reads: pip
// expands ${NAME} where NAME is upper case letters, digits and '_'.
func (u *universe) requirementsVars(m mentions, text []byte) {
	for i, line := range bytes.Split(text, []byte("\n")) {
		for rest := line; ; {
			k := bytes.Index(rest, []byte("${"))
			if k < 0 {
				break
			}
			rest = rest[k+2:]
			e := bytes.IndexByte(rest, '}')
			if e < 0 {
				break
			}
			for _, n := range u.byClass["variable"][string(rest[:e])] {
				if n.Kind == "variable" {
					m.add(n, i+1)
				}
			}
			rest = rest[e+1:]
		}
	}
}

// shellLike reports whether a file without a known kind reads as a
// script (a #! line naming a shell).
func shellLike(text []byte) bool {
	return bytes.HasPrefix(text, []byte("#!")) && bytes.Contains(bytes.SplitN(text, []byte("\n"), 2)[0], []byte("sh"))
}

// wordsExcept is words for everything but a bake file's own kinds.
func (u *universe) wordsExcept(m mentions, text []byte, line int) {
	tmp := mentions{}
	u.words(tmp, text, line, false, false)
	for n, l := range tmp {
		if n.hclKind() == "" {
			m.add(n, l)
		}
	}
}

// textWords reads a file as text, whole-line comments (#, //) aside.
func (u *universe) textWords(m mentions, text []byte, bakeOwn bool) {
	for i, line := range bytes.Split(text, []byte("\n")) {
		t := bytes.TrimLeft(line, " \t")
		if len(t) == 0 || t[0] == '#' || bytes.HasPrefix(t, []byte("//")) {
			continue
		}
		u.words(m, line, i+1, bakeOwn, false)
		u.prefixes(m, line, i+1)
	}
}

// prefixes adds the variables a text lists by prefix (${!MC_@},
// compgen -v MC_).
func (u *universe) prefixes(m mentions, text []byte, line int) {
	if !u.prefix {
		return
	}
	for _, pre := range listedPrefixes(text) {
		u.byPrefix(m, pre, line)
	}
}

func (u *universe) byPrefix(m mentions, pre string, line int) {
	for word, names := range u.byClass["variable"] {
		if strings.HasPrefix(word, pre) {
			for _, n := range names {
				if n.Kind == "variable" {
					m.add(n, line)
				}
			}
		}
	}
}

// listedPrefixes finds ${!PREFIX@}, ${!PREFIX*} and `compgen -v PREFIX`
// in text.
func listedPrefixes(text []byte) []string {
	var out []string
	s := string(text)
	for {
		i := strings.Index(s, "${!")
		if i < 0 {
			break
		}
		s = s[i+3:]
		j := 0
		for j < len(s) && wordClass("variable")(s[j]) {
			j++
		}
		if j < len(s) && (s[j] == '@' || s[j] == '*') {
			out = append(out, s[:j])
		}
	}
	fs := strings.Fields(string(text))
	for i := 0; i+2 < len(fs); i++ {
		if fs[i] == "compgen" && fs[i+1] == "-v" {
			out = append(out, strings.Trim(fs[i+2], `"'`))
		}
	}
	return out
}

// shellWords reads a script's syntax tree: every literal, quoted string
// and expansion (comments are not in the tree), and the prefixes it lists
// variables by.
func (u *universe) shellWords(m mentions, f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Word:
			// The word as the shell joins it: build_"moon"cake is one
			// word; {nixl,mooncake}-rocm-ci is two; an expansion in it
			// splits it, and a name it may complete counts.
			u.braceWords(m, x)
		case *syntax.ParamExp:
			if x.Param != nil {
				u.variable(m, x.Param.Value, int(x.Pos().Line()))
				if x.Excl && x.Names != 0 && u.prefix {
					u.byPrefix(m, x.Param.Value, int(x.Pos().Line()))
				}
			}
		case *syntax.CallExpr:
			u.listing(m, x)
		case *syntax.DeclClause:
			// declare -p NAME, export NAME, local NAME: a bare name is read
			// (printed, exported with its value) or still declared.
			for _, a := range x.Args {
				if a.Naked && a.Name != nil {
					u.variable(m, a.Name.Value, int(a.Pos().Line()))
				}
			}
			// export -p, declare -p / -x alone print every variable.
			if len(x.Args) == 1 && x.Args[0].Naked && x.Args[0].Name == nil || len(x.Args) == 0 && x.Variant != nil && x.Variant.Value != "local" {
				u.allListed = append(u.allListed, int(x.Pos().Line()))
			}
		}
		return true
	})
}

// maxBraceWords bounds a word's brace expansion; past it, every stage and
// target counts as named (the word could spell any of them).
const maxBraceWords = 1024

// braceWords reads a word as bash expands its braces, each expansion as a
// word of its own, and the names an expansion inside it may complete.
func (u *universe) braceWords(m mentions, w *syntax.Word) {
	line := int(w.Pos().Line())
	cp := *w
	cp.Parts = append([]syntax.WordPart(nil), w.Parts...)
	if !syntax.SplitBraces(&cp) {
		u.words(m, []byte(joinedWord(w)), line, false, true)
		u.completed(m, w, line)
		return
	}
	n := 0
	for x, err := range expand.BracesSeq(nil, &cp) {
		n++
		if err != nil || n > maxBraceWords {
			for _, class := range []string{"stage", "target"} {
				for _, names := range u.byClass[class] {
					for _, nm := range names {
						m.add(nm, line)
					}
				}
			}
			return
		}
		u.words(m, []byte(joinedWord(x)), line, false, true)
		u.completed(m, x, line)
	}
}

// completed adds the stages and targets a word built around an expansion
// may spell: "${dep}-rocm-ci" may be mooncake-rocm-ci, "build_${x}" may
// be build_mooncake. The literal next to the expansion must be a whole
// end of the name, and hold a letter or digit.
func (u *universe) completed(m mentions, w *syntax.Word, line int) {
	joined := joinedWord(w)
	if !strings.Contains(joined, " ") {
		return
	}
	segs := strings.Split(joined, " ")
	for _, class := range []string{"stage", "target"} {
		in := wordClass(class)
		for k, seg := range segs {
			if class == "stage" {
				seg = strings.ToLower(seg)
			}
			var after, before string // a run after an expansion, before one
			if k > 0 {
				e := 0
				for e < len(seg) && in(seg[e]) {
					e++
				}
				after = seg[:e]
			}
			if k < len(segs)-1 {
				b := len(seg)
				for b > 0 && in(seg[b-1]) {
					b--
				}
				before = seg[b:]
			}
			for word, names := range u.byClass[class] {
				if after != "" && hasAlnum(after) && strings.HasSuffix(word, after) || before != "" && hasAlnum(before) && strings.HasPrefix(word, before) {
					for _, nm := range names {
						m.add(nm, line)
					}
				}
			}
		}
	}
}

func hasAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// variable adds the removed variable a parameter expansion reads (an
// expansion names nothing else: not a stage, not a target).
func (u *universe) variable(m mentions, name string, line int) {
	for _, n := range u.byClass["variable"][name] {
		if n.Kind == "variable" {
			m.add(n, line)
		}
	}
}

// listing adds the variables a command may list: compgen -v / -A
// variable PREFIX by prefix; compgen, env, printenv, export -p, declare
// -p/-x, set without a name list them all: every removed variable whose
// prefix (up to its first '_') the script names counts.
func (u *universe) listing(m mentions, c *syntax.CallExpr) {
	if !u.prefix || len(c.Args) == 0 {
		return
	}
	line := int(c.Pos().Line())
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = joinedWord(a)
	}
	switch args[0] {
	case "compgen":
		for i := 1; i < len(args); i++ {
			if args[i] == "-v" || args[i] == "-A" && i+1 < len(args) && args[i+1] == "variable" {
				if args[i] == "-A" {
					i++
				}
				if i+1 < len(args) {
					u.byPrefix(m, args[i+1], line)
					return
				}
			}
		}
		u.allListed = append(u.allListed, line) // compgen -v: every name
	case "env", "printenv", "set":
		if len(args) == 1 { // alone they print every variable
			u.allListed = append(u.allListed, line)
		}
	}
}

// listedAll adds, where the script lists every variable (u.allListed),
// each removed variable whose prefix up to its first '_' (MOONCAKE_) the
// script's text names: `env | grep ^MOONCAKE_`, `compgen -v | grep ...`.
func (u *universe) listedAll(m mentions, text []byte) {
	if len(u.allListed) == 0 {
		return
	}
	for _, names := range u.byClass["variable"] {
		for _, n := range names {
			if n.Kind != "variable" {
				continue
			}
			pre := n.Name
			if k := strings.IndexByte(pre, '_'); k > 0 {
				pre = pre[:k+1]
			}
			if bytes.Contains(text, []byte(pre)) {
				m.add(n, u.allListed[0])
			}
		}
	}
}

// joinedWord is a word's literal text as the shell joins it; each
// expansion or substitution in it stands as a space.
func joinedWord(w *syntax.Word) string {
	var b strings.Builder
	var part func(p syntax.WordPart)
	part = func(p syntax.WordPart) {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(strings.ReplaceAll(x.Value, "\\\n", ""))
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				part(q)
			}
		default:
			b.WriteByte(' ')
		}
	}
	for _, p := range w.Parts {
		part(p)
	}
	return b.String()
}

// Change is one file's planned change in a fix run.
type Change struct {
	Path     string
	Old, New []byte
	Gone     []Name // what the change removes that other files could name
	Refused  string // why Resolve refused it, "" while it stands
}

// Resolve refuses each change that removes a name another file still
// names, as that file will be once the changes that stand are made: a
// stage a script still builds with --target, a target a declined bake
// file still groups, a variable a bake file still reads from the
// environment. Refusing one change brings back what it removed, which
// can refuse others; Resolve repeats until none is refused (refusals only
// grow). files are the files to look into besides the changed ones (the
// whole tree's build files, whatever the run's paths and excludes, and
// the files bake merges); read gives the text of one, fs.ErrNotExist when
// there is none. A file that cannot be read or parsed within bounds names
// anything: every change with names to check is refused. Each file is
// read once per text it has (its old one only when its change is
// refused), so the work is linear in the tree and the names.
func Resolve(ctx context.Context, changes []*Change, files []string, read func(string) ([]byte, error)) error {
	u := newUniverse(changes)
	if len(u.needles) == 0 {
		return nil
	}
	byPath := map[string]*Change{}
	for _, c := range changes {
		byPath[c.Path] = c
	}
	all := append([]string(nil), files...)
	for _, c := range changes {
		all = append(all, c.Path)
	}
	sort.Strings(all)
	all = compactStrings(all)
	// who names what, as the files are now.
	named := map[string]mentions{}
	index := map[Name][]string{}
	refuse := func(c *Change, why string) { c.Refused = why }
	for _, p := range all {
		if err := ctx.Err(); err != nil {
			return err
		}
		var text []byte
		if c, ok := byPath[p]; ok {
			text = c.New
		} else {
			t, err := read(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				for _, c := range changes {
					if len(c.Gone) > 0 && c.Refused == "" {
						refuse(c, fmt.Sprintf("%s could not be read (%v), so what it names is unknown; fix it by hand", p, err))
					}
				}
				return nil
			}
			text = t
		}
		m, err := u.namesIn(p, text)
		if err != nil {
			for _, c := range changes {
				if len(c.Gone) > 0 && c.Refused == "" && c.Path != p {
					refuse(c, fmt.Sprintf("%s %v, so what it names is unknown; fix it by hand", p, err))
				}
			}
			return nil
		}
		named[p] = m
		for n := range m {
			index[n] = append(index[n], p)
		}
	}
	check := func(c *Change) bool {
		for _, n := range c.Gone {
			for _, p := range index[n] {
				if p != c.Path {
					refuse(c, fmt.Sprintf("%s would still name the %s (line %d) once fixed; fix them together by hand", p, n, named[p][n]))
					return true
				}
			}
		}
		return false
	}
	work := append([]*Change(nil), changes...)
	for len(work) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := work[0]
		work = work[1:]
		if c.Refused != "" || len(c.Gone) == 0 || !check(c) {
			continue
		}
		// Its file keeps its old text: what that names counts now.
		m, err := u.namesIn(c.Path, c.Old)
		if err != nil {
			m = nil
		}
		for n := range m {
			if _, had := named[c.Path][n]; !had {
				index[n] = append(index[n], c.Path)
			}
		}
		named[c.Path] = m
		for _, d := range changes {
			if d.Refused != "" || d == c {
				continue
			}
			for _, n := range d.Gone {
				if _, ok := m[n]; ok {
					work = append(work, d)
					break
				}
			}
		}
	}
	return nil
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// BakeLoads are the files `docker buildx bake` merges by default beside
// its HCL files (Docker's lookup order): a name a fix removes from a bake
// file must not be used there either.
var BakeLoads = []string{"docker-bake.json", "docker-bake.override.json", "compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"}

// BakeLoad reports whether a path is one of BakeLoads by its base name.
func BakeLoad(p string) bool {
	base := path.Base(p)
	for _, b := range BakeLoads {
		if base == b {
			return true
		}
	}
	return false
}
