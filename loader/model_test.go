package loader

import (
	"fmt"
	"strings"
	"testing"
)

// commandModel is each command of a document as "name dir=D dirs=[…]
// fetch=KIND:REPO>INTO", for the build model's tests.
func commandModel(cs []ShellCommand) []string {
	var out []string
	for _, c := range cs {
		s := c.Name + " dir=" + orUnknown(c.Dir)
		if len(c.Dirs) > 0 {
			s += " dirs=" + strings.Join(c.Dirs, ",")
		}
		if f := c.Fetch; f != nil {
			s += " fetch=" + f.Kind + ":" + f.Repository + ">" + orUnknown(f.Into)
		}
		out = append(out, s)
	}
	return out
}

func orUnknown(p *string) string {
	if p == nil {
		return "?"
	}
	return *p
}

func TestShellDirectories(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"cd, relative and absolute", "cd a\nmake\ncd ../b/./c\nmake\ncd /opt\nmake\ncd\nmake\ncd -\nmake\n",
			[]string{"cd dir=.", "make dir=a", "cd dir=a", "make dir=b/c", "cd dir=b/c", "make dir=/opt", "cd dir=/opt", "make dir=~", "cd dir=~", "make dir=/opt"}},
		{"a subshell, a pipeline and a command substitution change nothing after them", "(cd a && make)\nmake\ncd b | cat\nmake\nx=$(cd c; pwd)\nmake\n",
			[]string{"cd dir=.", "make dir=a", "make dir=.", "cd dir=.", "cat dir=.", "make dir=.", "cd dir=.", "pwd dir=c", "make dir=."}},
		{"pushd and popd", "pushd /a\npushd b\nmake\npopd\nmake\npopd\nmake\n",
			[]string{"pushd dir=.", "pushd dir=/a", "make dir=/a/b", "popd dir=/a/b", "make dir=/a", "popd dir=/a", "make dir=."}},
		{"eval changes the shell's directory, bash -c does not", "eval 'cd /e'\nmake\nbash -c 'cd /f; make'\nmake\n",
			[]string{"eval dir=.", "cd dir=.", "make dir=/e", "bash dir=/e", "cd dir=/e", "make dir=/f", "make dir=/e"}},
		{"a variable's value, and one not known kept as written", "D=/opt/x\ncd \"$D\"\nmake\ncd \"${SRC}/mc\"\nmake\ncd $(mktemp -d)\nmake\n",
			[]string{"cd dir=.", "make dir=/opt/x", "cd dir=/opt/x", "make dir=$SRC/mc", "cd dir=$SRC/mc", "mktemp dir=$SRC/mc", "make dir=?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := commandModel(loadShell("s.sh", []byte(tc.src)).Commands)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestFetchesAndDirs(t *testing.T) {
	const mc = "github.com/kvcache-ai/mooncake"
	for _, tc := range []struct{ src, want string }{
		{"git clone --depth 1 -b v1 https://github.com/kvcache-ai/Mooncake.git", "git dir=. fetch=clone:" + mc + ">Mooncake"},
		{"git -C /src clone git@github.com:kvcache-ai/Mooncake mc", "git dir=. dirs=/src fetch=clone:" + mc + ">/src/mc"},
		{"cd /w && git clone https://github.com:443/kvcache-ai/Mooncake/", "git dir=/w fetch=clone:" + mc + ">/w/Mooncake"},
		{"git submodule add https://github.com/kvcache-ai/Mooncake third_party/mc", "git dir=. fetch=clone:" + mc + ">third_party/mc"},
		{"git fetch https://github.com/kvcache-ai/Mooncake main", "git dir=. fetch=update:" + mc + ">."},
		{"git ls-remote https://github.com/kvcache-ai/Mooncake", "git dir=."},
		{"gh repo clone kvcache-ai/Mooncake", "gh dir=. fetch=clone:" + mc + ">Mooncake"},
		{"wget -qO- https://codeload.github.com/kvcache-ai/Mooncake/tar.gz/main", "wget dir=. fetch=download:" + mc + ">?"},
		{"curl -L https://raw.githubusercontent.com/kvcache-ai/Mooncake/main/LICENSE", "curl dir=. fetch=file:" + mc + ">?"},
		{"pip install 'mooncake @ git+https://github.com/kvcache-ai/Mooncake@v0.3.5'", "pip dir=. fetch=install:" + mc + ">?"},
		{"docker buildx build --build-context mc=https://github.com/kvcache-ai/Mooncake.git .", "docker dir=. fetch=context:" + mc + ">?"},
		{"cmake -S /opt/mc -B build", "cmake dir=. dirs=/opt/mc,build"},
		{"cmake --build /opt/mc/build --target install", "cmake dir=. dirs=/opt/mc/build"},
		{"make -C /opt/mc install", "make dir=. dirs=/opt/mc"},
		{"ninja -Cbuild install", "ninja dir=. dirs=build"},
		{"uv pip install --system ./mc dist/x.whl", "uv dir=. dirs=mc"},
		{"python3 -m pip install -e /opt/mc", "python3 dir=. dirs=/opt/mc"},
	} {
		got := commandModel(loadShell("s.sh", []byte(tc.src+"\n")).Commands)
		if len(got) == 0 || got[len(got)-1] != tc.want {
			t.Errorf("%s\n  got  %v\n  want %s", tc.src, got, tc.want)
		}
	}
}

func TestIndirectCommands(t *testing.T) {
	src := "alias g='git'\ng clone https://x.org/a/b.git\n$(echo git) clone https://x.org/a/c.git\n" +
		"echo https://x.org/a/d.git | xargs git clone\nprintf https://x.org/a/e.git | xargs -I{} git clone {} e\n" +
		"S=https://x.org\nS+=/a/f.git\ngit clone \"$S\"\n"
	var got []string
	for _, c := range loadShell("s.sh", []byte(src)).Commands {
		if c.Fetch != nil {
			got = append(got, c.Fetch.Repository)
		}
	}
	want := []string{"x.org/a/b", "x.org/a/c", "x.org/a/d", "x.org/a/e", "x.org/a/f"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fetches %v, want %v", got, want)
	}
}

func TestDockerfileModel(t *testing.T) {
	src := "FROM base AS a\nWORKDIR /w\nARG H=https://github.com\nARG R=${H}/kvcache-ai/Mooncake\n" +
		"RUN git clone $R\n" + // 5
		"WORKDIR Mooncake\nRUN make\n" + // 7
		"FROM a\nRUN make\n" + // 9: the stage it is built FROM
		"ONBUILD RUN cmake .\n" + // 10
		"CMD cd /x && make\n" + // 11
		"COPY <<EOS /tmp/b.sh\nmake -C /y\nEOS\n" + // 13
		"ENTRYPOINT [\"sh\", \"-c\", \"make -C /z\"]\n" + // 15
		"SHELL [\"python3\", \"-c\"]\nRUN import os; os.system('make -C /py')\n" // 17
	d := loadDockerfile("Dockerfile", []byte(src))
	var got []string
	for _, st := range d.Stages {
		for _, in := range st.Instructions {
			if in.Shell == nil {
				continue
			}
			for _, s := range commandModel(in.Shell.Commands) {
				got = append(got, fmt.Sprintf("%d %s %s", in.Pos.Line, in.Cmd, s))
			}
		}
	}
	want := []string{
		"5 run git dir=/w fetch=clone:github.com/kvcache-ai/mooncake>/w/Mooncake",
		"7 run make dir=/w/Mooncake",
		"9 run make dir=/w/Mooncake",
		"10 onbuild cmake dir=/w/Mooncake dirs=/w/Mooncake",
		"11 cmd cd dir=/w/Mooncake", "11 cmd make dir=/x",
		"12 copy make dir=/w/Mooncake dirs=/y",
		"15 entrypoint make dir=/w/Mooncake dirs=/z",
		"17 run make dir=/w/Mooncake dirs=/py",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestRecipesAndPython(t *testing.T) {
	mk := loadRecipes("Makefile", []byte("X := /opt/mc\nall: dep ; @echo $$HOME\n\tcd $(X) && \\\n\t  make\n\t-make -C $(X) $@\nvar = 1\n"), "make")
	if got := commandModel(mk.Commands); strings.Join(got, "|") != "echo dir=.|cd dir=.|make dir=/opt/mc|make dir=. dirs=/opt/mc" {
		t.Errorf("Makefile: %v %v", got, mk.Errors)
	}
	just := loadRecipes("justfile", []byte("d := \"/opt/j\"\n[private]\nb arg=\"x\":\n    cd {{d}} && make\n    make\npy:\n    #!/usr/bin/env python3\n    print(1)\n"), "just")
	if got := commandModel(just.Commands); strings.Join(got, "|") != "cd dir=.|make dir=/opt/j|make dir=." {
		t.Errorf("justfile: %v %v", got, just.Errors)
	}
	py := loadPython("b.py", []byte("import subprocess, os\nU = 'https://github.com/kvcache-ai/Mooncake'\nsubprocess.run(['git', 'clone', U, 'mc'])\n"+
		"subprocess.check_call('make install', shell=True, cwd='mc')\nos.system(f\"make {x}\")\nsubprocess.run(cmd)\n"))
	if got := commandModel(py.Commands); strings.Join(got, "|") != "git dir=. fetch=clone:github.com/kvcache-ai/mooncake>mc|make dir=mc" {
		t.Errorf("Python: %v %v", got, py.Errors)
	}
	for _, c := range py.Commands {
		for _, w := range c.Words {
			if w.Pos.Line < 3 || w.Pos.Line > 4 {
				t.Errorf("%q placed at line %d", w.Text, w.Pos.Line)
			}
		}
	}
}

func TestComposeAndInlineDockerfiles(t *testing.T) {
	src := "services:\n  a:\n    build:\n      context: https://github.com/kvcache-ai/Mooncake.git\n  b:\n    build:\n      dockerfile_inline: |\n        FROM x\n        RUN make -C /q\n      args:\n        - A=1\n  c:\n    build: ./c\n"
	d := loadPipeline("compose.yaml", []byte(src))
	if d.System != "compose" || len(d.Builds) != 3 || len(d.Scripts) != 1 {
		t.Fatalf("compose: system %q, %d builds, %d scripts, errors %v", d.System, len(d.Builds), len(d.Scripts), d.Errors)
	}
	if c := d.Scripts[0].Commands; len(c) != 1 || c[0].Pos.Line != 9 || c[0].Words[2].Text != "/q" {
		t.Errorf("inline RUN: %+v", c)
	}
	if w := d.Builds[0].Contexts; len(w) != 1 || *w[0].Value != "https://github.com/kvcache-ai/Mooncake.git" {
		t.Errorf("context: %+v", w)
	}
	refs := References(d)
	if len(refs) != 1 || refs[0].Path != "c/Dockerfile" {
		t.Errorf("refs %+v", refs)
	}
	h := loadHCL("docker-bake.hcl", []byte("target \"t\" {\n  dockerfile-inline = \"FROM x\\nRUN make -C /q\\n\"\n}\n"))
	if len(h.Scripts) != 1 || h.Scripts[0].Commands[0].Pos.Line != 2 || h.Scripts[0].Commands[0].Name != "make" {
		t.Errorf("bake inline with escapes: %+v %v", h.Scripts, h.Errors)
	}
}
