package main

import (
	"os"
	"strings"
	"unicode/utf8"

	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/lint"
)

// fileLines reads a file under rootDir once, through the root, and
// gives its lines (split at "\n"; nil when it cannot be read again): the
// reports that need a file's text (byte columns, rdjson's line-based
// suggestions) share one read of each file with a finding.
func fileLines(rootDir string) func(path string) []string {
	lines := map[string][]string{}
	var root *os.Root
	return func(path string) []string {
		ls, ok := lines[path]
		if !ok {
			if root == nil {
				root, _ = os.OpenRoot(rootDir)
			}
			if root != nil {
				if b, err := safefile.In(root, path, lint.DefaultMaxFileSize); err == nil {
					ls = strings.Split(string(b), "\n")
				}
			}
			lines[path] = ls
		}
		return ls
	}
}

// byteColumns turns code-point columns (what findings count, as SARIF's
// unicodeCodePoints) into UTF-8 byte columns (what reviewdog counts). A
// file that cannot be read again keeps its columns.
func byteColumns(read func(string) []string) func(path string, line, col int) int {
	return func(path string, line, col int) int {
		ls := read(path)
		if line < 1 || line > len(ls) || col < 1 {
			return col
		}
		s, extra := ls[line-1], 0
		if line == 1 && strings.HasPrefix(s, "\ufeff") {
			// Not a column for buildgate, three bytes for reviewdog.
			s, extra = s[3:], 3
		}
		n := 0
		for i := 0; i < len(s); {
			if n == col-1 {
				return i + 1 + extra
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n++
		}
		return len(s) + 1 + extra + (col - 1 - n)
	}
}

// sourceLines gives a line of a file (without its line break), for
// rdjson's line-based suggestions.
func sourceLines(read func(string) []string) func(path string, line int) (string, bool) {
	return func(path string, line int) (string, bool) {
		ls := read(path)
		if n := len(ls); n > 0 && ls[n-1] == "" {
			ls = ls[:n-1] // the text's final line break ends no line
		}
		if line < 1 || line > len(ls) {
			return "", false
		}
		return strings.TrimSuffix(ls[line-1], "\r"), true
	}
}
