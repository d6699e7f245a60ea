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
	not lib.cache_arg(u.name)
	msg := sprintf("`%s` is a build argument of the %s source build; remove it and %s", [u.name, m.package, lib.remedy(m)])
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
