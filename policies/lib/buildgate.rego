# METADATA
# title: buildgate policy library
# description: |
#   Helpers the built-in pack uses and user policies may use: building
#   findings from document elements, iterating documents and scripts, and
#   the migration vocabulary (name tokens, build arguments, repositories).
package buildgate.lib

# finding is a finding at an element of a document: anything with a pos.
finding(doc, el, msg) := {"msg": msg, "path": doc.path, "pos": el.pos, "text": element_text(el)}

# finding_at is a finding at an explicit position.
finding_at(doc, pos, msg) := {"msg": msg, "path": doc.path, "pos": pos, "text": ""}

# file_finding is a finding about a whole file, at its start: used for a
# file that is missing something (or missing altogether).
file_finding(path, msg) := {"msg": msg, "path": path, "pos": start_of_file, "text": ""}

start_of_file := {"line": 1, "column": 1, "end_line": 1, "end_column": 1}

element_text(el) := t if {
	t := object.get(el, "text", null)
	is_string(t)
} else := t if {
	ws := object.get(el, "words", null)
	is_array(ws)
	t := concat(" ", [w.text | some w in ws])
} else := n if {
	n := object.get(el, "name", null)
	is_string(n)
} else := ""

# documents of one kind: those the rules report on.
documents(kind) := object.get(documents_by_kind, kind, [])

# document is the document at a path.
document(path) := documents_by_path[path]

documents_by_path := {d.path: d | some d in input.documents}

# table is the value at path of the repository's table
# (data.buildgate.facts), or dflt where the table has none. In the
# engine's evaluation of a file the engine's table is read through
# buildgate.repo, which records every read: the engine evaluates a file
# once with the table its own facts make, and again only when one of
# those reads answers otherwise from the repository's whole table. In an
# evaluation over every document (policy tests) the table is folded here.
table(path, dflt) := v if {
	v := buildgate.repo(path, dflt)
} else := object.get(data.buildgate.facts.repo, path, dflt)

# per_file reports whether the evaluation is of one file (the engine's
# per-file evaluation, input.scope "file"): findings about the repository
# as a whole (a missing requirements file) come from the evaluation of the
# repository (input.scope "repository"), or from an evaluation over every
# document at once (policy tests), never from each file's.
per_file if input.scope == "file"

# documents_by_kind is computed once per evaluation (a rule, not a
# function): helpers ask for documents of a kind many times.
documents_by_kind := {k: [d | some d in input.documents; d.kind == k] | some e in input.documents; k := e.kind}

# scripts are the shell scripts policies look into: every shell document,
# the body of every shell-form RUN of every Dockerfile and every command
# string of a CI pipeline (its words placed in the YAML file). doc is
# {path, kind} of the document (not the document: functions called per
# command are much cheaper with small arguments); run is {mounts, pos,
# original} of the RUN instruction, or null for a shell document.
scripts := [s | some d in input.documents; some s in scripts_of(d)]

# scripts_of are the scripts of one document.
scripts_of(d) := [{"doc": {"path": d.path, "kind": d.kind}, "script": d, "run": null}] if d.kind == "shell"

scripts_of(d) := [{"doc": {"path": d.path, "kind": d.kind}, "script": ins.shell, "run": {"mounts": ins.mounts, "pos": ins.pos, "original": ins.original, "text": run_text(ins)}} |
	some ins in instructions(d)
	is_object(ins.shell)
] if d.kind == "dockerfile"

# run_text is what a RUN runs: its command line and, for RUN <<EOF, the
# heredoc bodies (the original is only the first line there).
run_text(ins) := concat("\n", array.concat([ins.original], [h.body | some h in object.get(ins, "heredocs", [])]))

scripts_of(d) := [{"doc": {"path": d.path, "kind": d.kind}, "script": s, "run": null} | some s in d.scripts] if d.kind == "pipeline"

# A bake file's scripts are the RUNs of its targets' dockerfile-inline.
scripts_of(d) := [{"doc": {"path": d.path, "kind": d.kind}, "script": s, "run": null} | some s in object.get(d, "scripts", [])] if d.kind == "hcl"

scripts_of(d) := [] if not d.kind in {"shell", "dockerfile", "pipeline", "hcl"}

# instructions of a Dockerfile: those before the first FROM, then every
# stage's (each stage's first is its FROM).
instructions(d) := array.concat(d.preamble, [ins | some st in d.stages; some ins in st.instructions])

# hcl_attributes are every attribute of an HCL document, those of nested
# blocks (three levels deep) included, each with its top-level block (null
# for a top-level attribute).
hcl_attributes(d) := array.concat(
	[{"block": null, "attr": a} | some a in d.attributes],
	[{"block": b, "attr": a} | some b in d.blocks; some a in block_attributes(b)],
)

block_attributes(b) := array.concat(
	b.attributes,
	array.concat(
		[a | some c in b.blocks; some a in c.attributes],
		[a | some c in b.blocks; some e in c.blocks; some a in e.attributes],
	),
)

# before reports whether position a starts before position b.
before(a, b) if [a.line, a.column] < [b.line, b.column]

# within reports whether position a lies inside position b.
within(a, b) if {
	[a.line, a.column] >= [b.line, b.column]
	[a.end_line, a.end_column] <= [b.end_line, b.end_column]
}

# words splits a string on white space.
words(s) := [w | some w in regex.split(`\s+`, trim_space(s)); w != ""]

# name_parts splits a name into its lower-case alphanumeric components:
# "export_mooncake" -> ["export", "mooncake"].
name_parts(s) := [p | some p in regex.split(`[^a-z0-9]+`, lower(s)); p != ""]

# identifier reports whether s looks like a stage, target or variable name.
identifier(s) if regex.match(`^[A-Za-z0-9][A-Za-z0-9_.\-]*$`, s)

# Migrations come from the configuration (input.config.migrations).
migrations := object.get(input, ["config", "migrations"], [])

# in_scope reports whether a path is one a migration looks at: in its
# scope (all paths when it has none).
in_scope(m, _) if count(object.get(m, "scope", [])) == 0

in_scope(m, path) if {
	some g in object.get(m, "scope", [])
	glob.match(g, ["/"], path)
}

# source_scope reports whether the source-build rules (BG101-BG104) look
# at a path: in scope, and not a path the allow list names (the pin rules
# still read it: an allowed directory's requirements file is still pinned).
source_scope(m, path) if {
	in_scope(m, path)
	not allowed_path(m, path)
}

# The allow list (issue 32) says what context cannot: names and variables
# that are not the source build's whatever they look like (a runtime
# setting such as TRITON_CACHE_DIR, a stage that only shares a token), and
# paths (globs, told by a / or a wildcard) the source-build rules leave
# alone. Names compare without case.
allowed(m, s) if lower(s) in allowed_names[m.package]

allowed_path(m, path) if {
	some g in allowed_globs[m.package]
	glob.match(g, ["/"], path)
}

allowed_names := {m.package: {lower(a) | some a in object.get(m, "allow", []); not path_entry(a)} | some m in migrations}

allowed_globs := {m.package: [a | some a in object.get(m, "allow", []); path_entry(a)] | some m in migrations}

path_entry(a) if contains(a, "/")

path_entry(a) if regex.match(`[*?\[]`, a)

# has_token reports whether a name has one of the migration's name tokens
# as a component (a part between -, _, . or other non-alphanumerics).
has_token(m, s) if regex.match(token_rx[m.package], s)

# mentions reports whether a text has a name token or a build argument of
# the migration anywhere in it: a cheap test before closer looks.
mentions(m, s) if regex.match(mention_rx[m.package], s)

# Regular expressions per migration, built once per evaluation: rules are
# cached, function calls are not. Tokens and build arguments are letters,
# digits and underscores (the configuration checks), so need no escaping.
token_rx := {m.package: rx |
	some m in migrations
	count(m.names) > 0
	rx := sprintf(`(?i)(^|[^a-z0-9])(%s)([^a-z0-9]|$)`, [concat("|", m.names)])
}

mention_rx := {m.package: rx |
	some m in migrations
	alts := array.concat(m.names, m.build_args)
	count(alts) > 0
	rx := sprintf(`(?i)(%s)`, [concat("|", alts)])
}

# items_mentioning are the white-space-separated items of s that mention a
# name token or build argument, found in one native call: a quoted
# argument or value can hold a million words (a hostile pull request, or
# sh -c '…'), and a Rego iteration over each costs microseconds.
items_mentioning(m, s) := [x[1] | some x in regex.find_all_string_submatch_n(mention_items_rx[m.package], s, -1)]

mention_items_rx := {m.package: rx |
	some m in migrations
	alts := array.concat(m.names, m.build_args)
	count(alts) > 0
	rx := sprintf(`(?i)(?:^|\s)(\S*(?:%s)\S*)`, [concat("|", alts)])
}

# package_name reports whether s names the package or one of its variants
# (those are the published wheels, not source-build names): the name as
# PEP 503 compares names, alone or followed by a version (a wheel's or
# sdist's file name, flash_attn-2.0.8-cp310-….whl). The package's name with
# another part (flash-attn-builder) is a source-build name (issue 32).
package_name(m, s) if {
	some n in array.concat([m.package], object.get(m, "variants", []))
	pep503.normalize(s) == pep503.normalize(n)
}

package_name(m, s) if {
	some n in array.concat([m.package], object.get(m, "variants", []))
	regex.match(sprintf(`(?i)^%s[-_]v?[0-9]+(\.[0-9A-Za-z]+)+([-_+.].*)?$`, [concat(`[-_.]`, name_parts(n))]), s)
}

package_name(m, s) if {
	some n in array.concat([m.package], object.get(m, "variants", []))
	startswith(pep503.normalize(s), concat("", [pep503.normalize(n), "-"]))
	regex.match(`(?i)\.(whl|tar\.gz|zip|egg)$`, s)
}

# source_build_name reports whether s names a stage, target or similar of
# the source build: an identifier with a name token that is not the
# published package's name. (A stage named after the package itself is
# weighed with what it does: sourcebuild.stage_named.)
source_build_name(m, s) if {
	identifier(s)
	has_token(m, s)
	not package_name(m, s)
	not allowed(m, s)
}

# package_named reports whether a name is the package's own with a prefix
# or a suffix (issue 32): its parts hold the package's parts in a row
# (flash-attn-builder, build_flash_attn), the package's parts run together
# (flashattn_build) or, for a name of two parts or more, their initials
# (build_fa for flash-attn), beside at least one other part. The bare
# package name, alone or with a version, is the published wheel's. A
# name alone is weak evidence: a stage so named is the source build's
# only when it builds (sourcebuild.stage_named), and by the initials
# only when it also names the package's repository.
package_named(m, s) if strongly_named(m, s)

package_named(m, s) if initials_named(m, s)

strongly_named(m, s) if {
	parts := name_parts(s)
	pp := package_parts[m.package]
	count(parts) > count(pp)
	some i in numbers.range(0, count(parts) - count(pp))
	array.slice(parts, i, i + count(pp)) == pp
}

strongly_named(m, s) if {
	pp := package_parts[m.package]
	count(pp) > 1
	parts := name_parts(s)
	count(parts) > 1
	concat("", pp) in parts
}

initials_named(m, s) if {
	pp := package_parts[m.package]
	count(pp) > 1
	parts := name_parts(s)
	count(parts) > 1
	concat("", [substring(p, 0, 1) | some p in pp]) in parts
}

package_parts := {m.package: name_parts(m.package) | some m in migrations}

# names_package reports whether a name says it is about the package: a
# name token of the migration, or the package's own name or short name
# among its parts (FA_BRANCH for flash-attn).
names_package(m, s) if has_token(m, s)

names_package(m, s) if package_named(m, s)

# compound_source_build_name is a source-build name with more than the bare
# token ("mooncake_source", not "mooncake"): a bare word in a command line
# is far more often prose or an import than a stage name.
compound_source_build_name(m, s) if {
	source_build_name(m, s)
	count(name_parts(s)) > 1
}

# cache_arg reports whether a build argument is a cache key of the source
# build (BG103 rather than BG102): CACHE is one of its parts (a key, a ref,
# a tag or a directory of the build cache: MOONCAKE_CACHE_KEY), not a part
# of another word and not a runtime setting's (issue 28: sglang's
# SGLANG_HICACHE_MOONCAKE_CONFIG_PATH is where the runtime reads its
# configuration).
cache_arg(name) if {
	regex.match(`(^|[_.-])CACHE([_.-]|$)`, upper(name))
	not regex.match(`(^|[_.-])(CONFIG|CONF|CFG|HOST|PORT|ADDR|ADDRESS|SERVER|MASTER|SIZE|TTL)([_.-]|$)`, upper(name))
}

# source_arg reports whether name is a build argument of the migration, or
# a cache-key variable named after it (MOONCAKE_CACHE_KEY, mooncake_cache_key).
source_arg(m, name) if name in m.build_args

source_arg(m, name) if {
	has_token(m, name)
	cache_arg(name)
	regex.match(`^[A-Za-z_][A-Za-z0-9_]*$`, name)
	not allowed(m, name)
}

# mentions_repository reports whether a text names one of the migration's
# repositories (case-insensitively: GitHub paths are).
mentions_repository(m, s) if {
	some r in m.repositories
	contains(lower(s), lower(r))
}

# expands reports whether shell or Dockerfile text reads variable name.
expands(text, name) if {
	contains(text, name) # a pattern of its own per name: asked only when it may match
	regex.match(sprintf(`\$\{?%s([^A-Za-z0-9_]|$)`, [name]), text)
}

# remedy is what to do instead of building from source.
remedy(m) := sprintf("install the published wheel pinned in %s instead", [concat(", ", m.requirements)]) if {
	count(object.get(m, "requirements", [])) > 0
}

# Without a requirements file the pin may be anywhere (a RUN's pip
# install, a distro's package list: podman's containernetworking-plugins
# from dnf), so the remedy names the package, not a wheel.
remedy(m) := sprintf("install the published package %s instead", [m.package]) if {
	count(object.get(m, "requirements", [])) == 0
}

# part_msg is the common phrase of the source-build rules.
part_msg(m, what) := sprintf("%s belongs to the %s source build; %s", [what, m.package, remedy(m)])

# command_text is a command as written, cut after about 40 characters.
command_text(c) := concat(" ", [w.text | some w in c.words]) if {
	count(concat(" ", [w.text | some w in c.words])) <= 48
}

command_text(c) := concat(" ", array.concat(kept, ["..."])) if {
	count(concat(" ", [w.text | some w in c.words])) > 48
	kept := [w.text | some i, w in c.words; command_prefix(c, i)]
}

# command_prefix: word i is kept in a shortened command: the first three
# words always, then as long as the text stays within 40 characters.
command_prefix(_, i) if i < 3

command_prefix(c, i) if count(concat(" ", [x.text | some j, x in c.words; j <= i])) <= 40
