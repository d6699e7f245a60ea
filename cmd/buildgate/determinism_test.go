package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func runEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return runWith(t, dir, env, nil, args...)
}

// runWith runs the binary in dir with more environment and, when not
// nil, what it reads on standard input.
func runWith(t *testing.T, dir string, env []string, stdin io.Reader, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// The same input gives byte-identical output in every format, across runs
// and GOMAXPROCS values (files are loaded and converted in parallel). Each
// run writes every format at once (text on standard output, the others to
// files), so four runs a tree check six formats.
func TestDeterministicOutput(t *testing.T) {
	t.Parallel()
	dirs := []string{mustAbs(t, "../../testdata/vllm-rocm/before")}
	if latest, err := filepath.Abs("../../../shared/corpus/vllm/latest"); err == nil {
		if _, err := os.Stat(latest); err == nil {
			dirs = append(dirs, latest)
		}
	}
	formats := []string{"json", "sarif", "github", "junit", "markdown"}
	for _, dir := range dirs {
		var first map[string]string
		for i, procs := range []string{"1", "4", "1", "2"} {
			out := t.TempDir()
			args := []string{"lint", "--root", ".", "--format", "text"}
			for _, f := range formats {
				args = append(args, "--format", f+"="+filepath.Join(out, f))
			}
			r := runEnv(t, dir, []string{"GOMAXPROCS=" + procs}, args...)
			got := map[string]string{"text": r.stdout, "exit": fmt.Sprint(r.code)}
			for _, f := range formats {
				b, err := os.ReadFile(filepath.Join(out, f))
				if err != nil {
					t.Fatalf("%s: --format %s wrote nothing: %v\n%s", dir, f, err, r.stderr)
				}
				got[f] = junitTime.ReplaceAllString(string(b), `time="T"`)
			}
			if i == 0 {
				first = got
				continue
			}
			for k, v := range got {
				if v != first[k] {
					t.Errorf("%s, %s: output with GOMAXPROCS=%s differs from GOMAXPROCS=1", dir, k, procs)
				}
			}
		}
	}
}

// The progress line is for terminals only: a run whose stderr is a pipe
// (CI logs, scripts) writes nothing there.
func TestNoProgressInPipes(t *testing.T) {
	t.Parallel()
	r := runEnv(t, mustAbs(t, "../../testdata/vllm-rocm/before"), []string{"CI="}, "lint", "--root", ".", "--format", "json")
	if r.stderr != "" {
		t.Errorf("stderr of a piped run: %q", r.stderr)
	}
	if newProgress(os.Stderr) != nil && os.Getenv("CI") != "" {
		t.Error("a progress line in CI")
	}
}
