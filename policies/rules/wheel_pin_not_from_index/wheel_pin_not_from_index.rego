# METADATA
# title: Wheel not from the package index
# description: |
#   The package is required from a URL, a VCS checkout or a local path
#   instead of the published wheel on the package index.
# custom:
#   id: BG203
#   name: wheel-pin-not-from-index
#   severity: error
#   precision: very-high
#   tags: [migration, pin]
package buildgate.rules.wheel_pin_not_from_index

import data.buildgate.lib
import data.buildgate.lib.pin

deny contains lib.finding(d, where(r), msg) if {
	some m in lib.migrations
	some d in lib.documents("requirements")
	lib.in_scope(m, d.path)
	some r in d.requirements
	pin.names(m, r)
	not pin.from_index(r)
	msg := sprintf("%s is required from %s `%s`, not from the package index; require the published wheel `%s`", [m.package, source_kind(r), where(r).text, pin.wanted(m)])
}

where(r) := r.url if r.url != null

where(r) := r.local_path if {
	r.url == null
	r.local_path != null
}

source_kind(r) := "a VCS checkout" if {
	r.url != null
	r.vcs != ""
}

source_kind(r) := "the URL" if {
	r.url != null
	r.vcs == ""
}

source_kind(r) := "the local path" if r.url == null
