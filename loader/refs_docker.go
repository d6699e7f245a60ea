package loader

import (
	"bytes"
	"path"
	"strings"
)

// A script of the repository a Dockerfile copies into the image (COPY,
// ADD, or RUN --mount=type=bind) and then runs there (`RUN sh /mc`, `RUN
// /opt/build`) is run by the build: it is read as a shell script whatever
// its name or first line. The build context is not known here: the source
// is tried from the root and from the Dockerfile's directory.

// dockerfileRefs are the repository's files a Dockerfile's RUNs run after
// copying or mounting them.
func dockerfileRefs(d *DockerfileDocument) []FileRef {
	var out []FileRef
	dir := path.Dir(d.Path)
	for _, st := range d.Stages {
		copied := map[string][]string{} // path in the image -> sources
		workdir := "/"
		for _, in := range st.Instructions {
			switch in.Cmd {
			case "workdir":
				if len(in.Args) > 0 {
					workdir = imagePath(workdir, wordValue(in.Args[0]))
				}
			case "copy", "add":
				if !hasFlag(in.Flags, "from") {
					copies(copied, workdir, in.Args)
				}
			case "run":
				for _, m := range in.Mounts {
					if m.Type == "bind" && m.From == "" && m.Source != "" && m.Target != "" {
						copied[imagePath(workdir, m.Target)] = []string{m.Source}
					}
				}
				if in.Shell != nil {
					out = append(out, runsCopied(in.Shell.Commands, copied, workdir, dir)...)
					out = append(out, pipRefs(in.Shell.Commands, copied, workdir, dir)...)
				}
			}
		}
	}
	return out
}

func hasFlag(flags []Flag, name string) bool {
	for _, f := range flags {
		if f.Name == name {
			return true
		}
	}
	return false
}

// imagePath is a path in the image, read from the working directory.
func imagePath(workdir, p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return path.Join(workdir, p)
}

// copiedSources are the sources of a path in the image: what was copied
// there, or into a directory above it (COPY tools /t, then /t/fetch.py is
// tools/fetch.py).
func copiedSources(copied map[string][]string, p string) []string {
	if srcs, ok := copied[p]; ok {
		return srcs
	}
	for dir, rest := path.Dir(p), path.Base(p); dir != "/" && dir != "."; dir, rest = path.Dir(dir), path.Base(dir)+"/"+rest {
		if srcs, ok := copied[dir]; ok {
			var out []string
			for _, s := range srcs {
				out = append(out, path.Join(s, rest))
			}
			return out
		}
	}
	return nil
}

// copies records what a COPY or ADD puts where: a source at the
// destination, or in it when the destination is a directory (a trailing
// slash, or several sources).
func copies(copied map[string][]string, workdir string, args []Word) {
	if len(args) < 2 {
		return
	}
	dstText := wordValue(args[len(args)-1])
	dst := imagePath(workdir, dstText)
	srcs := args[:len(args)-1]
	asDir := strings.HasSuffix(dstText, "/") || len(srcs) > 1
	for _, s := range srcs {
		v := wordValue(s)
		if v == "" || strings.HasPrefix(v, "<<") || strings.Contains(v, "://") {
			continue
		}
		at := dst
		if asDir {
			at = path.Join(dst, path.Base(v))
		}
		copied[at] = append(copied[at], v)
	}
}

// runsCopied are the sources of the copied files the commands run: a
// shell's script file, or a command named by its path.
func runsCopied(cmds []ShellCommand, copied map[string][]string, workdir, dir string) []FileRef {
	var out []FileRef
	for _, c := range cmds {
		if len(c.Words) == 0 {
			continue
		}
		ran := c.Words[0]
		byPath := true
		if interpreters[path.Base(c.Name)] || isPython(c.Name) {
			j := scriptArg(c.Words)
			if isPython(c.Name) {
				j = pythonScriptArg(c.Words)
			}
			if j <= 0 {
				continue
			}
			ran, byPath = c.Words[j], false
		} else if !strings.Contains(c.Name, "/") {
			continue
		}
		for _, src := range copiedSources(copied, imagePath(workdir, wordValue(ran))) {
			for _, p := range []string{src, path.Join(dir, src)} {
				if r, ok := refFor(p, "runs", KindShell, ran.Pos); ok {
					// Run by its path, a file named for another language
					// is a shell script when its #! says so.
					r.Shebang = byPath && path.Ext(path.Base(src)) != ""
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// copiesAndRuns reports, without parsing, whether a Dockerfile may run a
// file it copies or mounts from the repository whose name says nothing of
// its kind (no extension): such a file is only found through the parse
// (dockerfileRefs), so the Dockerfile is parsed even when it mentions
// nothing the rules look for. "Runs" is read from the text (runsName).
// Lines, not regular expressions: Dockerfiles are many, and most of them
// are never parsed.
func copiesAndRuns(src []byte) bool {
	var dsts []string
	for rest := src; len(rest) > 0; {
		line := rest
		if k := bytes.IndexByte(rest, '\n'); k >= 0 {
			line, rest = rest[:k], rest[k+1:]
		} else {
			rest = nil
		}
		f := strings.Fields(string(line))
		if len(f) == 0 {
			continue
		}
		if cmd := strings.ToLower(f[0]); (cmd == "copy" || cmd == "add") && !bytes.Contains(bytes.ToLower(line), []byte("--from=")) {
			args := f[1:]
			for len(args) > 0 && strings.HasPrefix(args[0], "--") {
				args = args[1:]
			}
			for k := 0; k+1 < len(args); k++ {
				if mayRun(args[k]) {
					dsts = append(dsts, args[len(args)-1], path.Base(args[k]))
				}
			}
		}
		if bytes.Contains(line, []byte("type=bind")) {
			dsts = append(dsts, bindTargets(f)...)
		}
	}
	for _, d := range dsts {
		d = strings.TrimSuffix(d, "/")
		if d != "" && d != "." && (runsName(src, path.Base(d)) || pythonRuns(src, d)) {
			return true
		}
	}
	return false
}

// pythonRuns reports whether a Python interpreter runs a file at or below
// a copied path (python3 -u /t/fetch.py after COPY tools /t).
func pythonRuns(src []byte, dst string) bool {
	if !bytes.Contains(src, []byte("python")) {
		return false
	}
	i := bytes.Index(src, []byte(dst))
	for i >= 0 {
		line := src[bytes.LastIndexByte(src[:i], '\n')+1 : i]
		if j := bytes.LastIndex(line, []byte("python")); j >= 0 && !bytes.ContainsAny(line[j:], ";&|") {
			return true
		}
		next := bytes.Index(src[i+len(dst):], []byte(dst))
		if next < 0 {
			break
		}
		i += len(dst) + next
	}
	return false
}

// runsName reports whether a text runs a file of that name: by its path
// as a command's first word (a command with a slash is not looked up in
// PATH: `cmake` is not a copied cmake/ directory), or as the script a
// shell or source runs. A scan, not a regular expression: Dockerfiles are
// many, and most of them are never parsed.
func runsName(src []byte, name string) bool {
	n := []byte(name)
	for off, seen := 0, 0; seen < 1000; seen++ {
		i := bytes.Index(src[off:], n)
		if i < 0 {
			return false
		}
		i += off
		off = i + len(n)
		if off < len(src) && !bytes.ContainsRune([]byte(" \t\r\n;&|)"), rune(src[off])) {
			continue
		}
		start := i
		for start > 0 && !bytes.ContainsRune([]byte(" \t\n;&|("), rune(src[start-1])) {
			start--
		}
		tok := src[start:off]
		if !bytes.Equal(tok, n) && !bytes.HasSuffix(tok, append([]byte("/"), n...)) {
			continue // a longer name that ends with this one (x.cmake)
		}
		if tok[0] == '-' || bytes.ContainsRune(tok, '=') {
			continue // an option's value (--mount=…,target=/x/name)
		}
		prev, sep := prevWord(src, start)
		pathRun := bytes.Contains(tok, []byte("/")) && (sep || prev == "RUN" || prev == "run" || prev == "exec" || prev == "sudo")
		if pathRun || interpreters[prev] || isPython(prev) {
			return true
		}
	}
	return false
}

// prevWord is the word before position i on its line, or sep true when a
// command separator (; & | ( or the start of the line) comes first.
func prevWord(src []byte, i int) (string, bool) {
	j := i
	for {
		for j > 0 && (src[j-1] == ' ' || src[j-1] == '\t') {
			j--
		}
		// A line continuation (\ at the end of the line before) joins
		// the lines: the word before is on the line above.
		if j >= 2 && src[j-1] == '\n' && src[j-2] == '\\' {
			j -= 2
			continue
		}
		break
	}
	if j == 0 || bytes.ContainsRune([]byte("\n;&|("), rune(src[j-1])) {
		return "", true
	}
	k := j
	for k > 0 && !bytes.ContainsRune([]byte(" \t\n;&|("), rune(src[k-1])) {
		k--
	}
	return string(src[k:j]), false
}

// bindTargets are the targets of a line's bind mounts of the context
// whose sources have no extension.
func bindTargets(fields []string) []string {
	var out []string
	for _, fl := range fields {
		m, ok := strings.CutPrefix(fl, "--mount=")
		if !ok {
			continue
		}
		var source, target, from, typ string
		for _, kv := range strings.Split(m, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "source", "src":
				source = v
			case "target", "dst", "destination":
				target = v
			case "from":
				from = v
			case "type":
				typ = v
			}
		}
		if typ == "bind" && from == "" && mayRun(source) && target != "" {
			out = append(out, target)
		}
	}
	return out
}

// mayRun reports whether a copied source may be a script discovery does
// not read by its name: a file or directory of the context not named as a
// shell script (a shell runs any file it is given, the kernel any file by
// its #! line).
func mayRun(s string) bool {
	s = strings.Trim(s, `"'`)
	ext := path.Ext(path.Base(s))
	return s != "" && s != "." && !strings.HasPrefix(s, "-") && !strings.Contains(s, "://") &&
		!strings.HasPrefix(s, "<<") && ext != ".sh" && ext != ".bash"
}

// pipRefs are the requirement files pip or uv commands read (-r, -c,
// --override, uv pip sync FILE): read as requirements whatever their
// names (requirements/rocm.lock, deps.in). A file copied or mounted into
// the image is its source; otherwise the path as the command names it,
// from the root and from dir.
func pipRefs(cmds []ShellCommand, copied map[string][]string, workdir, dir string) []FileRef {
	var out []FileRef
	for _, c := range cmds {
		if c.Pip == nil {
			continue
		}
		for _, f := range c.Pip.Files {
			if f.Kind == "project" {
				continue
			}
			v, ok := val(f.Word)
			if !ok || strings.Contains(v, "://") {
				continue
			}
			cands := copiedSources(copied, imagePath(workdir, v))
			if c.Dir != nil && copied != nil {
				cands = append(cands, copiedSources(copied, imagePath(*c.Dir, v))...)
			}
			if !strings.HasPrefix(v, "/") {
				cands = append(cands, v)
			}
			for _, src := range cands {
				for _, p := range []string{src, path.Join(dir, src)} {
					if r, ok := refFor(p, "install", KindRequirements, f.Word.Pos); ok && !r.Glob && r.raw == "" {
						out = append(out, r)
					}
				}
			}
		}
	}
	return out
}
