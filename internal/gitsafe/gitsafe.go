// Package gitsafe runs git on a repository whose content — its files,
// .gitattributes, even its .git directory — may come from the pull
// request under check, so that nothing the repository or its
// configuration names is ever run: no hooks, no fsmonitor, no filter,
// diff or textconv drivers, no pager, no fetch of a partial clone's
// missing objects (which would run a configured upload-pack or ssh
// command), no replace refs or grafts (which make a commit read as
// another). Every call has a time limit: git itself blocks on a FIFO in
// .git. What is read of a commit (ReadAt, TreeAt) is checked object by
// object against the commit's hash: a forged object is an error, not
// another configuration.
package gitsafe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Timeout bounds one git call.
var Timeout = 60 * time.Second

// base are the settings every call carries, before the command. A -c
// setting outranks every configuration file.
var base = []string{
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.untrackedCache=false",
	"-c", "core.pager=cat",
	"-c", "diff.external=",
	// A partial clone fetches missing objects on demand, running the
	// remote's upload-pack or ssh command from .git/config.
	"-c", "protocol.allow=never",
	"-c", "core.quotePath=false",
	"-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
	// A ref refs/replace/OID makes every read of OID (a --config-from-rev
	// commit, its trees and blobs, a --new-from-rev base) read another
	// object, silently; .git is the pull request's. GIT_NO_REPLACE_OBJECTS
	// in the environment says the same to git processes git starts.
	"--no-replace-objects", "-c", "core.useReplaceRefs=false",
	// info/grafts still rewrites parents (merge bases) and is off through
	// GIT_GRAFT_FILE below; its deprecation advice is not wanted either.
	"-c", "advice.graftFileDeprecated=false",
}

// noGrafts is a grafts file that cannot exist (/dev/null is no
// directory): git reads no grafts and, the file missing, says nothing.
const noGrafts = "/dev/null/no-grafts"

// environment is the caller's, less what would point git elsewhere or run
// something, plus what keeps it from prompting, locking or fetching.
func environment() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_ATTR_SOURCE", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER",
			"GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
			"GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_GRAFT_FILE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_OPTIONAL_LOCKS=0", "GIT_NO_LAZY_FETCH=1", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_ASKPASS=true",
		"GIT_NO_REPLACE_OBJECTS=1", "GIT_GRAFT_FILE="+noGrafts)
}

// Error is a git command that failed, with what git said.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", e.Args[0], msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrTimeout is a git call that did not end within Timeout.
var ErrTimeout = errors.New("git did not answer in time (a FIFO or device in .git?)")

// Run runs git in dir with the settings above and every filter driver the
// configuration defines switched off, and returns its standard output.
func Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	filters, err := cachedFilterFlags(ctx, dir)
	if err != nil {
		return nil, err
	}
	return run(ctx, dir, append(filters[:len(filters):len(filters)], args...)...)
}

// filterCache holds the filter flags of each directory git ran in: the
// configuration does not change during a run, and listing it is a git
// process of its own (a --config-from-rev policy directory is one
// cat-file per file).
var filterCache sync.Map // dir -> []string

func cachedFilterFlags(ctx context.Context, dir string) ([]string, error) {
	if f, ok := filterCache.Load(dir); ok {
		return f.([]string), nil
	}
	f, err := filterFlags(ctx, dir)
	if err != nil {
		return nil, err
	}
	filterCache.Store(dir, f)
	return f, nil
}

// command is git with the settings above in dir; the caller sets its
// standard streams.
func command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	full := append(append([]string{"-C", dir}, base...), args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = environment()
	cmd.Stdin = nil
	cmd.WaitDelay = time.Second
	return cmd
}

func run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := command(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return nil, ErrTimeout
	}
	if err != nil {
		shown := args
		for len(shown) > 1 && shown[0] == "-c" {
			shown = shown[2:]
		}
		return out, &Error{Args: shown, Stderr: stderr.String(), Err: err}
	}
	return out, nil
}

// filterFlags blanks every filter driver the configuration (any scope)
// defines: an empty clean/smudge/process command is no command, and
// required=false keeps git from failing on it. This works on every git
// from 2.30; --attr-source (2.41) would too, but not on older ones.
func filterFlags(ctx context.Context, dir string) ([]string, error) {
	out, err := run(ctx, dir, "config", "-z", "--name-only", "--get-regexp", `^filter\.`)
	if err != nil {
		var ge *Error
		var ee *exec.ExitError
		if errors.As(err, &ge) && errors.As(ge.Err, &ee) && ee.ExitCode() == 1 && strings.TrimSpace(ge.Stderr) == "" {
			return nil, nil // no filter configured
		}
		return nil, err
	}
	seen := map[string]bool{}
	var flags []string
	for _, key := range strings.Split(string(out), "\x00") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(key), "filter.")
		if !ok {
			continue
		}
		i := strings.LastIndexByte(rest, '.')
		if i < 0 {
			continue
		}
		name := rest[:i]
		if seen[name] {
			continue
		}
		seen[name] = true
		if strings.ContainsAny(name, "=\n") {
			// -c splits at the first "=": such a driver cannot be
			// switched off, so git is not run at all.
			return nil, fmt.Errorf("the git configuration defines a filter driver named %q, which buildgate cannot switch off; not running git", name)
		}
		for _, k := range []string{"clean", "smudge", "process"} {
			flags = append(flags, "-c", "filter."+name+"."+k+"=")
		}
		flags = append(flags, "-c", "filter."+name+".required=false")
	}
	return flags, nil
}
