// Package policies holds the built-in Rego policy pack: the library under
// lib/, one folder per rule under rules/ with its policy, its tests and its
// documentation page, and under meta/ the catalogue entries and pages of the
// findings the tool makes itself (suppressions).
package policies

import "embed"

// FS holds every policy, test and doc page of the pack.
//
//go:embed lib rules meta
var FS embed.FS
