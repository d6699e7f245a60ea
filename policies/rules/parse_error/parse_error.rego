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
package buildgate.rules.parse_error

import data.buildgate.lib

deny contains lib.finding_at(d, e.pos, msg) if {
	some d in input.documents
	some e in d.errors
	msg := sprintf("%s could not be read in full: %s; fix it or exclude the file, since buildgate does not pass what it cannot read", [d.path, e.message])
}
