package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/internal/datafile"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/policies"
	"github.com/spf13/pflag"
)

// policyFlags are the flags that choose policies: the built-in pack plus
// --policy directories, and --data for them.
type policyFlags struct {
	dirs []string
	data string
	// from reads the --policy directories and --data (nil: the working
	// tree, names inside the working directory read through it).
	from inputs
}

func (p *policyFlags) source() inputs {
	if p.from == nil {
		wd, _ := os.Getwd()
		return worktree{root: wd}
	}
	return p.from
}

func (p *policyFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&p.dirs, "policy", nil, "directory of your own Rego policies (packages under buildgate.rules.), repeatable")
	fl.StringVar(&p.data, "data", "", "JSON or YAML file your policies read as data.buildgate.data")
}

// maxPolicyBytes bounds the Rego of every --policy directory together.
const maxPolicyBytes = 4 << 20

// modules are the built-in pack's modules and those of every --policy
// directory; tests only when asked.
func (p *policyFlags) modules(tests bool) ([]engine.Module, error) {
	mods, err := engine.ModulesFromFS(policies.FS, ".", tests)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, dir := range p.dirs {
		user, err := p.dirModules(dir, tests)
		if err != nil {
			return nil, err
		}
		if len(user) == 0 {
			return nil, usageErr("--policy %s: no .rego files", dir)
		}
		for _, m := range user {
			total += len(m.Src)
		}
		// Compiling costs far more than the text (six 4 MB files took 206 s
		// and 2.5 GB): the policies of a run are bounded together.
		if total > maxPolicyBytes {
			return nil, usageErr("--policy: the policies hold more than %d bytes of Rego, more than buildgate compiles (see docs/robustness.md)", maxPolicyBytes)
		}
		mods = append(mods, user...)
	}
	return mods, nil
}

// dirModules reads one --policy directory, each .rego file a regular file
// within safefile.PolicyLimit, no link leading out of it.
func (p *policyFlags) dirModules(dir string, tests bool) ([]engine.Module, error) {
	fsys, c, err := p.source().Dir(dir)
	if err != nil {
		return nil, usageErr("--policy %s%s: %s", dir, p.source().Where(), safefile.Describe(err))
	}
	defer func() { _ = c.Close() }()
	mods, err := engine.ModulesFromDir(fsys, dir, tests)
	if err != nil {
		return nil, usageErr("%s%s", errText(err), p.source().Where())
	}
	return mods, nil
}

// engine compiles the policies; every failure is exit 2 with file:line.
func (p *policyFlags) engine(ctx context.Context) (*engine.Engine, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	mods, err := p.modules(false)
	if err != nil {
		return nil, err
	}
	data, err := p.readData(ctx)
	if err != nil {
		return nil, err
	}
	e, err := engine.CompileWith(ctx, mods, engine.Options{Version: Version(), Data: data})
	if err != nil {
		return nil, &exitError{code: exitUsage, msg: "policies:\n" + err.Error()}
	}
	e.AttachDocs(policies.FS)
	// A user rule's page is the .md file beside its policy, if any.
	for _, r := range e.Rules() {
		if r.Pack == "" {
			continue
		}
		if b, err := p.source().ReadFile(filepath.FromSlash(strings.TrimSuffix(r.File, ".rego")+".md"), safefile.PolicyLimit); err == nil {
			e.SetDoc(r.ID, string(b))
		}
	}
	return e, nil
}

func (p *policyFlags) readData(ctx context.Context) (any, error) {
	if p.data == "" {
		return nil, nil
	}
	b, err := p.source().ReadFile(p.data, datafile.MaxBytes)
	if err != nil {
		return nil, usageErr("--data %s%s: %s", p.data, p.source().Where(), safefile.Describe(err))
	}
	v, err := datafile.Decode(ctx, p.data, b)
	if err != nil {
		if ctx.Err() != nil {
			return nil, usageErr("--data %s: reading it did not finish within --timeout", p.data)
		}
		return nil, usageErr("--data %s%s: %v", p.data, p.source().Where(), err)
	}
	return v, nil
}
