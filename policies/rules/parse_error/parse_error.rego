# METADATA
# title: Input could not be read or parsed
# description: |
#   A build file that buildgate could not read or parse, in whole or in
#   part. buildgate fails closed: what it cannot read could hide exactly the
#   source build or missing pin the other rules look for.
# custom:
#   id: BG001
#   name: parse-error
#   severity: error
#   precision: very-high
#   tags: [robustness]
#   locked: true
package buildgate.rules.parse_error

import data.buildgate.lib

deny contains lib.finding_at(d, e.pos, msg) if {
	some d in input.documents
	some e in d.errors
	msg := sprintf("%s: %s; buildgate fails closed on what it cannot read: fix the file", [d.path, e.message])
}
