//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const token = "[http]\n\textraheader = AUTHORIZATION: basic SECRETTOKEN\n"

// put writes files (name -> content) below dir.
func put(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func hardLink(t *testing.T, dir, target, name string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, filepath.FromSlash(target)), p); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
}

// A file whose inode is one of git's is refused by every reader of the
// repository's files, however .git is laid out; a file with other links
// that are not git's is read.
func TestGitHardLinks(t *testing.T) {
	t.Parallel()
	repo := map[string]string{".git/config": token, ".git/HEAD": "ref: refs/heads/main\n", ".git/objects/ab/cdef": "x"}
	for _, tt := range []struct {
		name  string
		files map[string]string
		root  string      // the root, below the temporary directory
		links [][2]string // target, name (below the temporary directory)
		read  string      // below the root
		want  error       // nil: read
	}{
		{name: "a hard link to .git/config", files: repo, links: [][2]string{{".git/config", "requirements/rocm.txt"}},
			read: "requirements/rocm.txt", want: ErrGitLink},
		{name: "a hard link to .git/HEAD", files: repo, links: [][2]string{{".git/HEAD", "Dockerfile"}},
			read: "Dockerfile", want: ErrGitLink},
		{name: "a hard link to a submodule's config", files: map[string]string{".git/config": "", ".git/modules/lib/config": token},
			links: [][2]string{{".git/modules/lib/config", "req.txt"}}, read: "req.txt", want: ErrGitLink},
		{name: "a hard link to a nested submodule's config", files: map[string]string{".git/config": "", ".git/modules/a/b/modules/c/config": token},
			links: [][2]string{{".git/modules/a/b/modules/c/config", "req.txt"}}, read: "req.txt", want: ErrGitLink},
		{name: "a hard link to a linked worktree's config (.git a file)", root: "wt",
			files: map[string]string{"main/.git/config": token, "main/.git/worktrees/wt/config.worktree": "x", "main/.git/worktrees/wt/commondir": "../..\n",
				"wt/.git": "gitdir: ../main/.git/worktrees/wt\n"},
			links: [][2]string{{"main/.git/config", "wt/req.txt"}}, read: "req.txt", want: ErrGitLink},
		{name: "a hard link to a linked worktree's own file", root: "wt",
			files: map[string]string{"main/.git/config": token, "main/.git/worktrees/wt/config.worktree": "x", "main/.git/worktrees/wt/commondir": "../..\n",
				"wt/.git": "gitdir: ../main/.git/worktrees/wt\n"},
			links: [][2]string{{"main/.git/worktrees/wt/config.worktree", "wt/req.txt"}}, read: "req.txt", want: ErrGitLink},
		{name: "a hard link to the superproject's config from a submodule", root: "super/lib",
			files: map[string]string{"super/.git/config": token, "super/.git/modules/lib/config": "", "super/lib/.git": "gitdir: ../.git/modules/lib\n"},
			links: [][2]string{{"super/.git/config", "super/lib/req.txt"}}, read: "req.txt", want: ErrGitLink},
		{name: "a planted .git below the root does not hide the root's", files: map[string]string{".git/config": token, "ci/.git/config": ""},
			links: [][2]string{{".git/config", "ci/req.txt"}}, read: "ci/req.txt", want: ErrGitLink},
		{name: "a hard link to the file .git/config links to", files: map[string]string{"elsewhere/cfg": token, ".git/HEAD": ""},
			links: [][2]string{{"elsewhere/cfg", "req.txt"}}, read: "req.txt", want: ErrGitLink},
		// Any other name may be outside the repository (a runner's
		// ~/.netrc): a file with other names is not read at all.
		{name: "two names of one working-tree file", files: map[string]string{".git/config": token, "a.txt": "pkg==1\n"},
			links: [][2]string{{"a.txt", "b.txt"}}, read: "b.txt", want: ErrHardLink},
		{name: "a hard link and no .git at all", files: map[string]string{"a.txt": "pkg==1\n"},
			links: [][2]string{{"a.txt", "b.txt"}}, read: "b.txt", want: ErrHardLink},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			put(t, base, tt.files)
			if tt.name == "a hard link to the file .git/config links to" {
				if err := os.Symlink("../elsewhere/cfg", filepath.Join(base, ".git/config")); err != nil {
					t.Fatal(err)
				}
			}
			for _, l := range tt.links {
				hardLink(t, base, l[0], l[1])
			}
			rootDir := filepath.Join(base, filepath.FromSlash(tt.root))
			check := func(how string, b []byte, err error) {
				t.Helper()
				switch {
				case tt.want == nil && err != nil:
					t.Errorf("%s: %v, want the file read", how, err)
				case tt.want != nil && !errors.Is(err, tt.want) && !errors.Is(err, ErrHardLink):
					// Where the link count is known, any file with other
					// names is refused before .git is looked at.
					t.Errorf("%s: error %v, want %v", how, err, tt.want)
				case tt.want != nil && !errors.Is(err, ErrGitDir):
					t.Errorf("%s: %v is not an ErrGitDir", how, err)
				case tt.want != nil && strings.Contains(string(b)+fmt.Sprint(err)+Describe(err), "SECRETTOKEN"):
					t.Errorf("%s: the token came through", how)
				}
			}
			root, err := os.OpenRoot(rootDir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			b, err := In(root, tt.read, 0)
			check("In", b, err)
			b, err = Named(rootDir, filepath.Join(rootDir, filepath.FromSlash(tt.read)), 0)
			check("Named", b, err)
			d, err := DirFS(rootDir, rootDir, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			b, err = d.ReadFile(tt.read)
			check("DirFS.ReadFile", b, err)
			if dir, name := filepath.Split(filepath.FromSlash(tt.read)); dir != "" {
				sub, err := DirFS(rootDir, filepath.Join(rootDir, dir), 0)
				if err != nil {
					t.Fatal(err)
				}
				defer sub.Close()
				b, err = sub.ReadFile(name)
				check("DirFS of its directory", b, err)
			}
			err = Rewrite(rootDir, tt.read, []byte("pkg==2\n"))
			check("Rewrite", nil, err)
			if tt.want != nil {
				if got, _ := os.ReadFile(filepath.Join(rootDir, filepath.FromSlash(tt.read))); string(got) == "pkg==2\n" {
					t.Error("Rewrite replaced the file")
				}
			}
		})
	}
}

// A user-named file inside the root (the configuration, --data, the
// baseline) is not git's through a symbolic link either; outside the
// root the name is the user's.
func TestNamedNotGit(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	put(t, base, map[string]string{".git/config": token, "ok.yaml": "a: 1\n"})
	for name, target := range map[string]string{"cfg.yaml": ".git/config", "gitdir": ".git", "ok-link.yaml": "ok.yaml"} {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		root, name string
		want       error // nil: read
	}{
		{base, "cfg.yaml", ErrGitDir},
		{base, "gitdir/config", ErrGitDir},
		{base, ".git/config", ErrGitDir},
		{base, "ok-link.yaml", nil},
		{base, "ok.yaml", nil},
		{t.TempDir(), "cfg.yaml", nil}, // outside that root: the user named it
	} {
		_, err := Named(tt.root, filepath.Join(base, tt.name), 0)
		if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("Named(%s): %v, want %v", tt.name, err, tt.want)
		}
	}
}

// git's own directory is read by GitMeta whatever links its files have:
// provenance reads HEAD and config there.
func TestGitMetaReadsLinkedFiles(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	put(t, base, map[string]string{".git/config": token})
	hardLink(t, base, ".git/config", "req.txt")
	root, err := os.OpenRoot(filepath.Join(base, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if b, err := GitMeta(root, "config", 0); err != nil || string(b) != token {
		t.Errorf("GitMeta: %q, %v", b, err)
	}
}

// Past the listing's bound nothing can be told of a file with other
// links, so it is refused; a file with one name is read without listing.
func TestGitListingBound(t *testing.T) { //nolint:paralleltest // it sets gitListMax
	old := gitListMax
	gitListMax = 50
	defer func() { gitListMax = old }()
	base := t.TempDir()
	files := map[string]string{".git/config": token, "a.txt": "pkg==1\n", "one.txt": "pkg==1\n"}
	for i := range 60 {
		files[fmt.Sprintf(".git/refs/tags/t%d", i)] = "x"
		files[fmt.Sprintf(".git/objects/o%d", i)] = "x" // not listed, not counted
	}
	put(t, base, files)
	hardLink(t, base, "a.txt", "b.txt")
	root, err := os.OpenRoot(base)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tt := range []struct {
		read string
		want error
	}{
		{"b.txt", ErrGitUnknown},
		{"one.txt", nil},
	} {
		_, err := In(root, tt.read, 0)
		hardLink := tt.want != nil && errors.Is(err, ErrHardLink) // refused before .git is listed
		if !errors.Is(err, tt.want) && !hardLink || (tt.want == nil && err != nil) {
			t.Errorf("%s: %v, want %v", tt.read, err, tt.want)
		}
	}
}
