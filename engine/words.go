package engine

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// wordSet is the words (lower-case runs of ASCII letters and digits) of a
// document's code, comments left out, and of its path: made once per path
// and evaluation, so that a rule may ask about every element of a file
// without rescanning it (a 1.5 MB script asked 35,000 times took 140 s).
type wordSet struct {
	all, code, path map[string]bool
}

// wordsOf is the word set of the source at path (false when the source
// is not at hand), made once per evaluation.
func (s *sources) wordsOf(path string) (*wordSet, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	ws, ok := s.words[path]
	s.mu.Unlock()
	if ok {
		return ws, true
	}
	raw, ok := s.text(path)
	if !ok {
		return nil, false
	}
	ws = &wordSet{all: map[string]bool{}, code: map[string]bool{}, path: map[string]bool{}}
	addWords(ws.path, []byte(strings.ToLower(path)))
	low := bytes.ToLower(raw)
	addWords(ws.all, low)
	code := low
	if blockComments(path) {
		code = stripBlockComments(low)
	}
	for _, line := range bytes.Split(code, []byte("\n")) {
		addWords(ws.code, line[:codeEnd(line)])
	}
	s.mu.Lock()
	s.words[path] = ws
	if m := s.memos[path]; m != nil {
		m.ws = ws
	}
	s.mu.Unlock()
	return ws, true
}

// codeEnd is where a line's comment starts (# or //, at the line's start
// or after white space), else its length. Code words only ever serve as
// evidence of another platform (the package's own platform is read from
// the whole text and the path): cutting too much (a # inside a string)
// can only make a file count as another platform's less, never more.
func codeEnd(line []byte) int {
	for i := 0; i < len(line); i++ {
		if i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
			continue
		}
		if line[i] == '#' || line[i] == '/' && i+1 < len(line) && line[i+1] == '/' {
			return i
		}
	}
	return len(line)
}

// blockComments reports whether a file's language has /* … */ comments
// (HCL): elsewhere /* is a glob (dist/*, 'python/**'), and blanking from
// it would hide the rest of the file's code, another platform's words
// among it (issue 29's sweep: a CUDA workflow read as ROCm's).
func blockComments(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".hcl") || strings.HasSuffix(p, ".tf")
}

// stripBlockComments blanks /* … */ (HCL's block comments), keeping line
// breaks.
func stripBlockComments(text []byte) []byte {
	if !bytes.Contains(text, []byte("/*")) {
		return text
	}
	out := bytes.Clone(text)
	for i := 0; i+1 < len(out); i++ {
		if out[i] != '/' || out[i+1] != '*' {
			continue
		}
		j := bytes.Index(out[i+2:], []byte("*/"))
		end := len(out)
		if j >= 0 {
			end = i + 2 + j + 2
		}
		for k := i; k < end; k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
		i = end - 1
	}
	return out
}

func addWords(set map[string]bool, text []byte) {
	isAlnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	for i := 0; i < len(text); {
		if !isAlnum(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isAlnum(text[j]) {
			j++
		}
		set[string(text[i:j])] = true
		i = j
	}
}

// has reports whether a set holds one of the words (a word ending in *
// matches as a prefix).
func has(set map[string]bool, exact, prefixes []string) bool {
	for _, e := range exact {
		if set[e] {
			return true
		}
	}
	if len(prefixes) == 0 {
		return false
	}
	for w := range set {
		for _, p := range prefixes {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
	}
	return false
}

// wordsBuiltin is buildgate.source_words (withPath: the whole text,
// comments and strings included, and the path) and buildgate.code_words
// (the code alone).
func wordsBuiltin(withPath bool) topdown.BuiltinFunc {
	return func(bctx topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
		path, arr, s, err := sourceQuestion(bctx, ops)
		if err != nil {
			return err
		}
		var exact, prefixes []string
		var argErr error
		arr.Foreach(func(t *ast.Term) {
			w, isStr := t.Value.(ast.String)
			if !isStr {
				argErr = fmt.Errorf("operand 2 must be an array of strings")
				return
			}
			lw := strings.ToLower(string(w))
			if p, ok := strings.CutSuffix(lw, "*"); ok {
				prefixes = append(prefixes, p)
			} else if lw != "" {
				exact = append(exact, lw)
			}
		})
		if argErr != nil {
			return argErr
		}
		if len(exact)+len(prefixes) == 0 {
			return iter(ast.BooleanTerm(false))
		}
		ws, ok := s.wordsOf(path)
		if !ok {
			return iter(ast.BooleanTerm(true))
		}
		// One answer per file and question: a rule asks it for every
		// element of a file, and a prefix is matched against every word.
		key := fmt.Sprintf("%t\x00%s\x00%q\x00%q", withPath, path, exact, prefixes)
		s.mu.Lock()
		v, known := s.answers[key]
		s.mu.Unlock()
		if !known {
			if withPath {
				v = has(ws.all, exact, prefixes) || has(ws.path, exact, prefixes)
			} else {
				v = has(ws.code, exact, prefixes)
			}
			s.mu.Lock()
			s.answers[key] = v
			s.mu.Unlock()
		}
		return iter(ast.BooleanTerm(v))
	}
}
