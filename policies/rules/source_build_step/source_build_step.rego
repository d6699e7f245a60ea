# METADATA
# title: Source-build step
# description: |
#   A command that fetches or compiles the package from source: a clone or
#   download of its repository (directly or through a variable that holds
#   it), a configure, compile or install run inside the clone, the
#   installation of a wheel built here, a RUN or ADD or bake context that
#   fetches the repository.
# custom:
#   id: BG104
#   name: source-build-step
#   severity: error
#   precision: high
#   tags: [migration, source-build]
package buildgate.rules.source_build_step

import data.buildgate.lib
import data.buildgate.lib.pin
import data.buildgate.lib.sourcebuild as sb

# A command that fetches the source.
deny contains object.union(lib.finding(s.doc, c, msg), published_fix(m, c)) if {
	some m in lib.migrations
	some s in sb.scripts(m)
	some c in s.script.commands
	sb.may_fetch(c)
	what := sb.fetch(m, s.doc.path, c)
	msg := sprintf("`%s` %s the source of %s; %s", [lib.command_text(c), what, m.package, lib.remedy(m)])
}

# published_fix turns a pip or uv install of the package's source (a VCS
# or archive URL of its repository: refact's `pip install
# git+https://github.com/smallcloudai/vllm@refact_v0.7.3`, issue 32) into
# an install of the published package, the word replaced where it stands;
# {} for any other fetch.
published_fix(m, c) := {"fix": {
	"description": sprintf("install the published %s instead of its source", [pin.wanted(m)]),
	"replacement": pin.shell_word(m),
	"pos": c.fetch.url.pos,
}} if {
	c.fetch.kind == "install"
	is_object(c.pip)
	c.pip.op == "install"
	some r in c.pip.requirements
	r.pos == c.fetch.url.pos
	unnamed_or_package(m, r)
	not r.editable # -e takes a path or a VCS URL, never a requirement
	not contains(r.raw, "subdirectory=") # another project of the repository
} else := {}

unnamed_or_package(_, r) if r.name == ""

unnamed_or_package(m, r) if pin.names(m, r)

# A build command run inside the clone, or on it (make -C, cmake -S,
# pip install PATH): the build model's directories follow cd, pushd,
# popd, subshells and WORKDIR.
deny contains lib.finding(s.doc, c, msg) if {
	some m in lib.migrations
	some s in sb.scripts(m)
	dests := sb.dests_for(m, s.doc.path, s)
	count(dests) > 0
	some c in s.script.commands
	what := sb.build_step(c)
	sb.in_clone(m, s.doc.path, dests, c)
	msg := sprintf("`%s` %s inside the clone of %s's source; %s", [lib.command_text(c), what, m.package, lib.remedy(m)])
}

# The installation of a wheel built here.
deny contains lib.finding(s.doc, w, msg) if {
	some m in lib.migrations
	some s in sb.scripts(m)
	some c in s.script.commands
	some w in sb.local_wheels(m, s.doc.path, s.run, c)
	msg := sprintf("`%s` installs a locally built wheel of %s; %s", [w.text, m.package, lib.remedy(m)])
}

# A Dockerfile instruction whose text fetches the repository where no
# script was parsed: exec-form or unparsable RUN, ADD of the repository.
deny contains lib.finding(d, ins, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "dockerfile")
	some ins in lib.instructions(d)
	ins.cmd in {"run", "add"}
	not is_object(ins.shell)
	fetches_repository(m, ins)
	msg := sprintf("`%s` fetches the source of %s; %s", [upper(ins.cmd), m.package, lib.remedy(m)])
}

# A pipeline step that checks out the repository (actions/checkout with
# repository:), and a pipeline build whose context is it.
deny contains lib.finding(d, f, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "pipeline")
	some f in sb.pipeline_fetches(m, d)
	msg := sprintf("`%s` checks out the source of %s; %s", [f.url.text, m.package, lib.remedy(m)])
}

deny contains lib.finding(d, w, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "pipeline")
	some w in sb.remote_contexts(m, d)
	msg := sprintf("`%s` builds from the source repository of %s; %s", [w.text, m.package, lib.remedy(m)])
}

fetches_repository(m, ins) if lib.mentions_repository(m, ins.original)

# ADD of the repository in any spelling (git@github.com:…, a port).
fetches_repository(m, ins) if {
	not lib.mentions_repository(m, ins.original)
	some a in ins.args
	buildgate.repository(a.value) in sb.repo_ids(m)
}

# A bake target whose build context is the repository.
deny contains lib.finding(d, x.attr, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "hcl")
	some x in lib.hcl_attributes(d)
	x.attr.name in {"context", "contexts"}
	lib.mentions_repository(m, x.attr.value_text)
	msg := sprintf("`%s` builds from the source repository of %s; %s", [x.attr.name, m.package, lib.remedy(m)])
}
