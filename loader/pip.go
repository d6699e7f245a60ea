package loader

import (
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

// The install side of the build model (issue 29): what a pip or uv pip
// command installs, removes or fetches, read with pip's and uv's own
// grammar. `python3 -m pip install --no-cache-dir -i URL "pkg==1.0"`,
// `uv pip install --system -r req.txt --override o.txt` and
// `PIP_NO_BINARY=:all: pip wheel pkg` each become one PipCall with its
// requirements parsed as pip parses a requirement, its files (-r, -c,
// --override, a project directory) and its options, those the
// environment sets (PIP_*, UV_*) included.

// PipCall is what a pip or uv command does.
type PipCall struct {
	// Tool is "pip" (pip, pip3, python -m pip) or "uv" (uv pip …, uv add,
	// uv tool install, uv sync).
	Tool string `json:"tool"`
	// Op is the subcommand: install, uninstall, download, wheel, sync
	// (uv pip sync, uv sync), add (uv add), compile (uv pip compile:
	// installs nothing).
	Op string `json:"op"`
	// Requirements are the requirement specifiers among the arguments,
	// parsed as pip parses a requirement (name, specifiers, marker, URL,
	// VCS, local path); for uninstall, the names it removes. A word
	// without a static value is read with its variables as ${NAME}
	// (listed in Env): its version is not known.
	Requirements []Requirement `json:"requirements"`
	// Files are the files and directories it reads requirements from.
	Files []PipFile `json:"files"`
	// Options are its options by long name without dashes (index-url,
	// extra-index-url, find-links, no-index, no-binary, only-binary,
	// constraint, override, index, default-index, index-strategy, pre,
	// prerelease, target …; uv's plural spellings as pip's singular),
	// those the environment sets included (Env names the variable).
	Options []PipOption `json:"options"`
	// Pos is the command's.
	Pos Pos `json:"pos"`
	// refused are the requirement words pip refuses (the document's
	// errors: pip stops the whole command).
	refused []Error
}

// PipFile is a file or directory a pip command reads requirements from.
type PipFile struct {
	// Kind: "requirement" (-r, uv pip sync's files), "constraint" (-c:
	// limits versions, installs nothing), "override" (uv --override),
	// "project" (a directory or -e DIR: what its packaging declares).
	Kind string `json:"kind"`
	Word Word   `json:"word"`
	// Path is the word's value joined to the command's directory; null
	// when either is not known.
	Path *string `json:"path"`
	// Editable is set for -e.
	Editable bool `json:"editable,omitempty"`
	// Pos is the option's (the word's for an argument).
	Pos Pos `json:"pos"`
}

// PipOption is one option of a pip command.
type PipOption struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
	// Env is the environment variable that set it (PIP_INDEX_URL,
	// UV_OVERRIDE …), "" for the command line.
	Env string `json:"env,omitempty"`
	Pos Pos    `json:"pos"`
}

// pipLongValued are the options that take a value, by long name, for pip and
// uv pip (install, uninstall, download, wheel, sync, compile, add);
// pipShort maps short options to them ("" for short flags).
var pipLongValued = set(
	"requirement", "requirements", "constraint", "constraints", "override", "overrides", "editable",
	"build-constraint", "build-constraints", "target", "platform", "python-version", "implementation", "abi",
	"root", "prefix", "src", "upgrade-strategy", "config-settings", "config-setting", "global-option",
	"build-option", "install-option", "index-url", "extra-index-url", "find-links", "no-binary",
	"only-binary", "progress-bar", "root-user-action", "report", "python", "log", "log-file", "proxy",
	"retries", "timeout", "exists-action", "trusted-host", "cert", "client-cert", "cache-dir",
	"keyring-provider", "use-feature", "use-deprecated", "group", "dest", "wheel-dir", "index",
	"default-index", "index-strategy", "resolution", "prerelease", "fork-strategy", "exclude-newer",
	"no-build-isolation-package", "link-mode", "python-platform", "torch-backend", "upgrade-package",
	"reinstall-package", "refresh-package", "directory", "project", "config-file", "color",
	"allow-insecure-host", "output-file", "extra", "no-binary-package", "only-binary-package",
	"package", "with", "with-requirements", "from", "optional", "dev-group", "script", "branch",
	"tag", "rev", "marker", "bounds", "no-install-package", "only-group", "no-group", "index-url-file",
	"no-build-package", "resume-retries", "python-preference", "cache-dir", "constraints-file",
	"keyring-provider", "build-constraints-file", "requirements-file", "upgrade-strategy",
)

var pipShort = map[byte]string{
	'r': "requirement", 'c': "constraint", 'e': "editable", 't': "target", 'C': "config-settings",
	'i': "index-url", 'f': "find-links", 'd': "dest", 'w': "wheel-dir", 'p': "python",
	'P': "upgrade-package", 'b': "build-constraint", 'o': "output-file", 'l': "log", 'm': "marker",
}

// pipCanonical spells uv's plural options as pip's singular ones.
var pipCanonical = map[string]string{
	"requirements": "requirement", "constraints": "constraint", "overrides": "override",
	"build-constraints": "build-constraint", "config-setting": "config-settings",
}

// pipCommand finds the tool, the subcommand and where its arguments start;
// ok is false for anything else.
func pipCommand(c *ShellCommand) (tool, op string, args int, ok bool) {
	ws := c.Words
	n := path.Base(c.Name)
	k := 1
	switch {
	case n == "pip" || n == "pip3" || strings.HasPrefix(n, "pip3.") || n == "pip2":
		tool = "pip"
	case strings.HasPrefix(n, "python"):
		for ; k < len(ws); k++ {
			v, _ := val(ws[k])
			if v == "-m" && k+1 < len(ws) {
				if m, _ := val(ws[k+1]); m != "pip" {
					return "", "", 0, false
				}
				k += 2
				tool = "pip"
				break
			}
			if !strings.HasPrefix(v, "-") {
				return "", "", 0, false
			}
		}
		if tool == "" {
			return "", "", 0, false
		}
	case n == "uv" || n == "uvx":
		return uvCommand(ws)
	default:
		return "", "", 0, false
	}
	for ; k < len(ws); k++ {
		v, _ := val(ws[k])
		if strings.HasPrefix(v, "-") {
			// pip --timeout 100 install: a general option's value is no
			// subcommand.
			if name := longName("pip", strings.TrimLeft(v, "-")); strings.HasPrefix(v, "--") && !strings.Contains(v, "=") && pipLongValued[name] {
				k++
			}
			continue
		}
		switch v {
		case "install", "uninstall", "download", "wheel":
			return tool, v, k + 1, true
		}
		return "", "", 0, false
	}
	return "", "", 0, false
}

// uvCommand reads uv's subcommands: uv pip install|uninstall|sync|compile,
// uv add, uv sync, uv tool install.
func uvCommand(ws []Word) (string, string, int, bool) {
	var seq []string
	k := 1
	for ; k < len(ws) && len(seq) < 2; k++ {
		v, _ := val(ws[k])
		if strings.HasPrefix(v, "-") {
			if strings.HasPrefix(v, "--") && !strings.Contains(v, "=") && pipLongValued[v[2:]] {
				k++ // uv --cache-dir /c pip install
			}
			continue
		}
		seq = append(seq, v)
		switch strings.Join(seq, " ") {
		case "add", "sync":
			return "uv", seq[0], k + 1, true
		case "pip install", "pip uninstall", "pip sync", "pip compile":
			return "uv", seq[1], k + 1, true
		case "tool install":
			return "uv", "install", k + 1, true
		}
	}
	return "", "", 0, false
}

// pipOf reads a pip or uv command; nil for any other command.
func pipOf(c *ShellCommand) *PipCall {
	tool, op, k, ok := pipCommand(c)
	if !ok {
		return nil
	}
	p := &PipCall{Tool: tool, Op: op, Requirements: []Requirement{}, Files: []PipFile{}, Options: []PipOption{}, Pos: c.Pos}
	ws := c.Words
	defer p.projectSync(c)
	p.general(c, k)
	for ; k < len(ws); k++ {
		w := ws[k]
		v, static := val(w)
		switch {
		case static && v == "--":
			for _, a := range ws[k+1:] {
				p.positional(c, a)
			}
			return p
		case static && strings.HasPrefix(v, "--") && len(v) > 2:
			k = p.long(c, ws, k, v)
		case static && strings.HasPrefix(v, "-") && len(v) > 1:
			k = p.short(c, ws, k, v)
		default:
			p.positional(c, w)
		}
	}
	return p
}

// long reads --name[=value] at k; the index of its last word.
func (p *PipCall) long(c *ShellCommand, ws []Word, k int, v string) int {
	name, value, has := strings.Cut(v[2:], "=")
	name = longName(p.Tool, name)
	if !has && pipLongValued[name] && k+1 < len(ws) {
		p.option(c, name, ws[k+1], ws[k].Pos)
		return k + 1
	}
	if has {
		p.option(c, name, suffixWord(ws[k], len(v)-len(value)), ws[k].Pos)
		return k
	}
	p.Options = append(p.Options, PipOption{Name: canonical(name), Pos: ws[k].Pos})
	return k
}

// short reads a cluster of short options (-qr FILE, -rFILE, -Ue .) at k.
func (p *PipCall) short(c *ShellCommand, ws []Word, k int, v string) int {
	for j := 1; j < len(v); j++ {
		name, valued := pipShort[v[j]]
		if !valued {
			continue
		}
		if j+1 < len(v) {
			p.option(c, name, suffixWord(ws[k], j+1), ws[k].Pos)
			return k
		}
		if k+1 < len(ws) {
			p.option(c, name, ws[k+1], ws[k].Pos)
			return k + 1
		}
		return k
	}
	if v == "-U" || strings.Contains(v[1:], "U") {
		p.Options = append(p.Options, PipOption{Name: "upgrade", Pos: ws[k].Pos})
	}
	return k
}

func canonical(name string) string {
	if c, ok := pipCanonical[name]; ok {
		return c
	}
	return name
}

// option records a valued option, and the file or project it names.
func (p *PipCall) option(c *ShellCommand, name string, w Word, at Pos) {
	name = canonical(name)
	v, static := val(w)
	o := PipOption{Name: name, Pos: spanPos(at, w.Pos)}
	if static {
		o.Value = strp(v)
	}
	p.Options = append(p.Options, o)
	switch name {
	case "requirement", "constraint", "override":
		p.Files = append(p.Files, PipFile{Kind: name, Word: w, Path: pipPath(c, w), Pos: o.Pos})
	case "editable":
		if static && (isURL(v) || !isLocalPath(v) && v != ".") {
			n := len(p.Requirements)
			if p.requirement(w); len(p.Requirements) > n {
				p.Requirements[n].Editable = true
			}
			return
		}
		p.Files = append(p.Files, PipFile{Kind: "project", Word: w, Path: pipPath(c, w), Editable: true, Pos: o.Pos})
	}
}

// spanPos spans two positions.
func spanPos(a, b Pos) Pos {
	if b.Line > a.Line || b.Line == a.Line && b.EndColumn > a.EndColumn {
		return Pos{Line: a.Line, Column: a.Column, EndLine: b.EndLine, EndColumn: b.EndColumn}
	}
	return a
}

// positional is an argument: a requirement, a project directory, or (uv
// pip sync) a requirements file.
func (p *PipCall) positional(c *ShellCommand, w Word) {
	v, static := val(w)
	switch {
	case p.Op == "sync" && p.Tool == "uv" || p.Op == "compile":
		p.Files = append(p.Files, PipFile{Kind: "requirement", Word: w, Path: pipPath(c, w), Pos: w.Pos})
	case static && p.Op != "uninstall" && projectDir(v):
		p.Files = append(p.Files, PipFile{Kind: "project", Word: w, Path: pipPath(c, w), Pos: w.Pos})
	default:
		p.requirement(w)
	}
}

// projectDir reports whether an argument is a directory pip installs as a
// project (., ./pkg, /src/pkg, pkg/ [extras]): a path that is no archive
// and no URL.
func projectDir(v string) bool {
	if i := strings.IndexByte(v, '['); i > 0 {
		v = v[:i]
	}
	if isURL(v) || strings.Contains(v, "@") || strings.Contains(v, ";") {
		return false
	}
	if v == "." || v == ".." {
		return true
	}
	if !isLocalPath(v) {
		return false
	}
	lv := strings.ToLower(v)
	for _, ext := range []string{".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz", ".tar", ".txt"} {
		if strings.HasSuffix(lv, ext) {
			return false
		}
	}
	return !strings.ContainsAny(v, "*?")
}

// pipPath is a file argument joined to the command's directory.
func pipPath(c *ShellCommand, w Word) *string {
	v, ok := pathOf(w)
	if !ok || isURL(v) {
		return nil
	}
	return under(c.Dir, v)
}

var shellVarRe = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)(?:[^}]*\})?`)

// requirement parses a word as pip parses a requirement argument, with
// positions on the word. A word without a static value is read with each
// variable as ${NAME} (pip's own spelling of a value it takes from the
// environment), so its name is known and its version is not.
func (p *PipCall) requirement(w Word) {
	v, static := val(w)
	if !static {
		v = shellVarRe.ReplaceAllStringFunc(unquote(w.Text), func(m string) string {
			return "${" + strings.ToUpper(shellVarRe.FindStringSubmatch(m)[1]) + "}"
		})
	}
	if v == "" || len(v) > 4096 {
		return
	}
	if static && strings.ContainsAny(v, "*?") && !isURL(v) && !strings.ContainsAny(w.Text, `"'`) {
		p.glob(w, v)
		return
	}
	if static && isLocalPath(v) && !isURL(v) && !strings.ContainsAny(v, "@;[ ") {
		p.localFile(w, v)
		return
	}
	doc := loadRequirements("", []byte(v))
	if len(doc.Requirements) != 1 {
		if !static || isURL(v) || isLocalPath(v) {
			// What the shell puts there is not known; a path or URL pip
			// refuses is its own error, not a pin's.
			return
		}
		for _, e := range doc.Errors {
			p.refused = append(p.refused, Error{Message: "pip refuses the requirement " + quoteShort(v) + ", and with it the whole command: " + e.Message, Syntax: true, Pos: w.Pos})
			break
		}
		return
	}
	r := doc.Requirements[0]
	if shift := wordShift(w, v, static); shift != nil {
		remapRequirement(&r, shift)
	} else {
		coarse(&r, w)
	}
	r.Raw = v
	p.Requirements = append(p.Requirements, r)
}

// wordShift maps a position in the value (line 1) to the word's: a
// column offset when the value is the word's text on one line, with or
// without surrounding quotes; nil otherwise.
func wordShift(w Word, v string, static bool) func(Pos) Pos {
	inner, off := w.Text, 0
	if u := unquote(w.Text); u != w.Text {
		inner, off = u, 1
	}
	if static && inner == v && w.Pos.Line == w.Pos.EndLine && !strings.ContainsAny(v, "\n") {
		return func(q Pos) Pos {
			if q.Line != 1 || q.EndLine != 1 {
				return w.Pos
			}
			return Pos{Line: w.Pos.Line, Column: w.Pos.Column + off + q.Column - 1, EndLine: w.Pos.Line, EndColumn: w.Pos.Column + off + q.EndColumn - 1}
		}
	}
	return nil
}

// coarse puts every element of r at the word's position, with the word's
// text: the value is not the word's text letter for letter (variables,
// escapes), so no finer position is known.
func coarse(r *Requirement, w Word) {
	at := func(x *Word) {
		if x != nil {
			x.Pos, x.Text = w.Pos, w.Text
		}
	}
	r.Pos = w.Pos
	for _, x := range []*Word{r.NameWord, r.Marker, r.URL, r.LocalPath} {
		at(x)
	}
	for i := range r.Extras {
		at(&r.Extras[i])
	}
	for i := range r.Env {
		at(&r.Env[i])
	}
	for i := range r.Hashes {
		at(&r.Hashes[i])
	}
	for i := range r.Specifiers {
		r.Specifiers[i].Pos, r.Specifiers[i].Text = w.Pos, w.Text
	}
	for i := range r.Options {
		r.Options[i].Pos, r.Options[i].Text = w.Pos, w.Text
	}
}

// remapRequirement moves every position of r with f.
func remapRequirement(r *Requirement, f func(Pos) Pos) {
	r.Pos = f(r.Pos)
	for _, w := range []*Word{r.NameWord, r.Marker, r.URL, r.LocalPath} {
		if w != nil {
			w.Pos = f(w.Pos)
		}
	}
	for i := range r.Extras {
		r.Extras[i].Pos = f(r.Extras[i].Pos)
	}
	for i := range r.Specifiers {
		r.Specifiers[i].Pos = f(r.Specifiers[i].Pos)
	}
	for i := range r.Env {
		r.Env[i].Pos = f(r.Env[i].Pos)
	}
	for i := range r.Hashes {
		r.Hashes[i].Pos = f(r.Hashes[i].Pos)
	}
	for i := range r.Options {
		r.Options[i].Pos = f(r.Options[i].Pos)
	}
}

func quoteShort(s string) string {
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return "`" + s + "`"
}

// globNameRe is the project part of a wheel or sdist file name pattern
// (mooncake_transfer_engine_rocm-*.whl).
var globNameRe = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.]*[A-Za-z0-9])-`)

// glob is an unquoted file pattern the shell expands (/wheels/*.whl):
// files of the build, a local path; the project is known when the file
// name pattern spells it before its version.
func (p *PipCall) glob(w Word, v string) { p.localFile(w, v) }

// localFile is a local file or directory argument (./w/pkg-1.0-py3-none-any.whl):
// a local path, its project named by a wheel's or an sdist's file name.
// Read without the requirement parser: a script of 35,000 such installs
// is common enough in hostile input to keep cheap.
func (p *PipCall) localFile(w Word, v string) {
	lw := w
	r := Requirement{Raw: v, Extras: []Word{}, Specifiers: []Specifier{}, Options: []Flag{}, Hashes: []Word{}, Env: []Word{}, LocalPath: &lw, Pos: w.Pos}
	if m := wheelRe.FindStringSubmatch(path.Base(v)); m != nil {
		nw := Word{Value: strp(m[1]), Pos: w.Pos}
		r.Name, r.NameWord, r.Normalized = m[1], &nw, NormalizeName(m[1])
	} else if m := globNameRe.FindStringSubmatch(path.Base(v)); m != nil {
		nw := Word{Value: strp(m[1]), Pos: w.Pos}
		r.Name, r.NameWord, r.Normalized = m[1], &nw, NormalizeName(m[1])
	}
	p.Requirements = append(p.Requirements, r)
}

// pipLongOptions are pip's long options that take no value, beside
// pipLongValued: with them pip (optparse) takes any unique prefix of an
// option (--no-ind, --extra-ind URL).
var pipLongOptions = append(slices.Sorted(maps.Keys(pipLongValued)),
	"no-index", "pre", "no-deps", "upgrade", "force-reinstall", "ignore-installed", "user", "system",
	"no-cache-dir", "no-build-isolation", "require-hashes", "dry-run", "quiet", "verbose", "isolated",
	"break-system-packages", "prefer-binary", "no-clean", "compile", "no-compile", "yes", "no-warn-script-location",
	"no-warn-conflicts", "use-pep517", "no-use-pep517", "check-build-dependencies", "ignore-requires-python",
	"disable-pip-version-check", "no-input", "exists-action", "only-binary", "no-binary")

// longName is the option a long name stands for: itself when known, else
// (pip only: uv takes no abbreviations) the one known option it is a
// unique prefix of.
func longName(tool, name string) string {
	if tool != "pip" || pipLongValued[name] || slices.Contains(pipLongOptions, name) || name == "" {
		return name
	}
	match := ""
	for _, o := range pipLongOptions {
		if strings.HasPrefix(o, name) {
			if match != "" && match != o {
				return name // ambiguous: pip refuses it
			}
			match = o
		}
	}
	if match == "" {
		return name
	}
	return match
}

// projectSync gives `uv sync` (which names no file) the project of its
// directory: it installs what the project's packaging declares, as
// `pip install .` does.
func (p *PipCall) projectSync(c *ShellCommand) {
	if p.Tool != "uv" || p.Op != "sync" || len(p.Files) > 0 || len(c.Words) < 2 {
		return
	}
	if v, _ := val(c.Words[1]); v != "sync" {
		return // uv pip sync FILE
	}
	w := Word{Value: strp("."), Pos: c.Words[1].Pos}
	p.Files = append(p.Files, PipFile{Kind: "project", Word: w, Path: under(c.Dir, "."), Pos: c.Words[1].Pos})
}

// general reads the options given before the subcommand (pip
// --index-url URL install …, python3 -m pip --no-cache-dir install …):
// pip applies its general options to the install.
func (p *PipCall) general(c *ShellCommand, sub int) {
	ws := c.Words
	start := 1
	for i := 1; i+1 < sub && i+1 < len(ws); i++ {
		if v, _ := val(ws[i]); v == "-m" {
			start = i + 2
			break
		}
	}
	for j := start; j < sub-1 && j < len(ws); j++ {
		v, static := val(ws[j])
		if !static || !strings.HasPrefix(v, "--") || len(v) <= 2 {
			continue
		}
		if next := p.long(c, ws, j, v); next < sub-1 {
			j = next
		} else {
			return
		}
	}
}
