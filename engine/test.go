package engine

import (
	"context"
	"fmt"
	"sort"
	"time"

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
	Elapsed time.Duration
}

// RunTests runs the test_ rules of mods (policies and their _test.rego
// files) with the same compiler settings and builtins as a lint run.
func RunTests(ctx context.Context, mods []Module, version string) ([]TestResult, error) {
	parsed, err := ParseModules(mods)
	if err != nil {
		return nil, err
	}
	c := NewCompiler().WithEnablePrintStatements(true)
	runner := tester.NewRunner().
		SetCompiler(c).
		SetModules(parsed).
		SetRuntime(Runtime(version)).
		CapturePrintOutput(true).
		SetTimeout(time.Minute)
	ch, err := runner.RunTests(ctx, nil)
	if err != nil {
		return nil, &CompileError{Errors: formatASTErrors(err)}
	}
	var out []TestResult
	for r := range ch {
		tr := TestResult{Package: r.Package, Name: r.Name, Fail: r.Fail, Error: r.Error, Elapsed: r.Duration}
		if r.Location != nil {
			tr.File, tr.Row = r.Location.File, r.Location.Row
		}
		if r.Error != nil && tr.File == "" {
			return nil, &CompileError{Errors: formatASTErrors(r.Error)}
		}
		out = append(out, tr)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Row < out[j].Row
	})
	return out, nil
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
