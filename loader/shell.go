package loader

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ShellDocument is a shell script (bash dialect).
type ShellDocument struct {
	Header
	Shebang *Word `json:"shebang"`
	// Language is "make" or "just" for a Makefile's or a justfile's
	// recipes read as shell (recipes.go), "python" for the static
	// commands of a Python file a build runs (python.go); absent for a
	// shell script.
	Language string  `json:"language,omitempty"`
	Script           // flattened: functions, assignments, ...
	Comments []Word  `json:"comments"`
	Errors   []Error `json:"errors"`
	// vars are a Makefile's or a justfile's variables with a static
	// value, for the references its recipes make.
	vars map[string]string
}

// DocErrors implements Document.
func (d *ShellDocument) DocErrors() []Error { return d.Errors }

// Script is what a shell program holds that a policy may look for. It is
// shared by shell documents and Dockerfile RUN instructions.
type Script struct {
	Functions    []ShellFunction `json:"functions"`
	Assignments  []Assignment    `json:"assignments"`
	Expansions   []Expansion     `json:"expansions"`
	Commands     []ShellCommand  `json:"commands"`
	ForLoops     []ForLoop       `json:"for_loops"`
	CasePatterns []CasePattern   `json:"case_patterns"`
	Heredocs     []ShellHeredoc  `json:"heredocs"`
}

// ShellFunction is a function definition; Pos spans the whole definition.
type ShellFunction struct {
	Name    string `json:"name"`
	NamePos Pos    `json:"name_pos"`
	Pos     Pos    `json:"pos"`
}

// Assignment is NAME=value, NAME=(a b), or an export/local/declare/readonly
// argument. Text is the whole assignment, ValueText the value as written and
// Value its literal value when static. Words is the value split on white space the way a later unquoted
// expansion would split it: a "STAGES='a b c'" list yields one word per entry.
type Assignment struct {
	Name      string  `json:"name"`
	Text      string  `json:"text"`
	ValueText string  `json:"value_text"`
	Value     *string `json:"value"`
	Array     []Word  `json:"array"`
	Words     []Word  `json:"words"`
	Append    bool    `json:"append"`
	Decl      string  `json:"decl"`
	Function  string  `json:"function"`
	NamePos   Pos     `json:"name_pos"`
	Pos       Pos     `json:"pos"`
}

// Expansion is a parameter expansion: $NAME, ${NAME}, ${NAME:-x}, ...
type Expansion struct {
	Name     string `json:"name"`
	Text     string `json:"text"`
	Function string `json:"function"`
	Pos      Pos    `json:"pos"`
}

// ShellCommand is a simple command; Name is its first word's literal value
// (or its text when not static).
type ShellCommand struct {
	// Dir is the directory it runs in (shell_dir.go), null when the
	// script does not say statically; Dirs the other directories it works
	// on (make -C, cmake -S/-B/--build, pip install PATH …) and Fetch the
	// source it fetches (model.go).
	Dir   *string  `json:"dir"`
	Dirs  []string `json:"dirs,omitempty"`
	Fetch *Fetch   `json:"fetch,omitempty"`
	// Pip is what a pip or uv command installs, removes or fetches
	// (pip.go), absent for other commands.
	Pip *PipCall `json:"pip,omitempty"`
	// Name and Words are the command its wrappers run (sudo -E git clone
	// … is git clone …); Wrappers are the words of those wrappers, absent
	// when it has none (shell_effective.go).
	Name     string `json:"name"`
	Words    []Word `json:"words"`
	Wrappers []Word `json:"wrappers,omitempty"`
	Function string `json:"function"`
	Pos      Pos    `json:"pos"`
	// Redirects are its redirections (<, >, >>, <<, <<<, 2>&1 …), each
	// with its target word (a here-document's delimiter; its body is
	// among the script's heredocs).
	Redirects []ShellRedirect `json:"redirects,omitempty"`
	// Pipeline places it in a pipeline of two or more commands (a | b):
	// which pipeline of the script, and its place in it from 0, so that
	// "curl … | sh" is the command at index i+1 of the pipeline of the
	// command at i.
	Pipeline *PipePlace `json:"pipeline,omitempty"`
	// After is the operator that makes it run after what comes before it
	// in its list: "&&" (only on success) or "||" (only on failure);
	// absent when it runs in any case (";", a new line).
	After string `json:"after,omitempty"`
}

// ShellRedirect is one redirection of a command: its operator, the file
// descriptor written before it ("2" of 2>&1, "" when none) and its word.
type ShellRedirect struct {
	Op   string `json:"op"`
	Fd   string `json:"fd,omitempty"`
	Word *Word  `json:"word"`
	Pos  Pos    `json:"pos"`
}

// PipePlace is a command's place in a pipeline; Pos spans the pipeline.
type PipePlace struct {
	ID    int `json:"id"`
	Index int `json:"index"`
	Pos   Pos `json:"pos"`
}

// ForLoop is a for (or select) loop over a word list.
type ForLoop struct {
	Var      string `json:"var"`
	Words    []Word `json:"words"`
	Function string `json:"function"`
	Pos      Pos    `json:"pos"`
}

// CasePattern is one pattern of a case branch; Subject is the case word.
type CasePattern struct {
	Subject  string  `json:"subject"`
	Text     string  `json:"text"`
	Value    *string `json:"value"`
	Function string  `json:"function"`
	Pos      Pos     `json:"pos"`
}

// ShellHeredoc is a here-document; Pos spans its body.
type ShellHeredoc struct {
	Delimiter string `json:"delimiter"`
	Body      string `json:"body"`
	Function  string `json:"function"`
	Pos       Pos    `json:"pos"`
}

func newScript() Script {
	return Script{
		Functions: []ShellFunction{}, Assignments: []Assignment{}, Expansions: []Expansion{},
		Commands: []ShellCommand{}, ForLoops: []ForLoop{}, CasePatterns: []CasePattern{},
		Heredocs: []ShellHeredoc{},
	}
}

func (s *Script) merge(o Script) {
	s.Functions = append(s.Functions, o.Functions...)
	s.Assignments = append(s.Assignments, o.Assignments...)
	s.Expansions = append(s.Expansions, o.Expansions...)
	s.Commands = append(s.Commands, o.Commands...)
	s.ForLoops = append(s.ForLoops, o.ForLoops...)
	s.CasePatterns = append(s.CasePatterns, o.CasePatterns...)
	s.Heredocs = append(s.Heredocs, o.Heredocs...)
}

// maxShellErrors bounds error recovery: each recovery re-parses the rest.
const maxShellErrors = 50

// shellSource is text handed to the shell parser, with a way back to the file.
type shellSource struct {
	// values are the static values the file gives variables outside the
	// script (a pipeline's env:), for the scripts it hands to a shell.
	values map[string]string
	// budget, when set, is the nested-script budget every script of the
	// file shares (sized from the whole file).
	budget *int
	text   []byte
	span   func(start, end int) Pos
	// once: no recovery after the first error (a script nested in a
	// word, whose recovery would multiply the bytes parsed).
	once bool
	// parser, when set, is reused (scripts nested in words are many and
	// small; a new parser costs more than parsing one of them).
	parser *syntax.Parser
	// dir is the directory the script starts in ("" for "where it is
	// run": "."), a Dockerfile RUN's WORKDIR.
	dir        string
	dirUnknown bool
	// lineShells, when set, are the offsets where each line of a
	// Makefile's or a justfile's recipes starts: each runs in a shell of
	// its own (its cd is gone on the next line).
	lineShells []int
	// rest is the file's text after the script (a Dockerfile's after
	// the RUN), where a script written to a file may be run
	// (shell_written.go).
	rest []byte
	// textOf, when set, is the file's text for a range of text: a script
	// nested in a word is decoded text, but an element's text is always
	// what the file has at its position.
	textOf func(start, end int) string
}

// shellExtractor walks parsed statements and collects a Script.
type shellExtractor struct {
	src      shellSource
	str      string // src.text, once
	script   Script
	comments []Word
	funcs    []string // enclosing function names, innermost last
	stack    []syntax.Node
	words    int
	tooDeep  bool
	tooMany  bool
	errs     []Error
	// Shell inside shell (shell_nested.go): how deep, the bytes left to
	// parse, and the inner scripts' syntax errors.
	depth        int
	nestedBudget *int
	nestedParser **syntax.Parser
	synErrs      []Error
	// ops places commands in pipelines and and-or lists (shell_ops.go).
	ops shellOps
	// parses are the script's, and allValues the static value of each
	// name every assignment of the script agrees on (nil: they do not),
	// made when first asked (laterValue).
	parses    []shellParse
	allValues map[string]*string
	// The working directory of each copy of the shell (shell_dir.go):
	// the script's own (root) and those of its subshells; inEval is set
	// while eval's script is read (it runs in this shell).
	root   *dirState
	dirs   map[syntax.Node]*dirState
	inEval bool
	// after are what to do when the walk leaves a node (a cd's change).
	after map[syntax.Node]func()
	// callArgs are the static words the calls of each function of the
	// script pass it (shell_args.go), made when first asked.
	callArgs map[string][]*string
	// posArgs are the $0, $1 … of the script the next nestedScript
	// reads (sh -c 'SCRIPT' ARG0 ARG1).
	posArgs map[string]string
}

// extractScript walks the parses: the script, its comments, the parts not
// read (bounds passed) and the syntax errors of scripts nested in it.
func extractScript(src shellSource, parses []shellParse) (Script, []Word, []Error, []Error) {
	// Texts are substrings of one copy of the source: a word nested 3,000
	// levels deep must not copy what it encloses 3,000 times.
	// A value put in place of an expansion (eval "$S") may be longer
	// than the script itself: a small script may nest up to 64 KB.
	budget := min(max(len(src.text), 64<<10), maxNestedBytes)
	if src.budget != nil {
		// Shared by every script of the file (a Dockerfile's RUNs): a
		// value put in place in 19,000 RUNs must not parse a gigabyte.
		return extractWith(src, parses, src.budget)
	}
	return extractWith(src, parses, &budget)
}

// extractWith is extractScript with the nested-script budget given.
func extractWith(src shellSource, parses []shellParse, budget *int) (Script, []Word, []Error, []Error) {
	var parser *syntax.Parser
	x := &shellExtractor{src: src, str: string(src.text), script: newScript(), comments: []Word{}, nestedBudget: budget, nestedParser: &parser, parses: parses}
	x.root = &dirState{dir: x.root0(), known: !src.dirUnknown}
	line := -1
	for _, p := range parses {
		for _, s := range p.stmts {
			if src.lineShells != nil {
				if l := sort.SearchInts(src.lineShells, x.off(s.Pos())+1) - 1; l != line {
					line = l
					x.root, x.dirs = &dirState{dir: x.root0(), known: !src.dirUnknown}, nil
				}
			}
			syntax.Walk(s, x.visit)
		}
		for i := range p.comments {
			syntax.Walk(&p.comments[i], x.visit)
		}
	}
	expandAliases(&x.script)
	x.errs = append(x.errs, lookThrough(&x.script)...)
	xargsFed(&x.script)
	modelCommands(&x.script)
	x.errs = append(x.errs, modelPip(&x.script)...)
	return x.script, x.comments, x.errs, x.synErrs
}

func (x *shellExtractor) off(p syntax.Pos) int { return int(p.Offset()) }

// root0 is the directory the script starts in.
func (x *shellExtractor) root0() string {
	if x.src.dir != "" {
		return x.src.dir
	}
	return "."
}

// nodeSpan is the position of a node: every element the document holds
// has one, so this is where elements are counted for maxShellWords.
func (x *shellExtractor) nodeSpan(n syntax.Node) Pos {
	x.words++
	return x.src.span(x.off(n.Pos()), x.off(n.End()))
}

func (x *shellExtractor) nodeText(n syntax.Node) string {
	s, e := x.off(n.Pos()), x.off(n.End())
	if s < 0 || e > len(x.src.text) || s > e {
		return ""
	}
	return x.textAt(s, e)
}

// textAt is the file's text for the range [s, e) of the parsed text.
func (x *shellExtractor) textAt(s, e int) string {
	if x.src.textOf != nil {
		return x.src.textOf(s, e)
	}
	return x.str[s:e]
}

func (x *shellExtractor) function() string {
	if len(x.funcs) == 0 {
		return ""
	}
	return x.funcs[len(x.funcs)-1]
}

func (x *shellExtractor) word(w *syntax.Word) Word {
	out := Word{Text: x.nodeText(w), Pos: x.nodeSpan(w)}
	if v, ok := wordLiteral(w); ok {
		out.Value = strp(v)
	}
	return out
}

// countElement counts one more element (a field of a value split on
// white space is one too: X="a a a …" can hold millions) and reports
// whether it is within maxShellWords; past it, the error is recorded once.
func (x *shellExtractor) countElement(at syntax.Node) bool {
	if x.words <= maxShellWords {
		x.words++
		return true
	}
	if !x.tooMany {
		x.tooMany = true
		x.errs = append(x.errs, Error{Message: capError("shell elements (words, expansions, assignments …)", x.words, maxShellWords) + "; the rest of the script is not read", Pos: x.nodeSpan(at)})
	}
	return false
}

// visit is the walk's visitor: it bounds the walk (elements, depth),
// keeps the stack of nodes (and of functions) and hands each node to node.
func (x *shellExtractor) visit(n syntax.Node) bool {
	if n != nil && x.words > maxShellWords {
		x.countElement(n)
		return false
	}
	if n != nil && len(x.stack) >= maxWalkDepth {
		if !x.tooDeep {
			x.tooDeep = true
			x.errs = append(x.errs, Error{Message: fmt.Sprintf("shell: nested deeper than %d levels here (a pipeline or list that long): what is inside is not read", maxWalkDepth), Pos: x.nodeSpan(n)})
		}
		return false
	}
	if n == nil {
		if len(x.stack) > 0 {
			if f, ok := x.after[x.stack[len(x.stack)-1]]; ok {
				delete(x.after, x.stack[len(x.stack)-1])
				f()
			}
			if _, ok := x.stack[len(x.stack)-1].(*syntax.FuncDecl); ok {
				x.funcs = x.funcs[:len(x.funcs)-1]
			}
			x.stack = x.stack[:len(x.stack)-1]
		}
		return true
	}
	x.stack = append(x.stack, n)
	x.node(n)
	return true
}

func (x *shellExtractor) assign(a *syntax.Assign, decl string) {
	if a.Name == nil {
		return
	}
	as := Assignment{
		Name: a.Name.Value, Append: a.Append, Decl: decl, Function: x.function(),
		NamePos: x.nodeSpan(a.Name), Pos: x.nodeSpan(a), Words: []Word{}, Text: x.nodeText(a),
	}
	switch {
	case a.Array != nil:
		as.ValueText = x.nodeText(a.Array)
		as.Array = []Word{}
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				w := x.word(e.Value)
				as.Array = append(as.Array, w)
				as.Words = append(as.Words, w)
			}
		}
	case a.Value != nil:
		as.ValueText = x.nodeText(a.Value)
		if v, ok := wordLiteral(a.Value); ok {
			as.Value = strp(v)
		}
		as.Words = x.fields(a.Value)
	default:
		as.Value = strp("")
	}
	x.script.Assignments = append(x.script.Assignments, as)
}

// foreignInterpreter is the program a #! line names when it is not a
// shell (perl, python, ruby, node …), else "".
func foreignInterpreter(shebang *Word) string {
	if shebang == nil || shebang.Value == nil {
		return ""
	}
	prog := shebangProgram(*shebang.Value)
	// bash and the POSIX shells mvdan/sh reads; zsh (and csh, fish …)
	// have their own syntax: a file of theirs is read as shell for what
	// reads the same.
	switch prog {
	case "", "sh", "bash", "dash", "ash", "ksh", "mksh", "posh", "yash", "hush", "busybox", "env":
		return ""
	}
	return prog
}

// loadShell parses a shell script.
func loadShell(path string, src []byte) *ShellDocument {
	idx := newLineIndex(src)
	doc := &ShellDocument{Header: Header{Kind: KindShell, Path: path}, Errors: []Error{}}
	if bytes.HasPrefix(src, []byte("#!")) {
		end := idx.lineEnd(1)
		doc.Shebang = &Word{Text: string(src[:end]), Value: strp(strings.TrimSpace(string(src[2:end]))), Pos: idx.span(0, end)}
	}
	ss := shellSource{text: src, span: idx.span}
	if len(src) > maxShellBytes {
		doc.Script, doc.Comments = newScript(), []Word{}
		doc.Errors = append(doc.Errors, Error{Message: sizeBoundError("shell script", len(src), maxShellBytes), Pos: idx.span(0, 0)})
		return doc
	}
	// mvdan/sh holds some 300 bytes per expansion: a script of two-byte
	// "$a"s would pass the element cap only after the parser has spent
	// 150 times its size. Every expansion or substitution needs a "$" or a
	// backquote, so their count bounds it before parsing.
	if n := bytes.Count(src, []byte{'$'}) + bytes.Count(src, []byte{'`'}); n > maxShellWords {
		doc.Script, doc.Comments = newScript(), []Word{}
		doc.Errors = append(doc.Errors, Error{Message: capError("expansions and substitutions ($ and `)", n, maxShellWords), Pos: idx.span(0, 0)})
		return doc
	}
	parses, errs, bound := parseShell(ss)
	if lang := foreignInterpreter(doc.Shebang); lang != "" {
		// A file whose #! names another language (a perl script run by
		// its path) is read as shell for what of it reads the same; where
		// the shell parser gives up on it, that is a syntax error of the
		// reading, not a part of a shell script left unread.
		for i := range bound {
			bound[i].Syntax = true
			bound[i].Message += " (its #! names " + lang + ": it is read as shell for what reads the same)"
		}
	}
	doc.Errors = append(doc.Errors, errs...)
	doc.Errors = append(doc.Errors, bound...)
	var werrs, serrs []Error
	doc.Script, doc.Comments, werrs, serrs = extractScript(ss, parses)
	doc.Errors = append(append(doc.Errors, werrs...), serrs...)
	// The shebang is a comment to the shell parser; it is reported apart.
	if doc.Shebang != nil && len(doc.Comments) > 0 && doc.Comments[0].Pos.Line == 1 {
		doc.Comments = doc.Comments[1:]
	}
	inlinePipelines(doc, src)
	return doc
}
