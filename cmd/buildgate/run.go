package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/lint"
)

// prepared is a run as the flags describe it, for lint and fix alike (one
// options builder): the root, the configuration, and the runner's options
// with the policies compiling while the files are found.
type prepared struct {
	root string
	cfg  *config.Config
	opts lint.Options
	// stdin is the path of the file read from standard input (`lint -`),
	// "" otherwise; cleanup removes its temporary root.
	stdin   string
	cleanup func()
	// shown are the PATHs as the user wrote them, by the path the run
	// was given (underRoot): errors name what the user wrote.
	shown map[string]string
}

// userArgs makes a path error name the PATH as the user wrote it.
func (p *prepared) userArgs(err error) error {
	var pe *lint.PathError
	if errors.As(err, &pe) {
		if orig, ok := p.shown[pe.Arg]; ok {
			pe.Arg = orig
		}
	}
	return err
}

// prepare turns the flags into a run. stderr hears the notes about the
// run's inputs (nil: none, for fix's second run); dog names each phase.
func prepare(ctx context.Context, f lintFlags, args []string, stderr io.Writer, dog *watchdog) (*prepared, error) {
	if f.maxSize <= 0 {
		return nil, usageErr("--max-file-size %d: want a positive number of bytes", f.maxSize)
	}
	root, err := lintRoot(f.root)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	in, err := runInputs(ctx, f, root, stderr)
	if err != nil {
		return nil, err
	}
	f.policy.from = in
	dog.set("reading the configuration")
	cfg, err := loadConfig(in, root, f.config)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	// The policies compile while the files are found.
	var pol *lint.Policies
	compiled := make(chan error, 1)
	go func() {
		var err error
		pol, err = f.policy.compile(ctx)
		compiled <- err
	}()
	ready := func() (*lint.Policies, error) {
		dog.set("compiling the policies")
		err := <-compiled
		compiled <- err
		return pol, err
	}
	fromStdin, err := stdinArgs(args)
	if err != nil {
		return nil, err
	}
	if fromStdin {
		return prepareStdin(f, cfg, ready, dog)
	}
	var shown map[string]string
	if f.root != "" {
		args, shown = underRoot(root, args)
	}
	if len(args) == 0 && !f.noDefault {
		// Without paths the whole repository is linted: the root when it
		// was given, else the working directory (below the git top level).
		args = []string{"."}
		if f.root != "" {
			args = []string{root}
		}
	}
	p := &prepared{root: root, cfg: cfg, shown: shown, opts: lint.Options{
		Root: root, Paths: args, Config: cfg, PoliciesReady: ready, MaxFileSize: f.maxSize, Timeout: f.timeout, SkipUnknown: f.skipUnknown,
		Suppress: lint.SuppressOptions{Inline: !f.noInline, Today: time.Now(), Whole: coversRoot(root, args)},
	}}
	if err := newFrom(&p.opts, f); err != nil {
		return nil, err
	}
	if f.baseline != "" {
		dog.set("reading the baseline")
		b, err := in.ReadFile(f.baseline, safefile.DataLimit)
		if err != nil {
			return nil, usageErr("--baseline %s%s: %s", f.baseline, in.Where(), safefile.Describe(err))
		}
		bl, err := lint.ParseBaseline(f.baseline+in.Where(), b)
		if err != nil {
			return nil, usageErr("%s", errText(err))
		}
		p.opts.Baseline = bl
	}
	return p, nil
}

// underRoot takes relative PATHs from the root given with --root (issue
// 32: `buildgate lint --root repo docker/Dockerfile-base`). A path that
// is not there but is below the root from the working directory (an
// older habit: `--root repo repo/docker/Dockerfile`) is taken as written;
// "-" (standard input) and absolute paths are left alone. shown maps each
// path given to the run back to what the user wrote.
func underRoot(root string, args []string) ([]string, map[string]string) {
	out := make([]string, len(args))
	shown := map[string]string{}
	for i, a := range args {
		out[i] = a
		if a == "-" || filepath.IsAbs(a) {
			continue
		}
		if _, err := os.Lstat(a); err == nil && belowRoot(root, a) {
			if _, err := os.Lstat(filepath.Join(root, a)); err != nil {
				continue
			}
		}
		out[i] = filepath.Join(root, a)
		shown[out[i]] = a
	}
	return out, shown
}

// belowRoot reports whether a path is the root or below it.
func belowRoot(root, p string) bool {
	ar, err1 := filepath.Abs(root)
	ap, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(ar, ap)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// prepareStdin is prepare for `lint -`: the file read from standard input
// at --stdin-filename in a temporary root, with the repository's
// configuration and policies.
func prepareStdin(f lintFlags, cfg *config.Config, ready func() (*lint.Policies, error), dog *watchdog) (*prepared, error) {
	if err := stdinUsage(f); err != nil {
		return nil, err
	}
	dog.set("reading standard input")
	tmp, rel, cleanup, err := stdinRoot(f.stdin, f.stdinName, f.maxSize)
	if err != nil {
		return nil, err
	}
	p := &prepared{root: tmp, cfg: cfg, stdin: rel, cleanup: cleanup, opts: lint.Options{
		Root: tmp, Paths: []string{filepath.Join(tmp, filepath.FromSlash(rel))}, Config: cfg, PoliciesReady: ready,
		MaxFileSize: f.maxSize, Timeout: f.timeout,
		Suppress: lint.SuppressOptions{Inline: !f.noInline, Today: time.Now()},
	}}
	return p, nil
}
