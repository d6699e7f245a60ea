package loader

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// words are the commands' words of a pipeline as "line:col text".
func pipelineWords(d *PipelineDocument) []string {
	var out []string
	for _, s := range d.Scripts {
		for _, c := range s.Commands {
			for _, w := range c.Words {
				out = append(out, fmt.Sprintf("%d:%d %s", w.Pos.Line, w.Pos.Column, w.Text))
			}
		}
	}
	return out
}

func TestPipelineScalarStyles(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"plain", "steps:\n  - command: docker build --build-arg A=1 .\n",
			[]string{"2:14 docker", "2:21 build", "2:27 --build-arg", "2:39 A=1", "2:43 ."}},
		{"double quoted with escapes", "steps:\n  - command: \"echo \\\"$A\\\" \\u00e9x\"\n",
			[]string{"2:15 echo", "2:20 \\\"$A\\\"", "2:27 \\u00e9x"}},
		{"single quoted", "steps:\n  - command: 'echo ''a b'' c'\n",
			[]string{"2:15 echo", "2:20 ''a b''", "2:28 c"}},
		{"literal block", "steps:\n  - commands:\n      - |\n        docker build \\\n          --build-arg B=2 .\n",
			[]string{"4:9 docker", "4:16 build", "5:11 --build-arg", "5:23 B=2", "5:27 ."}},
		{"folded block", "steps:\n  - command: >-\n      echo a\n      b\n",
			[]string{"3:7 echo", "3:12 a", "4:7 b"}},
		{"plain multi-line", "steps:\n  - command: echo a\n      b\n",
			[]string{"2:14 echo", "2:19 a", "3:7 b"}},
		{"double quoted, escaped line break", "steps:\n  - command: \"echo a\\\n      b\"\n",
			[]string{"2:15 echo", "2:20 a\\\n      b"}},
		{"anchor and tag", "x: &cmd !!str echo hi\nsteps:\n  - command: *cmd\n",
			[]string{"1:15 echo", "1:20 hi"}},
		{"list joined as one script", "steps:\n  - commands:\n    - cd dir\n    - make\n",
			[]string{"3:7 cd", "3:10 dir", "4:7 make"}},
		{"CRLF", "steps:\r\n  - commands:\r\n    - |\r\n      echo a\r\n      echo b\r\n",
			[]string{"4:7 echo", "4:12 a", "5:7 echo", "5:12 b"}},
		{"wide characters", "steps:\n  - command: \"échö $X\"\n",
			[]string{"2:15 échö", "2:20 $X"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := parseAs[*PipelineDocument](t, KindPipeline, ".buildkite/pipeline.yml", c.src)
			if len(d.Errors) > 0 {
				t.Fatalf("errors: %+v", d.Errors)
			}
			if got := pipelineWords(d); strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("words\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestPipelineSystems(t *testing.T) {
	cases := []struct {
		path, src string
		env       []string // name@line:col
		cmds      []string // command names
		shells    []string
		errs      int
	}{
		{".buildkite/release.yaml", "env:\n  MOONCAKE_WHEEL: \"https://x\"\nsteps:\n  - label: b\n    env:\n      A: 1\n    commands:\n      - 'x=$$(cat f) && echo \"$$x\" \\$$HOME'\n",
			[]string{"MOONCAKE_WHEEL@2:3", "A@6:7"}, []string{"cat", "echo"}, []string{""}, 0},
		{".github/workflows/ci.yml", "env:\n  TOP: a\njobs:\n  build:\n    runs-on: ubuntu-latest\n    env: {JOB: b}\n    steps:\n      - run: echo ${{ github.sha }} \"${{ inputs.x }}\"\n        env:\n          STEP: c\n      - run: Write-Host $env:X\n        shell: pwsh\n  win:\n    runs-on: windows-2022\n    steps:\n      - run: dir $env:TEMP\n",
			[]string{"TOP@2:3", "JOB@6:11", "STEP@10:11"}, []string{"echo", "Write-Host", "dir"}, []string{"", "pwsh", "pwsh"}, 0},
		{".github/workflows/x.yml", "defaults:\n  run:\n    shell: python\njobs:\n  a:\n    steps:\n      - run: print(1)\n",
			nil, []string{}, []string{"python"}, 0},
		{".gitlab-ci.yml", "variables:\n  A: \"1\"\n  B:\n    value: \"2\"\n    description: d\n.tpl:\n  before_script:\n    - cd src\nbuild:\n  extends: .tpl\n  script:\n    - !reference [.tpl, before_script]\n    - - make\n      - make install\nwin:\n  tags: [saas-windows-medium-amd64]\n  script: Get-ChildItem $env:X\n",
			[]string{"A@2:3", "B@3:3"}, []string{"cd", "cd", "make", "make", "Get-ChildItem"}, []string{"", "", "pwsh"}, 0},
		{".github/workflows/dup.yml", "on: push\non: pull_request\n", nil, nil, nil, 1},
		{".gitlab-ci.yml", "job:\n  variables: {A: 1}\n  variables: {B: 2}\n", []string{"A@2:15", "B@3:15"}, nil, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			d := parseAs[*PipelineDocument](t, KindPipeline, c.path, c.src)
			if len(d.Errors) != c.errs {
				t.Fatalf("errors: %+v", d.Errors)
			}
			var env, cmds, shells []string
			for _, e := range d.Env {
				env = append(env, fmt.Sprintf("%s@%d:%d", e.Name, e.Pos.Line, e.Pos.Column))
			}
			for _, s := range d.Scripts {
				shells = append(shells, s.Shell)
				for _, cm := range s.Commands {
					cmds = append(cmds, cm.Name)
				}
			}
			if fmt.Sprint(env) != fmt.Sprint(c.env) || fmt.Sprint(cmds) != fmt.Sprint(c.cmds) || fmt.Sprint(shells) != fmt.Sprint(c.shells) {
				t.Errorf("env %q cmds %q shells %q\nwant env %q cmds %q shells %q", env, cmds, shells, c.env, c.cmds, c.shells)
			}
		})
	}
}

func TestPipelineBuilds(t *testing.T) {
	src := "jobs:\n  b:\n    steps:\n      - run: |\n          docker buildx build --build-arg=A=1 --target t1 -f d/Dockerfile .\n          docker buildx bake --set '*.args.B=2' tgt\n      - uses: docker/build-push-action@v6\n        with:\n          file: docker/Dockerfile\n          target: mooncake-build\n          build-args: |\n            MOONCAKE_REPO=x\n            C=3\n      - uses: docker/bake-action@v5\n        with:\n          targets: a,b\n"
	d := parseAs[*PipelineDocument](t, KindPipeline, ".github/workflows/b.yml", src)
	var got []string
	for _, b := range d.Builds {
		line := b.Via + " " + b.Tool + ":"
		for _, l := range [][]Word{b.BuildArgs, b.Targets, b.Sets, b.Files} {
			for _, w := range l {
				line += fmt.Sprintf(" %s@%d:%d", w.Text, w.Pos.Line, w.Pos.Column)
			}
			line += " |"
		}
		got = append(got, line)
	}
	want := []string{
		"command docker buildx build: --build-arg=A=1@5:31 | t1@5:56 | | d/Dockerfile@5:62 |",
		"command docker buildx bake: | tgt@6:49 | '*.args.B=2'@6:36 | |",
		"action build-push-action: MOONCAKE_REPO=x@12:13 C=3@13:13 | mooncake-build@10:19 | | docker/Dockerfile@9:17 |",
		"action bake-action: | a@16:20 b@16:22 | | |",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("builds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPipelineBounds: what a hostile pipeline can do is bounded and said.
func TestPipelineBounds(t *testing.T) {
	laughs := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	prev := "a"
	for i := range 12 {
		name := fmt.Sprintf("l%d", i)
		laughs += fmt.Sprintf("%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = name
	}
	laughs += "steps:\n  - commands: *" + prev + "\n"
	merges := "m: &m {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9}\n"
	prev = "m"
	for i := range 8 {
		name := fmt.Sprintf("m%d", i)
		merges += fmt.Sprintf("%s: &%s {<<: [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]}\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = name
	}
	merges += "steps:\n  - <<: *" + prev + "\n    command: echo\n"
	// One large anchor used many times (review of issue 19: each use was
	// mapped and copied again, minutes and gigabytes for 130 KB).
	big := strings.Repeat("x", 100<<10)
	var envs, cmds, args strings.Builder
	envs.WriteString("a: &v " + big + "\nenv:\n")
	cmds.WriteString("a: &v |\n  " + big + "\nsteps:\n")
	args.WriteString("a: &v |\n" + strings.Repeat("  A=1\n", 20000) + "jobs:\n  j:\n    steps:\n")
	for i := range 3000 {
		fmt.Fprintf(&envs, "  A%d: *v\n", i)
		cmds.WriteString("  - command: [*v]\n")
		args.WriteString("      - {uses: docker/build-push-action@v6, with: {build-args: *v}}\n")
	}
	var refs strings.Builder
	refs.WriteString(".t: {script: [make]}\n")
	for i := range 20000 {
		fmt.Fprintf(&refs, "j%d: {script: !reference [.t, script]}\n", i)
	}
	cases := []struct{ name, src, want string }{
		{"an anchor in many env entries", envs.String(), "more than buildgate keeps"},
		{"an anchor in many scripts", cmds.String(), "more than buildgate keeps"},
		{"an anchor in many actions' build-args", args.String(), "over 50000 elements"},
		{"many !reference", refs.String(), ""},
		{"billion laughs", laughs, "aliases and nodes make over"},
		{"billion laughs of merge keys", merges, "aliases and nodes make over"},
		{"tabs", "steps:\n\t- command: x\n", "YAML: "},
		{"too big", "x: " + strings.Repeat("a", maxPipelineBytes) + "\n", "over buildgate's limit"},
		{"UTF-16", "\xff\xfes\x00", "UTF-16"},
		{"many documents", strings.Repeat("---\nsteps:\n  - command: echo hi\n", 3), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := ".buildkite/p.yml"
			if strings.Contains(c.src, "jobs:") {
				path = ".github/workflows/p.yml"
			}
			if strings.Contains(c.src, "!reference") {
				path = ".gitlab-ci.yml"
			}
			d := loadPipeline(path, []byte(c.src))
			msgs := ""
			for _, e := range d.Errors {
				msgs += e.Message + "\n"
			}
			if c.want == "" && msgs != "" || !strings.Contains(msgs, c.want) {
				t.Errorf("errors %q, want one with %q", msgs, c.want)
			}
		})
	}
	// A diamond of extends (review of issue 19: each job's chain was
	// walked again for every job, spending the node bound).
	var diamond strings.Builder
	diamond.WriteString(".l0a: {tags: [linux]}\n.l0b: {tags: [linux]}\n")
	for l := 1; l <= 10; l++ {
		fmt.Fprintf(&diamond, ".l%da: {extends: [.l%da, .l%db]}\n.l%db: {extends: [.l%da, .l%db]}\n", l, l-1, l-1, l, l-1, l-1)
	}
	for j := range 40 {
		fmt.Fprintf(&diamond, "job%d: {extends: [.l10a, .l10b], script: [make]}\n", j)
	}
	if d := loadPipeline(".gitlab-ci.yml", []byte(diamond.String())); len(d.Errors) > 0 || len(d.Scripts) != 40 {
		t.Errorf("extends diamond: %d scripts, errors %+v", len(d.Scripts), d.Errors)
	}
	d := loadPipeline(".buildkite/p.yml", []byte(strings.Repeat("---\nsteps:\n  - command: echo hi\n", 3)))
	if len(d.Scripts) != 3 {
		t.Errorf("%d scripts from three documents, want 3", len(d.Scripts))
	}
}

// TestPipelineFixtures reads the project's own pipelines, modelled on the
// real ones (testdata/pipelines): no error, every position checked, and
// the document as the golden file has it (go test ./loader -update).
func TestPipelineFixtures(t *testing.T) {
	for _, rel := range []string{".buildkite/release.yaml", ".github/workflows/image.yml", ".gitlab-ci.yml", "ci/jobs.yml"} {
		t.Run(rel, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata/pipelines", rel))
			if err != nil {
				t.Fatal(err)
			}
			d := parseAs[*PipelineDocument](t, KindPipeline, rel, string(src))
			for _, e := range d.Errors {
				// A PowerShell script read as shell may have syntax
				// errors: reported where the file mentions what the
				// rules look for.
				if !e.Syntax || !strings.Contains(e.Message, "(the script runs in pwsh") {
					t.Errorf("error: %+v", e)
				}
			}
			js, err := FormatJSON([]Document{d})
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata/pipelines", strings.ReplaceAll(strings.TrimPrefix(rel, "."), "/", "_")+".golden.json")
			if *update {
				if err := os.WriteFile(golden, js, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil || !bytes.Equal(want, js) {
				t.Errorf("%s differs from %s (go test ./loader -run TestPipelineFixtures -update rewrites it)", rel, golden)
			}
		})
	}
}

// TestPipelineReview holds what the red-team review of issue 19 found:
// each case was read wrongly (or not at all) before.
func TestPipelineReview(t *testing.T) {
	cases := []struct {
		name, path, src string
		want            []string // "cmd:NAME", "env:NAME@l:c", "build:TOOL:WORD", "err:TEXT"
	}{
		{"a }} inside a string of a GitHub expression", ".github/workflows/a.yml",
			"jobs:\n  j:\n    steps:\n      - run: |\n          echo ${{ '}}' }}\n          docker build --build-arg MOONCAKE_BRANCH=main .\n          echo ${{ format('{{{0}}}', github.sha) }}\n",
			[]string{"cmd:echo", "cmd:docker", "cmd:echo"}},
		{"GitLab input interpolation", ".gitlab-ci.yml",
			"job:\n  script:\n    - docker build --build-arg V=$[[ inputs.version ]] .\n",
			[]string{"cmd:docker"}},
		{"a !!binary script", ".gitlab-ci.yml",
			"job:\n  script:\n    - !!binary ZG9ja2VyIGJ1aWxkIC0tYnVpbGQtYXJnIE1PT05DQUtFX0JSQU5DSD1tYWluIC4=\n",
			[]string{"err:!!binary"}},
		{"an alias as an env key", ".gitlab-ci.yml",
			".names:\n  n: &k MOONCAKE_REPO\nvariables:\n  *k : https://github.com/kvcache-ai/Mooncake\n",
			[]string{"env:MOONCAKE_REPO@4:3"}},
		{"an env merged into many steps is one entry", ".buildkite/p.yml",
			"common: &e\n  MOONCAKE_BRANCH: main\nsteps:\n  - env: {<<: *e}\n    command: a\n  - env: {<<: *e}\n    command: b\n",
			[]string{"env:MOONCAKE_BRANCH@2:3", "cmd:a", "cmd:b"}},
		{"Buildkite plugins", ".buildkite/p.yml",
			"steps:\n  - plugins:\n      - docker#v5.12.0:\n          image: rocm/dev\n          command: [\"python3\", \"-c\", \"print('x')\"]\n          environment:\n            - MOONCAKE_REPO=https://x\n            - HOME\n      - docker-compose#v5.5.0:\n          build: app\n          args:\n            - MOONCAKE_BRANCH=main\n",
			[]string{"env:MOONCAKE_REPO@7:15", "env:HOME@8:15", "cmd:python3", "build:docker-compose:MOONCAKE_BRANCH=main"}},
		{"a plugin's command array runs sh -c", ".buildkite/p.yml",
			"steps:\n  - plugins:\n      - docker#v5.12.0:\n          image: rocm/dev\n          command: [\"sh\", \"-c\", \"git clone https://github.com/kvcache-ai/Mooncake.git && make install\"]\n",
			[]string{"cmd:sh", "cmd:git", "cmd:make"}},
		{"a container action's args", ".github/workflows/a.yml",
			"jobs:\n  j:\n    steps:\n      - uses: docker://docker:27-cli\n        with:\n          args: build --build-arg MOONCAKE_BRANCH=main .\n",
			[]string{"cmd:build"}},
		{"GitLab hooks and !reference to any key", ".gitlab-ci.yml",
			".snippets:\n  rocm_build:\n    - docker build .\n  rocm_vars:\n    MOONCAKE_BRANCH: main\njob:\n  hooks:\n    pre_get_sources_script:\n      - git config x y\n  variables: !reference [.snippets, rocm_vars]\n  script:\n    - !reference [.snippets, rocm_build]\n",
			[]string{"env:MOONCAKE_BRANCH@5:5", "cmd:git", "cmd:docker"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := parseAs[*PipelineDocument](t, KindPipeline, c.path, c.src)
			var got []string
			for _, e := range d.Env {
				got = append(got, fmt.Sprintf("env:%s@%d:%d", e.Name, e.Pos.Line, e.Pos.Column))
			}
			for _, s := range d.Scripts {
				for _, cm := range s.Commands {
					got = append(got, "cmd:"+cm.Name)
				}
			}
			for _, b := range d.Builds {
				if b.Via == "plugin" {
					for _, w := range b.BuildArgs {
						got = append(got, "build:"+b.Tool+":"+w.Text)
					}
				}
			}
			for _, e := range d.Errors {
				got = append(got, "err:"+e.Message)
			}
			for i, w := range c.want {
				matches := i < len(got) && (strings.HasPrefix(got[i], w) || strings.HasPrefix(w, "err:") && strings.Contains(got[i], w[4:]))
				if !matches {
					t.Fatalf("got %q\nwant %q", got, c.want)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %q\nwant %q", got, c.want)
			}
		})
	}
}
