package loader

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

var pipelineSeeds = []string{
	"env:\n  A: \"x\\ty \\\"q\\\" \\u00e9\"\n  B: 'it''s'\n  C: plain\n    folded\nsteps:\n  - commands:\n    - |\n      docker build \\\n        --build-arg X=1 .\n    - >-\n      echo a\n      b\n\n      c\n",
	"a: &x |2\n    two\n  b\nc: *x\nd: !!str \"\\\n  cont\"\ne:\n  <<: *x\n",
	"jobs:\n  j:\n    runs-on: windows-latest\n    steps:\n      - run: echo ${{ github.sha }} $HOME\n      - uses: docker/build-push-action@v6\n        with:\n          build-args: |\n            A=1\n            B=2\n          target: t\n",
	"---\nx: 1\n...\n---\ny: \"a\n\n  b\"\n",
	"k: |+\n  a\n\n\nz: >\n  a\n   b\n  c\n",
	"a: [\"x\\\n y\", 'p\n\n q', r s]\nb: {c: d, e: \"f\"}\n",
	"a: \"\\x41\\U0001F600\\N\\_\\L\\P\\e\\0\\/\\ \"\n",
	"a: |-\r\n  crlf\r\n  lines\r\nb: \"x\r\n  y\"\r\n",
	"? complex\n: value\n\"quoted key\": 1\n",
	"a: # comment\n  value\nb: &anc\n  # c\n  v\n",
	// Review of issue 19: an escaped line break before empty lines, a
	// block scalar whose first lines are spaces only, a header ended by
	// a line separator.
	"command: \"echo a\\\n\n\n      b\"\n",
	"a: |2\n     \n  x\n",
	"a: >2\n     \n  x\n",
	"a: |1\n   \n x\n",
	"steps:\n  - command: |2\n        \n      make\n",
	"a: | # c\u2028  x\n",
}

// FuzzScalarMap holds the scalar mapping to yaml's reading: every scalar
// of a file yaml parses maps to the file, byte for byte where the value
// is the file's text.
func FuzzScalarMap(f *testing.F) {
	for _, s := range pipelineSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4096 || utf16BOM(src) {
			return
		}
		var n yaml.Node
		if yaml.Unmarshal(src, &n) != nil {
			return
		}
		idx := newYAMLIndex(src)
		var walk func(n *yaml.Node, depth int)
		walk = func(n *yaml.Node, depth int) {
			if n == nil || depth > 50 {
				return
			}
			if n.Kind == yaml.ScalarNode {
				m, ok := mapScalar(idx, n)
				if !ok {
					t.Fatalf("scalar %q (style %d) at %d:%d not mapped (got %q)", n.Value, n.Style, n.Line, n.Column, m.text)
				}
				for i := range m.text {
					if m.from[i] > m.to[i] || int(m.to[i]) > len(src) {
						t.Fatalf("byte %d of %q maps to [%d, %d)", i, n.Value, m.from[i], m.to[i])
					}
					// A byte the file holds as itself is that byte of
					// the file (a folded space or an escape stands for
					// other text).
					if m.to[i]-m.from[i] == 1 && m.text[i] != ' ' && m.text[i] != '\n' && src[m.from[i]] != m.text[i] {
						t.Fatalf("byte %d of %q is %q, the file has %q at %d", i, n.Value, m.text[i], src[m.from[i]], m.from[i])
					}
					if i > 0 && m.from[i] < m.from[i-1] {
						t.Fatalf("byte %d of %q maps before byte %d", i, n.Value, i-1)
					}
				}
			}
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
		walk(&n, 0)
	})
}

func FuzzPipeline(f *testing.F) {
	fuzzLoader(f, KindPipeline, func(_ string, src []byte) *PipelineDocument {
		return loadPipelineAs("fuzz-input", src, "")
	}, pipelineSeeds...)
}
