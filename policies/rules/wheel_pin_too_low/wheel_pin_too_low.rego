# METADATA
# title: Wheel pin admits a version below the minimum
# description: |
#   The package's version specifier admits some version below the minimum,
#   by PEP 440's rules and pip's pre-release handling: unpinned, `>=0.3.9`,
#   `>0.3.12` (admits 0.3.12.1), `>=0.3.13rc1` (admits 0.3.13rc1),
#   `~=0.3.0`, `==0.3.*`, an epoch or post release below it, and so on;
#   in a requirements file or at RUN level (`uv pip install "pkg==0.3.0"`,
#   a version from an ARG). A line under a marker that never holds on the
#   image is not installed and not reported; a RUN-level version from a
#   variable with no value in the file is not known and not reported.
# custom:
#   id: BG202
#   name: wheel-pin-too-low
#   severity: error
#   precision: very-high
#   tags: [migration, pin]
#   repository_level: true
package buildgate.rules.wheel_pin_too_low

import data.buildgate.lib
import data.buildgate.lib.install
import data.buildgate.lib.pin

# Unpinned.
deny contains object.union(lib.finding(d, r.name_word, msg), unpinned_fix(m, d, r)) if {
	some m in versioned
	some d in lib.documents("requirements")
	lib.in_scope(m, d.path)
	some r in d.requirements
	pin.names(m, r)
	pin.applies(r)
	pin.from_index(r)
	r.specifier == ""
	msg := sprintf("%s is not pinned, so any version can be installed, including ones below %s; require `%s`", [r.name, m.minimum, pin.wanted(m)])
}

# unpinned_fix puts the minimum after the name and extras: only where
# that place is known to follow them (no bracket, or the character before
# it is the closing `]`: `[]` and `[a, b ]` are not kept that exactly).
unpinned_fix(m, d, r) := {"fix": {"description": sprintf("pin %s >= %s", [r.name, m.minimum]), "replacement": sprintf(" >= %s", [m.minimum]), "pos": pin.after_name(r)}} if {
	not pin.hash_mode(d.path)
	after_extras(r)
} else := {}

after_extras(r) if not contains(r.raw, "[")

after_extras(r) if {
	count(r.extras) > 0
	r.pos.line == r.pos.end_line
	at := pin.after_name(r)
	at.line == r.pos.line
	substring(r.raw, (at.column - r.pos.column) - 1, 1) == "]"
}

# A specifier that admits a lower version.
deny contains object.union(lib.finding_at(d, pin.spec_span(r), msg), object.union({"text": r.raw}, fix_of(m, d, r))) if {
	some m in versioned
	some d in lib.documents("requirements")
	lib.in_scope(m, d.path)
	some r in d.requirements
	pin.names(m, r)
	pin.applies(r)
	pin.from_index(r)
	r.specifier != ""

	# An invalid specifier is an error entry of the document (BG001).
	pep440.valid_specifier(r.specifier)
	w := witness(d.path, r.specifier, m.minimum)
	msg := sprintf("`%s %s` admits %s, below the minimum %s; require `%s`", [r.name, r.specifier, w, m.minimum, pin.wanted(m)])
}

# fix_of replaces a single clause with the minimum. With several clauses,
# replacing them all would drop an upper bound or an exclusion the file
# meant (`>=0.3.9,<1`); in pip's hash-checking mode the hashes name the
# old version: no fix, a person decides.
#
# The operator decides what the new clause is (issue 30): an exact pin
# stays exact (`==0.3.9` becomes `==0.3.13`), a lower bound is raised;
# anything else (`~=`, `<=`, `!=`, `==0.3.*`, `===`) turned into
# `>=MINIMUM` would admit versions the file excludes now: that fix is
# unsafe, and buildgate fix applies it only with --unsafe-fixes.
fix_of(m, d, r) := {"fix": object.union(
	{
		"description": sprintf("require %s %s %s", [r.name, new_op(r), m.minimum]),
		"replacement": sprintf("%s%s%s", [new_op(r), op_gap(r), m.minimum]),
		"pos": pin.spec_span(r),
	},
	unsafe_of(r),
)} if {
	count(r.specifiers) == 1
	not pin.hash_mode(d.path)
} else := {}

# new_op keeps an exact pin exact.
new_op(r) := "==" if {
	exact(r.specifiers[0])
} else := ">="

exact(s) if {
	s.op == "=="
	not endswith(s.version, ".*")
}

unsafe_of(r) := {} if {
	exact(r.specifiers[0])
} else := {} if {
	r.specifiers[0].op in {">=", ">"}
} else := {"unsafe": "the requirement would admit versions it excludes now"}

# op_gap keeps the file's style: a space between operator and version when
# the specifier it replaces had one (`>= 0.3.9`), none when not (`>=0.3.9`).
op_gap(r) := gap if {
	some m in regex.find_all_string_submatch_n(`^\s*[<>=!~]+(\s+)`, r.specifiers[0].text, 1)
	gap := m[1]
} else := ""

# A requirement only the environment completes: pip replaces ${NAME}
# before it reads the line, so a variable anywhere in it (the version, the
# extras, a marker) can change what is installed — extras can even turn
# it into a URL (review of issue 14). Nothing can be shown to meet the
# minimum: fail closed.
deny contains lib.finding_at(d, r.pos, msg) if {
	some m in versioned
	some d in lib.documents("requirements")
	lib.in_scope(m, d.path)
	some r in d.requirements
	pin.names(m, r)
	count(r.env) > 0
	vars := concat(", ", [e.text | some e in r.env])
	msg := sprintf("`%s` holds %s, which pip replaces from the environment before it reads the line: buildgate cannot show that what it installs is at least %s; write the requirement out: `%s`", [r.raw, vars, m.minimum, pin.wanted(m)])
}

# witness is a version below the minimum the specifier admits, pre-releases
# included: pip installs them with --pre, PIP_PRE or a pip.conf, which
# buildgate cannot see (review of issue 14: ==0.3.13.* admits 0.3.13rc1
# then), so a pin must hold for them too.
witness(_, spec, minimum) := pep440.witness_below_pre(spec, minimum)

# An install command (a Dockerfile's RUN, a script, a CI step) that
# installs the package itself: unpinned, or at a version its specifier
# admits below the minimum (`uv pip install "pkg==0.3.0"`). A version
# the command takes from a variable with no value in the file is not
# known: not reported.
deny contains lib.finding(x.doc, x.req.name_word, msg) if {
	some m in versioned
	some x in install.package_installs(m)
	pin.from_index(x.req)
	x.req.specifier == ""
	not install.pinned_by_files(m, x.call)
	msg := sprintf("`%s` installs %s unpinned, so any version can be installed, including ones below %s; require `%s`", [lib.command_text(x.call.cmd), x.req.name, m.minimum, pin.wanted(m)])
}

deny contains object.union(lib.finding_at(x.doc, pin.spec_span(x.req), msg), {"text": x.req.raw}) if {
	some m in versioned
	some x in install.package_installs(m)
	pin.from_index(x.req)
	x.req.specifier != ""
	not install.pinned_by_files(m, x.call)
	count(x.req.env) == 0
	pep440.valid_specifier(x.req.specifier)
	w := pep440.witness_below_pre(x.req.specifier, m.minimum)
	msg := sprintf("`%s` installs `%s %s`, which admits %s, below the minimum %s; require `%s`", [lib.command_text(x.call.cmd), x.req.name, x.req.specifier, w, m.minimum, pin.wanted(m)])
}

# versioned are the migrations with a minimum: without one any version of
# the published package will do (a migration that only stopped building
# it), and nothing is too low.
versioned := [m | some m in lib.migrations; object.get(m, "minimum", "") != ""]
