package main

import (
	"context"
	"io"
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
	if len(args) == 0 && !f.noDefault {
		// Without paths the whole repository is linted: the root when it
		// was given, else the working directory (below the git top level).
		args = []string{"."}
		if f.root != "" {
			args = []string{root}
		}
	}
	p := &prepared{root: root, cfg: cfg, opts: lint.Options{
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
