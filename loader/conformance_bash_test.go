package loader

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Issue 14: shell scripts mean what bash says. Each script of the table is
// checked with `bash -n` (skipped with a message where bash is absent):
// valid to bash must be valid to buildgate, invalid must be an error, and
// the first error is on the line bash names (the end of the file clamped to
// its last line: bash counts one past it).
var bashTable = []struct {
	name, src string
}{
	// Valid bash, some of it beyond mvdan/sh's own reading.
	{"associative array keys", "declare -A a=([:onbuild]=1 [3.14]='3 latest')\necho \"${a[$x:$y]:-}\"\n"},
	{"here-document ended by the end of the file", "cat <<EOF\nsome text\n"},
	{"here-document in a function", "f() {\n  cat <<-EOF\n\tx\n\tEOF\n}\n"},
	{"extended test and regex", "[[ $a =~ ^v[0-9]+$ && -n $b ]] && echo y\n"},
	{"arithmetic", "(( i += 2 ))\necho $(( i * 3 ))\nfor ((i=0;i<3;i++)); do :; done\n"},
	{"process substitution", "diff <(ls a) <(ls b)\n"},
	{"here-string", "read -r x <<< \"$y\"\n"},
	{"case with patterns", "case $1 in\n  a|b) echo ab ;;\n  *) echo other ;;\nesac\n"},
	{"parameter operators", "echo ${a:-x} ${b#*/} ${c%%.*} ${d/x/y} ${#e} ${!f*} ${g@Q}\n"},
	{"arrays", "a=(x y)\na+=(z)\necho \"${a[@]}\" ${#a[@]}\n"},
	{"bash -c scripts", "bash -lc 'cd /x && make'\nsu -c \"echo hi\" u\n"},
	{"subshells and groups", "( cd x; ls )\n{ echo a; echo b; }\n"},
	{"select and until", "until false; do break; done\nselect x in a b; do break; done\n"},
	{"coproc and time", "coproc cat\ntime ls\n! false\n"},
	{"functions", "function f { :; }\ng() ( echo )\n"},
	{"comments and continuations", "# c\necho a \\\n  b # c\n"},
	// Invalid bash: the line bash names.
	{"unclosed double quote", "echo ok\nif true; then\n  echo \"x\nfi\necho after\n"},
	{"unclosed single quote", "echo 'open\n"},
	{"stray fi", "echo ok\nfi\necho after\n"},
	{"missing done", "for i in a b; do\n  echo $i\n"},
	{"unclosed $(", "echo $(\necho b\n"},
	{"unclosed function body", "f() {\n  echo a\n"},
	{"missing esac", "case x in\n  a) echo ;;\n"},
	{"a stray )", "echo )\necho after\n"},
	{"if then", "if then\nfi\n"},
	{"an extra done", "while true; do echo; done; done\n"},
	{"a pipe at the end", "echo a |\n"},
	{"&& at the end", "echo a &&\n"},
	{"function without a name", "function\n"},
	{"unclosed backquote", "echo `ls\n"},
	{"unclosed subshell", "(\n echo a\n"},
	{"empty statement", "echo a; ;\n"},
	{"empty else", "if true; then echo; else; fi\n"},
}

var bashLineRe = regexp.MustCompile(`line (\d+):`)

func TestBashConformance(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed: the shell table is not checked against bash -n")
	}
	dir := t.TempDir()
	for _, tc := range bashTable {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "s.sh")
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bash, "-n", path).CombinedOutput()
			valid := err == nil
			d := Parse(KindShell, "s.sh", []byte(tc.src))
			errs := d.DocErrors()
			switch {
			case valid && len(errs) > 0:
				t.Errorf("valid to bash, buildgate reports %+v", errs)
			case !valid && len(errs) == 0:
				t.Errorf("bash says %s; buildgate reads it without an error", out)
			case !valid:
				m := bashLineRe.FindSubmatch(out)
				if m == nil {
					t.Fatalf("no line in bash's %q", out)
				}
				line, _ := strconv.Atoi(string(m[1]))
				if lines := strings.Count(tc.src, "\n"); line > lines {
					line = lines
				}
				if errs[0].Pos.Line != line {
					t.Errorf("bash names line %d (%s), buildgate line %d: %s", line, strings.TrimSpace(string(out)), errs[0].Pos.Line, errs[0].Message)
				}
			}
		})
	}
}
