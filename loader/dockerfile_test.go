package loader

import (
	"strings"
	"testing"
)

func TestDockerfileStructure(t *testing.T) {
	src := strings.Join([]string{
		"# syntax=docker/dockerfile:1.7",                                                        // 1
		"ARG BASE=ubuntu:22.04",                                                                 // 2
		"FROM --platform=$BUILDPLATFORM ${BASE} AS Mooncake_Source",                             // 3
		`ARG MOONCAKE_REPO="https://github.com/kvcache-ai/Mooncake.git" MOONCAKE_BRANCH`,        // 4
		"ENV A=1 B=\"two words\"",                                                               // 5
		"RUN --mount=type=cache,target=/root/.cache \\",                                         // 6
		"    # a comment inside the continuation",                                               // 7
		"    apt-get update && \\",                                                              // 8
		"    git clone ${MOONCAKE_REPO} /src",                                                   // 9
		"FROM scratch AS export",                                                                // 10
		"COPY --from=Mooncake_Source /src /out",                                                 // 11
		"RUN --mount=type=bind,from=mooncake_source,source=/src,target=/w pip install /w/*.whl", // 12
		`CMD ["python3", "-m", "vllm"]`,                                                         // 13
	}, "\n") + "\n"
	d := parseAs[*DockerfileDocument](t, KindDockerfile, "Dockerfile", src)
	if len(d.Errors) != 0 {
		t.Fatalf("errors: %+v", d.Errors)
	}
	if len(d.Directives) != 1 || d.Directives[0].Name != "syntax" || d.Directives[0].Value != "docker/dockerfile:1.7" {
		t.Errorf("directives = %+v", d.Directives)
	}
	if len(d.GlobalArgs) != 1 || d.GlobalArgs[0].Name != "BASE" || *d.GlobalArgs[0].Default != "ubuntu:22.04" {
		t.Errorf("global args = %+v", d.GlobalArgs)
	}
	if len(d.Stages) != 2 {
		t.Fatalf("stages = %d", len(d.Stages))
	}
	s0 := d.Stages[0]
	tests := []struct {
		what      string
		got, want any
	}{
		{"stage name keeps its spelling", s0.Name, "Mooncake_Source"},
		{"stage name line", s0.NameWord.Pos.Line, 3},
		{"base", s0.Base.Text, "${BASE}"},
		{"platform", *s0.Platform.Value, "$BUILDPLATFORM"},
		{"stage span", [2]int{s0.Pos.Line, s0.Pos.EndLine}, [2]int{3, 9}},
		{"arg count", len(s0.Instructions[1].ArgDefs), 2},
		{"arg default unquoted", *s0.Instructions[1].ArgDefs[0].Default, "https://github.com/kvcache-ai/Mooncake.git"},
		{"arg without default", s0.Instructions[1].ArgDefs[1].Default == nil, true},
		{"second arg column", s0.Instructions[1].ArgDefs[1].NamePos.Column, 64},
		{"env pairs", len(s0.Instructions[2].Env), 2},
		{"env value", s0.Instructions[2].Env[1].Value, "two words"},
		{"run span", [2]int{s0.Instructions[3].Pos.Line, s0.Instructions[3].Pos.EndLine}, [2]int{6, 9}},
		{"mount", s0.Instructions[3].Mounts[0].Target, "/root/.cache"},
		{"mount type", s0.Instructions[3].Mounts[0].Type, "cache"},
		{"index", d.Stages[1].Index, 1},
		{"copy --from", *d.Stages[1].Instructions[1].CopyFrom.Value, "Mooncake_Source"},
		{"copy --from line", d.Stages[1].Instructions[1].CopyFrom.Pos.Line, 11},
		{"bind mount from", d.Stages[1].Instructions[2].Mounts[0].From, "mooncake_source"},
		{"exec form", d.Stages[1].Instructions[3].ExecForm, true},
		{"exec args", len(d.Stages[1].Instructions[3].Args), 3},
		{"exec arg value", *d.Stages[1].Instructions[3].Args[2].Value, "vllm"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.what, tt.got, tt.want)
		}
	}
	// Shell words keep their physical lines across continuations and comments.
	cmds := s0.Instructions[3].Shell.Commands
	if len(cmds) != 2 || cmds[1].Name != "git" {
		t.Fatalf("commands = %+v", cmds)
	}
	wantLine(t, "apt-get", cmds[0].Words[0].Pos, 8, 5)
	wantLine(t, "${MOONCAKE_REPO}", cmds[1].Words[2].Pos, 9, 15)
	if e := s0.Instructions[3].Shell.Expansions; len(e) != 1 || e[0].Name != "MOONCAKE_REPO" {
		t.Errorf("expansions = %+v", e)
	}
}

func TestDockerfileHeredocs(t *testing.T) {
	src := "FROM alpine\n" + // 1
		"RUN <<EOF\n" + // 2
		"set -e\n" + // 3
		"git clone https://github.com/kvcache-ai/Mooncake.git\n" + // 4
		"EOF\n" + // 5
		"COPY <<-CONF /etc/x.conf\n" + // 6
		"\tkey=value\n" + // 7
		"\tCONF\n" + // 8
		"RUN python3 - <<PY\n" + // 9
		"print('hi')\n" + // 10
		"PY\n" + // 11
		"RUN echo done\n" // 12
	d := parseAs[*DockerfileDocument](t, KindDockerfile, "Dockerfile", src)
	if len(d.Errors) != 0 {
		t.Fatalf("errors: %+v", d.Errors)
	}
	ins := d.Stages[0].Instructions[1:] // [0] is the FROM
	if len(ins) != 4 {
		t.Fatalf("instructions = %d", len(ins))
	}
	h := ins[0].Heredocs
	if len(h) != 1 || h[0].Name != "EOF" || h[0].Pos.Line != 3 || h[0].Pos.EndLine != 4 {
		t.Errorf("heredoc = %+v", h)
	}
	var clone *ShellCommand
	for i, c := range ins[0].Shell.Commands {
		if c.Name == "git" {
			clone = &ins[0].Shell.Commands[i]
		}
	}
	if clone == nil {
		t.Fatalf("git clone inside the heredoc not found: %+v", ins[0].Shell.Commands)
	}
	wantLine(t, "git in heredoc", clone.Pos, 4, 1)
	if c := ins[1].Heredocs; len(c) != 1 || !c[0].Chomp || c[0].Pos.Line != 7 {
		t.Errorf("COPY heredoc = %+v", c)
	}
	// A heredoc fed to a program is stdin, not the script.
	for _, c := range ins[2].Shell.Commands {
		if c.Name == "print('hi')" {
			t.Errorf("python heredoc parsed as shell")
		}
	}
	if ins[3].Pos.Line != 12 {
		t.Errorf("instruction after heredocs at %d", ins[3].Pos.Line)
	}
}

// A bad line is an error entry and the rest is still loaded.
func TestDockerfileMalformed(t *testing.T) {
	tests := []struct {
		name       string
		src        string
		errLine    int
		errSubstr  string
		stages     int
		lastInstrL int
	}{
		{"unknown instruction", "FROM a\nFOO bar\nRUN x\n", 2, "unknown instruction", 1, 3},
		{"bad escape directive", "# escape=x\nFROM a\n", 1, "escape", 1, 2},
		{"unterminated heredoc", "FROM a\nRUN echo ok\nRUN <<EOF\necho\n", 3, "unterminated heredoc", 1, 2},
		{"instruction before FROM", "RUN x\nFROM a\nRUN y\n", 1, "before the first FROM", 1, 3},
		{"empty file", "", 1, "no instructions", 0, 0},
		{"only comments", "# just a comment\n", 1, "no instructions", 0, 0},
		{"bad flag", "FROM a\nCOPY --nope=1 a b\nRUN z\n", 2, "unknown flag", 1, 3},
		{"ARG without name", "FROM a\nARG\nRUN z\n", 2, "ARG", 1, 3},
		{"lone CR lines", "FROM a\r\nRUN x \\\r\n  y\r\nRUN z\r\n", 0, "", 1, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parseAs[*DockerfileDocument](t, KindDockerfile, "Dockerfile", tt.src)
			if tt.errSubstr == "" {
				if len(d.Errors) != 0 {
					t.Errorf("errors: %+v", d.Errors)
				}
			} else {
				found := false
				for _, e := range d.Errors {
					if strings.Contains(strings.ToLower(e.Message), strings.ToLower(tt.errSubstr)) && e.Pos.Line == tt.errLine {
						found = true
					}
				}
				if !found {
					t.Errorf("no error containing %q at line %d: %+v", tt.errSubstr, tt.errLine, d.Errors)
				}
			}
			if len(d.Stages) != tt.stages {
				t.Fatalf("stages = %d, want %d", len(d.Stages), tt.stages)
			}
			if tt.stages > 0 {
				ins := d.Stages[len(d.Stages)-1].Instructions
				if got := ins[len(ins)-1].Pos.Line; got != tt.lastInstrL {
					t.Errorf("last instruction at line %d, want %d", got, tt.lastInstrL)
				}
			}
		})
	}
}

func TestDockerfileEscapeDirective(t *testing.T) {
	src := "# escape=`\nFROM mcr.microsoft.com/windows\nRUN echo a `\n  && git clone x\n"
	d := parseAs[*DockerfileDocument](t, KindDockerfile, "Dockerfile", src)
	if len(d.Errors) != 0 {
		t.Fatalf("errors: %+v", d.Errors)
	}
	in := d.Stages[0].Instructions[1]
	if in.Pos.EndLine != 4 || len(in.Shell.Commands) != 2 {
		t.Fatalf("RUN = %+v", in)
	}
	wantLine(t, "git", in.Shell.Commands[1].Pos, 4, 6)
}

func TestDockerfileLintWarningsKept(t *testing.T) {
	d := parseAs[*DockerfileDocument](t, KindDockerfile, "Dockerfile", "FROM alpine as Build\nMAINTAINER me\n")
	rules := map[string]bool{}
	for _, w := range d.Warnings {
		rules[w.Rule] = true
	}
	for _, r := range []string{"FromAsCasing", "StageNameCasing", "MaintainerDeprecated"} {
		if !rules[r] {
			t.Errorf("warning %s missing: %+v", r, d.Warnings)
		}
	}
}

// Directives are read as buildkit reads them: any white space around "#",
// the name and "=" (a form feed too), so that the escape character, and
// with it where a RUN continues, is the builder's.
func TestDirectivesAsBuildkitReadsThem(t *testing.T) {
	for _, head := range []string{"# escape=`", "#escape=`", "#\fescape=`", "# escape\f=`", "#\tescape =\t`", "# ESCAPE=`"} {
		src := head + "\nFROM a\nRUN echo hi `\n    && pip install ./x\n"
		d := loadDockerfile("Dockerfile", []byte(src))
		if len(d.Directives) != 1 || d.Directives[0].Name != "escape" || d.Directives[0].Value != "`" {
			t.Errorf("%q: directives %+v", head, d.Directives)
			continue
		}
		run := d.Stages[0].Instructions[1]
		if run.Shell == nil || len(run.Shell.Commands) != 2 {
			t.Errorf("%q: the RUN's continuation was not followed: %+v", head, run.Shell)
		}
	}
}
