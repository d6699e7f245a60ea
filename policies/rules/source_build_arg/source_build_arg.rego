# METADATA
# title: Source-build argument
# description: |
#   A parameter of the package's source build (its branch, repository,
#   commit, Go toolchain, ...) declared, set, passed or read: a Dockerfile
#   ARG or ENV, a bake variable, an `args` key or reference, a shell
#   variable or a script that names it. Also a switch that turns the
#   source build on: a Dockerfile ARG or ENV, or a shell assignment, named
#   BUILD_, INSTALL_, WITH_, ENABLE_, USE_ or COMPILE_ plus one of the
#   migration's names (BUILD_MOONCAKE, sglang's switch), or listed in its
#   `toggles`, set to a true value (1, true, yes, on).
# custom:
#   id: BG102
#   name: source-build-arg
#   severity: error
#   precision: high
#   tags: [migration, source-build]
package buildgate.rules.source_build_arg

import data.buildgate.lib
import data.buildgate.lib.sourcebuild as sb

deny contains lib.finding(d, u.el, msg) if {
	some m in lib.migrations
	some d in sb.docs(m)
	some u in sb.arg_uses(m, d.path)
	u.name in m.build_args
	not lib.allowed(m, u.name)
	not lib.cache_arg(u.name)
	not other_stage(m, d, u)
	msg := sprintf("`%s` is a build argument of the %s source build; remove it and %s", [u.name, m.package, lib.remedy(m)])
}

# other_stage reports whether a use is in a Dockerfile stage that is not
# the source build's, in a file that has source-build stages: an ARG is
# the stage's own (buildkit scopes it to the stage that declares it), so
# a generic name (OpenLLM's COMMIT_HASH, declared by each builder stage
# for its own clone; issue 32) in another builder stage is that stage's.
# A stage that fetches the package's repository itself is the source
# build's wherever it is, and an argument named for the package (vLLM's
# FA_BRANCH, redeclared by the final stage to record it) is the source
# build's in any stage: only a generic name is told by its stage.
other_stage(m, d, u) if {
	d.kind == "dockerfile"
	not lib.names_package(m, u.name)
	some st in d.stages
	lib.within(u.el.pos, st.pos)
	not lower(st.name) in sb.stages(m, d.path)
	not fetches_in_stage(m, st)
	not fetches_source(m, d, st)
	other_builder(m, d, st)
}

# fetches_source: a command of the stage fetches the package's source as
# the build model and the file's variables say (git clone ${MOONCAKE_REPO}
# with the ARG's default naming it: ATOM's and sglang's single stage).
fetches_source(m, d, st) if {
	some ins in st.instructions
	is_object(ins.shell)
	some c in ins.shell.commands
	sb.may_fetch(c)
	sb.fetch(m, d.path, c)
}

# other_builder: the file has source-build stages (the stage is another
# one), or the stage fetches another repository (another build's stage
# with its own COMMIT_HASH).
other_builder(m, d, _) if count(sb.stages(m, d.path)) > 0

other_builder(m, _, st) if {
	some ins in st.instructions
	is_object(ins.shell)
	some c in ins.shell.commands
	is_string(c.fetch.repository)
	not c.fetch.repository in sb.repo_ids(m)
}

fetches_in_stage(m, st) if {
	some ins in st.instructions
	ins.cmd in {"run", "add"}
	lib.mentions_repository(m, concat("\n", array.concat([ins.original], [h.body | some h in object.get(ins, "heredocs", [])])))
}

# A switch that turns the source build on: set to a true value.
deny contains lib.finding(d, t.el, msg) if {
	some m in lib.migrations
	some d in sb.docs(m)
	some t in toggles(d)
	toggle_name(m, t.name)
	not lib.allowed(m, t.name)
	truthy(t.value)
	msg := sprintf("`%s=%s` switches the %s source build on; remove it and %s", [t.name, t.value, m.package, lib.remedy(m)])
}

toggles(d) := array.concat(
	array.concat(
		[{"name": a.name, "value": a.default, "el": a} | some a in d.global_args; is_string(a.default)],
		[{"name": a.name, "value": a.default, "el": a} | some ins in lib.instructions(d); some a in object.get(ins, "arg_defs", []); is_string(a.default)],
	),
	[{"name": e.key, "value": e.value, "el": e} | some ins in lib.instructions(d); some e in object.get(ins, "env", []); is_string(e.value)],
) if d.kind == "dockerfile"

toggles(d) := [{"name": a.name, "value": a.value, "el": a} |
	some a in d.assignments
	is_string(a.value)
] if d.kind == "shell"

toggles(d) := [{"name": a.name, "value": a.value, "el": a} |
	some a in array.concat(d.env, [a | some s in d.scripts; some a in s.assignments])
	is_string(a.value)
] if d.kind == "pipeline"

toggles(d) := [] if not d.kind in {"dockerfile", "shell", "pipeline"}

toggle_name(m, name) if name in object.get(m, "toggles", [])

toggle_name(m, name) if {
	some n in m.names
	regex.match(sprintf(`^(BUILD|INSTALL|WITH|ENABLE|USE|COMPILE)_?%s(_FROM_SOURCE|_SOURCE)?$`, [upper(n)]), upper(name))
}

truthy(v) if lower(trim(v, `"' `)) in {"1", "true", "yes", "on", "y"}
