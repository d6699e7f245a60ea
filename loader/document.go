// Package loader turns build files into JSON documents for policies. Every
// element a policy could point at carries a Pos; what cannot be parsed becomes
// an Error with a position and the rest of the file is still loaded.
package loader

import "github.com/buildgate/buildgate/kind"

// Kind names a file kind and its loader (package kind holds the list).
type Kind = kind.Kind

// The file kinds buildgate loads.
const (
	KindDockerfile   = kind.Dockerfile
	KindHCL          = kind.HCL
	KindRequirements = kind.Requirements
	KindShell        = kind.Shell
	KindPipeline     = kind.Pipeline
)

// Kinds lists every kind in a stable order.
var Kinds = kind.All

// Document is what a loader produces for one file. Implementations are plain
// structs whose JSON field order is the documented key order.
type Document interface {
	DocKind() Kind
	DocPath() string
	DocErrors() []Error
	DocSuppressions() []Suppression
	DocSource() []byte
}

// Error is a part of a file that could not be read or parsed. Syntax marks
// an error of the file's text against its format (a parse error), as
// opposed to a file or part buildgate did not read at all (unreadable,
// binary, not regular, past a bound): the built-in pack reports the first
// only where it could hide what the rules look for.
type Error struct {
	Message string `json:"message"`
	Syntax  bool   `json:"syntax,omitempty"`
	Pos     Pos    `json:"pos"`
}

// Header is the start of every document. Suppressions are the file's
// buildgate:ignore comments (absent when there are none).
type Header struct {
	Kind         Kind          `json:"kind"`
	Path         string        `json:"path"`
	Suppressions []Suppression `json:"suppressions,omitempty"`
	src          []byte
}

// DocSource implements Document: the file's text (nil for a file that
// could not be read).
func (h Header) DocSource() []byte { return h.src }

func (h *Header) setSource(src []byte) { h.src = src }

// DocSuppressions implements Document.
func (h Header) DocSuppressions() []Suppression { return h.Suppressions }

func (h *Header) setSuppressions(s []Suppression) { h.Suppressions = s }

// DocKind implements Document.
func (h Header) DocKind() Kind { return h.Kind }

// DocPath implements Document.
func (h Header) DocPath() string { return h.Path }

// Word is a piece of source text: a shell word, a token, a list element.
// Text is as written; Value is its unquoted literal value, present only when
// the text is static (no expansion or substitution).
type Word struct {
	Text  string  `json:"text"`
	Value *string `json:"value"`
	// Resolved, on a command's word that is not static, is its value
	// with the one static value the file gives each of its variables put
	// in place (shell_dir.go's resolve); absent when one has none.
	Resolved *string `json:"resolved,omitempty"`
	Pos      Pos     `json:"pos"`
}

func strp(s string) *string { return &s }
