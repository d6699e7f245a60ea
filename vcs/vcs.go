// Package vcs reads where a git checkout stands — the commit, the branch,
// the origin URL — from the .git files themselves: running git could run
// hooks or configured helpers from the repository, which a linter must not.
package vcs

import (
	"bufio"
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Provenance is the state of a checkout.
type Provenance struct {
	Revision string // the commit checked out (40 or 64 hex digits)
	Branch   string // empty when detached
	// RepositoryURI is origin's URL as an absolute https/ssh/git URI
	// without credentials; empty when there is no remote or it is a local
	// path (a report must never carry one).
	RepositoryURI string
}

var hashRe = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// Read returns the provenance of the checkout whose top level is root, or
// false when root holds no readable git repository.
func Read(root string) (Provenance, bool) {
	gitDir, ok := findGitDir(root)
	if !ok {
		return Provenance{}, false
	}
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = resolve(gitDir, strings.TrimSpace(string(b)))
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return Provenance{}, false
	}
	var p Provenance
	h := strings.TrimSpace(string(head))
	if ref, isRef := strings.CutPrefix(h, "ref: "); isRef {
		p.Branch = strings.TrimPrefix(ref, "refs/heads/")
		p.Revision = readRef(gitDir, common, ref)
	} else if hashRe.MatchString(h) {
		p.Revision = h
	}
	if p.Revision == "" {
		// A repository without commits has nothing to point at.
		return Provenance{}, false
	}
	p.RepositoryURI = originURI(common)
	return p, true
}

func findGitDir(root string) (string, bool) {
	dotGit := filepath.Join(root, ".git")
	st, err := os.Stat(dotGit)
	if err != nil {
		return "", false
	}
	if st.IsDir() {
		return dotGit, true
	}
	// A worktree or submodule: ".git" is a file naming the real directory.
	b, err := os.ReadFile(dotGit)
	if err != nil {
		return "", false
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return "", false
	}
	return resolve(root, dir), true
}

func resolve(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}

func readRef(gitDir, common, ref string) string {
	for _, dir := range []string{gitDir, common} {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			if h := strings.TrimSpace(string(b)); hashRe.MatchString(h) {
				return h
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(common, "packed-refs"))
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[1] == ref && hashRe.MatchString(fields[0]) {
			return fields[0]
		}
	}
	return ""
}

// originURI reads [remote "origin"] url from the repository's config.
func originURI(common string) string {
	b, err := os.ReadFile(filepath.Join(common, "config"))
	if err != nil {
		return ""
	}
	inOrigin := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inOrigin = strings.EqualFold(strings.Join(strings.Fields(line), " "), `[remote "origin"]`)
			continue
		}
		if !inOrigin {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "url" {
			return PublicURI(strings.TrimSpace(v))
		}
	}
	return ""
}

var scpRe = regexp.MustCompile(`^(?:[A-Za-z0-9._-]+@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,}):([^/].*)$`)

// PublicURI turns a remote URL into an absolute URI fit for a report:
// credentials dropped, scp-style addresses (git@host:owner/repo.git) as
// https, and anything local (a path, file://) refused.
func PublicURI(raw string) string {
	if m := scpRe.FindStringSubmatch(raw); m != nil && !strings.Contains(raw, "://") {
		return "https://" + m[1] + "/" + strings.TrimSuffix(m[2], ".git")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	switch u.Scheme {
	case "https", "http", "ssh", "git":
	default:
		return ""
	}
	u.User = nil
	u.RawQuery, u.Fragment = "", ""
	if u.Scheme == "ssh" || u.Scheme == "git" {
		u.Scheme = "https"
		u.Host = u.Hostname()
	}
	u.Path = strings.TrimSuffix(u.Path, ".git")
	return u.String()
}
