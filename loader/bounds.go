package loader

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
)

// The bounds a file must keep to be read. A pull request writes the files,
// so each parser is kept from recursing or allocating without limit: past
// a bound the file (or the part that goes past it) is an error entry —
// BG001 — naming the bound, and the run goes on. docs/robustness.md lists
// them with the memory each allows.
const (
	// maxParseFrames bounds the Go call stack of the shell parser, which
	// recurses once or more per nesting level ($(, ${, (, {, if, [[ …):
	// 16,000 frames is some 3,000-5,000 levels and at most ~16 MB of stack
	// (or 16,000 consecutive comment lines: mvdan/sh's lexer recurses once
	// per line of a comment block).
	maxParseFrames = 16000
	// maxWalkDepth bounds our walks of a parsed tree (a pipeline of
	// 100,000 commands is a tree that deep, though the parser loops).
	maxWalkDepth = 1000
	// maxHCLDepth bounds the nesting of brackets, templates and operator
	// chains in a bake file (hclsyntax recurses per level, ~10 KB each).
	maxHCLDepth = 500
	// Per-kind size bounds, below --max-file-size: the parsers hold about
	// 60 (mvdan/sh), 150 (buildkit's, heredocs included) and 300
	// (hclsyntax, whose tokens come first) bytes of memory per byte of
	// input. Real files are far smaller: the largest bake file, Dockerfile
	// and script in vLLM are 30 KB, 25 KB and 40 KB.
	maxShellBytes = 4 << 20
	// maxRecoveryBytes bounds the bytes the shell parser reads in all,
	// re-parsing after each syntax error.
	maxRecoveryBytes   = 16 << 20
	maxHCLBytes        = 512 << 10
	maxDockerfileBytes = 2 << 20
	// Element caps per file: each element costs about 1-7 KB once
	// converted for the policies.
	maxShellWords        = 150000
	maxRequirementsLines = 20000
	maxReqElements       = 100000
	maxDockerInstrs      = 20000
	maxHCLElements       = 50000
)

// errTooDeep is the parser past maxParseFrames.
var errTooDeep = errors.New("nested too deep")

// depthGuard feeds a parser at most 1 KB per read and refuses to go on
// once the parser's call stack is deeper than maxParseFrames: it measures
// the recursion itself, so no quoting or heredoc trick can hide nesting
// from it. Between two reads the parser can go at most 1 KB deeper.
type depthGuard struct {
	r        *bytes.Reader
	consumed int // bytes handed out so far: where a "too deep" error is
	tripped  bool
}

func (g *depthGuard) Read(p []byte) (int, error) {
	// Skipping maxParseFrames frames leaves one to record only when the
	// stack is deeper: no buffer of that size on every read.
	var pcs [1]uintptr
	if runtime.Callers(maxParseFrames, pcs[:]) > 0 {
		g.tripped = true
		return 0, errTooDeep
	}
	if len(p) > 1024 {
		p = p[:1024]
	}
	n, err := g.r.Read(p)
	g.consumed += n
	return n, err
}

// capError is an element cap or size bound passed.
func capError(what string, n, limit int) string {
	return fmt.Sprintf("the file has %d %s, over buildgate's limit of %d per file: not read (see docs/robustness.md)", n, what, limit)
}

func sizeBoundError(kind string, size, limit int) string {
	return fmt.Sprintf("the file is %d bytes, over buildgate's limit of %d bytes for a %s: not read (see docs/robustness.md)", size, limit, kind)
}

// instructionLines counts the lines that could start an instruction: the
// first character after blanks is a letter and the line before does not
// end in an escape character (\ or `: either may be the file's). Comments
// and blank lines do not count; heredoc bodies may, which only
// overestimates.
func instructionLines(src []byte) int {
	n := 0
	continued := false
	for i := 0; i < len(src); {
		end := bytes.IndexByte(src[i:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += i
		}
		line := bytes.TrimRight(src[i:end], " \t\r")
		j := 0
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if !continued && j < len(line) && (line[j]|0x20 >= 'a' && line[j]|0x20 <= 'z') {
			n++
		}
		if j < len(line) && line[j] != '#' {
			continued = len(line) > 0 && (line[len(line)-1] == '\\' || line[len(line)-1] == '`')
		}
		i = end + 1
	}
	return n
}
