# METADATA
# title: Wheel not from the package index
# description: |
#   The package is required from a URL, a VCS checkout or a local path
#   instead of the published wheel on the package index, in a requirements
#   file or at RUN level; or pinned to a local version (`+rocm.custom`);
#   or an install of it takes another index (`--index-url`,
#   `--extra-index-url`, `PIP_*`/`UV_*` in the environment: allowed ones
#   under `indexes:`), no index, links nothing in the build fills or that
#   receive the package's wheel, `--no-binary` for it, or an override or
#   constraints file whose content the build does not show or that names
#   the package. `UV_INDEX_STRATEGY` alone is not reported.
# custom:
#   id: BG203
#   name: wheel-pin-not-from-index
#   severity: error
#   precision: very-high
#   tags: [migration, pin]
package buildgate.rules.wheel_pin_not_from_index

import data.buildgate.lib
import data.buildgate.lib.install
import data.buildgate.lib.pin

deny contains lib.finding(d, where(r), msg) if {
	some m in lib.migrations
	some d in lib.documents("requirements")
	lib.in_scope(m, d.path)
	some r in d.requirements
	pin.names(m, r)
	pin.applies(r)
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

# A local version (==0.3.13+rocm.custom) is a build of someone's own: the
# package index never serves one.
deny contains lib.finding_at(d, pin.spec_span(r), msg) if {
	some m in lib.migrations
	some d in lib.documents("requirements")
	lib.in_scope(m, d.path)
	some r in d.requirements
	pin.names(m, r)
	pin.applies(r)
	install.local_version(r)
	msg := local_msg(m, r)
}

deny contains lib.finding_at(x.doc, pin.spec_span(x.req), local_msg(m, x.req)) if {
	some m in lib.migrations
	some x in install.package_installs(m)
	install.local_version(x.req)
}

local_msg(m, r) := sprintf("`%s %s` pins a local version, which the package index never serves (a build of someone's own); require the published wheel `%s`", [r.name, r.specifier, pin.wanted(m)])

# An install command that installs the package from a URL, a VCS checkout
# or a local file (a wheel dropped into the build context).
deny contains object.union(lib.finding(x.doc, where(x.req), msg), published_fix(m, x)) if {
	some m in lib.migrations
	some x in install.package_installs(m)
	not pin.from_index(x.req)
	msg := sprintf("this command installs %s from %s `%s`, not from the package index; install the published wheel `%s`", [m.package, source_kind(x.req), where(x.req).text, pin.wanted(m)])
}

# published_fix puts the published pin where a command installs the
# package's own wheel (a local path or a wheel's URL, the word alone: not
# `name @ URL`, not editable, not a VCS checkout): the image keeps
# installing the package once the stage that built the wheel goes
# (issue 32). {} otherwise.
published_fix(m, x) := {"fix": {
	"description": sprintf("install the published %s instead", [pin.wanted(m)]),
	"replacement": pin.shell_word(m),
	"pos": where(x.req).pos,
}} if {
	r := x.req
	r.vcs == ""

	# A command that cannot reach the package index (--no-index,
	# PIP_NO_INDEX, another --index-url) would not find the published
	# wheel there: no fix (the red team's).
	not index_elsewhere(x.call)
	not r.editable
	where(r).text == r.raw
	endswith(lower(trim(r.raw, "\"'")), ".whl")
} else := {}

# An option of a command that installs the package (its requirement, or
# a requirements file that carries it), from the command line or the
# PIP_*/UV_* environment: another index, no index, links elsewhere, or
# --no-binary for it (a build from source).
deny contains lib.finding_at(x.doc, o.pos, msg) if {
	some m in lib.migrations
	some x in package_calls(m)
	some o in x.call.pip.options
	problem := install.source_problem(m, o)
	not only_binary_wins(m, x.call, o)
	msg := sprintf("this %s install %s (%s), so %s may not be the published wheel from the package index; %s", [x.call.pip.tool, problem, option_source(o), m.package, remedy(m)])
}

deny contains lib.finding_at(x.doc, o.pos, msg) if {
	some m in lib.migrations
	some x in package_calls(m)
	some o in x.call.pip.options
	problem := install.find_links_problem(m, x.doc, o)
	msg := sprintf("this %s install %s (%s), so %s may not be the published wheel from the package index; %s", [x.call.pip.tool, problem, option_source(o), m.package, remedy(m)])
}

# An override or constraints file of a command that installs the package:
# one whose content the build does not show, or one that names the
# package (its version then comes from there).
deny contains lib.finding_at(x.doc, f.pos, msg) if {
	some m in lib.migrations
	some x in package_calls(m)
	some f in x.call.files
	f.kind in {"override", "constraint"}
	problem := file_problem(m, x.doc, f)
	msg := sprintf("the %s file %s %s; install the published wheel `%s` without overriding its version", [f.kind, file_name(f), problem, pin.wanted(m)])
}

# pip download / pip wheel --no-binary of the package: its source,
# built here.
deny contains lib.finding(d, r.name_word, msg) if {
	some m in lib.migrations
	install.pins(m)
	some d in install.docs_naming(m)
	some e in install.named(d)
	c := e.call
	c.pip.op in {"download", "wheel"}
	r := e.req
	pin.names(m, r)
	some o in c.pip.options
	o.name == "no-binary"
	install.no_binary_covers(m, o.value)
	msg := sprintf("`pip %s --no-binary` fetches %s's source to build it; install the published wheel `%s` instead", [c.pip.op, m.package, pin.wanted(m)])
}

# Options of a requirements file that carries the package apply to the
# whole install (pip reads them as global options).
deny contains lib.finding(d, o, msg) if {
	some m in lib.migrations
	some d in lib.documents("requirements")
	lib.in_scope(m, d.path)
	some o in d.options
	problem := file_option_problem(m, o)
	with_package(m, d.path)
	msg := sprintf("this requirements file %s (`%s`), so %s may not be the published wheel from the package index; %s", [problem, o.text, m.package, remedy(m)])
}

file_option_problem(m, o) := install.source_problem(m, {"name": o.name, "value": o.value})

# A local --find-links in a requirements file: what lands in that
# directory is not in the file (a custom build of the package would be
# taken from there first with an equal version, and alone with
# --no-index).
file_option_problem(_, o) := sprintf("takes packages from the directory %s", [o.value]) if {
	o.name == "find-links"
	not contains(o.value, "://")
}

only_binary_wins(m, c, o) if {
	o.name == "no-binary"
	install.only_binary_names(m, c)
}

package_calls(m) := [{"doc": d, "call": c} |
	install.pins(m)
	some d in install.docs_installing(m)
	some c in calls_installing(m, d)
]

# calls_installing are d's calls that install the package: by name (from
# install.named, not every command) or through a requirements file.
calls_installing(m, d) := {c |
	some e in install.named(d)
	e.call.pip.op in install.installing
	pin.names(m, e.req)
	c := e.call
} | {c |
	some c in install.calls(d)
	some f in c.files
	f.kind == "requirement"
	c.pip.op in install.installing
	some p in f.paths
	pin.carried(m, p)
}

option_source(o) := sprintf("%s set in the environment", [o.env]) if o.env

option_source(o) := "on its command line" if not o.env

remedy(m) := "install it from the public index (or list the index under `indexes:` in .buildgate.yaml)" if count(object.get(m, "indexes", [])) == 0

remedy(m) := "install it from an index listed under `indexes:`" if count(object.get(m, "indexes", [])) > 0

file_name(f) := f.word.value if is_string(f.word.value)

file_name(f) := f.word.text if not is_string(f.word.value)

# file_problem: the content is the repository's file (checked for the
# package), the build's own writing (checked for the package's name), or
# unknown.
file_problem(m, _, f) := "pins the package below the minimum" if {
	some p in f.paths
	some r in lib.document(p).requirements
	pin.names(m, r)
	object.get(m, "minimum", "") != ""
	pep440.witness_below_pre(r.specifier, m.minimum)
}

file_problem(m, d, f) := "is written by the build with the package in it" if {
	count(f.paths) == 0
	some w in writers(d, file_name(f))
	some s in install.spellings(m)
	contains(lower(w), s)
}

file_problem(_, d, f) := "has content the build does not show" if {
	count(f.paths) == 0
	count(writers(d, file_name(f))) == 0
}

# writers are the texts of the commands of d that write path (a
# redirection to it, tee, a COPY to it), heredoc bodies included.
writers(d, path) := [t |
	some e in lib.scripts_of(d)
	some c in e.script.commands
	writes(c, path)
	t := concat(" ", array.concat([w.text | some w in c.words], [h.body | some h in object.get(e.script, "heredocs", [])]))
]

writes(c, path) if {
	some r in c.redirects
	r.op in {">", ">>", ">|"}
	r.word.value == path
}

writes(c, path) if {
	c.name in {"tee", "cp", "mv", "install"}
	some w in c.words
	w.value == path
}

# with_package: the file carries the package, or a configured file that
# carries it pulls this one in (pip reads the options of every file of the install).
with_package(m, path) if pin.carried(m, path)

with_package(m, path) if {
	some g in m.requirements
	pin.carried(m, g)
	path in pin.reachable(g)
}

index_elsewhere(call) if {
	some o in object.get(call.pip, "options", [])
	o.name in {"no-index", "index-url", "index", "default-index"}
}
