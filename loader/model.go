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

// installs reports whether a command is a pip or uv install, wheel,
// download or add (pip.go's reading of the command).
func installs(c *ShellCommand) bool {
	_, op, _, ok := pipCommand(c)
	return ok && (op == "install" || op == "wheel" || op == "download" || op == "add")
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
