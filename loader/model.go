package loader

import (
	"path"
	"strings"

	"github.com/buildgate/buildgate/repoid"
)

// The build model of a command (issue 28): what source it fetches and
// which directories it works on, read with each program's own grammar
// (git(1), gh, curl/wget, pip/uv, docker build, make, cmake, ninja,
// meson). Every rule and user policy reads these instead of matching the
// words: `git -C /src clone --depth 1 git@github.com:kvcache-ai/Mooncake.git mc`
// fetches github.com/kvcache-ai/mooncake into /src/mc.

// Fetch is the source a command fetches.
type Fetch struct {
	// Kind: "file" (one file of the repository or a page about it:
	// raw.githubusercontent.com, …/raw/…, …/blob/…, a release asset, an
	// API call other than an archive's), "copy" (a directory copied or
	// moved: what was fetched there is then here), "clone" (git clone, gh repo clone, git submodule add, an
	// svn/hg checkout), "update" (git fetch/pull/remote add into the
	// repository at the command's directory), "download" (curl, wget,
	// git archive --remote), "install" (pip/uv install from a VCS or
	// archive URL, go install), "context" (a build context or bake
	// definition from a repository: docker build URL, --build-context,
	// buildx bake URL).
	Kind string `json:"kind"`
	URL  Word   `json:"url"`
	// Repository is the identity of what is fetched (package repoid):
	// host/owner/name in lower case, whatever the URL's spelling.
	Repository string `json:"repository"`
	// Into is the directory the source lands in, when known: a clone's
	// directory resolved against the command's, the directory tar or
	// unzip unpacks a download into (with a last part of * for the
	// archive's own top directory: /opt/Mooncake-*).
	Into *string `json:"into"`
	// From, for a copy (Kind "copy": cp -r, mv, rsync), is what is
	// copied to Into.
	From *string `json:"from,omitempty"`
	// Pos is the URL's.
	Pos Pos `json:"pos"`
}

// modelCommands gives every command of a script its fetch and dirs.
func modelCommands(s *Script) {
	for i := range s.Commands {
		c := &s.Commands[i]
		chdirWrapper(c)
		c.Fetch = fetchOf(c)
		if c.Fetch != nil {
			c.Fetch.Pos = c.Fetch.URL.Pos
		}
		c.Dirs = dirsOf(c)
	}
	unpacked(s)
	copied(s)
}

// chdirWrapper gives a command run by env -C DIR (--chdir) or sudo -D
// DIR (--chdir) that directory.
func chdirWrapper(c *ShellCommand) {
	for k := 0; k < len(c.Wrappers); k++ {
		prog := path.Base(wordValue(c.Wrappers[k]))
		if prog != "env" && prog != "sudo" {
			continue
		}
		short := map[string]string{"env": "-C", "sudo": "-D"}[prog]
		for j := k + 1; j < len(c.Wrappers); j++ {
			v := wordValue(c.Wrappers[j])
			switch {
			case (v == short || v == "--chdir") && j+1 < len(c.Wrappers):
				if d, ok := pathOf(c.Wrappers[j+1]); ok {
					c.Dir = under(c.Dir, d)
				}
			case strings.HasPrefix(v, "--chdir="):
				c.Dir = under(c.Dir, strings.TrimPrefix(v, "--chdir="))
			}
		}
	}
}

// val is a word's static value or, failing that, its resolved one.
func val(w Word) (string, bool) {
	if w.Value != nil {
		return *w.Value, true
	}
	if w.Resolved != nil {
		return *w.Resolved, true
	}
	return "", false
}

// pathOf is a word's value as a path: its static or resolved value, else
// the symbolic form of a path that starts with a variable (shell_dir.go).
func pathOf(w Word) (string, bool) {
	if v, ok := val(w); ok {
		return v, true
	}
	return symbolic(w.Text)
}

// under is dir joined with p (p itself when absolute or symbolic); nil
// when either is unknown.
func under(dir *string, p string) *string {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "$") {
		return strp(path.Clean(p))
	}
	if dir == nil {
		return nil
	}
	return strp(joinDir(*dir, p))
}

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
	if len(pos) == 0 {
		return nil
	}
	u, ok := val(pos[0])
	if !ok {
		return nil
	}
	id, ok := repoid.Of(u)
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
	if len(pos) == 0 {
		return nil
	}
	u, ok := val(pos[0])
	if !ok {
		return nil
	}
	id, ok := repoid.Of(u)
	if !ok {
		id, ok = repoid.Of("https://github.com/" + u)
	}
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

// installs reports whether a command is pip/uv install.
func installs(c *ShellCommand) bool {
	ws := c.Words
	n := path.Base(c.Name)
	k := 1
	switch {
	case n == "pip" || n == "pip3" || strings.HasPrefix(n, "pip3."):
	case n == "uv":
		if len(ws) < 3 {
			return false
		}
		if v, _ := val(ws[1]); v != "pip" && v != "add" && v != "tool" {
			return false
		}
		if v, _ := val(ws[1]); v == "add" {
			return true
		}
		k = 2
	case strings.HasPrefix(n, "python"):
		for k < len(ws) {
			if v, _ := val(ws[k]); v == "-m" && k+1 < len(ws) {
				if m, _ := val(ws[k+1]); m == "pip" {
					k += 2
					break
				}
				return false
			}
			k++
		}
		if k >= len(ws) {
			return false
		}
	default:
		return false
	}
	for ; k < len(ws); k++ {
		v, _ := val(ws[k])
		if strings.HasPrefix(v, "-") {
			continue
		}
		return v == "install" || v == "wheel" || v == "download"
	}
	return false
}

// contextFetch reads a docker/podman/buildx build's context and
// --build-context values, and bake's remote definition.
func contextFetch(c *ShellCommand, tool string, i int) *Fetch {
	for _, o := range buildOptions(tool, c.Words[i:]) {
		v, ok := val(o.Value)
		if !ok {
			continue
		}
		switch o.Name {
		case "":
		case "--build-context":
			_, v, _ = strings.Cut(v, "=")
		default:
			continue
		}
		if !strings.Contains(v, "://") && !strings.HasPrefix(v, "git@") {
			continue
		}
		if id, ok := repoid.Of(v); ok {
			return &Fetch{Kind: "context", URL: o.Value, Repository: id}
		}
	}
	return nil
}

// dirOptions are the options by which build tools work on a directory
// other than their own: make -C, cmake -S/-B/--build/--install, ninja
// -C, meson -C, git -C, go -C, pip/uv's --project and cargo's
// --manifest-path.
var dirOptions = map[string]map[string]bool{
	"make":   set("-C", "--directory"),
	"gmake":  set("-C", "--directory"),
	"ninja":  set("-C"),
	"cmake":  set("-S", "-B", "--build", "--install", "-H"),
	"meson":  set("-C"),
	"git":    set("-C"),
	"go":     set("-C"),
	"cargo":  set("--manifest-path"),
	"bazel":  set("--output_base"),
	"python": set(),
}

// dirsOf are the directories a command works on besides its own, each
// resolved against it: the values of its directory options, cmake's and
// meson's source and build directories, and the local directories pip,
// uv and python -m build install or build from.
func dirsOf(c *ShellCommand) []string {
	name := path.Base(c.Name)
	var out []string
	add := func(p string) {
		if d := under(c.Dir, strings.TrimSuffix(p, "/")); d != nil && len(out) < 16 {
			out = append(out, *d)
		}
	}
	if strings.Contains(c.Name, "/") && !interpreters[name] {
		// A program run by its path works where it lies (its own
		// repository's script).
		add(path.Dir(c.Name))
	}
	optionDirs(c, dirOptions[name], add)
	switch {
	case name == "cmake" || name == "meson" && len(c.Words) > 1:
		// cmake [options] <path>: the positional path is the source (or
		// an existing build) directory; meson setup BUILD [SOURCE].
		for _, p := range positionals(c.Words[1:], cmakeValued) {
			if v, ok := pathOf(p); ok && v != "setup" && v != "compile" && v != "install" && !strings.Contains(v, "=") {
				add(v)
			}
		}
	case installs(c):
		installDirs(c, add)
	case interpreters[name] && len(c.Words) > 1:
		// bash /opt/mc/dependencies.sh: the script's directory.
		if j := scriptArg(c.Words); j > 0 {
			if v, ok := pathOf(c.Words[j]); ok && strings.Contains(v, "/") {
				add(path.Dir(v))
			}
		}
	case strings.HasPrefix(name, "python"):
		// python -m build DIR, python setup.py … (in its directory).
		for k := 1; k+2 < len(c.Words); k++ {
			if v, _ := val(c.Words[k]); v == "-m" {
				if m, _ := val(c.Words[k+1]); m == "build" {
					if d, ok := val(c.Words[k+2]); ok && localPath(d) {
						add(d)
					}
				}
			}
		}
	}
	return out
}

// cmakeValued are cmake's (and meson's) options that take the next word.
var cmakeValued = set("-G", "-T", "-A", "-C", "-D", "-U", "-P", "-E", "--preset", "--target", "-t", "-j", "--parallel", "--config", "--prefix", "--component", "-S", "-B", "--build", "--install", "-H")

// pipValued are pip's and uv's install options that take the next word.
var pipValued = set("-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-t", "--target", "--prefix", "--root", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--python", "-p")

// optionDirs adds the values of a command's directory options: -C DIR,
// -CDIR, --directory=DIR.
func optionDirs(c *ShellCommand, opts map[string]bool, add func(string)) {
	for k := 1; k < len(c.Words); k++ {
		v, ok := val(c.Words[k])
		if !ok {
			continue
		}
		if opts[v] && k+1 < len(c.Words) {
			if d, ok := pathOf(c.Words[k+1]); ok {
				add(d)
			}
			k++
			continue
		}
		for o := range opts {
			if strings.HasPrefix(v, o) && len(v) > len(o) && !strings.HasPrefix(o, "--") {
				add(v[len(o):]) // -Cdir, -Sdir
			} else if strings.HasPrefix(v, o+"=") {
				add(v[len(o)+1:])
			}
		}
	}
}

// installDirs adds the local directories pip or uv installs from.
func installDirs(c *ShellCommand, add func(string)) {
	for _, p := range positionals(c.Words[1:], pipValued) {
		if v, ok := pathOf(p); ok && localPath(v) {
			add(v)
		}
	}
	for k := 1; k+1 < len(c.Words); k++ {
		if v, _ := val(c.Words[k]); v == "-e" || v == "--editable" {
			if d, ok := val(c.Words[k+1]); ok && localPath(d) {
				add(d)
			}
		}
	}
}

// positionals are the words that are not options or option values.
func positionals(ws []Word, valued map[string]bool) []Word {
	var out []Word
	for k := 0; k < len(ws); k++ {
		v, ok := val(ws[k])
		if ok && strings.HasPrefix(v, "-") {
			if valued[v] {
				k++
			}
			continue
		}
		out = append(out, ws[k])
	}
	return out
}

// localPath reports whether a pip argument is a local directory (".",
// "./x", "/x", "x/y"), not a requirement, a URL, or a built wheel or
// archive.
func localPath(v string) bool {
	if v == "" || strings.Contains(v, "://") || strings.ContainsAny(v, "<>=!~;@ *") || strings.HasPrefix(v, "git+") {
		return false
	}
	for _, ext := range []string{".whl", ".tar.gz", ".tgz", ".zip", ".egg", ".txt"} {
		if strings.HasSuffix(strings.ToLower(v), ext) {
			return false
		}
	}
	return v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "/") || strings.Contains(v, "/")
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
