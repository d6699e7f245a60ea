package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/buildgate/buildgate/internal/datafile"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/lint"
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

// options opens the --policy directories and reads --data: what
// lint.CompilePolicies and lint.TestPolicies take. close closes the
// directories (their files are read while compiling).
func (p *policyFlags) options(ctx context.Context) (o lint.PolicyOptions, closeAll func(), err error) {
	var closers []io.Closer
	closeAll = func() {
		for _, c := range closers {
			_ = c.Close()
		}
	}
	src := p.source()
	for _, dir := range p.dirs {
		fsys, c, err := src.Dir(dir)
		if err != nil {
			closeAll()
			return o, nil, usageErr("--policy %s%s: %s", dir, src.Where(), safefile.Describe(err))
		}
		closers = append(closers, c)
		o.Dirs = append(o.Dirs, lint.PolicyDir{Name: dir, FS: fsys})
	}
	if o.Data, err = p.readData(ctx); err != nil {
		closeAll()
		return o, nil, err
	}
	o.Version, o.Where = Version(), src.Where()
	return o, closeAll, nil
}

// compile compiles the policies; every failure is exit 2 with file:line.
func (p *policyFlags) compile(ctx context.Context) (*lint.Policies, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	o, closeAll, err := p.options(ctx)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	pol, err := lint.CompilePolicies(ctx, o)
	return pol, policyErr(err)
}

// policyErr makes a policy that cannot be read or compiled exit 2.
func policyErr(err error) error {
	var pe *lint.PolicyError
	if errors.As(err, &pe) {
		return &exitError{code: exitUsage, msg: pe.Error()}
	}
	return err
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
