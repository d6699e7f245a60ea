package loader

import (
	"path"
	"strings"
)

// A command is often run by another: env, sudo, timeout, nohup, a
// function of the script that runs "$@". What the build runs is the
// command behind them (issue 26's references; the build model's commands,
// issue 28). The wrappers and how many words each takes before the
// command it runs follow their manuals: an option that takes a value
// takes the next word unless it is written --opt=value.

// wrapper is a program that runs the command after its own options.
type wrapper struct {
	// valued are its options that take the next word as their value.
	valued map[string]bool
	// operands is how many words it takes, after its options, before the
	// command (timeout's duration, chrt's priority, taskset's mask).
	operands int
	// assigns: NAME=value words before the command are its own (env).
	assigns bool
	// runs reports, from its options, whether it runs the command at all
	// (command -v only looks it up).
	runs func(opts []string) bool
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

var wrappers = map[string]wrapper{
	"env":       {valued: set("-u", "--unset", "-C", "--chdir", "-S", "--split-string"), assigns: true},
	"exec":      {valued: set("-a")},
	"command":   {runs: func(opts []string) bool { return !hasAny(opts, "-v", "-V") }},
	"builtin":   {},
	"sudo":      {valued: set("-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C", "--close-from", "-D", "--chdir", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout", "-R", "--chroot"), assigns: true},
	"doas":      {valued: set("-u", "-C")},
	"nohup":     {},
	"nice":      {valued: set("-n", "--adjustment")},
	"time":      {valued: set("-f", "--format", "-o", "--output")},
	"timeout":   {valued: set("-s", "--signal", "-k", "--kill-after"), operands: 1},
	"stdbuf":    {valued: set("-i", "--input", "-o", "--output", "-e", "--error")},
	"ionice":    {valued: set("-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid")},
	"chrt":      {operands: 1},
	"taskset":   {operands: 1},
	"setsid":    {},
	"xargs":     {valued: set("-a", "--arg-file", "-d", "--delimiter", "-E", "-e", "--eof", "-I", "-i", "--replace", "-L", "-l", "--max-lines", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var")},
	"unbuffer":  {},
	"catchsegv": {},
	"eatmydata": {},
	"fakeroot":  {},
	"busybox":   {},
	"toybox":    {},
	"flock":     {valued: set("-w", "--wait", "--timeout", "-E", "--conflict-exit-code"), operands: 1},
	"retry":     {valued: set("-t", "--times", "--tries", "-d", "--delay", "--until", "--while", "--max-time")},
}

func hasAny(xs []string, want ...string) bool {
	for _, x := range xs {
		for _, w := range want {
			if x == w {
				return true
			}
		}
	}
	return false
}

// WrapperFunctions are the functions of a script that run the command
// their arguments make ("$@" as a command: solana's `_ cmd args`).
func WrapperFunctions(s Script) map[string]bool {
	out := map[string]bool{}
	for _, c := range s.Commands {
		if c.Function == "" || len(c.Words) == 0 {
			continue
		}
		switch strings.Trim(c.Words[0].Text, `"`) {
		case "$@", "${@}", "$*", "${*}":
			out[c.Function] = true
		}
	}
	return out
}

// maxWrappers bounds the wrappers looked through in one command (`nice
// nice nice … git`); past it the command is a part not read (BG001).
const maxWrappers = 32

// Effective is the index of the word that names the program a command
// runs once the wrappers before it are looked through (0 when it has
// none), or -1 when the wrappers run nothing (command -v x), the command
// is only wrappers, or it has more than maxWrappers.
func Effective(c ShellCommand, funcs map[string]bool) int {
	i, _ := effective(c, funcs)
	return i
}

// effective is Effective, and whether maxWrappers was passed.
func effective(c ShellCommand, funcs map[string]bool) (int, bool) {
	i := 0
	for depth := 0; i < len(c.Words); depth++ {
		if depth >= maxWrappers {
			return -1, true
		}
		name := wordValue(c.Words[i])
		if funcs[name] {
			i++
			continue
		}
		w, ok := wrappers[path.Base(name)]
		if !ok {
			return i, false
		}
		i++
		var opts []string
	options:
		for i < len(c.Words) {
			v := wordValue(c.Words[i])
			switch {
			case v == "--":
				i++
				break options
			case strings.HasPrefix(v, "-") && len(v) > 1:
				opts = append(opts, v)
				if w.valued[v] {
					i++
				}
				i++
			case w.assigns && isAssign(v):
				i++
			default:
				break options
			}
		}
		if w.runs != nil && !w.runs(opts) {
			return -1, false
		}
		i += w.operands
	}
	if i >= len(c.Words) {
		return -1, false
	}
	return i, false
}

// wordValue is a word's literal value, else its resolved value (the
// file's static values put in place), else its text.
func wordValue(w Word) string {
	if w.Value != nil {
		return *w.Value
	}
	if w.Resolved != nil {
		return *w.Resolved
	}
	return w.Text
}

// isAssign reports whether a word is NAME=value.
func isAssign(v string) bool {
	name, _, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if r != '_' && (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}
