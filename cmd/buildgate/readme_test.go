package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Issue 18: the README's main-job commands run as written on a fresh
// clone with nothing beside it (no ../shared), exit as their comments say,
// and print the output the README shows. The clone is the repository's
// files as git sees them (tracked, and new ones not ignored, with their
// working-tree content, so that the test checks what is about to be
// committed) copied into an empty directory; the commands run there with
// `go run`, offline.
func TestReadmeMainJob(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary in a fresh copy")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	top, err := exec.Command(git, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	src := strings.TrimSpace(string(top))
	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds, shown := readmeMainJob(t, string(readme))

	clone := filepath.Join(t.TempDir(), "empty", "buildgate")
	files, err := exec.Command(git, "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(src, f))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Lstat(filepath.Join(src, f))
		dst := filepath.Join(clone, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(clone, "..", "..", "shared")); err == nil {
		t.Fatal("the copy has something beside it")
	}

	for _, c := range cmds {
		cmd := exec.Command(c.args[0], c.args[1:]...)
		cmd.Dir = clone
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly", "NO_COLOR=1", "CI=true")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if code != c.exit {
			t.Errorf("%s: exit %d, the README says %d\n%s", c.line, code, c.exit, out.String())
		}
		for _, want := range shown[c.root] {
			if !strings.Contains(out.String(), want+"\n") {
				t.Errorf("%s: the README shows %q, the command does not print it\n%s", c.line, want, out.String())
			}
		}
	}
}

type readmeCmd struct {
	line string
	args []string
	root string
	exit int
}

var exitComment = regexp.MustCompile(`#.*\bexit (\d)\b`)

// readmeMainJob reads the README's "Run it" section: the commands of its
// first sh block (each with "exit N" in its comment) and the output shown
// in the blocks after it, by the --root of the command before them ("…"
// lines stand for what is left out).
func readmeMainJob(t *testing.T, readme string) ([]readmeCmd, map[string][]string) {
	start := strings.Index(readme, "## Run it")
	end := strings.Index(readme[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("README: no Run it section")
	}
	section := readme[start : start+1+end]
	var cmds []readmeCmd
	shown := map[string][]string{}
	blocks := strings.Split(section, "```")
	for i := 1; i < len(blocks); i += 2 {
		block := blocks[i]
		if strings.HasPrefix(block, "sh\n") && len(cmds) == 0 {
			for _, line := range strings.Split(block[3:], "\n") {
				m := exitComment.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				code, _ := strconv.Atoi(m[1])
				args := strings.Fields(line[:strings.Index(line, "#")])
				root := ""
				for j, a := range args {
					if a == "--root" && j+1 < len(args) {
						root = args[j+1]
					}
				}
				cmds = append(cmds, readmeCmd{line: strings.TrimSpace(line), args: args, root: root, exit: code})
			}
			continue
		}
		if len(cmds) == 0 || !strings.HasPrefix(block, "\n") {
			continue
		}
		// An output block belongs to the command whose state the prose
		// before it names: "before-state" or "after-state".
		prose := blocks[i-1]
		for _, c := range cmds {
			state := filepath.Base(c.root)
			if strings.Contains(prose, state+"-state") {
				for _, line := range strings.Split(strings.Trim(block, "\n"), "\n") {
					if line != "…" {
						shown[c.root] = append(shown[c.root], line)
					}
				}
			}
		}
	}
	if len(cmds) < 2 || len(shown) < 2 {
		t.Fatalf("README: want the main-job commands with their exit codes and the output of each; got %d commands, output for %d", len(cmds), len(shown))
	}
	return cmds, shown
}
