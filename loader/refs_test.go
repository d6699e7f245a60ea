package loader

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// refsOf is what a file's references name: path=kind, a glob marked *,
// and a note marked !note (!unread when it is always reported).
func refsOf(kind Kind, name, src string) string {
	var out []string
	for _, r := range References(Parse(kind, name, []byte(src))) {
		s := r.Path + "=" + string(r.Kind)
		if r.Glob {
			s += "*"
		}
		if r.Shebang {
			s += "!shebang"
		}
		if r.Note != "" {
			s += "!note"
			if r.Unread {
				s += "!unread"
			}
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// The files a command runs or builds, whatever the spelling its program's
// own grammar allows (bash's option clusters, pflag's -fVALUE and global
// options, a path run without ./, a variable's value): each case is one
// the red team's second pass found missed (issue 26).
func TestCommandRefs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ src, want string }{
		{"bash -eo pipefail ci/b", "ci/b=shell"},
		{"sh -euo pipefail ci/b", "ci/b=shell"},
		{"bash -o pipefail -e ci/b arg", "ci/b=shell"},
		{"bash +o posix ci/b", "ci/b=shell"},
		{"bash --rcfile x -- ci/b", "ci/b=shell"},
		{"sudo -E bash ci/b", "ci/b=shell"},
		{"bash -c 'echo ci/b'", ""},
		{"bash -s ci/b", ""},
		{"docker build -fdocker/x .", "docker/x=dockerfile"},
		{"docker build -f=docker/x .", "docker/x=dockerfile"},
		{"docker build -qf docker/x .", "docker/x=dockerfile"},
		{"docker build --file=docker/x .", "docker/x=dockerfile"},
		{"docker build -t img -f docker/x .", "docker/x=dockerfile"},
		{"docker --context default build -f docker/x .", "docker/x=dockerfile"},
		{"docker -H tcp://h:1 --tls image build -f docker/x .", "docker/x=dockerfile"},
		{"docker -cdefault builder build -f docker/x .", "docker/x=dockerfile"},
		{"docker buildx --builder b build -f docker/x .", "docker/x=dockerfile"},
		{"docker buildx -D b -f docker/x .", "docker/x=dockerfile"},
		{"docker buildx bake -f ci/d.hcl", "ci/d.hcl=hcl"},
		{"podman --root /r build -f docker/x .", "docker/x=dockerfile"},
		{"docker run -f docker/x img", ""},
		{"ci/build-it", "ci/build-it=shell"},
		{"ci/build.sh --fast", "ci/build.sh=shell"},
		{"tools/gen.py", "tools/gen.py=shell!shebang"},
		{"bash $GITHUB_WORKSPACE/ci/b", "ci/b=shell"},
		{"bash \"$(git rev-parse --show-toplevel)/ci/b\"", "ci/b=shell"},
		{"exec 3< ci/b; bash <&3", "ci/b=shell"},
		{"/usr/local/bin/build", ""},
		{"S=ci/b; bash \"$S\"", "ci/b=shell"},
		{"for s in ci/a ci/b; do bash \"$s\"; done", "ci/a=shell ci/b=shell"},
		{"bash \"${S:-ci/d}\"", "ci/d=shell"},
		{"D=docker/x; docker build -f \"$D\" .", "docker/x=dockerfile"},
		{"X=\"${X:-docker/b.hcl}\"\ndocker buildx bake -f \"${X}\" -f ci/d.hcl", "ci/d.hcl=hcl docker/b.hcl=hcl"},
		{"DIR=ci; F=\"$DIR/p.sh\"; bash \"$F\"", "ci/p.sh=shell"},
		{"bash /dev/stdin < ci/b", "ci/b=shell"},
		{"sh /proc/self/fd/0 < ci/b", "ci/b=shell"},
		{"bash <(cat ci/b)", "ci/b=shell"},
		{". <(cat ci/b)", "ci/b=shell"},
		{"busybox sh ci/b", "ci/b=shell"},
		{"mksh ci/b", "ci/b=shell"},
		{"nice nice nice nice nice nice nice nice nice bash ci/b", "ci/b=shell"},
		{"env -S \"bash ci/b\" x", "ci/b=shell"},
		{"docker build - < docker/x", "docker/x=dockerfile"},
		{"docker build -f - . < docker/x", "docker/x=dockerfile"},
		{"cat docker/x | docker build -t i -", "docker/x=dockerfile"},
		{"cd ci && ./b", "b=shell ci/b=shell"},
		{"cd ci; sh b", "b=shell ci/b=shell"},
		{"bash < ci/b", "ci/b=shell"},
		{"cat ci/b | bash", "ci/b=shell"},
		{"cat ci/b | sudo bash -e", "ci/b=shell"},
		{"bash \"$UNKNOWN\"", "=shell!note"},
		{"buildkite-agent pipeline upload \"$F\"", "=pipeline!note!unread"},
		{"F=ci/p.yml; buildkite-agent pipeline upload $F", "ci/p.yml=pipeline"},
		{"A=ci/p; buildkite-agent pipeline upload \"${A}.yml\"", "ci/p.yml=pipeline"},
		{"buildkite-agent pipeline upload ci/$F", "ci/*=pipeline*"},
	} {
		if got := refsOf(KindShell, "run.sh", tt.src+"\n"); got != tt.want {
			t.Errorf("%s\n got %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

// A script that changes into a directory made from its own runs the files
// there.
func TestScriptDirRefs(t *testing.T) {
	t.Parallel()
	got := refsOf(KindShell, "scripts/b.sh", "cd \"$(dirname \"$0\")/../ci\"\n./b\n")
	if !strings.Contains(got, "ci/b=shell") {
		t.Errorf("got %q", got)
	}
}

// A pipeline's env: and variables: give the values its scripts and
// includes read (GitHub's step env, GitLab's variables in include: local).
func TestPipelineRefValues(t *testing.T) {
	t.Parallel()
	wf := "on: push\njobs:\n  b:\n    runs-on: x\n    env:\n      S: ci/b\n    steps:\n      - run: bash \"$S\"\n"
	if got := refsOf(KindPipeline, ".github/workflows/ci.yml", wf); got != "ci/b=shell" {
		t.Errorf("workflow env: got %q", got)
	}
	gl := "variables:\n  INC: ci/x.yml\ninclude:\n  - local: $INC\n  - local: ${OTHER}\n"
	if got := refsOf(KindPipeline, ".gitlab-ci.yml", gl); got != "=!note!unread ci/x.yml=" {
		t.Errorf("gitlab include: got %q", got)
	}
}

// Scripts a script hands to a shell other than by bash -c: eval, a pipe
// into a shell, and the programs whose -c option is a command.
func TestFedScripts(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"eval 'git clone https://x/y.git'",
		`eval "git" clone https://x/y.git`,
		`builtin eval 'git clone https://x/y.git'`,
		"echo 'git clone https://x/y.git' | sh",
		"echo -n 'git clone https://x/y.git' | bash -e",
		`printf '%s\n' 'git clone https://x/y.git' | bash`,
		`printf 'git clone https://x/y.git\n' | bash`,
		"cat <<'EOF' | bash\ngit clone https://x/y.git\nEOF",
		"flock /tmp/l -c 'git clone https://x/y.git'",
		"script -qec 'git clone https://x/y.git' /dev/null",
		"runuser -l u -c 'git clone https://x/y.git'",
		"S='git clone https://x/y.git'\neval \"$S\"",
		"S='git clone https://x/y.git'; bash -c \"$S\"",
		"S='git clone https://x/y.git'; echo \"$S\" | sh",
		"build() { eval \"$S\"; }\nS='git clone https://x/y.git'\nbuild",
		"bash <(echo 'git clone https://x/y.git')",
		". <(printf '%s\\n' 'git clone https://x/y.git')",
		". /dev/stdin <<< 'git clone https://x/y.git'",
	} {
		d := loadShell("run.sh", []byte(src+"\n"))
		found := ""
		for _, c := range d.Commands {
			if c.Name == "git" {
				w := c.Words[len(c.Words)-1]
				found = fmt.Sprintf("%s@%d:%d", w.Text, w.Pos.Line, w.Pos.Column)
			}
		}
		if !strings.HasPrefix(found, "https://x/y.git@") && !strings.HasPrefix(found, "$@") { // a value put in place: at its expansion
			t.Errorf("%s: the script it runs is not read (%q, %+v)", src, found, d.Errors)
		}
	}
	// Not a script: echo into a file, a shell given a file.
	for _, src := range []string{"echo 'git clone https://x/y.git' | tee f", "echo 'git clone https://x/y.git' | bash ci/b"} {
		for _, c := range loadShell("run.sh", []byte(src+"\n")).Commands {
			if c.Name == "git" {
				t.Errorf("%s: read as a script", src)
			}
		}
	}
}

// Bounds passed inside a script are parts not read (not syntax errors):
// reported whatever the file mentions.
func TestShellBoundsAreUnread(t *testing.T) {
	t.Parallel()
	nest := "echo inner"
	for range maxNestedDepth + 1 {
		nest = "bash -c " + shellQuote(nest)
	}
	many := strings.Repeat("x=$((echo a); (echo b))\n", maxShellErrors+1) + "bash ci/b\n"
	for name, src := range map[string]string{"nested": nest + "\n", "errors": many, "perl": "#!/usr/bin/perl\n" + many} {
		d := loadShell("run.sh", []byte(src))
		unread := false
		for _, e := range d.Errors {
			if !e.Syntax && strings.Contains(e.Message, "not read") {
				unread = true
			}
		}
		// A perl script read as shell: where the reading gives up is a
		// syntax error of the reading (relevance-gated), not a bound.
		if want := name != "perl"; unread != want {
			t.Errorf("%s: part-not-read error %v, want %v: %+v", name, unread, want, d.Errors)
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Files a workflow names through its steps' settings and actions, a bake
// file through its targets, a Dockerfile through what it copies and runs.
func TestBuildRefs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind      Kind
		name, src string
		want      string
	}{
		{KindPipeline, ".github/workflows/a.yml", "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: ./b\n        working-directory: ci\n", "b=shell ci/b=shell"},
		{KindPipeline, ".github/workflows/a.yml", "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: echo\n        shell: bash -e ci/b {0}\n", "ci/b=shell"},
		{KindPipeline, ".github/workflows/a.yml", "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - uses: docker/build-push-action@v6\n        with:\n          file: ci/img\n", "ci/img=dockerfile"},
		{KindPipeline, ".github/workflows/a.yml", "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - uses: docker/bake-action@v5\n        with:\n          files: ci/b.hcl\n", "ci/b.hcl=hcl"},
		{KindPipeline, ".buildkite/pipeline.yml", "steps:\n  - command: make\n    plugins:\n      - ./.buildkite/plugins/mc: ~\n", "hooks"},
		{KindPipeline, ".gitlab-ci.yml", "include:\n  - project: ${CI_PROJECT_NAMESPACE}/${CI_PROJECT_NAME}\n    file: ci/x.yml\n", "ci/x.yml="},
		{KindHCL, "docker/docker-bake.hcl", "target \"a\" {\n  context = \".\"\n  dockerfile = \"ci/img\"\n}\n", "ci/img=dockerfile docker/ci/img=dockerfile"},
		{KindHCL, "docker-bake.json", "{\"target\": {\"a\": {\"context\": \".\", \"dockerfile\": \"ci/img\"}}}\n", "ci/img=dockerfile"},
		{KindDockerfile, "docker/Dockerfile", "FROM x\nCOPY ci/mc /mc\nRUN sh /mc\n", "ci/mc=shell docker/ci/mc=shell"},
		{KindDockerfile, "Dockerfile", "FROM x\nWORKDIR /w\nCOPY ci/mc tools/\nRUN ./tools/mc --fast\n", "ci/mc=shell"},
		{KindDockerfile, "Dockerfile", "FROM x\nRUN --mount=type=bind,source=ci/mc,target=/mc /mc\n", "ci/mc=shell"},
		{KindDockerfile, "Dockerfile", "FROM x\nCOPY --from=b /mc /mc\nRUN sh /mc\n", ""},
		{KindDockerfile, "Dockerfile", "FROM x\nCOPY cmake cmake/\nRUN cmake .\n", ""},
	} {
		got := refsOf(tt.kind, tt.name, tt.src)
		if tt.want == "hooks" {
			if !strings.Contains(got, ".buildkite/plugins/mc/hooks/command=shell") || !strings.Contains(got, ".buildkite/plugins/mc/hooks/pre-command=shell") {
				t.Errorf("%s: plugin hooks not named: %q", tt.name, got)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("%s %q\n got %q\nwant %q", tt.name, tt.src, got, tt.want)
		}
	}
}

// The guards that have a Dockerfile or bake file parsed for its
// references though it mentions nothing the rules look for, and leave
// the others unparsed.
func TestRefGuards(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind Kind
		src  string
		want bool
	}{
		{KindDockerfile, "FROM x\nCOPY ci/mc /mc\nRUN sh /mc\n", true},
		{KindDockerfile, "FROM x\nCOPY ci/mc /opt/\nRUN apt-get update && \\\n    /opt/mc\n", true},
		{KindDockerfile, "FROM x\nRUN --mount=type=bind,source=ci/mc,target=/mc sh /mc\n", true},
		{KindDockerfile, "FROM x\nCOPY cmake cmake/\nRUN cmake -S . -B b \\\n    x/y.cmake\n", false},
		{KindDockerfile, "FROM x\nCOPY tools/b.sh /b.sh\nRUN bash /b.sh\n", false},
		{KindDockerfile, "FROM x\nCOPY --from=s /mc /mc\nRUN sh /mc\n", false},
		{KindHCL, "target \"a\" {\n  dockerfile = \"docker/Dockerfile.rocm\"\n}\n", false},
		{KindHCL, "target \"a\" {\n  dockerfile = \"ci/img\"\n}\n", true},
		{KindHCL, "target \"a\" {\n  dockerfile = var.df\n}\n", true},
		{KindHCL, "{\"target\": {\"a\": {\"dockerfile\": \"ci/img\"}}}", true},
	} {
		if got := MustParse(tt.kind, []byte(tt.src)); got != tt.want {
			t.Errorf("%s %q: parsed %v, want %v", tt.kind, tt.src, got, tt.want)
		}
	}
}

// A command is the command its wrappers run: its words, and the
// wrappers' words apart.
func TestLookThrough(t *testing.T) {
	t.Parallel()
	d := loadShell("run.sh", []byte("sudo -E timeout 1h git clone https://x/y.git\ncommand -v git\nenv -S 'make install'\nretry() { \"$@\"; }\nretry cmake .\n"))
	var got []string
	for _, c := range d.Commands {
		var ws []string
		for _, w := range c.Wrappers {
			ws = append(ws, w.Text)
		}
		got = append(got, c.Name+"|"+strings.Join(ws, " "))
	}
	want := "git|sudo -E timeout 1h command| make|env \"$@\"| cmake|retry"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %q\nwant %q", strings.Join(got, " "), want)
	}
	deep := strings.Repeat("nice ", maxWrappers+1) + "git clone x\n"
	found := false
	for _, e := range loadShell("run.sh", []byte(deep)).Errors {
		found = found || !e.Syntax && strings.Contains(e.Message, "wrappers")
	}
	if !found {
		t.Error("more wrappers than buildgate looks through: no part-not-read error")
	}
}

// docker-bake.json is bake's definition in HCL's JSON syntax: read into
// the same document, targets, attributes and their entries in place.
func TestBakeJSON(t *testing.T) {
	t.Parallel()
	if k, ok := DetectName("docker/docker-bake.json"); !ok || k != KindHCL {
		t.Errorf("docker-bake.json: %q", k)
	}
	src := "{\n  \"target\": {\n    \"rocm\": {\n      \"args\": {\"MOONCAKE_BRANCH\": \"main\"},\n      \"tags\": [\"x\"]\n    }\n  }\n}\n"
	d := Parse(KindHCL, "docker-bake.json", []byte(src)).(*HCLDocument)
	b := d.Targets["rocm"]
	if b == nil || len(b.Attributes) != 2 {
		t.Fatalf("targets: %+v", d.Targets)
	}
	args := b.Attributes[0]
	if args.Name != "args" || len(args.Elements) != 1 || *args.Elements[0].Key.Value != "MOONCAKE_BRANCH" || args.Elements[0].Pos.Line != 4 {
		t.Errorf("args: %+v", args)
	}
	checkPositions(t, []byte(src), d)
}

// Past the bounds of resolution (values per variable, paths per reference,
// directories a script changes into), never a silent drop: the glob
// reading, or a note at the reference (issue 26's fourth review).
func TestResolutionBounds(t *testing.T) {
	t.Parallel()
	var many, cds strings.Builder
	for i := range maxValuesPerName + 1 {
		fmt.Fprintf(&many, "S=v%d\n", i)
	}
	many.WriteString("bash ci/$S.txt\n")
	for i := range maxCdDirs + 1 {
		fmt.Fprintf(&cds, "cd d%d\n", i)
	}
	cds.WriteString("bash step.txt\n")
	// Past the values bound the glob reading names every file; past the
	// directories bound it is said where the file could hide something.
	for name, want := range map[string][2]string{"values": {many.String(), "ci/*.txt=shell*"}, "cd": {cds.String(), "=shell!note"}} {
		if got := refsOf(KindShell, "run.sh", want[0]); !strings.Contains(got, want[1]) {
			t.Errorf("%s: %q lacks %q", name, got, want[1])
		}
	}
	if got := refsOf(KindShell, "run.sh", strings.ReplaceAll(many.String(), "bash ci/$S.txt", "bash \"$S\"")); !strings.Contains(got, "=shell!note") {
		t.Errorf("all variable, past the bound: %q", got)
	}
}

// A Dockerfile's ARG default and a pipeline's env give the value a RUN or
// step hands to a shell (ARG S="git clone …"; RUN eval "$S").
func TestValuesHandedToAShell(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind      Kind
		name, src string
	}{
		{KindDockerfile, "Dockerfile", "ARG S=\"git clone https://x/y.git\"\nFROM a\nRUN eval \"$S\"\n"},
		{KindDockerfile, "Dockerfile", "FROM a\nENV S=\"git clone https://x/y.git\"\nRUN bash -c \"$S\"\n"},
		{KindPipeline, ".github/workflows/a.yml", "on: push\njobs:\n  b:\n    runs-on: x\n    env:\n      S: git clone https://x/y.git\n    steps:\n      - run: eval \"$S\"\n"},
		{KindPipeline, ".github/workflows/a.yml", "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: eval \"$S\"\n        env:\n          S: git clone https://x/y.git\n"},
	} {
		js, err := FormatJSON([]Document{Parse(c.kind, c.name, []byte(c.src))})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(js), `"name": "git"`) {
			t.Errorf("%s: the script the value holds is not read", c.src)
		}
	}
}

// An input's default, or the value an include passes, is what
// ${{ inputs.x }} or $[[ inputs.x ]] puts in a script: read as one.
func TestInputValuesAreScripts(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		".gitlab-ci.yml":               "spec:\n  inputs:\n    steps:\n      default: git clone https://x/y.git\n---\nb:\n  script:\n    - $[[ inputs.steps ]]\n",
		".github/workflows/r.yml":      "on:\n  workflow_call:\n    inputs:\n      steps:\n        default: git clone https://x/y.git\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: ${{ inputs.steps }}\n",
		".github/actions/a/action.yml": "name: a\ninputs:\n  steps:\n    default: git clone https://x/y.git\nruns:\n  using: composite\n  steps:\n    - shell: bash\n      run: ${{ inputs.steps }}\n",
		"ci/.gitlab-ci.yml":            "include:\n  - local: ci/x.yml\n    inputs:\n      steps: git clone https://x/y.git\n",
	} {
		d := loadPipeline(name, []byte(src))
		found := false
		for _, s := range d.Scripts {
			for _, c := range s.Commands {
				found = found || c.Name == "git"
			}
		}
		if !found {
			t.Errorf("%s: the input's value is not read as a script", name)
		}
	}
}

// Values put in place cannot multiply a file: a Dockerfile's RUNs share
// one nested-script budget, and a value is not built past it (issue 26's
// seventh review: 19,000 `RUN eval "$S"` of a 63 KB value parsed 1.2 GB).
func TestValuesShareTheNestedBudget(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("ARG S=\"" + strings.Repeat("echo a; ", 8000) + "\"\nFROM a\n")
	for range 400 {
		b.WriteString("RUN eval \"$S\"\n")
	}
	d := Parse(KindDockerfile, "Dockerfile", []byte(b.String())).(*DockerfileDocument)
	over := false
	for _, e := range d.Errors {
		over = over || strings.Contains(e.Message, "more than buildgate reads")
	}
	if !over {
		t.Error("400 RUNs of a 64 KB value: no nested budget passed")
	}
}
