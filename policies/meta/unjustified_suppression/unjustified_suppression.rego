# METADATA
# title: Suppression without a reason
# description: |
#   A `buildgate:ignore` comment with no reason after `--`. It still
#   suppresses; this finding asks for the reason reviewers need.
# custom:
#   id: BG002
#   name: unjustified-suppression
#   severity: warning
#   precision: very-high
#   tags: [suppression]
package buildgate.meta.unjustified_suppression

# The engine reports this rule while it applies suppressions (lint/suppress.go);
# this package is its catalogue entry.
