// Package repoid tells which repository a URL fetches: a repository is an
// identity, not a string. `https://github.com:443/kvcache-ai/Mooncake.git`,
// `git@github.com:kvcache-ai/mooncake`, `ssh://git@github.com/kvcache-ai/./Mooncake/`,
// `git+https://github.com/kvcache-ai/Mooncake@v0.3.5#egg=x` and
// `https://api.github.com/repos/kvcache-ai/Mooncake/tarball/v0.3.5` all
// fetch github.com/kvcache-ai/mooncake.
//
// The forms are git's (git-clone(1) "GIT URLS": scheme://[user@]host[:port]/path,
// the scp-like [user@]host:path), pip's VCS URLs (vcs+scheme://…@rev#frag),
// buildkit's Git contexts (URL#ref:subdir), and the archive and API URLs
// of the hosts whose repository names are owner/name (GitHub, GitLab,
// Bitbucket, Gitee, Codeberg). Host names and, on those hosts, owner and
// name compare without case, as the hosts do.
package repoid

import (
	"net/url"
	"path"
	"strings"
	"unicode/utf8"
)

// ownerName are the hosts whose repositories are exactly owner/name and
// whose names compare without case; a longer path on them is a page or an
// archive of owner/name.
var ownerName = map[string]bool{
	"github.com": true, "bitbucket.org": true, "gitee.com": true, "codeberg.org": true,
}

// Of is the identity of the repository a URL fetches, "host/path" in
// lower case without a port, a user, ".git" or a trailing slash, with "."
// and ".." segments and doubled slashes resolved and percent-escapes
// decoded; ok is false when the text is no repository URL.
func Of(raw string) (string, bool) {
	s := strings.TrimSpace(raw)
	if s == "" || len(s) > 4096 || !utf8.ValidString(s) || strings.ContainsAny(s, " \t\n\"'`$") {
		return "", false
	}
	// pip's vcs+scheme:// and buildkit's git:// contexts.
	for _, p := range []string{"git+", "hg+", "svn+", "bzr+"} {
		if strings.HasPrefix(strings.ToLower(s), p) {
			s = s[len(p):]
			break
		}
	}
	host, p, ok := split(s)
	if !ok {
		return "", false
	}
	host = strings.ToLower(strings.TrimRight(host, "."))
	host = strings.TrimPrefix(host, "www.")
	if dec, err := url.PathUnescape(p); err == nil {
		p = dec
	}
	if !utf8.ValidString(p) || strings.ContainsAny(p, "?#@:\\`$'\"") || strings.ContainsFunc(p, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "", false // decoded into something no repository path holds
	}
	p = path.Clean("/" + p)
	p = strings.TrimPrefix(p, "/")
	if !validHost(host) || p == "" || p == "." {
		return "", false
	}
	return canonical(host, p)
}

// split takes a URL apart into its host and path, dropping the scheme,
// user, port, query and fragment (and pip's @rev).
func split(s string) (string, string, bool) {
	if i := strings.Index(s, "://"); i > 0 {
		scheme := strings.ToLower(s[:i])
		switch scheme {
		case "http", "https", "git", "ssh", "ftp", "ftps", "git+ssh", "ssh+git":
		default:
			return "", "", false
		}
		rest := s[i+3:]
		if j := strings.IndexAny(rest, "?#"); j >= 0 {
			rest = rest[:j]
		}
		auth, p, _ := strings.Cut(rest, "/")
		if k := strings.LastIndex(auth, "@"); k >= 0 {
			auth = auth[k+1:]
		}
		host := auth
		if strings.HasPrefix(host, "[") {
			return "", "", false
		}
		if k := strings.Index(host, ":"); k >= 0 {
			host = host[:k]
		}
		return host, dropRev(p), true
	}
	// scp-like: [user@]host:path, where no slash comes before the colon
	// (git-clone(1)); a Windows drive letter is a path.
	c := strings.Index(s, ":")
	if c <= 1 || strings.Contains(s[:c], "/") {
		return "", "", false
	}
	host := s[:c]
	if k := strings.LastIndex(host, "@"); k >= 0 {
		host = host[k+1:]
	}
	if !strings.Contains(host, ".") {
		return "", "", false
	}
	p := s[c+1:]
	if j := strings.IndexAny(p, "?#"); j >= 0 {
		p = p[:j]
	}
	return host, dropRev(p), true
}

// dropRev drops pip's @rev from a VCS URL's path (…/Mooncake.git@v0.3.5).
func dropRev(p string) string {
	if i := strings.LastIndex(p, "@"); i > 0 && strings.Contains(p[:i], "/") {
		return p[:i]
	}
	return p
}

// canonical is the identity on a known host: owner/name of its archive
// and API URLs, without case and ".git".
func canonical(host, p string) (string, bool) {
	parts := strings.Split(p, "/")
	switch host {
	case "api.github.com":
		// /repos/OWNER/NAME/{tarball,zipball,…}
		if len(parts) >= 3 && parts[0] == "repos" {
			return ownerRepo("github.com", parts[1:3])
		}
		return "", false
	case "ssh.github.com", "codeload.github.com", "raw.githubusercontent.com", "objects.githubusercontent.com":
		// ssh.github.com:443 is GitHub's SSH over the HTTPS port.
		return ownerRepo("github.com", parts)
	case "gitlab.com":
		// Groups nest; "/-/" starts a page or an archive of the project.
		for i, s := range parts {
			if s == "-" {
				parts = parts[:i]
				break
			}
		}
		return join(host, parts, true)
	}
	if ownerName[host] {
		return ownerRepo(host, parts)
	}
	return join(host, parts, false)
}

func ownerRepo(host string, parts []string) (string, bool) {
	if len(parts) < 2 {
		return "", false
	}
	return join(host, parts[:2], true)
}

func join(host string, parts []string, fold bool) (string, bool) {
	if len(parts) == 0 {
		return "", false
	}
	last := len(parts) - 1
	parts[last] = trimGit(parts[last])
	if parts[last] == "" || parts[last] == "." || parts[last] == ".." {
		return "", false
	}
	p := strings.Join(parts, "/")
	if fold {
		p = strings.ToLower(p)
	}
	return host + "/" + p, true
}

func trimGit(s string) string {
	if len(s) > 4 && strings.EqualFold(s[len(s)-4:], ".git") {
		return s[:len(s)-4]
	}
	return s
}

// Name is the repository's own name, the last part of its identity, in
// lower case: a fork or mirror of a repository keeps it.
func Name(id string) string {
	return strings.ToLower(id[strings.LastIndex(id, "/")+1:])
}

// Same reports whether two repository URLs (or identities) are the same
// repository.
func Same(a, b string) bool {
	x, ok1 := Of(a)
	y, ok2 := Of(b)
	if !ok1 {
		x, ok1 = Of("https://" + a)
	}
	if !ok2 {
		y, ok2 = Of("https://" + b)
	}
	return ok1 && ok2 && strings.EqualFold(x, y)
}

// validHost reports whether a host name is one: letters, digits, '-',
// '_' and '.'.
func validHost(h string) bool {
	if h == "" || len(h) > 253 || h[0] == '.' || h[0] == '-' || strings.Contains(h, "..") {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '.' && c != '_' {
			return false
		}
	}
	return true
}
