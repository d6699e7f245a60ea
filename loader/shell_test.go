package loader

import (
	"fmt"
	"strings"
	"testing"
)

func TestShellStructure(t *testing.T) {
	src := `#!/usr/bin/env bash
# stage list
STAGES="base mooncake_source
  build_mooncake ci_base"
export MOONCAKE_BRANCH=${MOONCAKE_BRANCH:-v0.3.7}
PAIRS=(mooncake_cache_key "$MOONCAKE_CACHE_KEY")
compute_keys() {
  local key
  key=$(sha256sum <<<"${MOONCAKE_BRANCH}")
  for stage in $STAGES mooncake_export; do
    echo "$stage"
  done
  case "$1" in
    mooncake-rocm-ci|export_mooncake) echo mooncake ;;
    *) : ;;
  esac
}
cat <<EOF > out.txt
MOONCAKE_BRANCH=${MOONCAKE_BRANCH}
EOF
`
	d := parseAs[*ShellDocument](t, KindShell, "ci.sh", src)
	if len(d.Errors) != 0 {
		t.Fatalf("errors: %+v", d.Errors)
	}
	if d.Shebang == nil || *d.Shebang.Value != "/usr/bin/env bash" {
		t.Errorf("shebang = %+v", d.Shebang)
	}
	if len(d.Comments) != 1 || d.Comments[0].Pos.Line != 2 {
		t.Errorf("comments = %+v", d.Comments)
	}
	as := map[string]Assignment{}
	for _, a := range d.Assignments {
		as[a.Name] = a
	}
	st := as["STAGES"]
	var words []string
	for _, w := range st.Words {
		words = append(words, *w.Value)
	}
	if strings.Join(words, " ") != "base mooncake_source build_mooncake ci_base" {
		t.Errorf("STAGES words = %v", words)
	}
	wantLine(t, "mooncake_source", st.Words[1].Pos, 3, 14)
	wantLine(t, "build_mooncake", st.Words[2].Pos, 4, 3)
	if mb := as["MOONCAKE_BRANCH"]; mb.Decl != "export" || mb.Value != nil || mb.Pos.Line != 5 {
		t.Errorf("MOONCAKE_BRANCH = %+v", mb)
	}
	if p := as["PAIRS"]; len(p.Array) != 2 || *p.Array[0].Value != "mooncake_cache_key" || p.Array[1].Value != nil {
		t.Errorf("PAIRS = %+v", p)
	}
	if k := as["key"]; k.Function != "compute_keys" {
		t.Errorf("key assignment function = %q", k.Function)
	}
	if len(d.Functions) != 1 || d.Functions[0].Name != "compute_keys" || d.Functions[0].Pos.Line != 7 || d.Functions[0].Pos.EndLine != 17 {
		t.Errorf("functions = %+v", d.Functions)
	}
	var inFunc, outside int
	for _, e := range d.Expansions {
		if e.Name == "MOONCAKE_BRANCH" {
			if e.Function == "compute_keys" {
				inFunc++
			} else {
				outside++
			}
		}
	}
	// ${MOONCAKE_BRANCH:-...} on line 5, in the here-string, in the heredoc.
	if inFunc != 1 || outside != 2 {
		t.Errorf("MOONCAKE_BRANCH expansions: %d in the function, %d outside", inFunc, outside)
	}
	if len(d.ForLoops) != 1 || d.ForLoops[0].Var != "stage" || len(d.ForLoops[0].Words) != 2 || d.ForLoops[0].Function != "compute_keys" {
		t.Errorf("for loops = %+v", d.ForLoops)
	}
	var pats []string
	for _, p := range d.CasePatterns {
		pats = append(pats, p.Text)
	}
	if strings.Join(pats, ",") != "mooncake-rocm-ci,export_mooncake,*" || d.CasePatterns[1].Pos.Column != 22 {
		t.Errorf("case patterns = %+v", d.CasePatterns)
	}
	if len(d.Heredocs) != 1 || d.Heredocs[0].Delimiter != "EOF" || d.Heredocs[0].Pos.Line != 19 {
		t.Errorf("heredocs = %+v", d.Heredocs)
	}
}

// A syntax error is an entry; the statements before and after still load.
func TestShellMalformed(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		errLine  int
		wantCmds []string
	}{
		{"unclosed quote: the rest is parsed again", "echo a\necho \"b\necho c\n", 2, []string{"echo", "echo"}},
		{"stray fi", "echo a\nfi\necho c\n", 2, []string{"echo", "echo"}},
		{"unclosed if (bash names the end of the file)", "echo a\nif true; then\n  echo b\n", 3, []string{"echo", "echo"}},
		{"bad parenthesis", "echo a\nfoo )\necho c\n", 2, []string{"echo", "echo"}},
		{"empty", "", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parseAs[*ShellDocument](t, KindShell, "ci.sh", tt.src)
			if tt.errLine == 0 {
				if len(d.Errors) != 0 {
					t.Errorf("errors: %+v", d.Errors)
				}
			} else if len(d.Errors) == 0 || d.Errors[0].Pos.Line != tt.errLine {
				t.Errorf("errors = %+v, want the first at line %d", d.Errors, tt.errLine)
			}
			var got []string
			for _, c := range d.Commands {
				got = append(got, c.Name)
			}
			if strings.Join(got, ",") != strings.Join(tt.wantCmds, ",") {
				t.Errorf("commands = %v, want %v", got, tt.wantCmds)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		path string
		head string
		want Kind
	}{
		{"Dockerfile", "", KindDockerfile},
		{"docker/Dockerfile.rocm", "", KindDockerfile},
		{"docker/rocm.Dockerfile", "", KindDockerfile},
		{"docker/atom_release.dockerfile", "", KindDockerfile},
		{"docker/ci-rocm.hcl", "", KindHCL},
		{"requirements.txt", "", KindRequirements},
		{"requirements-dev.txt", "", KindRequirements},
		{"requirements/test/rocm.txt", "", KindRequirements},
		{"constraints.txt", "", KindRequirements},
		{"docs/notes.txt", "", ""},
		{".buildkite/scripts/ci-bake-rocm.sh", "", KindShell},
		{"tools/x.bash", "", KindShell},
		{"tools/run", "#!/bin/bash\n", KindShell},
		{"tools/run", "#!/usr/bin/env bash\n", KindShell},
		{"tools/run", "#!/usr/bin/env -S bash -e\n", KindShell},
		{"tools/run", "#!/bin/sh -eu\n", KindShell},
		{"tools/run", "#!/usr/bin/env python3\n", ""},
		{"tools/run", "#!/bin/zsh\n", KindShell},
		{"tools/run", "#!/bin/dash\n", KindShell},
		{"tools/run", "#!/bin/ksh -e\n", KindShell},
		{"tools/run", "#!/usr/bin/env -S VAR=1 bash -e\n", KindShell},
		{"tools/run", "#!/bin/fish\n", ""},
		{"docker/Containerfile", "", KindDockerfile},
		{"docker/Containerfile.rocm", "", KindDockerfile},
		{"ctx/dockerfile", "", KindDockerfile},
		{"docker/Dockerfile-rocm", "", KindDockerfile},
		{"docker/Dockerfile_rocm", "", KindDockerfile},
		{"docker/rocm.containerfile", "", KindDockerfile},
		{"pkg/dockerfile_test.go", "", ""},
		{"pkg/dockerfile.py", "", ""},
		{"docker/dockerfile-stages-dependency.png", "", ""},
		{"docs/Dockerfile_layers.svg", "", ""},
		{"docker/dockerfile.stages.dot", "", ""},
		{"docs/Dockerfile.png", "", ""},
		{"docker/Dockerfile.rocm_base", "", KindDockerfile},
		{".buildkite/hooks/pre-command", "", KindShell},
		{".buildkite/hooks/notes", "hello\n", ""},
		{"README", "hello\n", ""},
		{"tools/x.py", "#!/bin/bash\n", ""},
	}
	for _, tt := range tests {
		k, ok := DetectName(tt.path)
		if !ok && NeedsContent(tt.path) {
			k, _ = DetectContent([]byte(tt.head))
		}
		if k != tt.want {
			t.Errorf("%s (%q): %q, want %q", tt.path, tt.head, k, tt.want)
		}
	}
}

// A construct mvdan/sh reads as another shell's (a LangError: floating
// point arithmetic is zsh's) is an error at its own line, and the script
// after it is still read: not an error past the end of the file with the
// rest lost.
func TestLangErrorRecovers(t *testing.T) {
	src := "#!/bin/bash\necho $((3.14 + 1))\necho hi\ngit clone https://example.com/x.git\n"
	d := loadShell("gen.sh", []byte(src))
	if len(d.Errors) != 1 || d.Errors[0].Pos.Line != 2 {
		t.Fatalf("errors: %+v", d.Errors)
	}
	names := []string{}
	for _, c := range d.Commands {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "echo,git" {
		t.Errorf("commands: %v", names)
	}
}

// Associative arrays are valid bash, whatever their keys: lines of
// docker-library/official-images' test/run.sh and test/config.sh and
// docker-library/python's generate-stackbrew-library.sh. A substitution
// inside a key is still read as it is written.
func TestAssociativeArrays(t *testing.T) {
	src := strings.Join([]string{
		"#!/bin/bash",
		"declare -A aliases=([3.14]='3 latest')",
		"explicitTests+=(",
		"\t[:onbuild]=1",
		")",
		"imageTests[:onbuild]+='",
		"\tx",
		"'",
		`for t in "${testAlias[$repo:$variant]:-}" "${globalExcludeTests[${testRepo}:${variant}_$t]:-}"; do echo "$t"; done`,
		`echo "${imageTests[:$variant]:-}"`,
		`echo "${cache[$(git clone https://github.com/a/b.git)]}"`,
		"",
	}, "\n")
	d := loadShell("run.sh", []byte(src))
	if len(d.Errors) != 0 {
		t.Fatalf("errors on valid bash: %+v", d.Errors)
	}
	found := false
	for _, c := range d.Commands {
		if c.Name == "git" && len(c.Words) == 3 && c.Words[2].Value != nil && *c.Words[2].Value == "https://github.com/a/b.git" {
			found = true
		}
	}
	if !found {
		t.Errorf("the clone inside a key is not read as written: %+v", d.Commands)
	}
}

// Shell inside shell (issue 13): the script bash -c, sh -lc, su -c runs,
// also after another command, is parsed and its words point into the file:
// exactly for single-quoted, escaped double-quoted and plain scripts.
func TestNestedShell(t *testing.T) {
	src := strings.Join([]string{
		"#!/bin/bash",
		`docker run --rm img bash -lc 'cd /w && git clone https://x/y.git'`,
		`su - builder -c "make \"-j\" \$N"`,
		`sudo -E sh -o pipefail -ec 'ninja -C build'`,
		`bash script.sh -c 'not-a-script'`,
		`bash -c "cmake $DIR"`,
		`sh -c 'if then'`,
		`sh -c "if $X then"`,
		"",
	}, "\n")
	d := loadShell("ci.sh", []byte(src))
	got := map[string]string{}
	for _, c := range d.Commands {
		w := c.Words[len(c.Words)-1]
		got[c.Name] = fmt.Sprintf("%d:%d-%d %s", w.Pos.Line, w.Pos.Column, w.Pos.EndColumn, w.Text)
	}
	want := map[string]string{
		"cd":    "2:34-36 /w",
		"git":   "2:50-65 https://x/y.git",
		"make":  "3:31-33 $N",
		"ninja": "4:38-43 build",
		"cmake": "6:16-20 $DIR",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %q, want %q", name, got[name], w)
		}
	}
	if _, ok := got["not-a-script"]; ok {
		t.Error("bash FILE -c …: -c after the script file is an argument of it, not a script")
	}
	// The inner scripts' syntax errors are reported: exact (line 7), and
	// read as written when the script holds expansions (line 8), which
	// the message says.
	var lines []int
	for _, e := range d.Errors {
		lines = append(lines, e.Pos.Line)
	}
	if fmt.Sprint(lines) != "[7 8]" || !strings.Contains(d.Errors[0].Message, "in the script `sh` runs") || !strings.Contains(d.Errors[1].Message, "read as written") {
		t.Errorf("errors: %+v", d.Errors)
	}
}
