package lint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/buildgate/buildgate/config"
	"github.com/buildgate/buildgate/discover"
	"github.com/buildgate/buildgate/loader"
)

// loadContext handles a run that checks only some paths (a pre-commit
// hook, `buildgate lint some.sh`) while a requirements file the
// configuration names is missing: whether the migration concerns the
// repository at all — whether BG201 should say the file is missing —
// depends on files the run was not asked to check (a Dockerfile that
// installs it, a source build). Those are loaded as context: the policies
// see them, their own findings are not reported. It returns the context
// documents (none when the run covers the root or nothing is missing).
func loadContext(ctx context.Context, o Options, p *phase1, loaded []*file) ([]*file, error) {
	if o.Suppress.Whole {
		return nil, nil
	}
	missing := false
	for _, r := range o.Config.RequiredFiles() {
		if _, err := os.Lstat(filepath.Join(o.Root, filepath.FromSlash(r))); errors.Is(err, fs.ErrNotExist) {
			missing = true
		}
	}
	if !missing {
		return nil, nil
	}
	dopts := discoverOptions(o.Config, o.SkipUnknown)
	dopts.Context = ctx
	all, err := discover.Find(o.Root, []string{o.Root}, dopts)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, f := range loaded {
		have[f.path] = true
	}
	var rest []discover.File
	for _, f := range all {
		if !have[f.Path] {
			rest = append(rest, f)
		}
	}
	files, err := p.loadAll(ctx, o.Root, rest, nil, o.MaxFileSize, nil)
	if err != nil {
		return nil, err
	}
	out := files[:0]
	for _, f := range files {
		if !have[f.path] {
			have[f.path] = true
			f.context = true
			out = append(out, f)
		}
	}
	return out, nil
}

// discoverOptions are discovery's options from a configuration: its
// excludes and the kinds it gives paths.
func discoverOptions(c *config.Config, skipUnknown bool) discover.Options {
	return discover.Options{Excluded: c.Excluded, SkipUnknown: skipUnknown, Kind: func(rel string) (loader.Kind, bool) {
		if k, ok := c.KindOf(rel); ok {
			return loader.ParseKind(k)
		}
		return "", false
	}}
}
