package gitsafe

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// git runs the real git in dir (not through gitsafe: the test plays the
// pull request) and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir string, files map[string]string) {
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

// forge writes a loose object under the name oid holding what git would
// store for content of type typ: the object store now lies about oid.
func forge(t *testing.T, dir, oid, typ string, content []byte) {
	t.Helper()
	p := filepath.Join(dir, ".git", "objects", oid[:2], oid[2:])
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(p)
	var b bytes.Buffer
	z := zlib.NewWriter(&b)
	fmt.Fprintf(z, "%s %d\x00", typ, len(content))
	z.Write(content)
	z.Close()
	if err := os.WriteFile(p, b.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
}

const (
	baseConfig = "migrations:\n  - package: mooncake\n"
	prConfig   = "migrations: []\n"
	basePolicy = "package base\n"
	prPolicy   = "package pr\n"
)

// history makes a repository with a base commit and, unreferenced, the
// pull request's commit on top of it (base, fake), as the red team's
// case 8 does. Each test's base has a tree of its own (the test's name
// in it): trees read and checked once are not read again in a process.
func history(t *testing.T, dir string, format string) (base, fake string) {
	t.Helper()
	git(t, dir, "init", "-q", "--object-format="+format, "-b", "main")
	write(t, dir, map[string]string{".buildgate.yaml": baseConfig, "policy/p.rego": basePolicy, "policy/deep/q.rego": basePolicy, "sub/x.txt": "base x\n",
		"test.txt": t.Name(), "sub/test.txt": t.Name(), "policy/test.txt": t.Name()})
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "base")
	base = git(t, dir, "rev-parse", "HEAD")
	write(t, dir, map[string]string{".buildgate.yaml": prConfig, "policy/p.rego": prPolicy, "policy/deep/q.rego": prPolicy, "sub/x.txt": "pr x\n"})
	git(t, dir, "add", "-A")
	fake = git(t, dir, "commit-tree", git(t, dir, "write-tree"), "-p", base, "-m", "fake")
	git(t, dir, "reset", "-q")
	return base, fake
}

// Reads of a commit are the commit's: a replace ref, a graft or a forged
// object in .git (the pull request's) does not make them another's; what
// cannot be read as the commit holds it is an error, never the pull
// request's text.
func TestReadAtIsTheCommits(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name   string
		format string // object format: sha1 unless said
		attack func(t *testing.T, dir, base, fake string)
		errHas string // "" when the base's text is read
	}{
		{name: "no attack"},
		{name: "no attack, SHA-256", format: "sha256"},
		{name: "refs/replace/BASE", attack: func(t *testing.T, dir, base, fake string) {
			git(t, dir, "replace", base, fake)
		}},
		{name: "refs/replace of the base's tree", attack: func(t *testing.T, dir, base, fake string) {
			git(t, dir, "replace", "-f", base+"^{tree}", fake+"^{tree}")
		}},
		{name: "refs/replace of the configuration's blob", attack: func(t *testing.T, dir, base, fake string) {
			git(t, dir, "replace", "-f", base+":.buildgate.yaml", fake+":.buildgate.yaml")
			git(t, dir, "replace", "-f", base+":policy/p.rego", fake+":policy/p.rego")
		}},
		{name: "refs/replace/BASE written as a file", attack: func(t *testing.T, dir, base, fake string) {
			write(t, dir, map[string]string{".git/refs/replace/" + base: fake + "\n"})
		}},
		{name: "a forged blob", attack: func(t *testing.T, dir, base, fake string) {
			forge(t, dir, git(t, dir, "rev-parse", base+":.buildgate.yaml"), "blob", []byte(prConfig))
			forge(t, dir, git(t, dir, "rev-parse", base+":policy/p.rego"), "blob", []byte(prPolicy))
		}, errHas: "the repository's object store was altered"},
		{name: "a forged root tree", attack: func(t *testing.T, dir, base, fake string) {
			raw, err := exec.Command("git", "-C", dir, "cat-file", "tree", fake+"^{tree}").Output()
			if err != nil {
				t.Fatal(err)
			}
			forge(t, dir, git(t, dir, "rev-parse", base+"^{tree}"), "tree", raw)
		}, errHas: "the repository's object store was altered"},
		{name: "a forged tree, SHA-256", format: "sha256", attack: func(t *testing.T, dir, base, fake string) {
			raw, err := exec.Command("git", "-C", dir, "cat-file", "tree", fake+"^{tree}").Output()
			if err != nil {
				t.Fatal(err)
			}
			forge(t, dir, git(t, dir, "rev-parse", base+"^{tree}"), "tree", raw)
		}, errHas: "the repository's object store was altered"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			format := tt.format
			if format == "" {
				format = "sha1"
			}
			dir := t.TempDir()
			base, fake := history(t, dir, format)
			if tt.attack != nil {
				tt.attack(t, dir, base, fake)
			}
			check := func(what string, got []byte, err error, want, errHas string) {
				t.Helper()
				switch {
				case errHas == "" && err != nil:
					t.Errorf("%s: %v", what, err)
				case errHas == "" && string(got) != want:
					t.Errorf("%s: read %q, want the base's %q", what, got, want)
				case errHas != "" && (err == nil || !strings.Contains(err.Error(), errHas)):
					t.Errorf("%s: %q, %v; want an error with %q", what, got, err, errHas)
				}
			}
			b, err := ReadAt(ctx, dir, base, ".buildgate.yaml", 1<<20)
			check("ReadAt", b, err, baseConfig, tt.errHas)
			subErr := tt.errHas // sub/x.txt's blob is not forged, the trees above it are
			if !strings.Contains(tt.name, "tree") {
				subErr = ""
			}
			b, err = ReadAt(ctx, filepath.Join(dir, "sub"), base, "x.txt", 1<<20)
			check("ReadAt from a subdirectory", b, err, "base x\n", subErr)
			fsys, err := TreeAt(ctx, dir, base, "policy", 1<<20, 100)
			if err == nil {
				b, err = fs.ReadFile(fsys, "p.rego")
			}
			check("TreeAt", b, err, basePolicy, tt.errHas)
			if fsys != nil {
				if b, err := fs.ReadFile(fsys, "deep/q.rego"); err != nil || string(b) != basePolicy {
					t.Errorf("TreeAt deep/q.rego: %q, %v", b, err)
				}
			}
			if !ExistsAt(ctx, dir, base, ".buildgate.yaml") {
				t.Error("ExistsAt: the configuration is not there (a file that cannot be read must count as there)")
			}
		})
	}
}

// Grafts rewrite parents: merge bases and history are the commits' own.
func TestRunIgnoresGrafts(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	base, _ := history(t, dir, "sha1")
	write(t, dir, map[string]string{"y": "y"})
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "second")
	head := git(t, dir, "rev-parse", "HEAD")
	write(t, dir, map[string]string{".git/info/grafts": head + "\n"}) // HEAD has no parent
	if got := git(t, dir, "-c", "advice.graftFileDeprecated=false", "rev-list", "--count", "HEAD"); got != "1" {
		t.Fatalf("the graft does not hold for git itself: %s commits", got)
	}
	out, err := Run(context.Background(), dir, "merge-base", base, "HEAD")
	if err != nil || strings.TrimSpace(string(out)) != base {
		t.Errorf("merge-base: %q, %v; want %s", out, err, base)
	}
}

func TestCommit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	base, _ := history(t, dir, "sha1")
	git(t, dir, "tag", "-a", "-m", "t", "v1", base)
	tag := git(t, dir, "rev-parse", "v1")
	for _, tt := range []struct {
		rev, want, errHas string
	}{
		{rev: "HEAD", want: base},
		{rev: "v1", want: base}, // a name is resolved through refs
		{rev: base, want: base},
		{rev: strings.ToUpper(base), want: base},
		{rev: tag, errHas: "is not a commit but resolves to " + base},
		{rev: "no-such", errHas: "unknown revision"},
	} {
		got, err := Commit(context.Background(), dir, tt.rev)
		switch {
		case tt.errHas == "" && (err != nil || got != tt.want):
			t.Errorf("Commit(%s) = %s, %v; want %s", tt.rev, got, err, tt.want)
		case tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)):
			t.Errorf("Commit(%s) = %s, %v; want an error with %q", tt.rev, got, err, tt.errHas)
		}
	}
}

// What is not a readable file at the commit says so, and a blob past the
// limit is not read.
func TestReadAtRefuses(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	write(t, dir, map[string]string{"big": strings.Repeat("x", 100), "exec.sh": "echo\n"})
	if err := os.Symlink("big", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "exec.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "c")
	commit := git(t, dir, "rev-parse", "HEAD")
	ctx := context.Background()
	var tooLarge *ErrTooLarge
	for _, tt := range []struct {
		rel  string
		want string
		err  func(error) bool
	}{
		{rel: "exec.sh", want: "echo\n"},
		{rel: "big", err: func(err error) bool { return errors.As(err, &tooLarge) && tooLarge.Size == 100 && tooLarge.Limit == 50 }},
		{rel: "link", err: func(err error) bool { return err != nil && strings.Contains(err.Error(), "not a regular file") }},
		{rel: "none", err: func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{rel: "big/below", err: func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
	} {
		b, err := ReadAt(ctx, dir, commit, tt.rel, 50)
		if tt.err == nil && (err != nil || string(b) != tt.want) || tt.err != nil && !tt.err(err) {
			t.Errorf("ReadAt(%s) = %q, %v", tt.rel, b, err)
		}
	}
	if ExistsAt(ctx, dir, commit, "none") || !ExistsAt(ctx, dir, commit, "link") {
		t.Error("ExistsAt")
	}
}
