# METADATA
# title: Expired ignore entry
# description: |
#   An `ignore` entry of the configuration whose `until` date has passed. It
#   no longer suppresses anything; fix what it covered or renew it.
# custom:
#   id: BG004
#   name: expired-ignore
#   severity: warning
#   precision: very-high
#   tags: [suppression]
package buildgate.meta.expired_ignore

# The engine reports this rule while it applies suppressions (lint/suppress.go);
# this package is its catalogue entry.
