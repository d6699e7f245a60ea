package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runLimited runs the binary with a hard time limit: a hang fails the test
// instead of the suite.
func runLimited(t *testing.T, dir string, limit time.Duration, args ...string) (result, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("%v did not finish in %v", args, limit)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}, took
}

// The catalogue of docs/robustness.md: every hostile input, its outcome.
func TestHostileInputs(t *testing.T) {
	t.Parallel()
	long := func(n int) string {
		var b strings.Builder
		b.WriteString("FROM a\nRUN echo start \\\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  arg%d \\\n", i)
		}
		b.WriteString("  end\n")
		return b.String()
	}
	tests := []struct {
		name  string
		files map[string]string
		setup func(t *testing.T, dir string)
		args  []string
		code  int
		want  []string // in stdout
	}{
		{name: "binary content named like a Dockerfile", files: map[string]string{"Dockerfile": "\x7fELF\x02\x01\x01\x00\x00\x00garbage\xff\xfe"},
			code: 1, want: []string{"Dockerfile:1:8: error: Dockerfile: the file holds binary content (a NUL byte)"}},
		{name: "NUL bytes in a requirements file", files: map[string]string{"requirements-dev.txt": "numpy\nfoo\x00bar\n"},
			code: 1, want: []string{"requirements-dev.txt:2:4: error: requirements-dev.txt: the file holds binary content"}},
		{name: "UTF-16 text (NUL bytes)", files: map[string]string{"build.sh": "\xff\xfee\x00c\x00h\x00o\x00\n\x00"},
			code: 1, want: []string{"build.sh:1:4: error: build.sh: the file holds binary content"}},
		{name: "invalid UTF-8", files: map[string]string{"ci.sh": "#!/bin/sh\necho caf\xe9\nMOONCAKE_BRANCH=x\n"},
			code: 1, want: []string{"ci.sh:2:9: error: ci.sh: the file is not valid UTF-8 here", "ci.sh:3:1: error: `MOONCAKE_BRANCH`"}},
		{name: "UTF-8 BOM: read, columns after it", files: map[string]string{"Dockerfile": "\ufeffFROM base AS mooncake_build\n"},
			code: 1, want: []string{"Dockerfile:1:14: error: stage `mooncake_build`", "1 finding"}},
		// Review of issue 16: a waiting document gave the builtins its text
		// with the BOM, so "# cuda" on the first line read as code (another
		// platform) and the syntax error's BG001 was dropped; the same BOM
		// hid a Dockerfile's clone-and-build (BG104).
		{name: "UTF-8 BOM before a comment naming another platform", files: map[string]string{
			"requirements/extra.txt": "\ufeff# cuda extras\nmooncake-transfer-engine>=0.3.13 ; python_version ~~ \"3\"\n",
			"requirements/rocm.txt":  "mooncake-transfer-engine-rocm>=0.3.13\n",
			"Dockerfile":             "\ufeff# cuda\nFROM x\nRUN git clone https://github.com/kvcache-ai/Mooncake && cd Mooncake && make\n",
		}, code: 1, want: []string{"requirements/extra.txt:2:", "BG001", "Dockerfile:3:", "BG104"}},
		{name: "CRLF line endings", files: map[string]string{"Dockerfile": "FROM a\r\n# x\r\nARG MOONCAKE_BRANCH\r\n", "docker/ci.hcl": "x = 1\r\nvariable \"MOONCAKE_REPO\" {\r\n}\r\n"},
			code: 1, want: []string{"Dockerfile:3:5: error: `MOONCAKE_BRANCH`", "docker/ci.hcl:2:10: error: `MOONCAKE_REPO`"}},
		// Syntax errors are reported where they could hide the source
		// build: these files mention it (issue 13).
		{name: "lone CR line endings", files: map[string]string{"ci.sh": "#!/bin/sh\recho hi\rgit clone mooncake\r"},
			code: 1, want: []string{"ci.sh:1:10: error: ci.sh: the file has a line break that is a lone CR"}},
		// An empty Dockerfile is invalid to buildkit, but it hides nothing.
		{name: "empty files", files: map[string]string{"Dockerfile": "", "a.hcl": "", "empty.sh": "", "requirements-x.txt": ""},
			code: 0, want: []string{"5 files checked, 0 findings"}},
		{name: "an empty Dockerfile beside the migration's requirements", files: map[string]string{"Dockerfile": "", "requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.13\n", "docker/Dockerfile.rocm": "# mooncake\n"},
			code: 1, want: []string{"docker/Dockerfile.rocm:1:1: error: docker/Dockerfile.rocm: file with no instructions", "3 files checked, 1 finding"}},
		{name: "a file over --max-file-size", files: map[string]string{"Dockerfile": "FROM a\n" + strings.Repeat("# padding\n", 20)}, args: []string{"--max-file-size", "100"},
			code: 1, want: []string{"Dockerfile:1:1: error: Dockerfile: file is 207 bytes, over the 100-byte limit (--max-file-size): not read"}},
		{name: "a 100,000-line continuation", files: map[string]string{"Dockerfile": long(100000)},
			code: 0, want: []string{"2 files checked, 0 findings"}},
		{name: "HCL nested 20,000 levels", files: map[string]string{"deep.hcl": "x = " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"},
			code: 1, want: []string{"deep.hcl:1:20004: error: deep.hcl: nested deeper than buildgate reads (20001 levels"}},
		// A bound met while parsing is checked in the files the rules
		// read (this one mentions the package); one that cannot concern
		// them is not parsed (issue 16), so not checked either.
		{name: "HCL value nested 300 levels", files: map[string]string{"deep.hcl": "x = " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n# mooncake\n"},
			code: 1, want: []string{"deep.hcl:1:1: error: deep.hcl: the value of x is nested 300 levels deep"}},
		{name: "HCL value nested 300 levels, in a file the rules do not read", files: map[string]string{"deep.hcl": "x = " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n"},
			code: 0, want: []string{"2 files checked, 0 findings"}},
		// Every script is read (the files it runs are followed: issue 26),
		// so a bound passed in any script is a finding.
		{name: "a script nested 5,000 levels, in a file that mentions nothing", files: map[string]string{"deep.sh": "echo " + strings.Repeat("$(", 5000) + strings.Repeat(")", 5000) + "\n"},
			code: 1, want: []string{"deep.sh:1:", "nested deeper than buildgate reads"}},
		{name: "a script nested 5,000 levels that mentions the package", files: map[string]string{"deep.sh": "# mooncake\necho " + strings.Repeat("$(", 5000) + strings.Repeat(")", 5000) + "\n"},
			code: 1, want: []string{"deep.sh:2:", "nested deeper than buildgate reads"}},
		{name: "unterminated heredoc, quote and block", files: map[string]string{
			"Dockerfile": "FROM a\nRUN <<EOF\necho mooncake\n", "q.sh": "#!/bin/sh\necho \"open mooncake\n", "b.hcl": "target \"a\" {\n  x = \"mooncake\"\n"},
			code: 1, want: []string{"Dockerfile:2:1: error: Dockerfile: unterminated heredoc", "q.sh:2:6: error: q.sh: shell: reached EOF without closing quote", "b.hcl:1:12: error: b.hcl: Unclosed configuration block"}},
		{name: "requirement includes: cycle, out of the root, URL", files: map[string]string{
			"requirements/a.txt": "-r b.txt\n", "requirements/b.txt": "-r a.txt\n",
			"requirements/c.txt": "-r ../../../etc/passwd\n-r https://example.com/r.txt\n"},
			code: 1, want: []string{"include cycle: requirements/a.txt -> requirements/b.txt -> requirements/a.txt", "requirements/c.txt:1:4: error:", "requirements/c.txt:2:4: error:"}},
		{name: "symbolic links: loop, file and directory outside, directory inside", files: map[string]string{"real/Dockerfile": "FROM a\n"},
			setup: func(t *testing.T, dir string) {
				for link, target := range map[string]string{"loop.sh": "loop.sh", "passwd.Dockerfile": "/etc/passwd", "etc": "/etc", "inside": "real"} {
					if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
						t.Skip(err)
					}
				}
			},
			code: 1, want: []string{"loop.sh:1:1: error: loop.sh: cannot open the file: too many levels of symbolic links",
				"passwd.Dockerfile:1:1: error: passwd.Dockerfile: cannot open the file: it is a symbolic link that leads out of the repository root",
				"etc:1:1: error: etc: cannot open the file: it is a symbolic link that leads out of the repository root",
				"5 files checked"}},
		{name: "a directory named like a file", files: map[string]string{"Dockerfile/Dockerfile": "FROM a AS mooncake_build\n"},
			code: 1, want: []string{"Dockerfile/Dockerfile:1:11: error: stage `mooncake_build`"}},
		{name: "a path argument that does not exist", args: []string{"nope/"}, code: 2},
	}
	if os.Geteuid() != 0 {
		tests = append(tests, struct {
			name  string
			files map[string]string
			setup func(t *testing.T, dir string)
			args  []string
			code  int
			want  []string
		}{name: "an unreadable file", files: map[string]string{"Dockerfile": "FROM a\n"},
			setup: func(t *testing.T, dir string) { os.Chmod(filepath.Join(dir, "Dockerfile"), 0) },
			code:  1, want: []string{"Dockerfile:1:1: error: Dockerfile: cannot open the file: permission denied"}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"requirements/rocm.txt": pinned}
			for k, v := range tt.files {
				files[k] = v
			}
			dir := writeTree(t, files)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			r, took := runLimited(t, dir, time.Minute, append([]string{"lint", "--root", "."}, tt.args...)...)
			t.Logf("%v", took.Round(time.Millisecond))
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("a panic: %s", r.stderr)
			}
			for _, format := range []string{"json", "sarif", "github", "junit", "markdown", "text"} {
				out, _ := runLimited(t, dir, time.Minute, append([]string{"lint", "--root", ".", "--format", format}, tt.args...)...)
				if strings.Contains(out.stdout, dir) || strings.Contains(out.stderr, dir) {
					t.Errorf("--format %s: an absolute local path in the output", format)
				}
			}
		})
	}
}

// 100,000 small files: the run ends, with every file checked.
func TestManySmallFiles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	for i := 0; i < 100000; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", i/1000))
		if i%1000 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("s%05d.sh", i)), []byte(fmt.Sprintf("#!/bin/sh\necho %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, took := runLimited(t, dir, 3*time.Minute, "lint", "--root", ".", "--fail-on", "never")
	t.Logf("100,000 files in %v", took.Round(time.Millisecond))
	if r.code != 0 || !strings.Contains(r.stdout, "100000 files checked") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestNoPanicEscapes(t *testing.T) {
	t.Parallel()
	r, _ := runLimited(t, ".", time.Minute, "lint", "--debug", "--root", mustAbs(t, "../../testdata/vllm-rocm/after"))
	if r.code != 0 || strings.Contains(r.stderr, "panic") {
		t.Errorf("--debug run: exit %d %s", r.code, r.stderr)
	}
}
