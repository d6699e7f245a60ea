package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func runEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
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
// and GOMAXPROCS values (files are loaded and converted in parallel).
func TestDeterministicOutput(t *testing.T) {
	t.Parallel()
	dirs := []string{mustAbs(t, "../../testdata/vllm-rocm/before")}
	if latest, err := filepath.Abs("../../../shared/corpus/vllm/latest"); err == nil {
		if _, err := os.Stat(latest); err == nil {
			dirs = append(dirs, latest)
		}
	}
	for _, dir := range dirs {
		for _, format := range []string{"text", "json", "sarif", "github", "junit", "markdown"} {
			var first result
			for i, procs := range []string{"1", "4", "1", "2"} {
				r := runEnv(t, dir, []string{"GOMAXPROCS=" + procs}, "lint", "--root", ".", "--format", format)
				r.stdout = junitTime.ReplaceAllString(r.stdout, `time="T"`)
				if i == 0 {
					first = r
					continue
				}
				if r.stdout != first.stdout || r.code != first.code {
					t.Errorf("%s, --format %s: output with GOMAXPROCS=%s differs from GOMAXPROCS=1", dir, format, procs)
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
