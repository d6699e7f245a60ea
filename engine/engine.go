// Package engine compiles Rego policies once and evaluates them over loaded
// documents. It knows rules and findings; it knows nothing of files on disk,
// configuration files or output formats.
package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/buildgate/buildgate/finding"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// RulesRoot is the package prefix under which rules live: every package
// below it whose sets deny, warn or info exist is a rule. MetaRoot holds
// the catalogue entries of findings the tool makes itself (suppressions).
const (
	RulesRoot = "buildgate.rules"
	MetaRoot  = "buildgate.meta"
)

var setSeverity = map[string]string{"deny": finding.SeverityError, "warn": finding.SeverityWarning, "info": finding.SeverityNote}

// Module is one Rego source file. Name is how messages refer to it; Pack
// is the policy directory it came from ("" for the built-in pack).
type Module struct {
	Name string
	Src  string
	Pack string
	// Builtin marks the embedded pack's modules: the only ones the
	// sandbox check may skip (it passes it: TestPackPassesSandbox).
	Builtin bool
}

// Engine holds compiled policies and their prepared queries (OPA's model:
// compile once, prepare the queries, evaluate many inputs). The built-in
// pack is evaluated file by file (issue 27): each file alone, with one
// prepared query over every rule of the pack, reading what it needs of
// the other files from the repository's table, which the pack declares
// (data.buildgate.facts: each file's facts, folded once). User policies
// keep the whole-repository contract: one query per rule package,
// evaluated once over every document.
type Engine struct {
	rules []finding.Rule
	// pack is the query of the built-in pack's rules, per file (nil when
	// it has no rule).
	pack *query
	// user are the user policies' queries, one per rule package.
	user []query
	// file, fold and needles are the pack's declarations of what a
	// file's evaluation needs of the others (nil when the policies do not
	// declare them): a file's facts, the fold of every file's facts into
	// the repository's table, and the strings a file must hold to be
	// parsed at all.
	file, fold, needles *rego.PreparedEvalQuery
	// files is the facts of every document of the input
	// (data.buildgate.facts.files, [{path, kind, facts}]): what a batch
	// of files evaluated together declares.
	files *rego.PreparedEvalQuery
}

// HasUserPolicies reports whether user policies are loaded: they read
// every document, so every file is parsed, and they are evaluated once
// over every document.
func (e *Engine) HasUserPolicies() bool { return len(e.user) > 0 }

// The pack's declarations (policies/lib/facts.rego).
const (
	FileFactsRef = "data.buildgate.facts.file"
	RepoRef      = "data.buildgate.facts.repo"
	NeedlesRef   = "data.buildgate.facts.needles"
	FilesRef     = "data.buildgate.facts.files"
)

type query struct {
	name     string // the rule sets it evaluates, for messages
	prepared rego.PreparedEvalQuery
	bindings []binding
}

type binding struct {
	rule int
	set  string
	v    string
}

// Options are what a compilation needs besides the modules.
type Options struct {
	// Version is what opa.runtime() reports.
	Version string
	// Data is available to policies as data.buildgate.data (--data).
	Data any
}

// TimeoutError is an evaluation that ran out of time.
type TimeoutError struct {
	Query string
	Err   error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("evaluating %s did not finish in time (--timeout): %v", e.Query, e.Err)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// RuleError is an evaluation of a rule's query that failed: a builtin
// refused past a bound, or a runtime error of the policy. It names the
// rule and its policy file.
type RuleError struct {
	Rule finding.Rule
	Err  error
	// Bound: the rule passed a bound buildgate sets (a builtin's result
	// too large, too many findings): the run stops (exit 2) rather than
	// report the rule as failed.
	Bound bool
	// Shape: what the rule gave is not a set of findings (`deny[msg]`
	// builds an object in Rego v1, `deny := "x"` a string, an element
	// neither a string nor an object with msg): the rule's own failure.
	Shape bool
}

// Runtime reports whether the error is a runtime error of the policy
// itself (a type error, a conflict, a builtin refusing its operands):
// what a user rule's evaluation reports as its own failure (issue 32),
// not a bound buildgate set.
func (e *RuleError) Runtime() bool {
	if e.Shape {
		return true
	}
	if e.Bound {
		return false
	}
	var te *topdown.Error
	return errors.As(e.Err, &te) && te.Code != BoundErr && te.Code != SandboxErr
}

// Place is where the error is: the policy file, line and column (the
// rule's file, line 0, when OPA gives no location).
func (e *RuleError) Place() (file string, line, col int) {
	var te *topdown.Error
	if errors.As(e.Err, &te) && te.Location != nil {
		return te.Location.File, te.Location.Row, max(te.Location.Col, 1)
	}
	return e.Rule.File, 0, 0
}

// Message is the error as OPA says it, without its place.
func (e *RuleError) Message() string {
	var te *topdown.Error
	if errors.As(e.Err, &te) {
		return te.Code + ": " + te.Message
	}
	return e.Err.Error()
}

func (e *RuleError) Error() string {
	who := fmt.Sprintf("rule %s (%s)", e.Rule.ID, e.Rule.Name)
	if e.Rule.File != "" {
		who += " of the policy " + e.Rule.File
	}
	msg := e.Err.Error()
	var te *topdown.Error
	if errors.As(e.Err, &te) {
		msg = te.Message
		if te.Location != nil {
			msg = fmt.Sprintf("%s:%d: %s", te.Location.File, te.Location.Row, te.Message)
		}
	}
	return who + ": " + msg
}

func (e *RuleError) Unwrap() error { return e.Err }

// CompileError lists what was wrong with the policies, each as file:line.
type CompileError struct{ Errors []string }

func (e *CompileError) Error() string { return strings.Join(e.Errors, "\n") }
