package main

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// attack is one row of docs/robustness.md's threat table: what a pull
// request commits, the command CI runs, and the outcome: an exit status
// and what the output must and must not say.
type attack struct {
	name    string
	files   map[string]string
	setup   func(t *testing.T, dir string)
	args    []string
	code    int
	stdout  []string // in standard output
	stderr  []string // in standard error
	secrets []string // never anywhere in the output
	check   func(t *testing.T, dir string)
}

func runAttacks(t *testing.T, attacks []attack) {
	t.Helper()
	for _, tt := range attacks {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"requirements/rocm.txt": pinned}
			for k, v := range tt.files {
				files[k] = v
			}
			dir := writeTree(t, files)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			args := tt.args
			switch {
			case len(args) > 0 && args[0] == "fix":
				args = append([]string{"fix", "--root", "."}, args[1:]...)
			case len(args) == 0 || args[0] != "lint":
				args = append([]string{"lint", "--root", "."}, args...)
			}
			r, _ := runLimited(t, dir, time.Minute, args...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			expectOutput(t, r, tt.stdout, tt.stderr)
			for _, s := range tt.secrets {
				if strings.Contains(r.stdout+r.stderr, s) {
					t.Errorf("the output holds %q", s)
				}
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "runtime.") {
				t.Errorf("a Go runtime trace reached the user: %s", r.stderr)
			}
			if tt.check != nil {
				tt.check(t, dir)
			}
		})
	}
}

// expectOutput checks that each string is in standard output or error.
func expectOutput(t *testing.T, r result, stdout, stderr []string) {
	t.Helper()
	for _, w := range stdout {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
		}
	}
	for _, w := range stderr {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
}

func symlink(target, name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
}

func fifo(name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// outsideSecret is a file outside the root whose content must never show.
func outsideSecret(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "secret.yaml")
	if err := os.WriteFile(p, []byte("TOPSECRET_KEY: TOPSECRET_VALUE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The run's own inputs: the configuration, the baseline, --data, policies.
func TestAttacksOnInputs(t *testing.T) {
	t.Parallel()
	secret := outsideSecret(t)
	policy := func(body string) map[string]string {
		return map[string]string{"policy/p.rego": "package buildgate.rules.p\n\ndeny contains msg if {\n" + body + "\n}\n"}
	}
	runAttacks(t, []attack{
		{name: "a policy reads a file through a JSON-schema $ref",
			files: policy("\tr := json.match_schema({}, {\"$ref\": \"file://" + secret + "\"})\n\tmsg := sprintf(\"%v\", [r])"),
			args:  []string{"--policy", "policy"}, code: 2,
			stderr: []string{"policy/p.rego:4:7: json.match_schema: a JSON schema may not hold \"$ref\""}, secrets: []string{"TOPSECRET"}},
		{name: "a policy builds the $ref while it runs",
			files: policy("\ts := concat(\"\", [\"{\\\"$\", \"ref\\\": \\\"file:///proc/self/environ\\\"}\"])\n\tr := json.verify_schema(s)\n\tmsg := sprintf(\"%v\", [r])"),
			args:  []string{"--policy", "policy"}, code: 2,
			stderr: []string{"may not hold \"$ref\""}, secrets: []string{"PATH="}},
		{name: "a policy reads the environment", files: policy("\tmsg := opa.runtime().env.HOME"),
			args: []string{"--policy", "policy"}, code: 2, stderr: []string{"opa.runtime().env is not available"}},
		{name: "a policy reads the clock", files: policy("\tmsg := sprintf(\"%d\", [time.now_ns()])"),
			args: []string{"--policy", "policy"}, code: 2, stderr: []string{"time.now_ns is not allowed"}},
		{name: "a policy file is a link to /dev/zero", files: policy("\tmsg := \"x\""),
			setup: symlink("/dev/zero", "policy/zero.rego"), args: []string{"--policy", "policy"}, code: 2,
			stderr: []string{"zero.rego", "leads out of the repository root"}},
		{name: "a rule's page is a link out of the root", files: policy("\tmsg := \"x\""),
			setup: symlink(secret, "policy/p.md"), args: []string{"--policy", "policy", "--format", "sarif"},
			code: 1, secrets: []string{"TOPSECRET"}},
		{name: "a rule's page is a link within the root but out of its directory", files: policy("\tmsg := \"x\""),
			setup: func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, "notes.md"), []byte("TOPSECRET in the repository"), 0o644)
				symlink("../notes.md", "policy/p.md")(t, dir)
			}, args: []string{"--policy", "policy", "--format", "sarif"},
			code: 1, secrets: []string{"TOPSECRET"}},
		{name: "a policy directory is a link out of the root", setup: symlink(filepath.Dir(secret), "policy"),
			args: []string{"--policy", "policy"}, code: 2, stderr: []string{"--policy policy", "leads out of the repository root"}},
		{name: ".buildgate.yaml is a link to /dev/zero", setup: symlink("/dev/zero", ".buildgate.yaml"), code: 2,
			stderr: []string{".buildgate.yaml: cannot read: it leads out of the repository root"}},
		{name: ".buildgate.yaml is a link to /dev/stdin", setup: symlink("/dev/stdin", ".buildgate.yaml"), code: 2,
			stderr: []string{".buildgate.yaml: cannot read"}},
		{name: ".buildgate.yaml is a link to a file outside the root", setup: symlink(secret, ".buildgate.yaml"), code: 2,
			stderr: []string{".buildgate.yaml: cannot read: it leads out of the repository root"}, secrets: []string{"TOPSECRET"}},
		{name: ".buildgate.yaml is a FIFO", setup: fifo(".buildgate.yaml"), code: 2,
			stderr: []string{".buildgate.yaml: cannot read: not a regular file"}},
		{name: ".buildgate.yaml is a dangling link", setup: symlink("nothere", ".buildgate.yaml"), code: 2,
			stderr: []string{".buildgate.yaml: cannot read"}},
		{name: "--config names a FIFO", setup: fifo("cfg.yaml"), args: []string{"--config", "cfg.yaml"}, code: 2,
			stderr: []string{"cfg.yaml: cannot read: not a regular file"}},
		{name: "--baseline is a link to /dev/zero", setup: symlink("/dev/zero", "baseline.json"), args: []string{"--baseline", "baseline.json"},
			code: 2, stderr: []string{"--baseline baseline.json: it leads out of the repository root"}},
		{name: "--baseline is a link outside the root", setup: symlink(secret, "baseline.json"), args: []string{"--baseline", "baseline.json"},
			code: 2, stderr: []string{"--baseline baseline.json"}, secrets: []string{"TOPSECRET"}},
		{name: "--data is a link to /dev/stdin", setup: symlink("/dev/stdin", "data.yaml"), args: []string{"--data", "data.yaml"},
			code: 2, stderr: []string{"--data data.yaml: it leads out of the repository root"}},
		{name: "--data is a FIFO", setup: fifo("data.yaml"), args: []string{"--data", "data.yaml"},
			code: 2, stderr: []string{"--data data.yaml: not a regular file"}},
	})
}

// The gate stays closed: configuration cannot switch off BG001, and a
// report cannot overwrite what the run reads.
func TestAttacksOnTheGate(t *testing.T) {
	t.Parallel()
	unchanged := func(rel, want string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, rel))
			if string(b) != want {
				t.Errorf("%s was overwritten: %q", rel, b)
			}
		}
	}
	runAttacks(t, []attack{
		{name: "rules: BG001 off", files: map[string]string{".buildgate.yaml": "rules:\n  BG001: off\n"}, code: 2,
			stderr: []string{".buildgate.yaml:2: rules: BG001 cannot be turned off or lowered"}},
		{name: "rules: parse-error note", files: map[string]string{".buildgate.yaml": "rules:\n  parse-error: note\n"}, code: 2,
			stderr: []string{".buildgate.yaml:2: rules: parse-error cannot be turned off or lowered"}},
		{name: "rules: BG001 disabled", files: map[string]string{".buildgate.yaml": "rules:\n  BG001: {disabled: true}\n"}, code: 2,
			stderr: []string{"BG001 cannot be turned off"}},
		{name: "rules: BG001 error stays allowed", files: map[string]string{".buildgate.yaml": "rules:\n  BG001: error\n"}, code: 0},
		{name: "an ignore entry for BG001 with a reason shows as suppressed",
			files: map[string]string{".buildgate.yaml": "ignore:\n  - rule: BG001\n    path: Dockerfile\n    reason: vendored binary\n", "Dockerfile": "\x00"},
			args:  []string{"--show-suppressed"}, code: 0, stdout: []string{"suppressed", "vendored binary"}},
		{name: "--max-file-size 0", args: []string{"--max-file-size", "0"}, code: 2, stderr: []string{"--max-file-size 0: want a positive number"}},
		{name: "--max-file-size -1", args: []string{"--max-file-size", "-1"}, code: 2, stderr: []string{"want a positive number"}},
		{name: "-o onto a checked file", args: []string{"-o", "requirements/rocm.txt"}, code: 2,
			stderr: []string{"would overwrite a file this run checks: requirements/rocm.txt"}, check: unchanged("requirements/rocm.txt", pinned)},
		{name: "--format sarif= onto the configuration", files: map[string]string{".buildgate.yaml": "exclude: [x]\n"},
			args: []string{"--format", "sarif=.buildgate.yaml"}, code: 2, check: unchanged(".buildgate.yaml", "exclude: [x]\n")},
		{name: "--write-baseline and -o one file", args: []string{"--write-baseline", "b.json", "-o", "./b.json"}, code: 2,
			stderr: []string{"would both be written to"}},
		{name: "-o onto the baseline", files: map[string]string{"b.json": `{"findings": []}`},
			args: []string{"--baseline", "b.json", "-o", "b.json", "--format", "json"}, code: 2, check: unchanged("b.json", `{"findings": []}`)},
		{name: "--timeout bounds loading too", args: []string{"--timeout", "1ns"}, code: 2,
			stderr: []string{"did not finish within --timeout 1ns"}},
		{name: "refreshing a baseline in place stays allowed", files: map[string]string{"b.json": `{"findings": []}`},
			args: []string{"--baseline", "b.json", "--write-baseline", "b.json"}, code: 0},
	})
}

// Reports are written where the run says, never through a link the pull
// request committed under that name.
func TestAttacksOnReports(t *testing.T) {
	t.Parallel()
	victimDir := t.TempDir()
	victim := filepath.Join(victimDir, "authorized_keys")
	if err := os.WriteFile(victim, []byte("KEEP\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	intact := func(t *testing.T, dir string) {
		if b, _ := os.ReadFile(victim); string(b) != "KEEP\n" {
			t.Errorf("the file outside the root was overwritten: %q", b)
		}
		if entries, _ := os.ReadDir(victimDir); len(entries) != 1 {
			t.Errorf("something was written outside the root: %v", entries)
		}
	}
	runAttacks(t, []attack{
		{name: "the SARIF file is a committed link out of the root", setup: symlink(victim, "buildgate.sarif"),
			args: []string{"--format", "sarif=buildgate.sarif"}, code: 0, check: func(t *testing.T, dir string) {
				intact(t, dir)
				st, err := os.Lstat(filepath.Join(dir, "buildgate.sarif"))
				if err != nil || !st.Mode().IsRegular() {
					t.Errorf("buildgate.sarif: %v %v", st, err)
				}
			}},
		{name: "the report's directory is a committed link out of the root", setup: symlink(victimDir, "out"),
			args: []string{"--format", "sarif=out/buildgate.sarif"}, code: 2, stderr: []string{"writing the sarif report to out/buildgate.sarif"},
			check: intact},
		{name: "the baseline to write is a committed link out of the root", setup: symlink(victim, "baseline.json"),
			args: []string{"--write-baseline", "baseline.json"}, code: 0, check: intact},
	})
}

// Build files that are not regular files are findings, never a hang and
// never a silent pass.
func TestAttacksWithSpecialFiles(t *testing.T) {
	t.Parallel()
	socket := func(name string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			l, err := net.Listen("unix", filepath.Join(dir, name))
			if err != nil {
				t.Skip("no unix sockets here")
			}
			t.Cleanup(func() { l.Close() })
		}
	}
	runAttacks(t, []attack{
		{name: "a FIFO included with -r", files: map[string]string{"requirements/rocm.txt": pinned + "-r fifo.txt\n"},
			setup: fifo("requirements/fifo.txt"), code: 1,
			stdout: []string{"requirements/rocm.txt:2:4: error: requirements/rocm.txt: -r fifo.txt: not a regular file"}},
		{name: "a FIFO named on the command line", setup: fifo("build.sh"), args: []string{"build.sh"}, code: 1,
			stdout: []string{"build.sh:1:1: error: build.sh: cannot open the file: not a regular file"}},
		{name: "a FIFO in the configuration's requirements", files: map[string]string{".buildgate.yaml": "migrations:\n  - package: foo\n    requirements: [reqs/pinned.txt]\n    minimum: \"1.0\"\n"},
			setup: fifo("reqs/pinned.txt"), code: 1, stdout: []string{"reqs/pinned.txt:1:1: error: reqs/pinned.txt: cannot open the file: not a regular file"}},
		{name: "a committed link build -> /dev/stdin", setup: symlink("/dev/stdin", "build"), code: 1,
			stdout: []string{"build:1:1: error: build: cannot open the file: it is a symbolic link that leads out of the repository root"}},
		{name: "an include of .git/config (which holds the checkout token)",
			files: map[string]string{"requirements-dev.txt": "-r .git/config\n", ".git/config": "[http]\n\textraheader = AUTHORIZATION: basic SECRETTOKEN\n"}, code: 1,
			stdout: []string{"requirements-dev.txt:1:4: error: requirements-dev.txt: -r .git/config: it is inside .git"}, secrets: []string{"SECRETTOKEN"}},
		{name: "a requirements file that is a link to .git/config",
			files: map[string]string{".git/config": "[http]\n\textraheader = AUTHORIZATION: basic SECRETTOKEN\n"}, setup: symlink(".git/config", "requirements.txt"), code: 1,
			stdout: []string{"requirements.txt:1:1: error: requirements.txt: cannot open the file: it is inside .git"}, secrets: []string{"SECRETTOKEN"}},
		{name: "the configuration as a link to .git/config",
			files: map[string]string{".git/config": "[http]\n\textraheader = AUTHORIZATION: basic SECRETTOKEN\n"}, setup: symlink(".git/config", ".buildgate.yaml"), code: 2,
			stderr: []string{".buildgate.yaml: cannot read: it is inside .git"}, secrets: []string{"SECRETTOKEN"}},
		{name: "--data as a link to .git/config",
			files: map[string]string{".git/config": "[http]\n\textraheader = AUTHORIZATION: basic SECRETTOKEN\n"}, setup: symlink(".git/config", "data.yaml"),
			args: []string{"--data", "data.yaml"}, code: 2, stderr: []string{"data.yaml", "it is inside .git"}, secrets: []string{"SECRETTOKEN"}},
		{name: "a FIFO named Dockerfile", setup: fifo("Dockerfile"), code: 1,
			stdout: []string{"Dockerfile:1:1: error: Dockerfile: cannot open the file: not a regular file"}},
		{name: "a socket named Dockerfile", setup: socket("Dockerfile"), code: 1,
			stdout: []string{"Dockerfile:1:1: error: Dockerfile: cannot open the file: not a regular file"}},
	})
}

func hardlink(target, name string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.Remove(p)
		if err := os.Link(filepath.Join(dir, filepath.FromSlash(target)), p); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
}

// A hard link in the workspace (a restored cache, an earlier step: git
// cannot check one out) to one of git's files is refused as a link into
// .git is, by every reader and by fix: its text (the checkout's token)
// reaches no report, no diff, and nothing is written through it.
func TestAttacksThroughHardLinks(t *testing.T) {
	t.Parallel()
	const token = "AUTHORIZATION: basic SECRETTOKEN0123456789"
	gitConfig := "[core]\n\tbare = false\n[http \"https://github.com/\"]\n\textraheader = " + token + "\n"
	withGit := map[string]string{".git/config": gitConfig, ".git/HEAD": "ref: refs/heads/main\n", ".git/modules/lib/config": gitConfig}
	with := func(files map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range []map[string]string{withGit, files} {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	untouched := func(name string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			if b, _ := os.ReadFile(filepath.Join(dir, ".git/config")); string(b) != gitConfig {
				t.Errorf(".git/config was written:\n%s", b)
			}
			a, err1 := os.Stat(filepath.Join(dir, ".git/config"))
			b, err2 := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
			if err1 != nil || err2 != nil || !os.SameFile(a, b) {
				t.Errorf("%s was replaced or removed (%v, %v)", name, err1, err2)
			}
		}
	}
	const refused = ": it has other names (a hard link), which may be outside the repository or inside .git: not read"
	linked := hardlink(".git/config", "requirements/rocm.txt")
	runAttacks(t, []attack{
		{name: "a requirements file hard-linked to .git/config", files: withGit, setup: linked, code: 1,
			stdout:  []string{"requirements/rocm.txt:1:1: error: requirements/rocm.txt: cannot open the file" + refused},
			secrets: []string{"SECRETTOKEN", "extraheader"}, check: untouched("requirements/rocm.txt")},
		{name: "... in SARIF", files: withGit, setup: linked, args: []string{"--format", "sarif"}, code: 1,
			stdout: []string{"cannot open the file" + refused}, secrets: []string{"SECRETTOKEN", "extraheader"}},
		{name: "... by fix --diff", files: withGit, setup: linked, args: []string{"fix", "--diff"}, code: 0,
			secrets: []string{"SECRETTOKEN", "extraheader"}, check: untouched("requirements/rocm.txt")},
		{name: "... by fix", files: withGit, setup: linked, args: []string{"fix"}, code: 1,
			secrets: []string{"SECRETTOKEN", "extraheader"}, check: untouched("requirements/rocm.txt")},
		{name: "an include hard-linked to .git/config", files: with(map[string]string{"requirements/dev.txt": "-r x.txt\n"}),
			setup: hardlink(".git/config", "requirements/x.txt"), code: 1,
			stdout:  []string{"requirements/dev.txt:1:4: error: requirements/dev.txt: -r x.txt" + refused},
			secrets: []string{"SECRETTOKEN", "extraheader"}},
		{name: "a script found by its first line, hard-linked to .git/config", files: withGit, setup: hardlink(".git/config", "ci/build"), code: 1,
			stdout: []string{"ci/build:1:1: error: ci/build: cannot open the file" + refused}, secrets: []string{"SECRETTOKEN", "extraheader"}},
		{name: "a Dockerfile hard-linked to a submodule's config", files: withGit, setup: hardlink(".git/modules/lib/config", "Dockerfile"), code: 1,
			stdout: []string{"Dockerfile:1:1: error: Dockerfile: cannot open the file" + refused}, secrets: []string{"SECRETTOKEN", "extraheader"}},
		{name: ".buildgate.yaml hard-linked to .git/config", files: withGit, setup: hardlink(".git/config", ".buildgate.yaml"), code: 2,
			stderr: []string{".buildgate.yaml: cannot read" + refused}, secrets: []string{"SECRETTOKEN", "extraheader"}},
		{name: "a policy hard-linked to .git/config", files: with(map[string]string{"policy/p.rego": "package x\n"}), setup: hardlink(".git/config", "policy/p.rego"),
			args: []string{"--policy", "policy"}, code: 2, stderr: []string{"p.rego" + refused}, secrets: []string{"SECRETTOKEN", "extraheader"}},
		{name: "two names of one working-tree file are refused (another name may be outside the root)", files: withGit,
			setup: hardlink("requirements/rocm.txt", "requirements/copy.txt"), code: 1, stdout: []string{"requirements/copy.txt: cannot open the file" + refused}},
		{name: "a hard link to a file outside the root", files: withGit, setup: func(t *testing.T, dir string) {
			out := filepath.Join(t.TempDir(), "netrc")
			os.WriteFile(out, []byte("machine github.com login x password SECRETTOKEN\n"), 0o644)
			os.Remove(filepath.Join(dir, "requirements", "rocm.txt"))
			if err := os.Link(out, filepath.Join(dir, "requirements", "rocm.txt")); err != nil {
				t.Skip(err) // another device: no hard link possible
			}
		}, code: 1, stdout: []string{"requirements/rocm.txt: cannot open the file" + refused}, secrets: []string{"SECRETTOKEN"}},
	})
}

// .git is the pull request's too.
func TestAttacksThroughGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := func(t *testing.T, dir string) {
		for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-qm", "base"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	ran := filepath.Join(t.TempDir(), "ran")
	commitThen := func(change func(t *testing.T, dir string)) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) { repo(t, dir); change(t, dir) }
	}
	runAttacks(t, []attack{
		{name: "--new-from-rev: a committed Dockerfile grown past its bound is still BG001 (at line 1, unchanged)",
			files: map[string]string{"Dockerfile": "FROM a\n"}, setup: commitThen(func(t *testing.T, dir string) {
				body := "FROM a\n" + strings.Repeat("# padding line\n", 150000) + "RUN pip install ./mooncake --no-binary :all:\n"
				os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(body), 0o644)
			}), args: []string{"--new-from-rev", "HEAD"}, code: 1,
			stdout: []string{"Dockerfile:1:1: error: Dockerfile: the file is", "for a Dockerfile"}},
		{name: "--new-from-rev: a script the base held, newly run by a changed line, counts whole",
			files: map[string]string{"tools/mc.txt": "git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake -DUSE_HIP=ON . && make install\n",
				".github/workflows/ci.yml": "on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: echo hi\n"},
			setup: commitThen(func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, ".github/workflows/ci.yml"), []byte("on: push\njobs:\n  b:\n    runs-on: x\n    steps:\n      - run: echo hi\n      - run: bash tools/mc.txt\n"), 0o644)
			}), args: []string{"--new-from-rev", "HEAD"}, code: 1, stdout: []string{"tools/mc.txt:1:1: error", "BG104"}},
		{name: "--new-from-rev: a line removed makes its file count whole",
			files: map[string]string{"ci/b.sh": "export NVCC_FLAGS=-O2\ngit clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake . && make install\n"},
			setup: commitThen(func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, "ci/b.sh"), []byte("git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && cmake . && make install\n"), 0o644)
			}), args: []string{"--new-from-rev", "HEAD"}, code: 1, stdout: []string{"ci/b.sh:1:1: error", "BG104"}},
		{name: ".git/HEAD climbs to /dev/zero", setup: func(t *testing.T, dir string) {
			repo(t, dir)
			os.WriteFile(filepath.Join(dir, ".git/HEAD"), []byte("ref: ../../../../../../../../../dev/zero\n"), 0o644)
		}, args: []string{"--format", "sarif"}, code: 0, stdout: []string{`"version": "2.1.0"`}},
		{name: "a filter driver named by .gitattributes with --new-from-rev", setup: func(t *testing.T, dir string) {
			repo(t, dir)
			cmd := exec.Command("git", "config", "filter.x.clean", "touch "+ran+"; cat")
			cmd.Dir = dir
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("* filter=x\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "requirements/rocm.txt"), []byte(pinned+"# changed\n"), 0o644)
		}, args: []string{"--new-from-rev", "HEAD"}, code: 0, check: func(t *testing.T, dir string) {
			if _, err := os.Stat(ran); err == nil {
				t.Error("the filter driver ran")
			}
		}},
	})
}

// A pull request cannot weaken its own gate: with --config-from-rev the
// configuration, baseline and policies are the base commit's.
func TestConfigFromRev(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	gitIn := func(t *testing.T, dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	policy := "package buildgate.rules.no_latest\n\ndeny contains {\"msg\": \"latest tag\", \"path\": d.path, \"pos\": d.stages[0].base.pos} if {\n\tsome d in input.documents\n\td.kind == \"dockerfile\"\n\tcontains(d.stages[0].base.text, \":latest\")\n}\n"
	base := map[string]string{
		"requirements/rocm.txt": pinned,
		".buildgate.yaml":       "exclude: [vendor/**]\n",
		"policy/p.rego":         policy,
		"baseline.json":         `{"findings": []}`,
	}
	for _, tt := range []struct {
		name    string
		pr      map[string]string // what the pull request writes over the base
		args    []string
		code    int
		stdout  []string
		stderr  []string
		without int // exit status without --config-from-rev
	}{
		{name: "migrations: []", pr: map[string]string{".buildgate.yaml": "migrations: []\n", "Dockerfile": "FROM a AS mooncake_build\n"},
			code: 1, without: 0, stdout: []string{"stage `mooncake_build`"},
			stderr: []string{".buildgate.yaml in the working tree changes exclude, migrations from HEAD; this run uses HEAD's (--config-from-rev)"}},
		{name: "exclude everything", pr: map[string]string{".buildgate.yaml": "exclude: [\"**\"]\n", "Dockerfile": "FROM a AS mooncake_build\n"},
			code: 1, without: 0, stderr: []string{"changes exclude"}},
		{name: "rules: BG101 off", pr: map[string]string{".buildgate.yaml": "exclude: [vendor/**]\nrules:\n  BG101: off\n", "Dockerfile": "FROM a AS mooncake_build\n"},
			code: 1, without: 0, stderr: []string{"changes rules"}},
		{name: "a policy emptied", pr: map[string]string{"policy/p.rego": "package buildgate.rules.no_latest\n", "Dockerfile": "FROM a:latest\n"},
			args: []string{"--policy", "policy"}, code: 1, without: 0, stdout: []string{"latest tag"}},
		{name: "the baseline filled", pr: map[string]string{"Dockerfile": "FROM a AS mooncake_build\n"},
			args: []string{"--baseline", "baseline.json"}, code: 1, without: 0},
		{name: "a revision that does not exist", args: []string{}, code: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, base)
			gitIn(t, dir, "init", "-q", "-b", "main")
			gitIn(t, dir, "add", ".")
			gitIn(t, dir, "commit", "-qm", "base")
			for rel, body := range tt.pr {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.name == "the baseline filled" {
				r := runBin(t, dir, "lint", "--root", ".", "--write-baseline", "baseline.json")
				if r.code != 1 {
					t.Fatalf("writing the baseline: %+v", r)
				}
			}
			rev := "HEAD"
			if tt.code == 2 {
				rev = "no-such-branch"
			}
			args := append([]string{"lint", "--root", "."}, tt.args...)
			r := runBin(t, dir, append(args, "--config-from-rev", rev)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			expectOutput(t, r, tt.stdout, tt.stderr)
			if tt.code == 2 {
				return
			}
			if r := runBin(t, dir, args...); r.code != tt.without {
				t.Errorf("without --config-from-rev: exit %d, want %d (the attack itself)\n%s", r.code, tt.without, r.stdout)
			}
		})
	}
}

// The base commit is the base's, whatever the pull request's .git says:
// a replace ref (refs/replace/BASE -> the pull request's own commit) is
// not followed, and an object forged under a base object's name is an
// error, never the pull request's configuration.
func TestBaseCommitThroughGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	git := func(t *testing.T, dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	forge := func(t *testing.T, dir, oid, typ string, content []byte) {
		t.Helper()
		var b bytes.Buffer
		z := zlib.NewWriter(&b)
		fmt.Fprintf(z, "%s %d\x00", typ, len(content))
		z.Write(content)
		z.Close()
		p := filepath.Join(dir, ".git", "objects", oid[:2], oid[2:])
		os.Remove(p)
		if err := os.WriteFile(p, b.Bytes(), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	const source = "FROM rocm/dev-ubuntu-22.04\nRUN git clone https://github.com/kvcache-ai/Mooncake.git && cd Mooncake && make install\n"
	for _, tt := range []struct {
		name   string
		attack func(t *testing.T, dir, base, fake string)
		flag   string
		code   int
		stdout []string
		stderr []string
	}{
		{name: "--config-from-rev, no attack", flag: "--config-from-rev", code: 1, stdout: []string{"BG104"}},
		{name: "--config-from-rev with refs/replace/BASE", flag: "--config-from-rev", code: 1, stdout: []string{"BG104"},
			attack: func(t *testing.T, dir, base, fake string) { git(t, dir, "replace", base, fake) }},
		{name: "--config-from-rev with the configuration's blob replaced", flag: "--config-from-rev", code: 1, stdout: []string{"BG104"},
			attack: func(t *testing.T, dir, base, fake string) {
				git(t, dir, "replace", "-f", base+":.buildgate.yaml", fake+":.buildgate.yaml")
			}},
		{name: "--config-from-rev with the configuration's blob forged", flag: "--config-from-rev", code: 2,
			stderr: []string{".buildgate.yaml at ", "is not the blob its name says (the repository's object store was altered)"},
			attack: func(t *testing.T, dir, base, fake string) {
				forge(t, dir, git(t, dir, "rev-parse", base+":.buildgate.yaml"), "blob", []byte("migrations: []\n"))
			}},
		{name: "--new-from-rev, no attack", flag: "--new-from-rev", code: 1, stdout: []string{"BG104"}},
		{name: "--new-from-rev with refs/replace/BASE", flag: "--new-from-rev", code: 1, stdout: []string{"BG104"},
			attack: func(t *testing.T, dir, base, fake string) { git(t, dir, "replace", base, fake) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, map[string]string{
				"requirements/rocm.txt":  pinned,
				"docker/Dockerfile.rocm": "FROM rocm/dev-ubuntu-22.04\n",
				".buildgate.yaml":        "migrations:\n  - package: mooncake-transfer-engine-rocm\n    minimum: 0.3.13\n    requirements: [requirements/rocm.txt]\n    repositories: [github.com/kvcache-ai/Mooncake]\n",
			})
			git(t, dir, "init", "-q", "-b", "main")
			git(t, dir, "add", "-A")
			git(t, dir, "commit", "-qm", "base")
			base := git(t, dir, "rev-parse", "HEAD")
			// The pull request: a source build, and a configuration that
			// turns the rules off; its own commit, unreferenced.
			os.WriteFile(filepath.Join(dir, "docker/Dockerfile.rocm"), []byte(source), 0o644)
			os.WriteFile(filepath.Join(dir, ".buildgate.yaml"), []byte("migrations: []\n"), 0o644)
			git(t, dir, "add", "-A")
			fake := git(t, dir, "commit-tree", git(t, dir, "write-tree"), "-p", base, "-m", "fake")
			git(t, dir, "reset", "-q")
			if tt.flag == "--new-from-rev" {
				// The base's configuration stays: what is tested is the diff.
				git(t, dir, "checkout", "-q", base, "--", ".buildgate.yaml")
			}
			if tt.attack != nil {
				tt.attack(t, dir, base, fake)
			}
			r := runBin(t, dir, "lint", "--root", ".", tt.flag, base)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			expectOutput(t, r, tt.stdout, tt.stderr)
		})
	}
}

// Build files that try to exhaust the loaders: each is BG001 naming the
// bound (or is read in full when within it), the rest of the run goes on
// (the pinned requirements file is still checked), and nothing crashes.
// Time and memory are measured by scripts/bench -hostile, not here.
func TestAttacksOnTheLoaders(t *testing.T) {
	t.Parallel()
	r := strings.Repeat
	chain := map[string]string{"requirements/rocm.txt": pinned + "-r r0.txt\n"}
	for i := 0; i < 20000; i++ {
		chain[fmt.Sprintf("requirements/r%d.txt", i)] = fmt.Sprintf("-r r%d.txt\npkg%d\n", i+1, i)
	}
	runAttacks(t, []attack{
		{name: "HCL nested 70,000 levels", files: map[string]string{"docker/deep.hcl": "a = " + r("[", 70000) + r("]", 70000) + "\n"}, code: 1,
			stdout: []string{"docker/deep.hcl:1:70004: error: docker/deep.hcl: nested deeper than buildgate reads (70001 levels", "2 files checked"}},
		{name: "a requirements file of 1,000,000 one-letter lines", files: map[string]string{"requirements/big.txt": r("a\n", 1000000)}, code: 1,
			stdout: []string{"requirements/big.txt:20001:1: error: requirements/big.txt: the file has 20001 requirement and option lines, over buildgate's limit of 20000"}},
		{name: "a shell script with $( nested 100,000 deep", files: map[string]string{"ci.sh": "echo " + r("$(", 100000) + r(")", 100000) + "\n"}, code: 1,
			stdout: []string{"ci.sh:1:", "error: ci.sh: shell: nested deeper than buildgate reads"}},
		{name: "a shell script with ${a:- nested 100,000 deep", files: map[string]string{"ci.sh": "echo " + r("${a:-", 100000) + r("}", 100000) + "\n"}, code: 1,
			stdout: []string{"error: ci.sh: shell: nested deeper than buildgate reads"}},
		{name: "an include chain of 20,000 files", files: chain, code: 0, stdout: []string{"20001 files checked, 0 findings"}},
		{name: "a pipeline of 100,000 cat |", files: map[string]string{"ci.sh": "cat" + r(" | cat", 100000) + "\n"}, code: 1,
			stdout: []string{"ci.sh:1:1: error: ci.sh: shell: nested deeper than 1000 levels here"}},
		{name: "a specifier list of 80,000 clauses", files: map[string]string{"requirements/x.txt": "pkg" + r(",>=1", 80000)[1:] + "\n"}, code: 0,
			stdout: []string{"2 files checked, 0 findings"}},
		{name: "10,000 --hash options", files: map[string]string{"requirements/x.txt": "pkg==1" + r(" --hash=sha256:"+r("a", 64), 10000) + "\n"}, code: 0,
			stdout: []string{"2 files checked, 0 findings"}},
		{name: "a Dockerfile of 200,000 RUN lines", files: map[string]string{"Dockerfile": "FROM a\n" + r("RUN echo a | grep b\n", 200000)}, code: 1,
			stdout: []string{"Dockerfile:1:1: error: Dockerfile: the file is 4000007 bytes, over buildgate's limit of 2097152 bytes for a Dockerfile"}},
		{name: "a Dockerfile of 25,000 short instructions", files: map[string]string{"Dockerfile": "FROM a\n" + r("RUN a\n", 25000)}, code: 1,
			stdout: []string{"Dockerfile:1:1: error: Dockerfile: the file has 25001 instruction lines, over buildgate's limit of 20000"}},
	})
}
