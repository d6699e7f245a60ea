# METADATA
# title: Sibling variant of the package
# description: |
#   A file that must pin the package requires one of its sibling variants
#   instead (for the Mooncake ROCm migration, the CUDA wheels
#   `mooncake-transfer-engine` or `mooncake-transfer-engine-cuda13` in
#   `requirements/rocm.txt`), directly or through `-r`; or an install
#   command of a build file of the package's platform installs one (a
#   swap of one variant for another, after uninstalling it, is that
#   platform's choice and not reported).
# custom:
#   id: BG204
#   name: wheel-variant-mismatch
#   severity: error
#   precision: very-high
#   tags: [migration, pin]
package buildgate.rules.wheel_variant_mismatch

import data.buildgate.lib
import data.buildgate.lib.install
import data.buildgate.lib.pin

deny contains lib.finding(d, r.name_word, msg) if {
	some m in lib.migrations
	some d in lib.documents("requirements")
	some f in installed_or_configured(m)
	d.path in pin.reachable(f)
	some r in d.requirements
	pin.variant(m, r)
	pin.applies(r)
	msg := sprintf("%s is a different variant of the package; %s must pin `%s` instead", [r.name, f, pin.wanted(m)])
}

# installed_or_configured are the configured requirements files and those
# a build file installs with -r (an image's requirements/rocm-extra.txt).
installed_or_configured(m) := {f | some f in m.requirements} | {f | some f in pin.installed}

# An install command of a build file of the package's platform that
# installs a sibling variant (the CUDA wheel in a ROCm image), wherever it
# is: a RUN, a script, a CI step.
deny contains lib.finding(x.doc, x.req.name_word, msg) if {
	some m in lib.migrations
	some x in install.variant_installs(m)
	msg := sprintf("this command installs %s, a different variant of the package; install `%s` instead", [x.req.name, pin.wanted(m)])
}
