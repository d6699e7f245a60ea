package loader

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/shell"
)

// Issue 14: buildkit's own parser tests, read from ../shared/conformance
// (moby/buildkit frontend/dockerfile/parser, see SOURCE.md there), never
// copied here. Each testfiles/NAME/Dockerfile is compared with its result
// file (the parser's node dump) instruction by instruction and argument by
// argument; testfiles-negative are rejected; testfile-line has buildkit's
// line numbers.
func buildkitDir(t *testing.T) string {
	dir, _ := filepath.Abs("../../shared/conformance/buildkit")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("buildkit's testfiles are not at %s (../shared/conformance): skipped", dir)
	}
	return dir
}

func TestBuildkitConformance(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(buildkitDir(t), "testfiles", "*"))
	checked := 0
	for _, dir := range dirs {
		want, err := os.ReadFile(filepath.Join(dir, "result"))
		if err != nil {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, "Dockerfile"))
		if err != nil {
			t.Fatal(err)
		}
		checked++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			d := loadDockerfile("Dockerfile", src)
			var got []Instruction
			got = append(got, d.Preamble...)
			for _, st := range d.Stages {
				got = append(got, st.Instructions...)
			}
			lines := strings.Split(strings.TrimRight(string(want), "\n"), "\n")
			if len(got) != len(lines) {
				t.Fatalf("%d instructions, buildkit has %d", len(got), len(lines))
			}
			for i, in := range got {
				if g, w := dumpInstruction(t, in, lines[i], escapeOf(d)), lines[i]; g != w {
					t.Errorf("instruction %d:\n got  %s\n want %s", i+1, g, w)
				}
			}
		})
	}
	if checked < 30 {
		t.Errorf("only %d testfiles with a result file", checked)
	}
}

func escapeOf(d *DockerfileDocument) rune {
	for _, dr := range d.Directives {
		if strings.EqualFold(dr.Name, "escape") && dr.Value != "" {
			return rune(dr.Value[0])
		}
	}
	return '\\'
}

// dumpInstruction writes an instruction the way buildkit's Node.Dump does:
// (cmd ["flags"] "args"). ENV and LABEL hold processed values in the
// document, buildkit's node the raw ones: their raw values are taken from
// the expected line and processed by buildkit's own lexer, so what is
// compared is the split into keys and values and the value the builder
// sets.
func dumpInstruction(t *testing.T, in Instruction, want string, escape rune) string {
	var b strings.Builder
	b.WriteString("(" + in.Cmd)
	if len(in.Flags) > 0 {
		var fs []string
		for _, f := range in.Flags {
			fs = append(fs, strconv.Quote(f.Text))
		}
		b.WriteString(" [" + strings.Join(fs, " ") + "]")
	}
	switch in.Cmd {
	case "env", "label":
		raw := quotedFields(t, want)
		for i, e := range in.Env {
			sep, rawValue := `""`, ""
			if 3*i+2 < len(raw) {
				rawValue, sep = raw[3*i+1], strconv.Quote(raw[3*i+2])
			}
			// What the builder sets; a value its lexer rejects (an
			// unclosed quote: the build fails) or one with a variable has
			// only its surrounding quotes removed.
			v := e.Value
			sets, _, err := shell.NewLex(escape).ProcessWord(rawValue, noEnv{})
			if strings.Contains(rawValue, "$") || err != nil {
				sets = unquote(rawValue)
			}
			if sets == e.Value {
				v = rawValue
			}
			b.WriteString(" " + strconv.Quote(e.Key) + " " + strconv.Quote(v) + " " + sep)
		}
	case "onbuild":
		// The trigger is an instruction: dumped as buildkit nests it.
		if len(in.Args) == 1 {
			sub := loadDockerfile("Dockerfile", []byte("FROM x\n"+*in.Args[0].Value+"\n"))
			if len(sub.Stages) == 1 && len(sub.Stages[0].Instructions) > 0 {
				ins := sub.Stages[0].Instructions
				inner := want[strings.Index(want, " ")+1 : len(want)-1]
				b.WriteString(" " + dumpInstruction(t, ins[len(ins)-1], inner, escape))
			}
		}
	default:
		for _, a := range in.Args {
			v := a.Text
			if a.Value != nil {
				v = *a.Value
			}
			b.WriteString(" " + strconv.Quote(v))
		}
	}
	return b.String() + ")"
}

// quotedFields are the Go-quoted strings of a dump line, in order.
func quotedFields(t *testing.T, line string) []string {
	var out []string
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		s, err := strconv.Unquote(line[i : j+1])
		if err != nil {
			t.Fatalf("result line %q: %v", line, err)
		}
		out = append(out, s)
		i = j
	}
	return out
}

func TestBuildkitNegativeConformance(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(buildkitDir(t), "testfiles-negative", "*"))
	if len(dirs) == 0 {
		t.Fatal("no testfiles-negative")
	}
	for _, dir := range dirs {
		src, err := os.ReadFile(filepath.Join(dir, "Dockerfile"))
		if err != nil {
			t.Fatal(err)
		}
		if d := loadDockerfile("Dockerfile", src); len(d.Errors) == 0 {
			t.Errorf("%s: buildkit rejects it, buildgate reads it without an error", filepath.Base(dir))
		}
	}
}

func TestBuildkitLineConformance(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(buildkitDir(t), "testfile-line", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	d := loadDockerfile("Dockerfile", src)
	var got [][2]int
	for _, st := range d.Stages {
		got = append(got, [2]int{st.Pos.Line, st.Instructions[len(st.Instructions)-1].Pos.EndLine})
		for _, in := range st.Instructions {
			got = append(got, [2]int{in.Pos.Line, in.Pos.EndLine})
		}
	}
	// buildkit's parser_test.go: the file spans lines 5-31, its children
	// 5-5, 11-12 and 17-31.
	want := [][2]int{{5, 31}, {5, 5}, {11, 12}, {17, 31}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %v, want %v", got, want)
		}
	}
}

// The differences issue 14 found against buildkit, each by name.
func TestBuildkitDifferences(t *testing.T) {
	args := func(src string) string {
		d := loadDockerfile("Dockerfile", []byte(src))
		if len(d.Errors) > 0 {
			t.Errorf("%q: errors %+v", src, d.Errors)
		}
		in := d.Stages[0].Instructions[len(d.Stages[0].Instructions)-1]
		var out []string
		for _, a := range in.Args {
			out = append(out, strconv.Quote(*a.Value))
		}
		return strings.Join(out, " ")
	}
	cases := []struct{ name, src, want string }{
		{"-- ends the flags and is no source", "FROM a\nCOPY --chown=1 -- foo /tmp/\n", `"foo" "/tmp/"`},
		{"HEALTHCHECK CMD keeps its command as one word", "FROM a\nHEALTHCHECK --interval=5s CMD /app/check.sh --quiet\n", `"CMD" "/app/check.sh --quiet"`},
		{"HEALTHCHECK CMD in exec form keeps CMD", "FROM a\nHEALTHCHECK CMD [\"foo\", \"bar\"]\n", `"CMD" "foo" "bar"`},
		{"ADD splits on white space alone", "FROM a\nADD \\conf\\\\\" /.znc\n", `"\\conf\\\\\"" "/.znc"`},
		{"ONBUILD's trigger is one word", "FROM a\nONBUILD RUN echo test\n", `"RUN echo test"`},
	}
	for _, c := range cases {
		if got := args(c.src); got != c.want {
			t.Errorf("%s: args %s, want %s", c.name, got, c.want)
		}
	}
	// A CR LF file whose last line ends in a bare CR: buildkit reads it.
	if d := Parse(KindDockerfile, "Dockerfile", []byte("FROM a\r\nRUN true\r")); len(d.DocErrors()) > 0 {
		t.Errorf("a CR at the end of the file: %+v", d.DocErrors())
	}
	// ENV values are what the builder sets (buildkit's lexer).
	d := loadDockerfile("Dockerfile", []byte("FROM a\nENV A=value\\ value2 B='x\"y' C=\"a\\\"b\" D=$X\n"))
	var env []string
	for _, e := range d.Stages[0].Instructions[1].Env {
		env = append(env, e.Key+"="+e.Value)
	}
	if got := strings.Join(env, "|"); got != `A=value value2|B=x"y|C=a"b|D=$X` {
		t.Errorf("env %s", got)
	}
}
