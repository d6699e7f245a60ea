package fix

// Reading a file for the names a removal takes away (Resolve's side):
// the universe of removed names, and each file read by its kind.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/buildgate/buildgate/loader"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"mvdan.cc/sh/v3/syntax"
)

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
	// values are the literal values the script being read gives its
	// variables (knownValues).
	values map[string][]string
	// yamlValues are the values the YAML file being read gives its
	// variables, for its scripts.
	yamlValues map[string][]string
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
		if err := u.hclNames(m, p, text); err != nil {
			return nil, err
		}
	case known && kind == loader.KindShell || !known && shellLike(text):
		u.scriptNames(m, p, text)
	case yamlLike(p) && u.yamlNames(m, text, strings.HasSuffix(p, ".json"), known && kind == loader.KindPipeline):
		// Read as YAML (JSON is YAML too): whole words (issue 30).
	default:
		u.textWords(m, text, strings.HasSuffix(p, ".json"))
	}
	return m, nil
}

// yamlLike reports whether a file is YAML or JSON by its name.
func yamlLike(p string) bool {
	for _, ext := range []string{".yml", ".yaml", ".json"} {
		if strings.HasSuffix(strings.ToLower(p), ext) {
			return true
		}
	}
	return false
}

// hclNames adds the names a bake file names: its own kinds of names read
// structurally (used, not declared in the same file), then its tokens as
// text. A file that does not parse within bounds names anything
// (errUnknown).
func (u *universe) hclNames(m mentions, p string, text []byte) error {
	if errs := loader.Parse(loader.KindHCL, p, text).DocErrors(); len(errs) > 0 {
		return fmt.Errorf("%w: %s", errUnknown, errs[0].Message)
	}
	f, diags := hclsyntax.ParseConfig(text, p, hcl.InitialPos)
	if diags.HasErrors() {
		return fmt.Errorf("%w: %s", errUnknown, diags.Error())
	}
	u.hclUsed(m, f.Body.(*hclsyntax.Body))
	u.hclEvalNames(m, f.Body.(*hclsyntax.Body))
	toks, _ := hclsyntax.LexConfig(text, p, hcl.InitialPos)
	u.hclTokens(m, toks)
	return nil
}

// hclUsed adds the bake variables, functions, targets and groups a bake
// file uses and does not declare itself: bake merges the files it loads,
// so another one's declaration is what they name.
func (u *universe) hclUsed(m mentions, body *hclsyntax.Body) {
	declared, used := hclRefs(body)
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
}

// hclTokens adds what a bake file's tokens name as text: a stage
// (`target = "NAME"`) or an environment variable (`variable "NAME"` reads
// it); the file's own kinds of names are hclUsed's.
func (u *universe) hclTokens(m mentions, toks hclsyntax.Tokens) {
	for k, tok := range toks {
		// An identifier is a variable, a function or an attribute,
		// never a stage (BUILD_MOONCAKE = "0"); comments name nothing;
		// a block's label names the block (variable "BUILD_MOONCAKE"), not
		// a stage; the structural reading counted it as a block.
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
		// The bake file's own kinds of names counted structurally; in
		// its text, a stage (target = "NAME") where a whole string is it
		// (issue 30: `description = "build from source ${TAG}"` names no
		// stage `source`), and an environment variable anywhere.
		// Stages and targets are what the name-bearing attributes
		// evaluate to (hclEvalNames): a label's value or a description
		// that spells one names nothing (issue 30).
		tmp := mentions{}
		u.words(tmp, tok.Bytes, tok.Range.Start.Line, false, false)
		for n, l := range tmp {
			if n.Kind == "variable" {
				m.add(n, l)
			}
		}
	}
}

// scriptNames adds the names a script names, read through its syntax
// tree (words, quoted strings, heredocs, expansions; not comments). A
// script the loader does not read is read as text instead.
func (u *universe) scriptNames(m mentions, p string, text []byte) {
	if errs := loader.Parse(loader.KindShell, p, text).DocErrors(); len(errs) > 0 {
		u.textWords(m, text, false)
		return
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
		case c == '\\':
			continue // mooncake\-rocm-ci is mooncake-rocm-ci to bash
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
	if len(u.parts) == 0 || !bytes.ContainsAny(text, "{$`\\") {
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
