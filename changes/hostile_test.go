package changes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitT(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+filepath.Dir(dir))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// A pull request's .gitattributes names a filter driver that the runner's
// (or the repository's own) git configuration defines: --new-from-rev
// must not run it, and a "-diff" attribute must not hide new lines.
func TestHostileRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	home := t.TempDir()
	dir := filepath.Join(home, "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(home, "ran")
	evil := "touch " + ran + "; cat"
	gitT(t, dir, "init", "-q")
	w := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w("Dockerfile", "FROM a\n")
	w("build.sh", "echo a\n")
	gitT(t, dir, "add", ".")
	gitT(t, dir, "commit", "-qm", "one")
	// The runner's global configuration and the repository's own both
	// define drivers; the pull request's attributes select them.
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[filter \"x\"]\n\tclean = "+evil+"\n\tsmudge = "+evil+"\n\trequired = true\n[filter \"p\"]\n\tprocess = "+evil+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "config", "filter.z.clean", evil)
	gitT(t, dir, "config", "diff.x.command", evil)
	gitT(t, dir, "config", "core.fsmonitor", evil)
	w(".gitattributes", "Dockerfile filter=x diff=x\nbuild.sh filter=z -diff\n*.txt filter=p\n")
	w("Dockerfile", "FROM a\nRUN new\n")
	w("build.sh", "echo a\necho new\n")
	w("r.txt", "x\n")
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	set, err := Since(dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("a configured filter or diff driver ran")
	}
	if !set.Touches("Dockerfile", 2, 2) || !set.Touches("build.sh", 2, 2) || !set.HasFile("build.sh") || set.HasFile("other") {
		t.Errorf("changed lines: %+v", set.files)
	}
	// A revision that looks like an option is a revision, not an option.
	if _, err := Since(dir, "--output=/tmp/x"); err == nil || !strings.Contains(err.Error(), "unknown revision") {
		t.Errorf("option-like revision: %v", err)
	}
}
