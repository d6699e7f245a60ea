# METADATA
# title: Sibling variant of the package
# description: |
#   A file that must pin the package requires one of its sibling variants
#   instead (for the Mooncake ROCm migration, the CUDA wheels
#   `mooncake-transfer-engine` or `mooncake-transfer-engine-cuda13` in
#   `requirements/rocm.txt`), directly or through `-r`.
# custom:
#   id: BG204
#   name: wheel-variant-mismatch
#   severity: warning
#   precision: very-high
#   tags: [migration, pin]
package buildgate.rules.wheel_variant_mismatch

import data.buildgate.lib
import data.buildgate.lib.pin

deny contains lib.finding(d, r.name_word, msg) if {
	some m in lib.migrations
	some d in lib.documents("requirements")
	some f in m.requirements
	d.path in pin.reachable(f)
	some r in d.requirements
	pin.variant(m, r)
	msg := sprintf("%s is a different variant of the package; %s must pin `%s` instead", [r.name, f, pin.wanted(m)])
}
