package loader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/buildgate/buildgate/internal/safefile"
)

// Debug, when set, receives the stack of a loader panic (--debug); a
// panic is an error entry of the file either way.
var Debug io.Writer

// DefaultMaxFileSize is the size above which a file is not read.
const DefaultMaxFileSize = 10 << 20

// Parse turns one file's content into its document. It never panics: a
// panic inside a parser becomes an error entry naming the file.
func Parse(kind Kind, rel string, src []byte) (doc Document) {
	defer func() {
		if r := recover(); r != nil {
			doc = emptyAfterPanic(kind, rel)
			addError(doc, Error{
				Message: fmt.Sprintf("internal error while parsing: %v", r),
				Pos:     Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1},
			})
			if Debug != nil {
				fmt.Fprintf(Debug, "buildgate: %s: panic while parsing: %v\n%s", rel, r, debug.Stack())
			}
		}
	}()
	src = bytes.TrimPrefix(src, utf8BOM)
	if i := bytes.IndexByte(src, 0); i >= 0 {
		// NUL bytes: binary content (or UTF-16) under a build file's name.
		// Parsing it would only produce noise; it is one error instead.
		doc = Empty(kind, rel)
		x := newLineIndex(src)
		addError(doc, Error{Message: "the file holds binary content (a NUL byte): not a text build file, so it is not read", Pos: x.span(i, i+1)})
		return doc
	}
	spec, ok := kinds[kind]
	if !ok {
		panic("unknown kind " + string(kind))
	}
	doc = spec.parse(rel, src)
	h := doc.(interface {
		setSuppressions([]Suppression)
		setSource([]byte)
	})
	if s := realComments(doc, src, scanSuppressions(kind, src)); s != nil {
		h.setSuppressions(s)
	}
	h.setSource(src)
	// What checkText finds explains what the parsers then trip over
	// (mvdan/sh's "invalid UTF-8 encoding"): it goes first.
	parsed := doc.DocErrors()
	setErrors(doc, []Error{})
	checkText(doc, src)
	setErrors(doc, append(doc.DocErrors(), parsed...))
	tidyErrors(doc)
	inFile(doc, src)
	return doc
}

// Empty returns a document of a kind with nothing in it, for a file that
// could not be read. An unknown kind is a programming error (detection
// gives only registered kinds): no fallback to another kind.
func Empty(kind Kind, rel string) Document {
	spec, ok := kinds[kind]
	if !ok {
		panic("unknown kind " + string(kind))
	}
	return spec.empty(Header{Kind: kind, Path: rel})
}

// emptyAfterPanic is Empty for a parse that panicked, whatever the kind
// (the panic may be that the kind is not registered): the error entry
// must reach BG001 in some document.
func emptyAfterPanic(kind Kind, rel string) Document {
	if spec, ok := kinds[kind]; ok {
		return spec.empty(Header{Kind: kind, Path: rel})
	}
	return kinds[KindShell].empty(Header{Kind: kind, Path: rel})
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// maxErrors bounds the error entries of one document: a file that fails
// everywhere says so once with a count, not ten thousand times.
const maxErrors = 100

// checkText reports what a loader reads but a reader would not expect:
// bytes that are not UTF-8 (read one by one, each a column), and line
// breaks that are a lone CR (Docker, pip and the shell see none there).
func checkText(doc Document, src []byte) {
	if !utf8.Valid(src) {
		off := 0
		for off < len(src) {
			r, n := utf8.DecodeRune(src[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		x := newLineIndex(src)
		addError(doc, Error{Message: "the file is not valid UTF-8 here: buildgate reads such bytes one by one, and may not see what a tool reading another encoding would", Syntax: true, Pos: x.span(off, off+1)})
	}
	// pip reads a lone CR as a line break (str.splitlines), and the
	// requirements loader does too.
	if doc.DocKind() == KindRequirements {
		return
	}
	for i := bytes.IndexByte(src, '\r'); i >= 0; {
		// A CR that ends the file breaks no line (buildkit drops it as
		// it drops the CR of a CR LF).
		if i+1 < len(src) && src[i+1] != '\n' {
			x := newLineIndex(src)
			addError(doc, Error{Message: "the file has a line break that is a lone CR (old Mac style): Docker and the shell do not read it as a line break; convert the line endings to LF", Syntax: true, Pos: x.span(i, i+1)})
			break
		}
		j := bytes.IndexByte(src[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
}

// tidyErrors makes error messages printable (a parser quoting binary
// garbage would put it into every report), folds knock-on syntax errors
// into the one they follow and caps their number.
func tidyErrors(doc Document) {
	errs := doc.DocErrors()
	if len(errs) == 0 {
		return
	}
	if k := doc.DocKind(); k == KindShell || k == KindHCL {
		errs = foldKnockOns(errs)
	}
	out := make([]Error, 0, min(len(errs), maxErrors+1))
	for i, e := range errs {
		if i == maxErrors {
			out = append(out, Error{Message: fmt.Sprintf("%d more errors in this file are not listed", len(errs)-maxErrors), Pos: e.Pos})
			break
		}
		e.Message = printable(e.Message)
		out = append(out, e)
	}
	setErrors(doc, out)
}

// inFile moves an error a parser placed past the end of the file (the
// offset just after a final newline is the start of a line that does not
// exist) to the end of the last line: a finding points at the file's text.
func inFile(doc Document, src []byte) {
	errs := doc.DocErrors()
	if len(errs) == 0 {
		return
	}
	x := newLineIndex(src)
	last := max(x.lines(), 1)
	for i, e := range errs {
		if e.Pos.Line > last || e.Pos.EndLine > last {
			end := x.span(x.lineEnd(last), x.lineEnd(last))
			if e.Pos.Line > last {
				errs[i].Pos = end
			} else {
				errs[i].Pos.EndLine, errs[i].Pos.EndColumn = end.Line, end.Column
			}
		}
	}
}

// foldKnockOns keeps one error per root cause where a parser's recovery
// produces more from one mistake (a shell line skipped leaves its `fi`
// and `done` unmatched; an unclosed HCL block confuses what follows): the
// syntax errors after the first are named in its message, not reported
// apart. Errors of parts not read stay as they are.
func foldKnockOns(errs []Error) []Error {
	// The first error the parser met is the root cause: recovery finds the
	// rest after it (in the file they may come before: an unclosed `case`
	// is met at the end of the file).
	first, n := -1, 0
	var lines []string
	out := make([]Error, 0, len(errs))
	for _, e := range errs {
		if !e.Syntax {
			out = append(out, e)
			continue
		}
		if first < 0 {
			first = len(out)
			out = append(out, e)
			continue
		}
		if e.Pos.Line == out[first].Pos.Line && e.Pos.Column == out[first].Pos.Column {
			continue // the same mistake, said twice
		}
		n++
		if len(lines) < 10 {
			lines = append(lines, strconv.Itoa(e.Pos.Line))
		} else if len(lines) == 10 {
			lines = append(lines, "…")
		}
	}
	if n > 0 {
		what := "error"
		if n > 1 {
			what = "errors"
		}
		out[first].Message += fmt.Sprintf(" (and %d more syntax %s after it, at line %s, which may follow from this one: fix this first)", n, what, strings.Join(lines, ", "))
	}
	return out
}

func printable(s string) string {
	var b strings.Builder
	n := 0
	for i, r := range s {
		if n >= 300 {
			b.WriteString("...")
			break
		}
		n++
		switch {
		case r == utf8.RuneError:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\t' || unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

// Loader reads files below a root directory and never outside it: reads go
// through an os.Root, so neither ".." nor a symbolic link can leave it.
type Loader struct {
	root        *os.Root
	realDir     string // the root directory with links resolved
	MaxFileSize int64
	seen        map[string]bool
}

// NewLoader opens root for reading.
func NewLoader(root string) (*Loader, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	return &Loader{root: r, realDir: real, MaxFileSize: DefaultMaxFileSize, seen: map[string]bool{}}, nil
}

// Close releases the root.
func (l *Loader) Close() error { return l.root.Close() }

// ReadError is a file that could not be read at all.
type ReadError struct {
	Path string
	Err  error
}

func (e *ReadError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Load reads rel (slash-separated, relative to the root) as kind and returns
// its document followed by the documents of the requirements files it
// includes, each once per Loader. A file that cannot be opened at all is a
// *ReadError; one that is too large or not regular is a document whose only
// entry is an error.
func (l *Loader) Load(rel string, kind Kind) ([]Document, error) {
	src, err := l.read(rel)
	if err != nil {
		var tooBig *safefile.SizeError
		if errors.As(err, &tooBig) {
			doc := Empty(kind, rel)
			addError(doc, Error{Message: err.Error(), Pos: Pos{Line: 1, Column: 1, EndLine: 1, EndColumn: 1}})
			l.seen[rel] = true
			return []Document{doc}, nil
		}
		return nil, &ReadError{Path: rel, Err: err}
	}
	l.seen[rel] = true
	doc := Parse(kind, rel, src)
	docs := []Document{doc}
	if req, ok := doc.(*RequirementsDocument); ok {
		docs = append(docs, l.FollowIncludes(req)...)
	}
	return docs, nil
}

// FollowIncludes reads the requirements files a parsed requirements file
// includes (-r, -c), and those they include, each once per Loader; what
// following them finds (a cycle, an include that cannot be read, one that
// is missing) is recorded in the documents.
func (l *Loader) FollowIncludes(req *RequirementsDocument) []Document {
	l.seen[req.Path] = true
	return l.includes(req, []string{req.Path})
}

// includes follows -r and -c lines depth first, without recursion (a
// chain of 20,000 includes is a pull request's to write); chain is the
// include path so far, shared by every level (not copied), so that a cycle
// is reported where it closes.
func (l *Loader) includes(root *RequirementsDocument, chain []string) []Document {
	var out []Document
	onChain := map[string]int{}
	for i, p := range chain {
		onChain[p] = i
	}
	type frame struct {
		doc  *RequirementsDocument
		next int // the next include to follow
	}
	stack := []frame{{doc: root}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next >= len(top.doc.Includes) {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				delete(onChain, chain[len(chain)-1])
				chain = chain[:len(chain)-1]
			}
			continue
		}
		doc := top.doc
		inc := &doc.Includes[top.next]
		top.next++
		if inc.Path == "" {
			continue
		}
		if i, ok := onChain[inc.Path]; ok {
			doc.Errors = append(doc.Errors, Error{
				Message: fmt.Sprintf("include cycle: %s", strings.Join(append(chain[i:len(chain):len(chain)], inc.Path), " -> ")),
				Pos:     inc.Target.Pos,
			})
			continue
		}
		if l.seen[inc.Path] {
			continue
		}
		src, err := l.read(inc.Path)
		if errors.Is(err, fs.ErrNotExist) {
			// pip stops here ("Could not open requirements file"); buildgate
			// does not: a checkout may hold part of a repository (the vLLM
			// corpus has rocm.txt without common.txt), and nothing is
			// hidden (the pin rules see no pin there).
			inc.Missing = true
			continue
		}
		if err != nil {
			doc.Errors = append(doc.Errors, Error{Message: fmt.Sprintf("-%s %s: %s", inc.Kind[:1], inc.Target.Text, describe(err)), Pos: inc.Target.Pos})
			continue
		}
		l.seen[inc.Path] = true
		sub := Parse(KindRequirements, inc.Path, src).(*RequirementsDocument)
		out = append(out, sub)
		onChain[inc.Path] = len(chain)
		chain = append(chain, inc.Path)
		stack = append(stack, frame{doc: sub})
	}
	return out
}

// Read reads the file rel (slash-separated, below the root) as Load does,
// without parsing it: never inside .git, never past MaxFileSize.
func (l *Loader) Read(rel string) ([]byte, error) { return l.read(rel) }

func (l *Loader) read(rel string) ([]byte, error) {
	if l.inGitDir(rel) {
		return nil, ErrGitDir
	}
	b, err := safefile.In(l.root, rel, l.MaxFileSize)
	var se *safefile.SizeError
	if errors.As(err, &se) {
		se.Flag = "--max-file-size"
	}
	return b, err
}

func describe(err error) string { return safefile.Describe(err) }

// ErrGitDir is a build file, include or link that leads into .git: git's
// own files hold credentials (actions/checkout keeps the token in
// .git/config), and a parse error would quote them into the report.
// A hard link to one of them is refused by the reader itself
// (safefile.ErrGitLink, which is an ErrGitDir).
var ErrGitDir = safefile.ErrGitDir

// inGitDir reports whether rel, or where its links lead, is inside a
// directory named .git.
func (l *Loader) inGitDir(rel string) bool {
	if hasGitPart(rel) {
		return true
	}
	full, err := filepath.EvalSymlinks(filepath.Join(l.realDir, filepath.FromSlash(rel)))
	if err != nil {
		return false // the read itself reports what is wrong
	}
	r, err := filepath.Rel(l.realDir, full)
	return err == nil && hasGitPart(filepath.ToSlash(r))
}

func hasGitPart(rel string) bool { return safefile.UnderGit(rel) }
