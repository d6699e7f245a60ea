# METADATA
# title: Source-build stage or target
# description: |
#   A stage or target of the package's source build: a Dockerfile stage
#   named for it (or built FROM one), a `COPY --from` or `RUN --mount from=`
#   of such a stage, a bake target or its entry in a group, an entry in a CI
#   script's stage list, a case branch or loop over such targets.
# custom:
#   id: BG101
#   name: source-build-stage
#   severity: error
#   precision: high
#   tags: [migration, source-build]
package buildgate.rules.source_build_stage

import data.buildgate.lib
import data.buildgate.lib.sourcebuild as sb

# A Dockerfile stage named for the source build, or built from one.
deny contains lib.finding(d, st.name_word, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "dockerfile")
	some st in d.stages
	is_object(st.name_word)
	lower(st.name) in sb.stages(m, d.path)
	msg := sprintf("stage `%s` builds %s from source; %s", [st.name, m.package, lib.remedy(m)])
}

# An unnamed stage built FROM a source-build stage.
deny contains lib.finding(d, st.base, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "dockerfile")
	some st in d.stages
	not is_object(st.name_word)
	is_string(st.base.value)
	lower(st.base.value) in sb.stages(m, d.path)
	msg := sprintf("this stage is built FROM `%s`, a stage of the %s source build; %s", [st.base.value, m.package, lib.remedy(m)])
}

# COPY --from a source-build stage.
deny contains lib.finding(d, ins.copy_from, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "dockerfile")
	some ins in lib.instructions(d)
	is_object(ins.copy_from)
	from_source_stage(m, d.path, ins.copy_from.value)
	msg := sprintf("`COPY --from=%s` copies the output of the %s source build; %s", [ins.copy_from.value, m.package, lib.remedy(m)])
}

# RUN --mount=...,from=<source-build stage>.
deny contains lib.finding(d, mt, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "dockerfile")
	some ins in lib.instructions(d)
	some mt in ins.mounts
	from_source_stage(m, d.path, mt.from)
	msg := sprintf("`RUN --mount from=%s` uses the output of the %s source build; %s", [mt.from, m.package, lib.remedy(m)])
}

from_source_stage(m, path, name) if lower(name) in sb.stages(m, path)

from_source_stage(m, _, name) if {
	is_string(name)
	lib.source_build_name(m, name)
}

# A bake target of the source build.
deny contains lib.finding(d, b.labels[0], msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "hcl")
	some b in d.blocks
	b.type == "target"
	count(b.labels) > 0
	b.labels[0].value in sb.targets(m)
	msg := sprintf("bake target `%s` builds %s from source; %s", [b.labels[0].value, m.package, lib.remedy(m)])
}

# A group or inherits entry naming a source-build target.
deny contains lib.finding(d, el, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "hcl")
	some x in lib.hcl_attributes(d)
	x.attr.name in {"targets", "inherits"}
	some el in x.attr.elements
	is_string(el.value)
	target_name(m, el.value)
	msg := sprintf("`%s` in `%s` is a target of the %s source build; %s", [el.value, x.attr.name, m.package, lib.remedy(m)])
}

target_name(m, name) if name in sb.targets(m)

target_name(m, name) if lib.source_build_name(m, name)

# An entry of a stage or target list in a script: an assignment's words,
# a for loop's words, a case pattern.
deny contains lib.finding(s.doc, w, msg) if {
	some m in lib.migrations
	some s in sb.scripts(m)
	some a in s.script.assignments
	some w in a.words
	listed_in_script(m, s, w.value, a.name, a.function)
	msg := sprintf("`%s` in `%s` names a stage of the %s source build; %s", [w.value, a.name, m.package, lib.remedy(m)])
}

deny contains lib.finding(s.doc, w, msg) if {
	some m in lib.migrations
	some s in sb.scripts(m)
	some loop in s.script.for_loops
	some w in loop.words
	listed_in_script(m, s, w.value, loop.var, loop.function)
	msg := sprintf("loop entry `%s` names a stage of the %s source build; %s", [w.value, m.package, lib.remedy(m)])
}

deny contains lib.finding(s.doc, p, msg) if {
	some m in lib.migrations
	some s in sb.scripts(m)
	some p in s.script.case_patterns
	listed_in(m, p.value, [p.subject, p.function])
	msg := sprintf("case branch `%s` handles a stage of the %s source build; %s", [p.value, m.package, lib.remedy(m)])
}

# A command argument that is a list of names, one of them a source-build
# stage or target ("base mooncake_source", "mooncake-rocm-ci").
deny contains lib.finding(s.doc, w, msg) if {
	some m in lib.migrations
	some s in sb.scripts(m)
	some c in s.script.commands
	not c.name in {"echo", "printf", "read", "unset", "export", "local", "declare", "readonly", "typeset"}
	some i, w in c.words
	i > 0
	is_string(w.value)
	may_name_stage(m, w.value)
	regex.match(`^\s*[A-Za-z0-9][A-Za-z0-9_.\-]*(\s+[A-Za-z0-9][A-Za-z0-9_.\-]*)*\s*$`, w.value) # a list of names
	some item in candidate_items(m, w.value)
	argument_names_stage(m, c, item)
	msg := sprintf("`%s` names a stage of the %s source build; %s", [item, m.package, lib.remedy(m)])
}

# A docker/build-push-action or docker/bake-action step of a CI pipeline
# that builds a source-build stage or target (target:, targets:).
deny contains lib.finding(d, w, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "pipeline")
	some b in d.builds
	b.via == "action"
	some w in b.targets
	is_string(w.value)
	action_target(m, w.value)
	msg := sprintf("`%s` (%s) names a stage of the %s source build; %s", [w.value, b.tool, m.package, lib.remedy(m)])
}

action_target(m, v) if lower(v) in sb.known_names(m)

action_target(m, v) if listed_name(m, v)

# candidate_items are the items of a list of names that may name a stage:
# those with the name token, and known stage or target names, found
# natively (a list can be a million words long).
candidate_items(m, v) := {item | some item in lib.items_mentioning(m, v)} | {n |
	some n in sb.known_names(m)
	regex.match(sprintf(`(?i)(^|\s)%s(\s|$)`, [replace(n, ".", `\.`)]), v)
}

# may_name_stage is a cheap test before a word is split into items: it has
# the name token or a known stage's name in it (a script's quoted argument
# can be a whole script: sh -c '…').
may_name_stage(m, v) if lib.has_token(m, v)

may_name_stage(m, v) if regex.match(known_pattern[m.package], lower(v))

# known_pattern matches any known stage name in a text: one regular
# expression (compiled once) instead of a test per name and word, which
# took 15 s for 8,000 words and 2,000 stage names.
known_pattern := {m.package: p |
	some m in lib.migrations
	names := [quote_meta(n) | some n in sb.known_names(m); n != ""]
	count(names) > 0
	p := concat("|", names)
}

# quote_meta escapes what a regular expression would read as syntax.
quote_meta(s) := strings.replace_n(
	{
		"\\": "\\\\", ".": "\\.", "+": "\\+", "*": "\\*", "?": "\\?", "(": "\\(", ")": "\\)",
		"|": "\\|", "[": "\\[", "]": "\\]", "{": "\\{", "}": "\\}", "^": "\\^", "$": "\\$",
	},
	s,
)

# A command argument names a stage when some Dockerfile or bake file
# defines it, or when the command builds images or handles stages (docker,
# bake, --target, a function named for stages or targets: add_target,
# hash_stages) and the name looks like a source-build stage. A name that merely
# contains the token is no stage elsewhere: `pkill -f
# mooncake_http_metadata_server`, `which mooncake_master` (issue 13, seen in
# the Mooncake repository's own scripts).
argument_names_stage(m, _, item) if lower(item) in sb.known_names(m)

argument_names_stage(m, c, item) if {
	builds_images(c)
	listed_name(m, item)
}

builds_images(c) if c.name in {"docker", "podman", "buildah", "nerdctl", "docker-buildx"}

builds_images(c) if {
	some w in c.words
	w.value in {"bake", "--target", "build", "buildx"}
}

builds_images(c) if stage_context(c.name)

# listed_in reports whether an entry of a list (an assignment's words, a
# loop's words, a case pattern) names a stage: one some Dockerfile or bake
# file defines, or a source-build name that is itself a build's (a part
# such as build, source, export, wheel, ci: mooncake-rocm-ci) or sits in a
# list whose variable, loop variable, case subject or function is about
# stages or targets (DEFAULT_CI_BASE_DOCKERFILE_STAGES="…", for target in
# …, case "$target" in a function …_for_target). test_case_name=
# "test_moe_mooncake" and a loop over mooncake_master mooncake_client are
# no stage lists (issue 13: the Mooncake repository's scripts/tone_tests).
listed_in(m, v, _) if {
	is_string(v)
	lower(v) in sb.known_names(m)
}

listed_in(m, v, context) if {
	listed_name(m, v)
	some c in context
	stage_context(c)
}

listed_in(m, v, _) if {
	listed_name(m, v)
	some part in regex.split(`[-_.]`, lower(v))
	part in build_parts
}

# listed_in_script is listed_in for a list held by a variable (or loop
# variable) var: its context is also any command that builds images with
# it (for t in mooncake_rocm vllm_rocm; do docker buildx bake "$t"; done).
listed_in_script(m, _, v, var, fn) if listed_in(m, v, [var, fn])

listed_in_script(m, s, v, var, _) if {
	listed_name(m, v)
	some c in s.script.commands
	builds_images(c)
	some w in c.words
	lib.expands(w.text, var)
}

build_parts := {"build", "builder", "source", "src", "export", "wheel", "wheels", "ci", "stage", "target", "image", "compile", "base"}

stage_context(name) if regex.match(`(?i)(stage|target|bake|image|group)`, name)

# An all-caps word (MOONCAKE_VERSION) is a variable's name and a dotted one
# (vllm.rocm.mooncake_commit) a key, not a stage's name, unless some
# Dockerfile or bake file really defines it.
listed_name(m, v) if {
	is_string(v)
	lib.compound_source_build_name(m, v)
	not regex.match(`^[A-Z][A-Z0-9_]*$`, v)
	not contains(v, ".")
}

listed_name(m, v) if {
	is_string(v)
	lower(v) in sb.known_names(m)
}
