package lint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/buildgate/buildgate/engine"
	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/policies"
)

// PolicyDir is a --policy directory: its name as the user gave it (the
// rules' files are named from it) and its files.
type PolicyDir struct {
	Name string
	FS   fs.FS
}

// PolicyOptions say which policies a run compiles: the built-in pack and
// the user's directories, with the --data they read.
type PolicyOptions struct {
	Version string
	Dirs    []PolicyDir
	Data    any
	// Where follows the name of a directory in a message about reading it
	// (" at REV" when the policies are a revision's).
	Where string
}

// Policies are compiled policies, ready to evaluate: what a run's
// Options.Policies take.
type Policies struct{ eng *engine.Engine }

// Rules are the policies' rules as their METADATA describes them, pages
// attached.
func (p *Policies) Rules() []finding.Rule { return p.eng.Rules() }

// PolicyError is a policy that cannot be read or compiled: each problem
// as file:line: message.
type PolicyError struct {
	Errors []string
	// Compile: the policies were read and did not compile (or their
	// tests did not).
	Compile bool
}

func (e *PolicyError) Error() string {
	if e.Compile {
		return "policies:\n" + strings.Join(e.Errors, "\n")
	}
	return strings.Join(e.Errors, "\n")
}

// maxPolicyBytes bounds the Rego of every --policy directory together:
// compiling costs far more than the text (six 4 MB files took 206 s and
// 2.5 GB).
const maxPolicyBytes = 4 << 20

// modules are the built-in pack's modules and those of every directory;
// tests only when asked.
func (o PolicyOptions) modules(tests bool) ([]engine.Module, error) {
	mods, err := engine.ModulesFromFS(policies.FS, ".", tests)
	if err != nil {
		return nil, err
	}
	for i := range mods {
		mods[i].Builtin = true // the embedded pack: trusted, not sandbox-checked
	}
	total := 0
	for _, d := range o.Dirs {
		user, err := engine.ModulesFromDir(d.FS, d.Name, tests)
		if err != nil {
			return nil, &PolicyError{Errors: []string{ErrorText(err) + o.Where}}
		}
		if len(user) == 0 {
			return nil, &PolicyError{Errors: []string{fmt.Sprintf("--policy %s: no .rego files", d.Name)}}
		}
		for _, m := range user {
			total += len(m.Src)
		}
		if total > maxPolicyBytes {
			return nil, &PolicyError{Errors: []string{fmt.Sprintf("--policy: the policies hold more than %d bytes of Rego, more than buildgate compiles (see docs/robustness.md)", maxPolicyBytes)}}
		}
		mods = append(mods, user...)
	}
	return mods, nil
}

// CompilePolicies compiles the built-in pack and the user's policies,
// strict and in the sandbox; each problem is a PolicyError.
func CompilePolicies(ctx context.Context, o PolicyOptions) (*Policies, error) {
	mods, err := o.modules(false)
	if err != nil {
		return nil, err
	}
	e, err := engine.CompileWith(ctx, mods, engine.Options{Version: o.Version, Data: o.Data})
	if err != nil {
		var ce *engine.CompileError
		if errors.As(err, &ce) {
			return nil, &PolicyError{Errors: ce.Errors, Compile: true}
		}
		return nil, err
	}
	e.AttachDocs(policies.FS)
	o.attachDocs(e)
	return &Policies{eng: e}, nil
}

// attachDocs gives each user rule its page: the .md file beside its
// policy, read through the rule's own --policy directory (its file
// system: within the directory, a regular file within the limit, no link
// leading out of it; a page is the pull request's text, and a link to
// ../.git/config must not put a token in every report).
func (o PolicyOptions) attachDocs(e *engine.Engine) {
	for _, r := range e.Rules() {
		if r.Pack == "" {
			continue
		}
		for _, d := range o.Dirs {
			if d.Name != r.Pack {
				continue
			}
			rel, ok := r.File, true
			if dir := path.Clean(filepath.ToSlash(d.Name)); dir != "." {
				rel, ok = strings.CutPrefix(r.File, dir+"/")
			}
			if !ok || !fs.ValidPath(rel) {
				continue
			}
			if b, err := fs.ReadFile(d.FS, strings.TrimSuffix(rel, ".rego")+".md"); err == nil {
				e.SetDoc(r.ID, string(b))
			}
		}
	}
}

// TestResult is one policy test's outcome; Coverage the lines the tests
// ran.
type (
	TestResult = engine.TestResult
	Coverage   = engine.Coverage
)

// TestPolicies runs the test_ rules of the policies (the pack's and the
// user's, with their _test.rego files).
func TestPolicies(ctx context.Context, o PolicyOptions, coverage bool, timeout time.Duration) ([]TestResult, *Coverage, error) {
	mods, err := o.modules(true)
	if err != nil {
		return nil, nil, err
	}
	res, cov, err := engine.RunTests(ctx, mods, engine.TestOptions{Version: o.Version, Coverage: coverage, Timeout: timeout})
	var ce *engine.CompileError
	switch {
	case errors.As(err, &ce):
		return nil, nil, &PolicyError{Errors: ce.Errors, Compile: true}
	case err != nil:
		return nil, nil, &PolicyError{Errors: []string{err.Error()}, Compile: true}
	}
	return res, cov, nil
}
