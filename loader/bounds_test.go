package loader

import (
	"strings"
	"testing"
)

// Each bound of bounds.go, passed by a file a pull request could write,
// is one error entry naming it (BG001), and the loader returns.
func TestBounds(t *testing.T) {
	r := strings.Repeat
	for _, tt := range []struct {
		name string
		kind Kind
		src  string
		want string // in an error message; "" for none
	}{
		{"shell: $( nested 100,000 deep", KindShell, "echo ok\necho " + r("$(", 100000) + r(")", 100000) + "\n", "nested deeper than buildgate reads"},
		{"shell: ${a:- nested 100,000 deep", KindShell, "echo " + r("${a:-", 100000) + r("}", 100000) + "\n", "nested deeper than buildgate reads"},
		{"shell: subshells 100,000 deep", KindShell, r("(", 100000) + "true" + r(")", 100000) + "\n", "nested deeper than buildgate reads"},
		{"shell: quoted closers cannot hide nesting", KindShell, "echo \"" + r("$( echo \")\" ", 50000) + "\"\n", "nested deeper than buildgate reads"},
		{"shell: nesting inside a heredoc", KindShell, "cat <<E\n" + r("$(", 50000) + r(")", 50000) + "\nE\n", "nested deeper than buildgate reads"},
		{"shell: a pipeline of 100,000 commands", KindShell, "cat" + r(" | cat", 100000) + "\n", "nested deeper than 1000 levels"},
		{"shell: 300,000 expansions", KindShell, "echo " + r("$a", 300000) + "\n", "expansions and substitutions ($ and `), over buildgate's limit of 150000"},
		{"shell: 50 syntax errors in a large script", KindShell, r("echo )\n", 50) + r("echo a\n", 400000), "more than buildgate re-parses to recover"},
		{"dockerfile: a RUN of 300,000 expansions", KindDockerfile, "FROM a\nRUN echo " + r("$a \\\n", 300000) + "\n", "expansions and substitutions"},
		{"shell: 300,000 words", KindShell, r("a b c\n", 100001), "shell elements (words, expansions, assignments …), over buildgate's limit of 150000"},
		{"shell: a value of 200,000 words", KindShell, "X=\"" + r("a ", 200000) + "\"\n", "shell elements (words, expansions, assignments …), over buildgate's limit of 150000"},
		{"shell: bash -c scripts over 1 MiB in all", KindShell, r("bash -c ': "+r("x", 2000)+"'\n", 600), "more than buildgate reads: this one and the rest are not read"},
		{"shell: over 4 MB", KindShell, r("# padding line\n", 300000), "over buildgate's limit of 4194304 bytes for a shell script"},
		{"shell: 5,000 consecutive comment lines are fine", KindShell, r("# a comment\n", 5000) + "echo hi\n", ""},
		{"shell: 40,000 consecutive comment lines", KindShell, r("#\n", 40000) + "echo hi\n", "or 16000 consecutive comment lines"},
		{"shell: 50 levels is fine", KindShell, "echo " + r("$(", 50) + "x" + r(")", 50) + "\nif a; then " + r("( ", 50) + "x" + r(" )", 50) + "; fi\n", ""},
		{"hcl: brackets 70,000 deep", KindHCL, "a = " + r("[", 70000) + r("]", 70000) + "\n", "nested deeper than buildgate reads (70001 levels"},
		{"hcl: unary chain", KindHCL, "a = " + r("!", 70000) + "true\n", "nested deeper than buildgate reads"},
		{"hcl: binary chain", KindHCL, "a = 1" + r(" + 1", 70000) + "\n", "nested deeper than buildgate reads"},
		{"hcl: newlines inside parentheses do not end the expression", KindHCL, "x = (" + r("!\n", 240000) + "true)\n", "nested deeper than buildgate reads"},
		{"hcl: a splat chain", KindHCL, "x = [1]" + r("[*]", 170000) + "\n", "nested deeper than buildgate reads"},
		{"hcl: an index chain", KindHCL, "x = a" + r("[0]", 170000) + "\n", "nested deeper than buildgate reads"},
		{"hcl: an operator chain over lines", KindHCL, "x = (" + r("1 +\n", 131000) + "1)\n", "nested deeper than buildgate reads"},
		{"hcl: a number with a huge exponent", KindHCL, "x = 1e10000000\n", "a number literal too large"},
		{"hcl: ordinary numbers are fine", KindHCL, "x = 1.5e10\ny = 12345678901234567890\n", ""},
		{"hcl: blocks", KindHCL, r("b {\n", 1000) + r("}\n", 1000), "nested deeper than buildgate reads"},
		{"hcl: template directives", KindHCL, "a = \"" + r("%{ if x }", 1000) + r("%{ endif }", 1000) + "\"\n", "nested deeper than buildgate reads"},
		{"hcl: over 512 KB", KindHCL, r("# padding line\n", 40000), "over buildgate's limit of 524288 bytes for a bake (HCL) file"},
		{"dockerfile: over 2 MB", KindDockerfile, "FROM a\n" + r("# padding line\n", 150000), "over buildgate's limit of 2097152 bytes for a Dockerfile"},
		{"hcl: a long flat list is fine", KindHCL, "a = [" + r("\"x\", ", 20000) + "]\nb = x.y.z + 1 - 2\n", ""},
		{"requirements: 1,000,000 lines", KindRequirements, r("a\n", 1000000), "requirement and option lines, over buildgate's limit of 20000"},
		{"requirements: 120,000 specifier clauses", KindRequirements, "pkg" + r(",>=1", 120000)[1:] + "\n", "version clauses in one requirement, over buildgate's limit of 100000"},
		{"requirements: 10,000 hashes is fine", KindRequirements, "pkg==1" + r(" --hash=sha256:"+r("a", 64), 10000) + "\n", ""},
		{"dockerfile: 20,001 instructions", KindDockerfile, "FROM a\n" + r("RUN a\n", 20000), "instruction lines, over buildgate's limit of 20000"},
		{"dockerfile: a RUN nested 20,000 deep", KindDockerfile, "FROM a\nRUN echo " + r("$( \\\n", 20000) + r(")", 20000) + "\n", "nested deeper than buildgate reads"},
		{"dockerfile: a heredoc nested 20,000 deep", KindDockerfile, "FROM a\nRUN <<E\n" + r("(\n", 20000) + "true" + r(")", 20000) + "\nE\n", "nested deeper than buildgate reads"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := Parse(tt.kind, "f", []byte(tt.src))
			var msgs []string
			for _, e := range doc.DocErrors() {
				msgs = append(msgs, e.Message)
			}
			all := strings.Join(msgs, "\n")
			if tt.want == "" {
				if len(msgs) > 0 {
					t.Errorf("errors on a file within the bounds:\n%s", all)
				}
				return
			}
			if !strings.Contains(all, tt.want) {
				t.Errorf("errors lack %q:\n%s", tt.want, all)
			}
		})
	}
}
