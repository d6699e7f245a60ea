// Package engine compiles Rego policies once and evaluates them over loaded
// documents. It knows rules and findings; it knows nothing of files on disk,
// configuration files or output formats.
package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/buildgate/buildgate/finding"
	"github.com/open-policy-agent/opa/v1/ast"
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
}

// Engine holds compiled policies and their prepared queries: one for the
// built-in pack, one per user rule package, so that a timeout can name the
// query that ran out of time.
type Engine struct {
	compiler *ast.Compiler
	rules    []finding.Rule
	queries  []query
	// selector, when the policies define data.buildgate.select.paths and
	// no user policy is loaded, says which documents the rules read beyond
	// their kind, path and errors: only those are converted in full.
	selector *rego.PreparedEvalQuery
	// facts, beside the selector, computes once over the selection what
	// every batch of the streaming evaluation reads as input.facts.
	facts *rego.PreparedEvalQuery
	// needles, beside the selector, are the relevance questions the
	// configuration alone decides, answered for every file in one pass
	// before the selection (sources.prescan).
	needles *rego.PreparedEvalQuery
	// BatchBytes bounds the source text one evaluation holds converted
	// (DefaultBatchBytes when 0); see stream.
	BatchBytes int64
	// OneEvaluation evaluates the built-in pack as before streaming: the
	// selection over whole documents, every selected document whole in
	// one evaluation, the repository's facts computed by the pack from
	// the documents themselves. It is the reference TestStreamEquivalence
	// holds the stream to (stubs, facts and batches alike).
	OneEvaluation bool
}

// SelectRef is the rule that narrows which documents are converted;
// FactsRef the repository's facts the streaming evaluation computes once;
// NeedlesRef the relevance questions it answers before the selection.
const (
	SelectRef  = "data.buildgate.select.paths"
	FactsRef   = "data.buildgate.select.facts"
	NeedlesRef = "data.buildgate.select.needles"
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

// Compiler is the compiled policy set (for the test runner).
func (e *Engine) Compiler() *ast.Compiler { return e.compiler }
