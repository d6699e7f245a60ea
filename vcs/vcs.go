// Package vcs reads where a git checkout stands — the commit, the branch,
// the origin URL — for reports. git itself finds the git directory (a
// worktree's or submodule's .git is a file pointing elsewhere), run
// through gitsafe so that nothing configured runs; HEAD, refs and config
// are then read as files through the one bounded reader, below the git
// directory only: a pull request that plants a FIFO, a link to /dev/zero
// or "ref: ../../../dev/zero" there gets no provenance, not a hang.
package vcs

import (
	"bufio"
	"bytes"
	"context"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/buildgate/buildgate/internal/gitsafe"
	"github.com/buildgate/buildgate/internal/safefile"
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

// Timeout bounds finding the git directory: provenance is worth a short
// wait, not a stuck gate (git blocks on a FIFO planted in .git).
var Timeout = 10 * time.Second

// Read returns the provenance of the checkout whose top level is root, or
// false when root holds no readable git repository.
func Read(root string) (Provenance, bool) {
	if _, err := os.Lstat(filepath.Join(root, ".git")); err != nil {
		return Provenance{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	out, err := gitsafe.Run(ctx, root, "rev-parse", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return Provenance{}, false
	}
	dirs := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(dirs) != 2 {
		return Provenance{}, false
	}
	common := dirs[1]
	if !filepath.IsAbs(common) {
		common = filepath.Join(root, common)
	}
	gitDir, err := os.OpenRoot(dirs[0])
	if err != nil {
		return Provenance{}, false
	}
	defer func() { _ = gitDir.Close() }()
	commonDir, err := os.OpenRoot(common)
	if err != nil {
		return Provenance{}, false
	}
	defer func() { _ = commonDir.Close() }()
	head, err := safefile.GitMeta(gitDir, "HEAD", safefile.GitMetaLimit)
	if err != nil {
		return Provenance{}, false
	}
	var p Provenance
	h := strings.TrimSpace(string(head))
	if ref, isRef := strings.CutPrefix(h, "ref: "); isRef {
		if !validRef(ref) {
			return Provenance{}, false
		}
		p.Branch = strings.TrimPrefix(ref, "refs/heads/")
		p.Revision = readRef(gitDir, commonDir, ref)
	} else if hashRe.MatchString(h) {
		p.Revision = h
	}
	if p.Revision == "" {
		// A repository without commits has nothing to point at.
		return Provenance{}, false
	}
	p.RepositoryURI = originURI(commonDir)
	return p, true
}

// validRef: a ref name as git writes them (refs/...), nothing that climbs.
func validRef(ref string) bool {
	return strings.HasPrefix(ref, "refs/") && path.Clean(ref) == ref && !strings.Contains(ref, "..") &&
		!strings.ContainsAny(ref, "\\\x00")
}

func readRef(gitDir, common *os.Root, ref string) string {
	for _, dir := range []*os.Root{gitDir, common} {
		if b, err := safefile.GitMeta(dir, ref, safefile.GitMetaLimit); err == nil {
			if h := strings.TrimSpace(string(b)); hashRe.MatchString(h) {
				return h
			}
		}
	}
	b, err := safefile.GitMeta(common, "packed-refs", safefile.PackedRefsMax)
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
func originURI(common *os.Root) string {
	b, err := safefile.GitMeta(common, "config", safefile.PackedRefsMax)
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
