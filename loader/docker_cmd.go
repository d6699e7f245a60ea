package loader

import "strings"

// A docker command as the Docker CLI (cobra and pflag) reads it: global
// options before the subcommand (`docker --context x build`, `docker
// buildx --builder b build`), an option's value in the next word or in the
// same one (`--file=F`, `-f F`, `-fF`, `-f=F`, `-qf F`). Podman reads its
// own global options the same way.

// cliOptions are a program's options that take a value, by long name and
// by shorthand; any other option is a switch.
type cliOptions struct {
	long  map[string]bool
	short string
	// alias maps a shorthand to its long name.
	alias map[byte]string
}

var (
	dockerGlobal = cliOptions{long: set("--config", "--context", "--host", "--log-level", "--tlscacert", "--tlscert", "--tlskey"),
		short: "cHl", alias: map[byte]string{'c': "--context", 'H': "--host", 'l': "--log-level"}}
	podmanGlobal = cliOptions{long: set("--cgroup-manager", "--conmon", "--connection", "--events-backend", "--hooks-dir", "--identity",
		"--imagestore", "--log-level", "--module", "--network-cmd-path", "--network-config-dir", "--out", "--root", "--runroot",
		"--runtime", "--runtime-flag", "--ssh", "--storage-driver", "--storage-opt", "--tmpdir", "--url", "--volumepath",
		"--cni-config-dir", "--config", "--context", "--host"),
		short: "cH", alias: map[byte]string{'c': "--connection", 'H': "--host"}}
	buildxGlobal = cliOptions{long: set("--builder")}
	dockerBuild  = cliOptions{long: set("--add-host", "--allow", "--annotation", "--attest", "--build-arg", "--build-context", "--builder",
		"--cache-from", "--cache-to", "--call", "--cgroup-parent", "--cpu-period", "--cpu-quota", "--cpu-shares", "--cpuset-cpus",
		"--cpuset-mems", "--file", "--iidfile", "--isolation", "--label", "--memory", "--memory-swap", "--metadata-file", "--network",
		"--no-cache-filter", "--output", "--platform", "--progress", "--provenance", "--sbom", "--secret", "--security-opt",
		"--shm-size", "--ssh", "--tag", "--target", "--ulimit", "--policy", "--cpu-rt-period", "--cpu-rt-runtime", "--format",
		"--volume", "--from", "--layers", "--jobs", "--os", "--arch", "--variant", "--creds", "--authfile", "--cert-dir",
		"--ignorefile", "--manifest", "--retry", "--retry-delay", "--timestamp", "--userns", "--uts", "--pid", "--ipc"),
		short: "cfmotv", alias: map[byte]string{'c': "--cpu-shares", 'f': "--file", 'm': "--memory", 'o': "--output", 't': "--tag", 'v': "--volume"}}
	dockerBake = cliOptions{long: set("--file", "--set", "--allow", "--builder", "--call", "--metadata-file", "--progress", "--provenance", "--sbom", "--var"),
		short: "f", alias: map[byte]string{'f': "--file"}}
)

// cliOption is one option of a command line, by its long name when it has
// one, with its value (a word of its own, or the rest of the option's
// word); or, with Name "", a positional argument.
type cliOption struct {
	Name  string
	Value Word
	// Whole is the option's word when the value is written in it.
	Whole *Word
}

// readOptions reads words as options of o up to the first positional
// argument when stopAtArg (a subcommand), else all of them.
func (o cliOptions) read(ws []Word, stopAtArg bool) ([]cliOption, int) {
	var out []cliOption
	for i := 0; i < len(ws); i++ {
		v := wordValue(ws[i])
		switch {
		case v == "--":
			for _, w := range ws[i+1:] {
				out = append(out, cliOption{Value: w})
			}
			return out, len(ws)
		case strings.HasPrefix(v, "--"):
			name, _, inline := strings.Cut(v, "=")
			switch {
			case inline:
				out = append(out, cliOption{Name: name, Value: suffixWord(ws[i], len(name)+1), Whole: &ws[i]})
			case o.long[name] && i+1 < len(ws):
				out = append(out, cliOption{Name: name, Value: ws[i+1]})
				i++
			default:
				out = append(out, cliOption{Name: name})
			}
		case len(v) > 1 && v[0] == '-':
			opt, next := o.shorthands(ws, i)
			out = append(out, opt...)
			i = next
		default:
			if stopAtArg {
				return out, i
			}
			out = append(out, cliOption{Value: ws[i]})
		}
	}
	return out, len(ws)
}

// shorthands reads a cluster of shorthands at ws[i] the way pflag does:
// switches until one that takes a value, whose value is the rest of the
// word (past an optional =) or else the next word. It returns the index of
// the last word read.
func (o cliOptions) shorthands(ws []Word, i int) ([]cliOption, int) {
	v := wordValue(ws[i])
	var out []cliOption
	for k := 1; k < len(v); k++ {
		c := v[k]
		name := "-" + string(c)
		if l, ok := o.alias[c]; ok {
			name = l
		}
		if !strings.ContainsRune(o.short, rune(c)) {
			out = append(out, cliOption{Name: name})
			continue
		}
		rest := k + 1
		if rest < len(v) && v[rest] == '=' {
			rest++
		}
		if rest < len(v) {
			return append(out, cliOption{Name: name, Value: suffixWord(ws[i], rest), Whole: &ws[i]}), i
		}
		if i+1 < len(ws) {
			return append(out, cliOption{Name: name, Value: ws[i+1]}), i + 1
		}
		return out, i
	}
	return out, i
}

// suffixWord is the part of a word after its first n bytes of value, as a
// word of its own (the value of --file=F or -fF). Where the word is
// written with that prefix as is, the part is the rest of the text, at its
// own place; else (a quoted option) it keeps the whole word's text and
// place, with the part as its value.
func suffixWord(w Word, n int) Word {
	if w.Value == nil || n > len(*w.Value) {
		if n <= len(w.Text) && !strings.ContainsAny(w.Text[:n], "\\\n'\"$`") {
			return Word{Text: w.Text[n:], Pos: shifted(w.Pos, n)}
		}
		return w
	}
	prefix := (*w.Value)[:n]
	out := Word{Text: w.Text, Value: strp((*w.Value)[n:]), Pos: w.Pos}
	if strings.HasPrefix(w.Text, prefix) && !strings.Contains(prefix, "\n") {
		out.Text, out.Pos = w.Text[n:], shifted(w.Pos, n)
	}
	return out
}

// shifted is a position n ASCII bytes later on its first line.
func shifted(p Pos, n int) Pos {
	p.Column += n
	if p.EndLine == p.Line && p.EndColumn < p.Column {
		p.EndColumn = p.Column
	}
	return p
}

// buildTool is the build subcommand of a docker (or podman) command's
// words past its global options: build, image build, builder build,
// buildx build (b) or buildx bake, and the index of the first word after
// it; "" when the command builds nothing.
func buildTool(ws []Word) (string, int) {
	if len(ws) == 0 {
		return "", 0
	}
	global := dockerGlobal
	if wordValue(ws[0]) == "podman" || strings.HasSuffix(wordValue(ws[0]), "/podman") {
		global = podmanGlobal
	}
	_, i := global.read(ws[1:], true)
	i++
	val := func(k int) string {
		if k < len(ws) && ws[k].Value != nil {
			return *ws[k].Value
		}
		return ""
	}
	switch val(i) {
	case "build":
		return "build", i + 1
	case "image", "builder":
		if val(i+1) == "build" {
			return val(i) + " build", i + 2
		}
	case "buildx":
		_, j := buildxGlobal.read(ws[i+1:], true)
		j += i + 1
		switch val(j) {
		case "build", "b":
			return "buildx build", j + 1
		case "bake":
			return "buildx bake", j + 1
		}
	}
	return "", 0
}

// buildOptions are the options and arguments of a build subcommand.
func buildOptions(tool string, args []Word) []cliOption {
	o := dockerBuild
	if tool == "buildx bake" {
		o = dockerBake
	}
	opts, _ := o.read(args, false)
	return opts
}

// dockerOption is the values of one option of a build subcommand's words.
func dockerOption(args []Word, tool, long string) []Word {
	var out []Word
	for _, o := range buildOptions(tool, args) {
		if o.Name == long {
			out = append(out, o.Value)
		}
	}
	return out
}
