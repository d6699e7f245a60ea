package loader

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The environment pip and uv read: pip takes any option from PIP_<NAME>
// (PIP_INDEX_URL, PIP_NO_BINARY, PIP_CONSTRAINT …), uv a documented set
// of UV_* variables. A variable reaches a command when the script
// exports it before the command, sets it in the command's own prefix
// (PIP_NO_BINARY=:all: pip …) or through env(1), or (a Dockerfile) when
// an ENV or an ARG with a default of its stage, or of a stage it is built
// FROM, sets it.

// uvEnv are the uv variables that set install options.
var uvEnv = map[string]string{
	"UV_INDEX_URL": "index-url", "UV_EXTRA_INDEX_URL": "extra-index-url", "UV_INDEX": "index",
	"UV_DEFAULT_INDEX": "default-index", "UV_FIND_LINKS": "find-links", "UV_NO_INDEX": "no-index",
	"UV_NO_BINARY": "no-binary", "UV_NO_BINARY_PACKAGE": "no-binary", "UV_CONSTRAINT": "constraint",
	"UV_OVERRIDE": "override", "UV_BUILD_CONSTRAINT": "build-constraint", "UV_INDEX_STRATEGY": "index-strategy",
	"UV_PRERELEASE": "prerelease", "UV_NO_BUILD": "no-build", "UV_EXCLUDE_NEWER": "exclude-newer",
}

// maxPipElements bounds what the pip and uv commands of one script
// carry: each argument becomes a requirement, a file or an option of
// its own (with its word), some three times the memory of the word; no
// real script comes near.
const maxPipElements = 5000

// pipFlags are pip's other switches that the environment may set.
var pipFlags = set("pre", "user", "system", "isolated", "no-cache-dir", "ignore-installed", "break-system-packages", "no-build-isolation", "prefer-binary", "no-clean")

// envBool are the options that are switches: set by a true value.
var envBool = set("no-index", "pre", "no-deps", "no-build", "require-hashes", "no-build-isolation", "upgrade", "force-reinstall")

// pipEnvSetting is one variable's value as it reaches a command.
type pipEnvSetting struct {
	name  string
	value string
	pos   Pos
	// valuePos is the value's own position, when the source spells it
	// NAME=VALUE or NAME="VALUE" on one line.
	valuePos *Pos
}

// settingAt is a setting whose source at pos reads NAME=VALUE, possibly
// quoted: the value's position is then known.
func settingAt(name, value string, pos Pos) pipEnvSetting {
	s := pipEnvSetting{name: name, value: value, pos: pos}
	n, v := utf8.RuneCountInString(name), utf8.RuneCountInString(value)
	if pos.Line != pos.EndLine {
		return s
	}
	switch pos.EndColumn - pos.Column {
	case n + 1 + v:
		s.valuePos = &Pos{Line: pos.Line, Column: pos.Column + n + 1, EndLine: pos.Line, EndColumn: pos.EndColumn}
	case n + 3 + v:
		s.valuePos = &Pos{Line: pos.Line, Column: pos.Column + n + 2, EndLine: pos.Line, EndColumn: pos.EndColumn - 1}
	}
	return s
}

// envOption is the option a variable sets for tool, if any.
func envOption(tool, name string) (string, bool) {
	switch {
	case tool == "pip" && strings.HasPrefix(name, "PIP_") && len(name) > 4:
		// Only pip's own options: a file of PIP_A1 … PIP_A5000 settings
		// must not make every command carry thousands (a bound by
		// meaning: pip ignores variables of no option).
		o := canonical(strings.ReplaceAll(strings.ToLower(name[4:]), "_", "-"))
		return o, pipLongValued[o] || envBool[o] || pipFlags[o]
	case tool == "uv":
		o, ok := uvEnv[name]
		return o, ok
	}
	return "", false
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on", "y", "t":
		return true
	}
	return false
}

// applyEnv adds to p the options the settings give it. A setting the
// command line already gives is still listed: rules ask whether any
// source of an option points elsewhere.
func (p *PipCall) applyEnv(c *ShellCommand, env []pipEnvSetting) {
	// The last setting of a variable is the one the command sees.
	last := map[string]int{}
	for i, e := range env {
		last[e.name] = i
	}
	for i, e := range env {
		if last[e.name] != i {
			continue
		}
		opt, ok := envOption(p.Tool, e.name)
		if !ok {
			continue
		}
		v := e.value
		if strings.TrimSpace(v) == "" || strings.Contains(v, "$") {
			// pip and uv ignore an empty value (ENV PIP_INDEX_URL=); one
			// the file does not give (${PIP_INDEX_URL} of a build
			// argument) is not known.
			continue
		}
		if envBool[opt] || e.name == "UV_NO_BINARY" {
			if !truthy(v) {
				continue
			}
			if e.name == "UV_NO_BINARY" {
				v = ":all:"
			}
		}
		p.Options = append(p.Options, PipOption{Name: opt, Value: strp(v), Env: e.name, Pos: e.pos})
		if opt == "constraint" || opt == "override" || opt == "requirement" {
			for _, f := range strings.Fields(v) {
				w := Word{Value: strp(f), Pos: e.pos}
				if e.valuePos != nil && f == strings.TrimSpace(v) {
					w.Text, w.Pos = f, *e.valuePos
				}
				p.Files = append(p.Files, PipFile{Kind: opt, Word: w, Path: pipPath(c, w), Pos: e.pos})
			}
		}
	}
}

// scriptEnv is what a script's own assignments export to command c: an
// export before it, its prefix assignments, env(1) words among its
// wrappers.
func scriptEnv(s *Script, c *ShellCommand) []pipEnvSetting {
	var out []pipEnvSetting
	for _, a := range s.Assignments {
		if !pipVar(a.Name) || a.Function != c.Function && a.Function != "" {
			continue
		}
		exported := a.Decl == "export" && before(a.Pos, c.Pos)
		prefix := false
		if first := firstWord(c); first != nil {
			prefix = a.Decl == "" && !before(a.Pos, c.Pos) && before(a.Pos, first.Pos)
		}
		if !exported && !prefix {
			continue
		}
		v := a.ValueText
		if a.Value != nil {
			v = *a.Value
		}
		out = append(out, settingAt(a.Name, v, a.Pos))
	}
	for _, w := range c.Wrappers {
		v := wordValue(w)
		if name, value, ok := strings.Cut(v, "="); ok && pipVar(name) {
			out = append(out, settingAt(name, value, w.Pos))
		}
	}
	return out
}

func pipVar(name string) bool {
	return strings.HasPrefix(name, "PIP_") || strings.HasPrefix(name, "UV_")
}

// modelPip gives every pip or uv command of a script its PipCall; the
// errors are requirements pip would refuse.
func modelPip(s *Script) []Error {
	var errs []Error
	elems := 0
	for i := range s.Commands {
		c := &s.Commands[i]
		p := pipOf(c)
		if p == nil {
			continue
		}
		if elems += len(p.Requirements) + len(p.Files) + len(p.Options); elems > maxPipElements {
			errs = append(errs, Error{Message: fmt.Sprintf("more than %d pip and uv arguments (requirements, files, options) in one script, over buildgate's limit: this and the later pip and uv commands are not read as installs (see docs/robustness.md)", maxPipElements), Pos: c.Pos})
			return errs
		}
		p.applyEnv(c, scriptEnv(s, c))
		c.Pip = p
		errs = append(errs, p.refused...)
		p.refused = nil
	}
	return errs
}

// stageEnv adds a Dockerfile stage's PIP_*/UV_* settings to the pip
// commands of one of its RUNs: they come before the script's own, which
// override them.
func stageEnv(s *Script, env []pipEnvSetting) {
	if len(env) == 0 {
		return
	}
	for i := range s.Commands {
		c := &s.Commands[i]
		if c.Pip == nil {
			continue
		}
		own := c.Pip.Options
		c.Pip.Options = []PipOption{}
		c.Pip.applyEnv(c, env)
		c.Pip.Options = append(c.Pip.Options, own...)
	}
}

// firstWord is the first word of a command as written (its first wrapper
// or its name).
func firstWord(c *ShellCommand) *Word {
	if len(c.Wrappers) > 0 {
		return &c.Wrappers[0]
	}
	if len(c.Words) > 0 {
		return &c.Words[0]
	}
	return nil
}

// hasPip reports whether a script has a pip or uv command (only then is
// its stage's environment gathered).
func hasPip(s *Script) bool {
	for i := range s.Commands {
		if s.Commands[i].Pip != nil {
			return true
		}
	}
	return false
}
