package vcs

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestPublicURI(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/buildgate/buildgate.git":        "https://github.com/buildgate/buildgate",
		"https://user:token@github.com/buildgate/buildgate": "https://github.com/buildgate/buildgate",
		"git@github.com:buildgate/buildgate.git":            "https://github.com/buildgate/buildgate",
		"ssh://git@github.com:22/buildgate/buildgate.git":   "https://github.com/buildgate/buildgate",
		"/home/me/src/buildgate":                            "",
		"../buildgate":                                      "",
		"file:///home/me/src/buildgate":                     "",
		"C:/src/buildgate":                                  "",
	} {
		if got := PublicURI(in); got != want {
			t.Errorf("PublicURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestRead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if _, ok := Read(dir); ok {
		t.Error("provenance outside a repository")
	}
	git(t, dir, "init", "-q", "-b", "main")
	if _, ok := Read(dir); ok {
		t.Error("provenance without a commit")
	}
	os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644)
	git(t, dir, "add", "a")
	git(t, dir, "commit", "-q", "-m", "a")
	head := git(t, dir, "rev-parse", "HEAD")
	p, ok := Read(dir)
	if !ok || p.Revision+"\n" != head || p.Branch != "main" || p.RepositoryURI != "" {
		t.Errorf("provenance %+v (HEAD %s)", p, head)
	}
	git(t, dir, "remote", "add", "origin", "git@github.com:o/r.git")
	git(t, dir, "pack-refs", "--all")
	p, _ = Read(dir)
	if p.Revision+"\n" != head || p.RepositoryURI != "https://github.com/o/r" {
		t.Errorf("after pack-refs and a remote: %+v", p)
	}
	git(t, dir, "checkout", "-q", "--detach")
	if p, _ = Read(dir); p.Branch != "" || p.Revision+"\n" != head {
		t.Errorf("detached: %+v", p)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, dir, "worktree", "add", "-q", wt)
	if p, ok = Read(wt); !ok || p.Revision+"\n" != head || p.RepositoryURI != "https://github.com/o/r" {
		t.Errorf("worktree: %+v %v", p, ok)
	}
}

// What a pull request (or a poisoned cache) can plant in .git: each gives
// no provenance, quickly, and never reads outside the git directory.
func TestReadHostile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	old := Timeout
	Timeout = 3 * time.Second
	defer func() { Timeout = old }()
	repo := func(t *testing.T) string {
		dir := t.TempDir()
		git(t, dir, "init", "-q", "-b", "main")
		os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644)
		git(t, dir, "add", "a")
		git(t, dir, "commit", "-q", "-m", "a")
		return dir
	}
	for _, tt := range []struct {
		name  string
		plant func(t *testing.T, dir string)
	}{
		{name: "HEAD climbs to /dev/zero", plant: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".git/HEAD"), []byte("ref: ../../../../../../../../dev/zero\n"), 0o644)
		}},
		{name: "HEAD is a link to /dev/zero", plant: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, ".git/HEAD"))
			os.Symlink("/dev/zero", filepath.Join(dir, ".git/HEAD"))
		}},
		{name: "HEAD is a FIFO", plant: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, ".git/HEAD"))
			syscall.Mkfifo(filepath.Join(dir, ".git/HEAD"), 0o644)
		}},
		{name: "the branch ref is a link to /dev/zero", plant: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, ".git/refs/heads/main"))
			os.Symlink("/dev/zero", filepath.Join(dir, ".git/refs/heads/main"))
		}},
		{name: "packed-refs is a link to /dev/zero", plant: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, ".git/refs/heads/main"))
			os.Symlink("/dev/zero", filepath.Join(dir, ".git/packed-refs"))
		}},
		{name: "config is a FIFO", plant: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, ".git/config"))
			syscall.Mkfifo(filepath.Join(dir, ".git/config"), 0o644)
		}},
		{name: ".git is a file naming /dev/zero", plant: func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, ".git"))
			os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: /dev/zero\n"), 0o644)
		}},
		{name: ".git is a FIFO", plant: func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, ".git"))
			syscall.Mkfifo(filepath.Join(dir, ".git"), 0o644)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := repo(t)
			tt.plant(t, dir)
			if p, ok := Read(dir); ok {
				t.Errorf("provenance from a planted .git: %+v", p)
			}
		})
	}
}
