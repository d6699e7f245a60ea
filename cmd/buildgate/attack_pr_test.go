package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The catalogue of a pull request that writes everything the gate reads
// (docs/robustness.md, "What a pull request controls"): each class a case
// through the binary, on fixtures of ours.

// gitCommit makes dir a repository with everything in it committed.
func gitCommit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "base"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// evilFixPolicy is a user rule whose findings carry fixes for path.
func evilFixPolicy(path, replacement string) string {
	return fmt.Sprintf("package buildgate.rules.evil\n\ndeny contains {\"msg\": \"x\", \"path\": %q, \"pos\": {\"line\": 1, \"column\": 1, \"end_line\": 1, \"end_column\": 1}, \"fix\": {\"replacement\": %q, \"pos\": {\"line\": 1, \"column\": 1, \"end_line\": 1, \"end_column\": 1}}} if {\n\tcount(input.documents) >= 0\n}\n", path, replacement)
}

const gitToken = "AUTHORIZATION: basic c2VjcmV0LXRva2Vu"

// 1. fix writes only inside the build files the run loaded.
func TestPullRequestFixWritesNowhereElse(t *testing.T) {
	t.Parallel()
	gitConfig := "[core]\n\trepositoryformatversion = 0\n[http \"https://github.com/\"]\n\textraheader = " + gitToken + "\n"
	withGit := func(t *testing.T, dir string) {
		gitCommit(t, dir)
		if err := os.WriteFile(filepath.Join(dir, ".git/config"), []byte(gitConfig), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitUnchanged := func(t *testing.T, dir string) {
		b, _ := os.ReadFile(filepath.Join(dir, ".git/config"))
		if string(b) != gitConfig {
			t.Errorf(".git/config was written:\n%s", b)
		}
	}
	runAttacks(t, []attack{
		{name: "a policy's fix for .git/config is not applied and names the policy",
			files: map[string]string{"policy/p.rego": evilFixPolicy(".git/config", "[core]\n\tfsmonitor = touch /tmp/x\n")},
			setup: withGit, args: []string{"fix", "--policy", "policy"}, code: 1,
			stdout: []string{"BG005", `rule evil (evil) of the policy "policy/p.rego" gave a fix for ".git/config", which is under .git`},
			check:  gitUnchanged},
		{name: "--diff prints nothing of .git/config",
			files: map[string]string{"policy/p.rego": evilFixPolicy(".git/config", "x")},
			setup: withGit, args: []string{"fix", "--diff", "--policy", "policy"}, code: 0, secrets: []string{gitToken, "extraheader"}, check: gitUnchanged},
		{name: ".GIT in another case is .git",
			files: map[string]string{"policy/p.rego": evilFixPolicy(".GIT/config", "x"), ".GIT/config": "y\n"},
			args:  []string{"fix", "--policy", "policy"}, code: 1, stdout: []string{"which is under .git"},
			check: func(t *testing.T, dir string) {
				if b, _ := os.ReadFile(filepath.Join(dir, ".GIT/config")); string(b) != "y\n" {
					t.Errorf(".GIT/config = %q", b)
				}
			}},
		{name: "a link into .git is .git",
			files: map[string]string{"policy/p.rego": evilFixPolicy("hooks/pre-commit", "touch /tmp/x\n"), ".buildgate.yaml": "migrations:\n  - package: mooncake-transfer-engine-rocm\n    minimum: 0.3.13\n    requirements: [hooks/pre-commit]\n"},
			setup: func(t *testing.T, dir string) {
				withGit(t, dir)
				os.MkdirAll(filepath.Join(dir, ".git/hooks"), 0o755)
				os.WriteFile(filepath.Join(dir, ".git/hooks/pre-commit"), []byte("#!/bin/sh\n"), 0o755)
				symlink(".git/hooks", "hooks")(t, dir)
			},
			args: []string{"fix", "--policy", "policy"}, code: 1,
			check: func(t *testing.T, dir string) {
				if b, _ := os.ReadFile(filepath.Join(dir, ".git/hooks/pre-commit")); string(b) != "#!/bin/sh\n" {
					t.Errorf("the hook was written: %q", b)
				}
			}},
		{name: "a policy's fix cannot create a file",
			files: map[string]string{"policy/p.rego": evilFixPolicy("tools/new.sh", "curl x | sh\n")},
			args:  []string{"fix", "--policy", "policy"}, code: 1, stdout: []string{"which is not a build file this run loaded"},
			check: func(t *testing.T, dir string) {
				if _, err := os.Stat(filepath.Join(dir, "tools/new.sh")); err == nil {
					t.Error("tools/new.sh was created")
				}
			}},
		{name: "a finding outside the root is no path in any report",
			files: map[string]string{"policy/p.rego": "package buildgate.rules.out\n\ndeny contains {\"msg\": \"m\", \"path\": \"../outside.txt\"} if { true }\ndeny contains {\"msg\": \"m\", \"path\": \"/etc/passwd\"} if { true }\n"},
			args:  []string{"--policy", "policy", "--format", "json"}, code: 1,
			stdout: []string{`"path": ""`, "not a path inside the repository root"}, secrets: []string{`"path": "../outside.txt"`, `"path": "/etc/passwd"`}},
		{name: "an empty --config-from-rev is refused by fix too", args: []string{"fix", "--config-from-rev", ""}, code: 2,
			stderr: []string{"--config-from-rev is empty"}},
	})
	// fix --config-from-rev: the base's policy decides, not the pull
	// request's.
	t.Run("fix takes the base's policies", func(t *testing.T) {
		dir := writeTree(t, map[string]string{"requirements/rocm.txt": pinned, "policy/p.rego": "package buildgate.rules.evil\n\ndeny contains \"benign\" if { false }\n"})
		gitCommit(t, dir)
		os.WriteFile(filepath.Join(dir, "policy/p.rego"), []byte(evilFixPolicy("requirements/rocm.txt", "evil\n")), 0o644)
		r := runBin(t, dir, "fix", "--root", ".", "--config-from-rev", "HEAD", "--policy", "policy")
		if r.code != 0 {
			t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "requirements/rocm.txt")); string(b) != pinned {
			t.Errorf("the pull request's policy fixed the file: %q", b)
		}
	})
}

// 2. A bound passed is a BG001 where it is passed; repeating a reference
// or writing it in a comment uses up nothing.
func TestPullRequestBoundsAreFindings(t *testing.T) {
	t.Parallel()
	evilAction := "runs:\n  using: composite\n  steps:\n    - run: docker build --build-arg MOONCAKE_BRANCH=main -f docker/Dockerfile.rocm .\n      shell: bash\n"
	benign := "runs:\n  using: composite\n  steps:\n    - run: echo hi\n      shell: bash\n"
	var steps strings.Builder
	for i := 0; i < 75; i++ {
		steps.WriteString("      - uses: ./tools/benign\n")
	}
	evilPipeline := "steps:\n  - command: docker build --build-arg MOONCAKE_BRANCH=main .\n"
	var comments strings.Builder
	for i := 0; i < 150; i++ {
		comments.WriteString("#   buildkite-agent pipeline upload old.yml\n")
	}
	many := map[string]string{".gitlab-ci.yml": "", "ci/evil.yml": "job:\n  script:\n    - docker build --build-arg MOONCAKE_BRANCH=main .\n"}
	var inc strings.Builder
	inc.WriteString("include:\n")
	for i := 0; i < 151; i++ {
		fmt.Fprintf(&inc, "  - local: ci/g%d/*.yml\n", i)
	}
	inc.WriteString("  - local: ci/evil.yml\n")
	many[".gitlab-ci.yml"] = inc.String()
	var files strings.Builder
	files.WriteString("include:\n")
	for i := 0; i < 151; i++ {
		fmt.Fprintf(&files, "  - local: ci/f%d.yml\n", i)
	}
	manyFiles := map[string]string{".gitlab-ci.yml": files.String()}
	for i := 0; i < 151; i++ {
		manyFiles[fmt.Sprintf("ci/f%d.yml", i)] = "job:\n  script: [echo]\n"
	}
	wide := map[string]string{}
	var globs strings.Builder
	globs.WriteString("include:\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&globs, "  - local: \"**/g%d*.yml\"\n", i)
	}
	wide[".gitlab-ci.yml"] = globs.String()
	for i := 0; i < 2500; i++ {
		wide[fmt.Sprintf("data/d%d/f%d.txt", i%50, i)] = ""
	}
	runAttacks(t, []attack{
		{name: "globs that read the tree again and again stop at a bound, said where",
			files: wide, args: []string{"--timeout", "20s"}, code: 1, stdout: []string{".gitlab-ci.yml:", "directory entries", "BG001"}},
		{name: "75 repeated local actions before the one that builds",
			files: map[string]string{".github/workflows/ci.yml": "on: push\njobs:\n  b:\n    runs-on: ubuntu-latest\n    steps:\n" + steps.String() + "      - uses: ./tools/evil\n",
				"tools/benign/action.yml": benign, "tools/evil/action.yml": evilAction},
			code: 1, stdout: []string{"tools/evil/action.yml:4:", "BG102"}},
		{name: "150 comment lines that name an upload do not hide the real one",
			files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: |\n" + indent(comments.String(), "      ") + "      buildkite-agent pipeline upload ci/evil.yml\n", "ci/evil.yml": evilPipeline},
			code:  1, stdout: []string{"ci/evil.yml:2:", "BG102"}},
		{name: "a GitLab include past 150 glob patterns is a BG001 at it",
			files: many, code: 1, stdout: []string{".gitlab-ci.yml:152:", "past the 150 glob patterns", "BG001"}},
		{name: "a GitLab include past 150 files is a BG001 at it",
			files: manyFiles, code: 1, stdout: []string{".gitlab-ci.yml:152:", "past the 150 files", "BG001"}},
	})
}

func indent(s, by string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = by + l
		}
	}
	return strings.Join(lines, "")
}

// 3. What a Buildkite plugin runs, and what an upload reads however it is
// written, is read.
func TestPullRequestPluginsAndUploads(t *testing.T) {
	t.Parallel()
	evil := "steps:\n  - command: docker build --build-arg MOONCAKE_BRANCH=main .\n"
	runAttacks(t, []attack{
		{name: "a docker plugin's command array runs sh -c",
			files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - plugins:\n      - docker#v5.12.0:\n          image: rocm/dev-ubuntu-22.04\n          command: [\"sh\", \"-c\", \"git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install\"]\n"},
			code:  1, stdout: []string{".buildkite/pipeline.yml:5:", "BG104"}},
		{name: "a docker plugin's command array runs docker build",
			files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - plugins:\n      - docker#v5.12.0:\n          image: docker:cli\n          command: [\"docker\", \"build\", \"--build-arg\", \"MOONCAKE_BRANCH=main\", \"-f\", \"docker/Dockerfile.rocm\", \".\"]\n"},
			code:  1, stdout: []string{".buildkite/pipeline.yml:5:", "BG102"}},
		{name: "an upload from a pipe", files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: cat ci/gen.yml | buildkite-agent pipeline upload\n", "ci/gen.yml": evil},
			code: 1, stdout: []string{"ci/gen.yml:2:", "BG102"}},
		{name: "an upload from a redirect", files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: buildkite-agent pipeline upload < ci/gen.yml\n", "ci/gen.yml": evil},
			code: 1, stdout: []string{"ci/gen.yml:2:", "BG102"}},
		{name: "an upload after options", files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: buildkite-agent pipeline upload --log-level info ci/gen.yml\n", "ci/gen.yml": evil},
			code: 1, stdout: []string{"ci/gen.yml:2:", "BG102"}},
		{name: "an upload from a script", files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: .buildkite/upload.sh\n", ".buildkite/upload.sh": "#!/bin/bash\nenvsubst < ci/gen.yml | buildkite-agent pipeline upload --replace\n", "ci/gen.yml": evil},
			code: 1, stdout: []string{"ci/gen.yml:2:", "BG102"}},
	})
}

// 4. Time and memory stay bounded; past a bound the run says so (exit 2,
// no Go stack).
func TestPullRequestTimeAndMemory(t *testing.T) {
	t.Parallel()
	var flow strings.Builder
	for i := 0; i < 9000; i++ {
		if i > 0 {
			flow.WriteString(", ")
		}
		fmt.Fprintf(&flow, "K%d: v", i)
	}
	bomb := func(body string) map[string]string {
		return map[string]string{"policy/p.rego": "package buildgate.rules.bomb\n\ndeny contains msg if {\n\tsome d in input.documents\n\th := concat(\"\", [x | some i in numbers.range(1, 500000); x := substring(d.path, 0, 1)])\n\ts0 := concat(\"\", [h, h, h, h])\n\t" + body + "\n\tmsg := \"x\"\n}\n"}
	}
	huge := func(t *testing.T, dir string) {
		var b strings.Builder
		b.WriteString(`{"items": [`)
		for b.Len() < 20<<20 {
			b.WriteString("0,")
		}
		b.WriteString("0]}")
		os.WriteFile(filepath.Join(dir, "data.json"), []byte(b.String()), 0o644)
	}
	runAttacks(t, []attack{
		{name: "a one-line flow mapping of 100 KB in a workflow",
			files: map[string]string{".github/workflows/ci.yml": "on: push\njobs:\n  b:\n    runs-on: x\n    env: {" + flow.String() + "}\n    steps:\n      - run: echo mooncake\n"},
			args:  []string{"--timeout", "10s"}, code: 0},
		{name: "--data past its size is exit 2", setup: huge, files: map[string]string{"policy/p.rego": "package buildgate.rules.d\n\ndeny contains \"x\" if { data.buildgate.data.items[0] == 1 }\n"},
			args: []string{"--policy", "policy", "--data", "data.json"}, code: 2, stderr: []string{"--data data.json", "over the 16777216-byte limit"}},
		{name: "--data past its values is exit 2", files: map[string]string{"policy/p.rego": "package buildgate.rules.d\n\ndeny contains \"x\" if { data.buildgate.data.items[0] == 1 }\n",
			"data.json": `{"items": [` + strings.Repeat("0,", 600000) + `0]}`},
			args: []string{"--policy", "policy", "--data", "data.json"}, code: 2, stderr: []string{"over 500000 values"}},
		{name: "split(x, \"\") of 2 MB", files: bomb(`r := split(s0, ""); count(r) > 0`), args: []string{"--policy", "policy"}, code: 2,
			stderr: []string{"rule bomb (bomb) of the policy policy/p.rego", "split: the result would be over"}},
		{name: "indexof_n of 2 MB", files: bomb(`r := indexof_n(s0, ""); count(r) > 0`), args: []string{"--policy", "policy"}, code: 2,
			stderr: []string{"indexof_n: the result would be over"}},
		{name: "regex.find_n of 2 MB", files: bomb(`r := regex.find_n(".", s0, -1); count(r) > 0`), args: []string{"--policy", "policy"}, code: 2,
			stderr: []string{"regex.find_n: the result would be over"}},
		{name: "sprintf with a * width", files: bomb(`r := sprintf("%*d", [1000000000, count(s0)]); r != ""`), args: []string{"--policy", "policy"}, code: 2,
			stderr: []string{"sprintf: the result would be over"}},
		{name: "json.marshal of a large list", files: bomb(`l := [s0 | some i in numbers.range(1, 40)]; r := json.marshal(l); r != ""`), args: []string{"--policy", "policy"}, code: 2,
			stderr: []string{"json.marshal: the result would be over"}},
	})
}

// 5. Reports show what a pull request wrote, never obey it.
func TestPullRequestReportInjection(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/"); err != nil {
		t.Skip()
	}
	src := "FROM a\nARG MOONCAKE_BRANCH=main\n"
	dirName := "x\n::add-mask::secret\n::error title=pwn::owned\n::stop-commands::tok\x1b]8;;https://evil.example\x07link\x1b]8;;\x07"
	mdName := "![img](https:--evil.example-i.png) <img src=x onerror=alert(1)> <details open>"
	for _, format := range []string{"text", "github", "markdown"} {
		t.Run(format, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"requirements/rocm.txt": pinned})
			for _, d := range []string{dirName, mdName} {
				os.MkdirAll(filepath.Join(dir, d), 0o755)
				if err := os.WriteFile(filepath.Join(dir, d, "Dockerfile"), []byte(src), 0o644); err != nil {
					t.Skip("the file system refuses the name:", err)
				}
			}
			r := runBin(t, dir, "lint", "--root", ".", "--format", format)
			if r.code != 1 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
				if strings.HasPrefix(line, "::") && !strings.HasPrefix(line, "::error file=") || strings.HasPrefix(line, "##[") {
					t.Errorf("a line a runner obeys: %q", line)
				}
				for _, c := range line {
					if c < 0x20 && c != '\t' || c == 0x7f || c >= 0x80 && c < 0xa0 {
						t.Errorf("a control character %U: %q", c, line)
						break
					}
				}
			}
			if out := stripCode(r.stdout); format == "markdown" && (strings.Contains(out, "<img") || strings.Contains(out, "<details") || strings.Contains(out, "![")) {
				t.Errorf("markdown holds raw HTML:\n%s", r.stdout)
			}
		})
	}
	t.Run("--config-from-rev does not echo the pull request's keys", func(t *testing.T) {
		dir := writeTree(t, map[string]string{"requirements/rocm.txt": pinned, ".buildgate.yaml": "exclude: [x]\n"})
		gitCommit(t, dir)
		os.WriteFile(filepath.Join(dir, ".buildgate.yaml"), []byte("\"::error title=x::owned\": 1\nexclude: [\"**\"]\n"), 0o644)
		r := runBin(t, dir, "lint", "--root", ".", "--config-from-rev", "HEAD")
		if strings.Contains(r.stderr, "::error") || !strings.Contains(r.stderr, "1 key that the configuration does not have") {
			t.Errorf("stderr: %s", r.stderr)
		}
	})
}

// stripCode drops code spans (`…`, whose text Markdown shows verbatim).
func stripCode(s string) string {
	var b strings.Builder
	in := false
	for _, c := range s {
		if c == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// 6. The gate stays closed.
func TestPullRequestCannotOpenTheGate(t *testing.T) {
	t.Parallel()
	overBound := "# buildgate:ignore-file BG001 -- vendored\nFROM a\n" + strings.Repeat("LABEL a=b\n", 20001) + "RUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install\n"
	runAttacks(t, []attack{
		{name: "an empty --config-from-rev is an error, not no flag", files: map[string]string{".buildgate.yaml": "exclude: [\"**\"]\n"},
			args: []string{"--config-from-rev", ""}, code: 2, stderr: []string{"--config-from-rev is empty"}},
		{name: "BG001 cannot be suppressed inline", files: map[string]string{"docker/Dockerfile.rocm": overBound},
			code: 1, stdout: []string{"docker/Dockerfile.rocm:1:1: error:", "BG001", "cannot be suppressed by a comment"}},
		{name: "a marker inside here-document data is data",
			files: map[string]string{"docker/Dockerfile.rocm": "FROM a\nRUN cat > /etc/motd <<EOM\n# buildgate:ignore-file BG104 -- motd\nEOM\nRUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install\n"},
			code:  1, stdout: []string{"BG104"}},
		{name: "a marker inside a COPY here-document is data",
			files: map[string]string{"docker/Dockerfile.rocm": "FROM a\nCOPY <<EOM /etc/motd\n# buildgate:ignore-file BG104 -- motd\nEOM\nRUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install\n"},
			code:  1, stdout: []string{"BG104"}},
		{name: "a marker inside a quoted LABEL is data",
			files: map[string]string{"docker/Dockerfile.rocm": "FROM a\nLABEL note=\"x # buildgate:ignore-file BG104 -- label\"\nRUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install\n"},
			code:  1, stdout: []string{"BG104"}},
		{name: "a marker inside a shell here-document is data",
			files: map[string]string{"build.sh": "#!/bin/bash\ncat > /etc/motd <<EOM\n# buildgate:ignore-file BG104 -- motd\nEOM\ngit clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install\n"},
			code:  1, stdout: []string{"BG104"}},
		{name: "a marker inside a YAML string is data",
			files: map[string]string{".github/workflows/ci.yml": "on: push\nname: \"x # buildgate:ignore-file BG104 -- name\"\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install\n"},
			code:  1, stdout: []string{"BG104"}},
		{name: "a marker in a real comment still works",
			files: map[string]string{"docker/Dockerfile.rocm": "FROM a\n# buildgate:ignore BG104 -- measured apart\nRUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install\n"},
			code:  0},
	})
}

// The red-team review of issue 26: each class it found, as a case.
func TestPullRequestRedTeamReview(t *testing.T) {
	t.Parallel()
	clone := "git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install"
	evil := "steps:\n  - command: docker build --build-arg MOONCAKE_BRANCH=main -f docker/Dockerfile.rocm .\n"
	upload := func(cmd string) map[string]string {
		return map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: " + cmd + "\n", "ci/gen.yml": evil}
	}
	runAttacks(t, []attack{
		{name: "a marker in the data of RUN <<EOF cat > f is data",
			files: map[string]string{"docker/Dockerfile.rocm": "FROM a\nRUN <<EOF cat > /etc/motd\n# buildgate:ignore-file BG104 -- motd\nEOF\nRUN " + clone + "\n"},
			code:  1, stdout: []string{"BG104"}},
		{name: "a marker in a RUN <<EOF body run by #!/bin/cat is data",
			files: map[string]string{"docker/Dockerfile.rocm": "FROM a\nRUN <<EOF\n#!/bin/cat\n# buildgate:ignore-file BG104 -- motd\nEOF\nRUN " + clone + "\n"},
			code:  1, stdout: []string{"BG104"}},
		{name: "a marker in a run: that cat prints is data",
			files: map[string]string{".github/workflows/ci.yml": "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: |\n          # buildgate:ignore-file BG104 -- printed\n        shell: cat {0}\n      - run: " + clone + "\n"},
			code:  1, stdout: []string{"BG104"}},
		{name: "an upload behind env", files: upload("env X=1 buildkite-agent pipeline upload ci/gen.yml"), code: 1, stdout: []string{"ci/gen.yml:2:"}},
		{name: "an upload behind sudo -E", files: upload("sudo -E buildkite-agent pipeline upload ci/gen.yml"), code: 1, stdout: []string{"ci/gen.yml:2:"}},
		{name: "an upload through xargs", files: upload("echo ci/gen.yml | xargs buildkite-agent pipeline upload"), code: 1, stdout: []string{"ci/gen.yml:2:"}},
		{name: "an upload of a here-string", files: upload(`buildkite-agent pipeline upload <<< "$(cat ci/gen.yml)"`), code: 1, stdout: []string{"ci/gen.yml:2:"}},
		{name: "an upload of a process substitution", files: upload("buildkite-agent pipeline upload <(cat ci/gen.yml)"), code: 1, stdout: []string{"ci/gen.yml:2:"}},
		{name: "an upload behind a function that runs \"$@\"",
			files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: .buildkite/upload.sh\n", ".buildkite/upload.sh": "#!/usr/bin/env bash\n_() { echo \"--- $*\"; \"$@\"; }\n_ buildkite-agent pipeline upload ci/gen.yml\n", "ci/gen.yml": evil},
			code:  1, stdout: []string{"ci/gen.yml:2:"}},
		{name: "an upload whose word is split by quotes in a script",
			files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: ci/upload.sh\n", "ci/upload.sh": "#!/bin/bash\nbuildkite-agent pipeline up\"\"load ci/gen.yml\n", "ci/gen.yml": evil},
			code:  1, stdout: []string{"ci/gen.yml:2:"}},
		{name: "an upload of a path with an expansion reads what it may name", files: upload("buildkite-agent pipeline upload ci/${GEN:-gen}.yml"), code: 1, stdout: []string{"ci/gen.yml:2:"}},
		{name: "a GitLab ** crosses directories",
			files: map[string]string{".gitlab-ci.yml": "include:\n  - local: \"ci/**.yml\"\n", "ci/sub/evil.yml": "job:\n  script:\n    - docker build --build-arg MOONCAKE_BRANCH=main .\n"},
			code:  1, stdout: []string{"ci/sub/evil.yml:3:"}},
		{name: "a GitLab include of the project itself",
			files: map[string]string{".gitlab-ci.yml": "include:\n  - project: $CI_PROJECT_PATH\n    ref: $CI_COMMIT_SHA\n    file: ci/evil.yml\n", "ci/evil.yml": "job:\n  script:\n    - docker build --build-arg MOONCAKE_BRANCH=main .\n"},
			code:  1, stdout: []string{"ci/evil.yml:3:"}},
		{name: "buildkite/pipeline.yml is an upload's default", files: map[string]string{"buildkite/pipeline.yml": evil}, code: 1, stdout: []string{"buildkite/pipeline.yml:2:"}},
		{name: "a plugin's bash -c -- SCRIPT",
			files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - plugins:\n      - docker#v5.12.0:\n          image: rocm/dev\n          command: [\"bash\", \"-c\", \"--\", \"" + clone + "\"]\n"},
			code:  1, stdout: []string{"BG104"}},
		{name: "a plugin's bash --rcfile F -c SCRIPT",
			files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - plugins:\n      - docker#v5.12.0:\n          image: rocm/dev\n          command: [\"bash\", \"--rcfile\", \"/dev/null\", \"-c\", \"" + clone + "\"]\n"},
			code:  1, stdout: []string{"BG104"}},
		{name: "a pipeline uploaded from a here-document in a script",
			files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: .buildkite/upload.sh\n", ".buildkite/upload.sh": "#!/bin/bash\ncat <<EOF | buildkite-agent pipeline upload\n" + evil + "EOF\n"},
			code:  1, stdout: []string{".buildkite/upload.sh:4:", "BG102"}},
		{name: "a pipeline a script generates is said not to be read",
			files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: bash ci/gen.sh | buildkite-agent pipeline upload\n", "ci/gen.sh": "#!/bin/bash\ncat <<EOF\n" + evil + "EOF\n"},
			code:  1, stdout: []string{"ci/gen.sh:1:1:", "which buildgate cannot read"}},
		{name: "a Dockerfile docker build -f names", files: map[string]string{".github/workflows/ci.yml": "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: docker build -f docker/Dockerfile-rocm .\n", "docker/Dockerfile-rocm": "FROM a\nRUN " + clone + "\n"},
			code: 1, stdout: []string{"docker/Dockerfile-rocm:2:", "BG104"}},
		{name: "a script a pipeline runs by path", files: map[string]string{".buildkite/pipeline.yml": "steps:\n  - command: bash ci/build-mooncake\n", "ci/build-mooncake": clone + "\n"},
			code: 1, stdout: []string{"ci/build-mooncake:1:", "BG104"}},
		{name: "an action's runs.image", files: map[string]string{".github/workflows/ci.yml": "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - uses: ./tools/evil\n", "tools/evil/action.yml": "runs:\n  using: docker\n  image: build.containerfile\n", "tools/evil/build.containerfile": "FROM a\nRUN " + clone + "\n"},
			code: 1, stdout: []string{"tools/evil/build.containerfile:2:", "BG104"}},
		{name: "a baseline of too many values", files: map[string]string{"bl.json": `{"findings": [` + strings.Repeat("{},", 1000001) + "{}]}"},
			args: []string{"--baseline", "bl.json"}, code: 2, stderr: []string{"more than a baseline may hold"}},
		{name: "policies past their total size", setup: func(t *testing.T, dir string) {
			for i := 0; i < 2; i++ {
				var b strings.Builder
				fmt.Fprintf(&b, "package buildgate.rules.big%d\n\n", i)
				for j := 0; b.Len() < 3<<20; j++ {
					fmt.Fprintf(&b, "r%d := [%d, %d]\n", j, j, j)
				}
				os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
				os.WriteFile(filepath.Join(dir, "policy", fmt.Sprintf("p%d.rego", i)), []byte(b.String()), 0o644)
			}
		}, args: []string{"--policy", "policy"}, code: 2, stderr: []string{"more than buildgate compiles"}},
		{name: "a policy's comprehension stops at --max-memory",
			files: map[string]string{"policy/p.rego": "package buildgate.rules.m\n\ndeny contains \"x\" if {\n\tl := [[i, j] | some i in numbers.range(1, 3000); some j in numbers.range(1, 3000)]\n\tcount(l) > 0\n}\n"},
			args:  []string{"--policy", "policy", "--max-memory", "200"}, code: 2, stderr: []string{"more than 200 MB of memory (--max-memory)"}},
		{name: "a policy's fix at no position is none",
			files: map[string]string{"policy/p.rego": "package buildgate.rules.z\n\ndeny contains {\"msg\": \"m\", \"path\": \"requirements/rocm.txt\", \"fix\": {\"replacement\": \"x\", \"pos\": {\"line\": -1, \"column\": 1}}} if { true }\n"},
			args:  []string{"--policy", "policy", "--format", "sarif"}, code: 1, stdout: []string{"at no valid position"}, secrets: []string{`"startLine": 0`}},
		{name: "a runner command anywhere in a line of the text report",
			files: map[string]string{"##[stop-commands]tok/Dockerfile.rocm": "FROM a\nARG MOONCAKE_BRANCH=main\n"},
			code:  1, secrets: []string{"##[stop-commands]"}},
	})
}
