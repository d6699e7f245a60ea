# METADATA
# title: Suppression that matches nothing
# description: |
#   A `buildgate:ignore` comment, or an `ignore` entry of the
#   configuration, that suppresses no finding: the problem is gone (delete
#   the suppression) or the comment is not where the finding is.
# custom:
#   id: BG003
#   name: unused-suppression
#   severity: note
#   precision: very-high
#   tags: [suppression]
package buildgate.meta.unused_suppression

# The engine reports this rule while it applies suppressions (lint/suppress.go);
# this package is its catalogue entry.
