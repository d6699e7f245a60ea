// Package finding is what every stage after loading shares: the position
// of an element, a rule as its METADATA describes it, a finding of a rule
// (with its fix and suppression), severities, the order findings are
// reported in and the fingerprints that identify them across runs. It is a
// leaf: it imports nothing of buildgate's, so that reporters can be built
// and tested without the policy engine (OPA) or the parsers.
package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// Pos locates an element in its file. Lines and columns are 1-based; columns
// count Unicode code points (SARIF's "unicodeCodePoints"), so a column means
// the same thing to every loader whatever its parser counts internally.
// EndColumn is exclusive: one past the element's last character.
type Pos struct {
	Line      int `json:"line"`
	Column    int `json:"column"`
	EndLine   int `json:"end_line"`
	EndColumn int `json:"end_column"`
}

// Severities, most severe first.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityNote    = "note"
)

// SeverityRank orders severities: error 3, warning 2, note 1, anything else 0.
func SeverityRank(s string) int {
	switch s {
	case SeverityError:
		return 3
	case SeverityWarning:
		return 2
	case SeverityNote:
		return 1
	}
	return 0
}

// Rule is a rule as its METADATA describes it.
type Rule struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Severity    string   `json:"severity"`
	Tags        []string `json:"tags,omitempty"`
	Precision   string   `json:"precision,omitempty"`
	Package     string   `json:"package"`
	File        string   `json:"file"`
	// Pack is the --policy directory of a user rule, "" for a built-in one.
	Pack string `json:"pack,omitempty"`
	// Meta rules are reported by the tool, not evaluated (BG002-BG004).
	Meta bool `json:"meta,omitempty"`
	// RepositoryLevel rules are about the repository as a whole (a missing
	// pin): always reported, even when only new findings are asked for.
	RepositoryLevel bool `json:"repository_level,omitempty"`
	// Locked rules cannot be turned off or lowered below error by
	// configuration (BG001: what cannot be read must fail the gate).
	Locked bool `json:"locked,omitempty"`
	// Doc is the rule's hand-written page (Markdown) when it has one: the
	// .md file beside its policy.
	Doc string `json:"-"`
	// Sets are the rule sets its package defines (deny, warn, info),
	// sorted: what the engine evaluates.
	Sets []string `json:"-"`
}

// Fix is a suggested replacement: the text that should stand at a finding's
// position (an empty position range means an insertion).
type Fix struct {
	Description string `json:"description"`
	Replacement string `json:"replacement"`
	Pos         Pos    `json:"pos"`
	// Unsafe marks a fix that changes what the build does beyond the
	// finding's own element (a pin loosened, a step that stops running):
	// buildgate fix applies it only with --unsafe-fixes, as ruff does.
	Unsafe bool `json:"unsafe,omitempty"`
	// UnsafeReason says what an unsafe fix changes beyond its finding
	// (a rule gives it as its fix's "unsafe": "reason").
	UnsafeReason string `json:"unsafe_reason,omitempty"`
}

// Finding is one result of one rule.
type Finding struct {
	Rule     string `json:"rule"`
	Name     string `json:"name"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Path     string `json:"path"`
	Pos      Pos    `json:"pos"`
	// Text is the element's source text as the rule saw it, for stable
	// fingerprints (from the finding's text, else its loc's); Fix is
	// optional.
	Text string `json:"text,omitempty"`
	Fix  *Fix   `json:"fix,omitempty"`
	// Fingerprint identifies the finding across runs (see Fingerprints).
	Fingerprint string `json:"fingerprint,omitempty"`
	// Suppression is set on a finding a suppression covers.
	Suppression *Suppression `json:"suppression,omitempty"`
	// Failed marks the finding that says a user rule failed at run time
	// (a type error, a conflict): always an error, its Path the policy
	// file when it is inside the repository.
	Failed bool `json:"failed,omitempty"`
}

// Suppression says why a finding is not reported: Kind "inSource" (a
// buildgate:ignore comment) or "external" (the configuration), as SARIF
// names them.
type Suppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}

// Sort orders findings by path, line, column, rule, then message.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Column != b.Pos.Column {
			return a.Pos.Column < b.Pos.Column
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}

// Fingerprints returns, for each finding in order, an identity that does
// not depend on line numbers: a hash of the rule, the path and the
// element's text with white space collapsed (the message when there is no
// element), then ":" and the occurrence of that hash so far, so that two
// identical elements in one file stay apart.
func Fingerprints(fs []Finding) []string { return FingerprintsWith(fs, nil) }

// FingerprintsWith is Fingerprints with salt's text added to a finding's
// (the content of the file a BG001 could not read in full: a baseline
// entry for it then holds only while the file is unchanged).
func FingerprintsWith(fs []Finding, salt func(Finding) string) []string {
	seen := map[string]int{}
	out := make([]string, len(fs))
	for i, f := range fs {
		text := strings.Join(strings.Fields(f.Text), " ")
		if text == "" {
			text = strings.Join(strings.Fields(f.Message), " ")
		}
		if salt != nil {
			text += "\x00" + salt(f)
		}
		sum := sha256.Sum256([]byte(f.Rule + "\x00" + f.Path + "\x00" + text))
		h := hex.EncodeToString(sum[:16])
		seen[h]++
		out[i] = fmt.Sprintf("%s:%d", h, seen[h])
	}
	return out
}

// SetFingerprints fills in each finding's Fingerprint, in order.
func SetFingerprints(fs []Finding) { SetFingerprintsWith(fs, nil) }

// SetFingerprintsWith fills them in with FingerprintsWith.
func SetFingerprintsWith(fs []Finding, salt func(Finding) string) {
	for i, fp := range FingerprintsWith(fs, salt) {
		fs[i].Fingerprint = fp
	}
}
