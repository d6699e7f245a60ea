package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestResult is one Rego test's outcome.
type TestResult struct {
	Package string
	Name    string
	File    string
	Row     int
	Fail    bool
	Error   error
	Output  string // what print() wrote
	Elapsed time.Duration
}

// Coverage is line coverage of the policy files (tests excluded).
type Coverage struct {
	Files   map[string]FileCoverage
	Covered int
	Total   int
	// Builtin and User split the total: the built-in pack's files and
	// the user's policies' (issue 32: a threshold is the user's to
	// meet, the pack has its own figure).
	Builtin, User Lines
}

// Lines counts covered lines of a set of files.
type Lines struct{ Covered, Total int }

// Percent is the covered share, 100 when there are no lines.
func (l Lines) Percent() float64 { return percent(l.Covered, l.Total) }

// FileCoverage is one file's line coverage.
type FileCoverage struct {
	// User: a file of the user's policies (not the built-in pack).
	User       bool
	Covered    int
	NotCovered int
	// NotCoveredRanges are the line ranges no test reached.
	NotCoveredRanges [][2]int
}

// Percent is the covered share of lines, 100 when there is nothing to cover.
func (c FileCoverage) Percent() float64 { return percent(c.Covered, c.Covered+c.NotCovered) }

// Percent is the covered share of all lines.
func (c Coverage) Percent() float64 { return percent(c.Covered, c.Total) }

func percent(n, total int) float64 {
	if total == 0 {
		return 100
	}
	return 100 * float64(n) / float64(total)
}

// TestOptions configure a test run.
type TestOptions struct {
	Version  string
	Coverage bool
	Timeout  time.Duration // per test; 0: a minute
}

// RunTests runs the test_ rules of mods (policies and their _test.rego
// files) with the same compiler settings, sandbox and builtins as a lint
// run, and measures coverage when asked.
func RunTests(ctx context.Context, mods []Module, o TestOptions) ([]TestResult, *Coverage, error) {
	parsed, err := ParseModules(mods)
	if err != nil {
		return nil, nil, err
	}
	if errs := Sandbox(parsed); len(errs) > 0 {
		return nil, nil, &CompileError{Errors: errs}
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	c := NewCompiler().WithEnablePrintStatements(true)
	runner := tester.NewRunner().
		SetCompiler(c).
		SetModules(parsed).
		SetRuntime(Runtime(o.Version)).
		CapturePrintOutput(true).
		SetTimeout(timeout)
	var cov *cover.Cover
	if o.Coverage {
		cov = cover.New()
		runner.SetCoverageQueryTracer(cov)
	}
	ch, err := runner.RunTests(ctx, nil)
	if err != nil {
		return nil, nil, &CompileError{Errors: formatASTErrors(err)}
	}
	var out []TestResult
	for r := range ch {
		tr := TestResult{Package: r.Package, Name: r.Name, Fail: r.Fail, Error: r.Error, Elapsed: r.Duration, Output: string(r.Output)}
		if r.Location != nil {
			tr.File, tr.Row = r.Location.File, r.Location.Row
		}
		if r.Error != nil && tr.File == "" {
			return nil, nil, &CompileError{Errors: formatASTErrors(r.Error)}
		}
		out = append(out, tr)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Row < out[j].Row
	})
	if cov == nil {
		return out, nil, nil
	}
	user := map[string]bool{}
	for _, m := range mods {
		user[m.Name] = m.Pack != ""
	}
	policiesOnly := map[string]*ast.Module{}
	for name, m := range parsed {
		if !strings.HasSuffix(name, "_test.rego") {
			policiesOnly[name] = m
		}
	}
	rep := cov.Report(policiesOnly)
	res := &Coverage{Files: map[string]FileCoverage{}}
	for name := range policiesOnly {
		fc := FileCoverage{User: user[name]}
		if fr, ok := rep.Files[name]; ok && fr != nil {
			fc.Covered, fc.NotCovered = fr.CoveredLines, fr.NotCoveredLines
			for _, rg := range fr.NotCovered {
				fc.NotCoveredRanges = append(fc.NotCoveredRanges, [2]int{rg.Start.Row, rg.End.Row})
			}
		}
		res.Files[name] = fc
		res.Covered += fc.Covered
		res.Total += fc.Covered + fc.NotCovered
		part := &res.Builtin
		if fc.User {
			part = &res.User
		}
		part.Covered += fc.Covered
		part.Total += fc.Covered + fc.NotCovered
	}
	return out, res, nil
}

func (t TestResult) String() string {
	status := "PASS"
	switch {
	case t.Error != nil:
		status = "ERROR: " + t.Error.Error()
	case t.Fail:
		status = "FAIL"
	}
	return fmt.Sprintf("%s:%d: %s.%s: %s", t.File, t.Row, t.Package, t.Name, status)
}
