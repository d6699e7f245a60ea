// Package policies holds the built-in Rego policy pack: the library under
// lib/ and one folder per rule under rules/ with its policy, its tests and
// its documentation page.
package policies

import "embed"

// FS holds every policy, test and doc page of the pack.
//
//go:embed lib rules
var FS embed.FS
