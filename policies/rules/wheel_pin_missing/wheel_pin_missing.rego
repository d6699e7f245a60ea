# METADATA
# title: Wheel pin missing
# description: |
#   A requirements file the configuration names (for the default Mooncake
#   migration, `requirements/rocm.txt`) does not require the package, or
#   does not exist. Requirements it pulls in with `-r` count; constraints
#   files (`-c`) do not, since they install nothing. A missing file is
#   reported only where the repository shows the migration concerns it:
#   a build file names that requirements file (a Dockerfile copies or
#   installs it, a script or bake file passes it, another requirements file
#   includes it), or the run finds a source build (BG101-BG104). Elsewhere
#   the migration has nothing to guard.
# custom:
#   id: BG201
#   name: wheel-pin-missing
#   severity: error
#   precision: very-high
#   tags: [migration, pin]
#   repository_level: true
package buildgate.rules.wheel_pin_missing

import data.buildgate.lib
import data.buildgate.lib.pin

# The file exists and does not carry the pin: reported in the file's own
# evaluation, which has its document (where the pin line goes).
deny contains object.union(lib.file_finding(f, msg), fix_of(m, d)) if {
	some m in lib.migrations
	some d in lib.documents("requirements")
	some f in m.requirements
	d.path == f
	not pin.carried(m, f)
	msg := sprintf("%s does not require %s; add the line `%s` so the image installs the published wheel", [f, m.package, pin.wanted(m)])
}

# fix_of adds the pin line, unless the file is in pip's hash-checking
# mode (a line without its hashes would make pip refuse the whole install)
# or was not read whole (what it holds is unknown).
fix_of(m, d) := {"fix": {
	"description": sprintf("add `%s`", [pin.wanted(m)]),
	"replacement": sprintf("%s\n", [pin.wanted(m)]),
	"pos": pin.append_at(d),
}} if {
	not pin.hash_mode(d.path)
	not pin.unread(d)
} else := {}

# The file does not exist, in a repository it concerns: a finding about
# the repository, from its evaluation (not each file's).
deny contains object.union(lib.file_finding(f, msg), {"fix": fix}) if {
	not lib.per_file
	some m in lib.migrations
	some f in m.requirements
	pin.file_of(f) == null
	concerned(f)
	msg := sprintf("%s does not exist; create it with the line `%s` so the image installs the published wheel", [f, pin.wanted(m)])
	fix := {
		"description": sprintf("create %s with `%s`", [f, pin.wanted(m)]),
		"replacement": sprintf("%s\n", [pin.wanted(m)]),
		"pos": lib.start_of_file,
	}
}

concerned(f) if pin.named_by_build_file(f)

concerned(_) if source_build_found

# source_build_found: any source-build finding, whichever migration (a
# repository with a source build the configuration guards is one it
# concerns). Rules turned off by configuration still count: the evidence
# is there. In the repository's evaluation the files' findings are
# input.findings; in an evaluation over every document, the rules'.
source_build_found if {
	some f in object.get(input, "findings", [])
	f.rule in {"BG101", "BG102", "BG103", "BG104"}
}

source_build_found if count(data.buildgate.rules.source_build_stage.deny) > 0

source_build_found if count(data.buildgate.rules.source_build_step.deny) > 0

source_build_found if count(data.buildgate.rules.source_build_arg.deny) > 0

source_build_found if count(data.buildgate.rules.source_build_cache.deny) > 0
