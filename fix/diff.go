package fix

import (
	"bytes"
	"fmt"
	"strings"
)

// maxDiffCells bounds the line-matching table (lines of a by lines of b);
// beyond it the diff is one hunk replacing the whole file.
const maxDiffCells = 25_000_000

// Diff is a unified diff from a to b of the file at path (a/path, b/path,
// three lines of context), as `patch -p1` applies it; "" when they are
// equal. A file created (a nil, not merely empty) is diffed from
// /dev/null. A name with spaces, tabs, quotes, backslashes or control
// characters is quoted as git quotes it, which patch and git apply read.
func Diff(path string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	ops := lineOps(al, bl)
	var out strings.Builder
	from := quoteName("a/" + path)
	if a == nil {
		from = "/dev/null"
	}
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, quoteName("b/"+path))
	const context = 3
	// Group the operations into hunks with their context.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*context || run == len(ops) {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		aStart, bStart, aN, bN := 0, 0, 0, 0
		for k := 0; k < start; k++ {
			if ops[k].kind != '+' {
				aStart++
			}
			if ops[k].kind != '-' {
				bStart++
			}
		}
		var body strings.Builder
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aN++
			}
			if op.kind != '-' {
				bN++
			}
			body.WriteByte(op.kind)
			body.WriteString(op.text)
			if !strings.HasSuffix(op.text, "\n") {
				body.WriteString("\n\\ No newline at end of file\n")
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n%s", hunkRange(aStart, aN), hunkRange(bStart, bN), body.String())
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

type op struct {
	kind byte // ' ', '-', '+'
	text string
}

func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// lineOps is a shortest edit script by the longest common subsequence of
// lines (a table of len(a) x len(b): fixes change build files of some
// thousand lines at most).
func lineOps(a, b []string) []op {
	if len(a)*len(b) > maxDiffCells {
		var ops []op
		for _, l := range a {
			ops = append(ops, op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, op{'+', l})
		}
		return ops
	}
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	return ops
}

// quoteName quotes a file name for a diff header the way git does (C
// style, in double quotes) when it holds a byte that would end or
// confuse the name there; other names stay as they are.
func quoteName(name string) string {
	if !strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == '"' || r == '\\' || r == 0x7f }) {
		return name
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c < ' ' || c == 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
