package loader

import (
	"path"
	"strings"

	"github.com/buildgate/buildgate/repoid"
)

// What a command fetches, read with each program's grammar (model.go).

// gitGlobal are git's options before the subcommand that take a value.
var gitGlobal = set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env", "--super-prefix", "--list-cmds", "--attr-source")

// gitCloneValued are git clone's options that take the next word.
var gitCloneValued = set("-b", "--branch", "--depth", "-o", "--origin", "-c", "--config", "--reference",
	"--reference-if-able", "--separate-git-dir", "-j", "--jobs", "--filter", "-u", "--upload-pack",
	"--template", "--shallow-since", "--shallow-exclude", "--server-option", "--bundle-uri", "--revision")

// fetchOf is the source a command fetches, or nil.
func fetchOf(c *ShellCommand) *Fetch {
	if len(c.Words) == 0 {
		return nil
	}
	switch path.Base(c.Name) {
	case "git":
		return gitFetch(c)
	case "gh":
		return ghFetch(c)
	case "curl", "wget", "aria2c", "http", "fetch":
		return urlFetch(c, "download", 1)
	case "svn", "hg", "bzr", "fossil":
		if len(c.Words) > 1 {
			if v, _ := val(c.Words[1]); v == "checkout" || v == "co" || v == "clone" || v == "export" {
				return cloneLike(c, 2)
			}
		}
	case "go":
		if len(c.Words) > 1 {
			if v, _ := val(c.Words[1]); v == "install" || v == "get" {
				return goFetch(c)
			}
		}
	}
	if installs(c) {
		return urlFetch(c, "install", 2)
	}
	if tool, i := buildTool(c.Words); tool != "" {
		return contextFetch(c, tool, i)
	}
	return nil
}

// gitFetch reads git [global options] SUBCOMMAND ….
func gitFetch(c *ShellCommand) *Fetch {
	base := c.Dir
	i := 1
	for i < len(c.Words) {
		v, ok := val(c.Words[i])
		if !ok || !strings.HasPrefix(v, "-") {
			break
		}
		if v == "-C" && i+1 < len(c.Words) {
			d, ok := pathOf(c.Words[i+1])
			if !ok {
				base = nil
			} else {
				base = under(base, d)
			}
		}
		if gitGlobal[v] {
			i++
		}
		i++
	}
	if i >= len(c.Words) {
		return nil
	}
	sub, _ := val(c.Words[i])
	args := c.Words[i+1:]
	switch sub {
	case "clone":
		return gitClone(args, base)
	case "submodule":
		if len(args) > 0 {
			if v, _ := val(args[0]); v == "add" {
				return gitClone(args[1:], base)
			}
		}
	case "fetch", "pull", "remote":
		for _, w := range args {
			if v, ok := val(w); ok {
				if id, ok := repoid.Of(v); ok {
					return &Fetch{Kind: "update", URL: w, Repository: id, Into: base}
				}
			}
		}
	case "archive":
		for _, w := range args {
			if v, ok := val(w); ok && strings.HasPrefix(v, "--remote=") {
				if id, ok := repoid.Of(strings.TrimPrefix(v, "--remote=")); ok {
					return &Fetch{Kind: "download", URL: w, Repository: id}
				}
			}
		}
	}
	return nil
}

// gitClone reads clone's arguments: the repository, then the directory.
func gitClone(args []Word, base *string) *Fetch {
	var pos []Word
	for k := 0; k < len(args); k++ {
		v, ok := val(args[k])
		if ok && strings.HasPrefix(v, "-") && len(v) > 1 {
			if gitCloneValued[v] {
				k++
			}
			continue
		}
		pos = append(pos, args[k])
	}
	u, id, ok := firstRepository(pos, "")
	if !ok {
		return nil
	}
	f := &Fetch{Kind: "clone", URL: pos[0], Repository: id}
	if len(pos) > 1 {
		if d, ok := pathOf(pos[1]); ok {
			f.Into = under(base, strings.TrimSuffix(d, "/"))
		}
		return f
	}
	f.Into = under(base, humanish(u, id))
	return f
}

// humanish is the directory git clone makes for a repository: the URL's
// last path part without ".git" (git's own name for this), as the URL
// spells it; the identity's when the URL's cannot be taken apart.
func humanish(u, id string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	u = strings.TrimRight(u, "/")
	u = strings.TrimSuffix(u, "/.git")
	base := u[strings.LastIndexAny(u, "/:")+1:]
	if len(base) > 4 && strings.EqualFold(base[len(base)-4:], ".git") {
		base = base[:len(base)-4]
	}
	if base == "" || base == "." || base == ".." || strings.ContainsAny(base, "%@") {
		return path.Base(id)
	}
	return base
}

// cloneLike reads svn checkout / hg clone URL [DIR].
func cloneLike(c *ShellCommand, from int) *Fetch {
	args := c.Words[from:]
	for k, w := range args {
		v, ok := val(w)
		if !ok || strings.HasPrefix(v, "-") {
			continue
		}
		id, ok := repoid.Of(v)
		if !ok {
			return nil
		}
		f := &Fetch{Kind: "clone", URL: w, Repository: id, Into: under(c.Dir, humanish(v, id))}
		if k+1 < len(args) {
			if d, ok := val(args[k+1]); ok && !strings.HasPrefix(d, "-") {
				f.Into = under(c.Dir, d)
			}
		}
		return f
	}
	return nil
}

// ghFetch reads gh repo clone OWNER/NAME|URL [DIR] and gh repo fork --clone.
func ghFetch(c *ShellCommand) *Fetch {
	if len(c.Words) < 4 {
		return nil
	}
	if v, _ := val(c.Words[1]); v != "repo" {
		return nil
	}
	if v, _ := val(c.Words[2]); v != "clone" && v != "fork" {
		return nil
	}
	var pos []Word
	for _, w := range c.Words[3:] {
		v, ok := val(w)
		if v == "--" {
			break
		}
		if ok && strings.HasPrefix(v, "-") {
			continue
		}
		pos = append(pos, w)
	}
	u, id, ok := firstRepository(pos, "https://github.com/")
	if !ok {
		return nil
	}
	f := &Fetch{Kind: "clone", URL: pos[0], Repository: id, Into: under(c.Dir, humanish(u, id))}
	if len(pos) > 1 {
		if d, ok := val(pos[1]); ok {
			f.Into = under(c.Dir, d)
		}
	}
	return f
}

// urlFetch is the first argument from index from on that is a repository
// URL (curl -L URL, pip install git+URL).
func urlFetch(c *ShellCommand, kind string, from int) *Fetch {
	for k := from; k < len(c.Words); k++ {
		v, ok := val(c.Words[k])
		if !ok {
			continue
		}
		v = strings.TrimPrefix(v, "--url=")
		if _, u, found := strings.Cut(v, " @ "); found { // PEP 508 name @ URL
			v = u
		}
		if !strings.Contains(v, "://") && !strings.HasPrefix(v, "git@") {
			continue
		}
		if id, ok := repoid.Of(v); ok {
			if kind == "download" && oneFile(v) {
				kind = "file"
			}
			if kind == "install" && BuiltWheelURL(v) {
				// pip installs a wheel as it is: a release asset of the
				// repository, built already, not its source (issue 32:
				// vLLM's +cpu wheels in llm-d-kv-cache's Dockerfile).
				kind = "wheel"
			}
			return &Fetch{Kind: kind, URL: c.Words[k], Repository: id}
		}
	}
	return nil
}

// goFetch reads go install/get MODULE[@version]: a module path is its
// repository on the hosts whose paths are owner/name.
func goFetch(c *ShellCommand) *Fetch {
	for _, w := range c.Words[2:] {
		v, ok := val(w)
		if !ok || strings.HasPrefix(v, "-") {
			continue
		}
		mod, _, _ := strings.Cut(v, "@")
		if id, ok := repoid.Of("https://" + mod); ok && strings.Count(id, "/") >= 2 {
			return &Fetch{Kind: "install", URL: w, Repository: id}
		}
	}
	return nil
}

// oneFile reports whether a download URL is one file of a repository (a
// LICENSE, a script, a release asset) or a page about it (an issue, a
// release's metadata), not its source tree: on GitHub the source is the
// repository's own URL, an archive (/archive/, codeload, the API's
// tarball and zipball).
func oneFile(u string) bool {
	l := strings.ToLower(u)
	if i := strings.IndexAny(l, "?#"); i >= 0 {
		l = l[:i]
	}
	switch {
	case strings.Contains(l, "://raw.githubusercontent.com/"), strings.Contains(l, "://objects.githubusercontent.com/"),
		strings.Contains(l, "/raw/"), strings.Contains(l, "/blob/"), strings.Contains(l, "/releases/download/"):
		return true
	case strings.Contains(l, "://api.github.com/repos/"):
		return !strings.Contains(l, "/tarball") && !strings.Contains(l, "/zipball")
	case strings.Contains(l, "://github.com/"):
		parts := strings.Split(strings.TrimRight(l[strings.Index(l, "://github.com/")+len("://github.com/"):], "/"), "/")
		return len(parts) > 2 && parts[2] != "archive" && parts[2] != "tarball" && parts[2] != "zipball"
	}
	return false
}

// firstRepository is the value of the first of the positional words and
// the repository it names (as a URL, else under base: gh's OWNER/NAME).
func firstRepository(pos []Word, base string) (string, string, bool) {
	if len(pos) == 0 {
		return "", "", false
	}
	u, ok := val(pos[0])
	if !ok {
		return "", "", false
	}
	id, ok := repoid.Of(u)
	if !ok && base != "" {
		id, ok = repoid.Of(base + u)
	}
	return u, id, ok
}

// BuiltWheelURL reports whether a URL (or a word spelling one with
// expansions) names a wheel file: its path, without query and fragment,
// ends in .whl. pip installs a wheel without building anything; an sdist
// (.tar.gz, .zip) or a VCS URL it builds from source.
func BuiltWheelURL(u string) bool {
	if i := strings.IndexAny(u, "#?"); i >= 0 {
		u = u[:i]
	}
	return strings.HasSuffix(strings.ToLower(strings.Trim(u, `"'`)), ".whl")
}
