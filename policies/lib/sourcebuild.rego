# METADATA
# title: Source-build vocabulary
# description: |
#   What the source-build rules (BG101-BG104) share: which Dockerfile stages
#   and bake targets belong to a source build, which variables hold the
#   package's repository, where a script clones it and which commands run
#   inside the clone.
package buildgate.lib.sourcebuild

import data.buildgate.lib

# Relevance: a document the source-build rules look into closely must
# mention, somewhere in its text, a name token, build argument or
# repository of the migration, or the name of a source-build stage or
# target defined elsewhere. buildgate.source_contains answers with one
# native scan per file, so that the many files that cannot concern a
# migration cost nothing here. (In policy tests, which have no sources, it
# answers true.)
base_needles(m) := array.concat(
	array.concat(array.concat(m.names, m.build_args), m.repositories),
	package_spellings[m.package],
)

# package_spellings are the ways a file spells the package's name in a
# stage or target named after it (flash-attn-builder, flash_attn_build,
# flashattn): a stage named so makes its file relevant without a name
# token.
package_spellings := {m.package: [s |
	some s in {n, replace(n, "-", "_"), replace(n, "-", "")}
] |
	some m in lib.migrations
	n := pep503.normalize(m.package)
}

# The repository's facts (data.buildgate.facts, issue 27): the engine
# evaluates each file alone, so what the rules need to know of the other
# files is each file's facts (file_facts), folded once into the
# repository's table (fold), which every file's evaluation reads.

# file_facts are what the other files' evaluations need of document d: is
# it relevant by the migration's own words (relevant0), the source-build
# stages of a relevant Dockerfile, the targets of a relevant bake file
# named for the source build, and every target of a bake file in scope
# with the stage it builds (a target that builds a source-build stage of
# another file is the source build's too).
file_facts(m, d) := {
	"relevant0": is_relevant0(m, d),
	"mentions": mentions_migration(m, d),
	"stages": [s | is_relevant0(m, d); d.kind == "dockerfile"; some s in stages_of(m, d)],
	"targets": [t | is_relevant0(m, d); d.kind == "hcl"; some t, _ in d.targets; lib.source_build_name(m, t)],
	"arg_repos": [n | is_relevant0(m, d); some n in arg_repo_names(m, d)],
	"context_repos": [n | is_relevant0(m, d); some n in context_repo_names(m, d)],
	"vendor": vendor_or_none(m, d),
	"runs": [r | some r in runs(m, d)],
	"cache_args": [n | is_relevant0(m, d); some n in declared_cache_args(m, d)],
	"target_stages": [[t, lower(a.value)] |
		d.kind == "hcl"
		lib.source_scope(m, d.path)
		some t, b in d.targets
		some a in b.attributes
		a.name == "target"
		is_string(a.value)
	],
}

is_relevant0(m, d) if {
	mentions_migration(m, d)
	not own_other_platform(m, d.path)
} else := false

mentions_migration(m, d) if {
	mentions_words(m, d.path)
	lib.source_scope(m, d.path)
} else := false

# mentions_words: the file's text holds one of the migration's build
# arguments, repositories or package spellings, or one of its name tokens
# as a word (runs of letters and digits, as has_token matches a name's
# parts): a short token (`fa` for flash-attn) inside "default" or
# "false" is no mention (review of issue 32: vLLM's TPU docker_run_bm.sh
# was read as a file of the flash-attn migration).
mentions_words(m, path) if buildgate.source_contains(path, array.concat(array.concat(m.build_args, m.repositories), package_spellings[m.package]))

mentions_words(m, path) if {
	count(m.names) > 0
	buildgate.source_words(path, m.names)
}

# vendor is the platform a file's own words show: "platform" (the
# package's: rocm*, hip* in its path or text), "other" (another's in its
# code and none of the package's), undefined when it shows none.
vendor(m, d) := "platform" if {
	count(object.get(m, "platform", [])) > 0
	lib.source_scope(m, d.path)
	may_show_platform(m, d.path)
	buildgate.source_words(d.path, m.platform)
} else := "other" if {
	lib.source_scope(m, d.path)
	may_show_platform(m, d.path)
	own_other_platform(m, d.path)
}

# may_show_platform: the file's text holds a platform word's letters at
# all (one scan of the text every file has; the word sets are made only
# for the files that pass).
may_show_platform(m, path) if buildgate.source_contains(path, platform_stems[m.package])

platform_stems := {m.package: [trim_suffix(w, "*") |
	some w in array.concat(object.get(m, "platform", []), object.get(m, "other_platforms", []))
] |
	some m in lib.migrations
}

vendor_or_none(m, d) := v if v := vendor(m, d)

else := ""

# runs are the names of the script files a file that shows a vendor runs
# (bash x.sh, ./x.sh, python3 x.py): they are of its platform.
runs(m, d) := {base_name(p) |
	vendor(m, d)
	some s in lib.scripts_of(d)
	some c in s.script.commands
	p := ran_path(c)
}

ran_path(c) := c.words[1].value if {
	c.name in {"bash", "sh", "dash", "zsh", "ksh", "source", "."}
	count(c.words) > 1
	is_string(c.words[1].value)
	not startswith(c.words[1].value, "-")
}

ran_path(c) := c.name if contains(c.name, "/")

ran_path(c) := c.words[1].value if {
	startswith(c.name, "python") # no pattern per command: a file's facts ask it of every one
	count(c.words) > 1
	is_string(c.words[1].value)
	endswith(c.words[1].value, ".py")
}

# fold is the migration's part of the repository table, from every file's
# facts ([{path, kind, facts}]): the files relevant by the migration's own
# words, each relevant Dockerfile's source-build stages, every stage, the
# bake targets of the source build, and the names of both (a script that
# names one is about the source build).
fold(m, files) := {
	"relevant0": {f.path: true | some f in files; f.facts.sourcebuild[m.package].relevant0 == true},
	"mentions": {f.path: true | some f in files; object.get(f.facts.sourcebuild[m.package], "mentions", false) == true},
	"stages_by_doc": {f.path: ss |
		some f in files
		ss := f.facts.sourcebuild[m.package].stages
		count(ss) > 0
	},
	"all_stages": stages,
	"targets": targets,
	"known_names": (stages | {lower(t) | some t in targets}),
	"arg_repos": arg_repos,
	"cache_args": {n | some f in files; some n in object.get(f.facts.sourcebuild[m.package], "cache_args", [])},
	"context_repos": {n | some f in files; some n in object.get(f.facts.sourcebuild[m.package], "context_repos", [])},
	"vendors": vendors,
	# others_only is what a file's evaluation reads (a boolean, the same
	# from its own facts and the whole table for most files: read as the
	# set, every file evaluated again when the repository holds one ROCm
	# file).
	"others_only": vendors == {"other"},
	# run_by_platform / run_by_other: the files (by path, and scripts by
	# name) a file of the package's platform or of another runs; two
	# sets, made in one pass over the files (a map of each file to the
	# vendors of all that run it took the square of the files).
	"run_by_platform": {r: true | some f in files; f.facts.sourcebuild[m.package].vendor == "platform"; some r in ran(m, f)},
	"run_by_other": {r: true | some f in files; f.facts.sourcebuild[m.package].vendor == "other"; some r in ran(m, f)},
} if {
	vendors := {v | some f in files; v := object.get(f.facts.sourcebuild[m.package], "vendor", ""); v != ""}
	arg_repos := {n | some f in files; some n in object.get(f.facts.sourcebuild[m.package], "arg_repos", [])}
	stages := {s | some f in files; some s in f.facts.sourcebuild[m.package].stages}
	targets := {t | some f in files; some t in f.facts.sourcebuild[m.package].targets} | {ts[0] |
		some f in files
		some ts in f.facts.sourcebuild[m.package].target_stages
		ts[1] in stages
	}
}

# relevant0 reports whether a file is relevant by the migration's own
# words (its name tokens, build arguments, repositories).
relevant0(m, path) if {
	lib.table(["sourcebuild", m.package, "mentions", path], false) == true
	not other_platform(m, path)
}

# relevant reports whether the source-build rules look into a document: it
# is relevant by the migration's words, or it names a stage or target of
# the source build defined anywhere in the repository.
relevant(m, path) if relevant0(m, path)

relevant(m, path) if {
	not relevant0(m, path)
	names := [n | some n in name_needles(m)]
	count(names) > 0
	buildgate.source_contains(path, names)
	lib.source_scope(m, path)
	not other_platform(m, path)
}

# other_platform reports whether a build file is for another platform: its
# code (comments left out, not its path) has a word of another platform
# (cuda, ascend) and neither its code nor its path has one of the
# package's (rocm*, hip*). Building the package there is not its source
# build: TensorRT-LLM's CUDA install_mooncake.sh (-DUSE_CUDA=ON), the
# Mooncake repository's Ascend scripts (issue 13). A comment or a
# directory name is no evidence of another platform (review: "# Unlike the
# CUDA image" in a ROCm Dockerfile, docker/xpu/Dockerfile).
#
# A file is also of the platform of what runs it (issue 28): a script that
# Dockerfile.rocm runs is ROCm's whatever its words (-DUSE_CUDA=OFF), one
# that only CUDA builds run is CUDA's. A file that shows no platform and
# that nothing with one runs takes the platform of the repository's other
# build files when they all agree (a CUDA-only repository's build.sh).
other_platform(m, path) if {
	own_other_platform(m, path)
	not run_by(m, path, "platform")
}

other_platform(m, path) if inherited_other(m, path)

own_other_platform(m, path) if {
	others := object.get(m, "other_platforms", [])
	count(others) > 0
	buildgate.code_words(path, others)
	not buildgate.source_words(path, object.get(m, "platform", []))
}

# inherited_other: a file that shows no platform of its own is another
# platform's by what runs it, or by the repository.
inherited_other(m, path) if {
	count(object.get(m, "other_platforms", [])) > 0
	no_own_vendor(m, path)
	run_by(m, path, "other")
	not run_by(m, path, "platform")
}

inherited_other(m, path) if {
	count(object.get(m, "other_platforms", [])) > 0
	no_own_vendor(m, path)
	not run_by(m, path, "platform")
	not run_by(m, path, "other")
	lib.table(["sourcebuild", m.package, "others_only"], false) == true
}

no_own_vendor(m, path) if {
	not buildgate.source_words(path, object.get(m, "platform", []))
	not buildgate.code_words(path, object.get(m, "other_platforms", []))
}

# ran are what a file runs: the paths the engine gives (its references,
# input.files[_].runs) and the names of the scripts its commands run.
ran(m, f) := {r | some r in object.get(f, "runs", [])} | {r | some r in object.get(f.facts.sourcebuild[m.package], "runs", [])}

# run_by reports whether a file of vendor v runs the file at path (by its
# path, or by its name).
run_by(m, path, v) if lib.table(["sourcebuild", m.package, run_by_key[v], path], false) == true

run_by(m, path, v) if lib.table(["sourcebuild", m.package, run_by_key[v], base_name(path)], false) == true

run_by_key := {"platform": "run_by_platform", "other": "run_by_other"}

# platform_shown reports whether a build file shows the package's platform
# (always, for a migration that names none), or something of it runs it.
platform_shown(m, path) if platform_shown_docs[m.package][path]

# platform_shown_docs: asked per word of a file (a local wheel's path),
# answered once per file.
platform_shown_docs := {m.package: {d.path: true | some d in input.documents; platform_shown0(m, d.path)} | some m in lib.migrations}

platform_shown0(m, _) if count(object.get(m, "platform", [])) == 0

platform_shown0(m, path) if buildgate.source_words(path, m.platform)

platform_shown0(m, path) if run_by(m, path, "platform")

# docs are the relevant documents, docs_of_kind those of a kind: rules
# iterate these rather than every document (a function call per document
# and rule is what costs on a large repository).
docs(m) := relevant_docs_by_package[m.package]

docs_of_kind(m, kind) := [d | some d in relevant_docs_by_package[m.package]; d.kind == kind]

relevant_docs_by_package := {m.package: [d | some d in input.documents; relevant(m, d.path)] |
	some m in lib.migrations
}

# scripts are the scripts of the relevant documents; of a Dockerfile,
# only the RUNs whose text has a needle of the file (doc_needles).
scripts(m) := [s | some ss in doc_scripts_by_package[m.package]; some s in ss]

# doc_scripts are those of one document.
doc_scripts(m, path) := object.get(doc_scripts_by_package[m.package], path, [])

doc_scripts_by_package := {m.package: by_doc |
	some m in lib.migrations
	by_doc := {d.path: ss |
		some d in docs(m)
		ss := doc_scripts_of(m, d)
	}
}

doc_scripts_of(m, d) := [s |
	needles := [lower(n) | some n in doc_needles(m, d.path)]
	some s in lib.scripts_of(d)
	script_matters(m, s, needles, dests_for(m, d.path, s))
]

script_matters(_, s, needles, _) if script_relevant(s, needles)

# A RUN that fetches the repository under a spelling that has none of
# the needles (percent-escapes) matters.
script_matters(m, s, _, _) if {
	s.doc.kind == "dockerfile"
	some c in s.script.commands
	fetched(m, c)
}

# A RUN that works in a clone (its stage's WORKDIR, a cd, make -C …)
# matters whatever it mentions.
script_matters(m, s, _, dests) if {
	s.doc.kind == "dockerfile"
	count(dests) > 0
	some c in s.script.commands
	in_clone(m, s.doc.path, dests, c)
}

script_relevant(s, _) if s.doc.kind != "dockerfile"

script_relevant(s, needles) if {
	s.doc.kind == "dockerfile"
	text := lower(s.run.text)
	some n in needles
	contains(text, n)
}

# doc_needles are what a part of a relevant file must mention to matter:
# the migration's words, the source-build names of the repository, the
# file's variables that hold the repository and its clone directories.
doc_needles(m, path) := array.concat(
	array.concat(base_needles(m), [n | some n in name_needles(m)]),
	array.concat([v | some v in repo_vars(m, path)], [base_name(c) | some c in clone_dests(m, path)]),
)

# stage_named reports whether a stage's own name marks it as a source-build
# stage.
stage_named(m, st) if {
	is_string(st.name)
	st.name != ""
	lib.source_build_name(m, st.name)
}

# A stage named after the package itself (flash-attn-builder,
# marlin-kernels-builder, vllm-builder: issue 32) is the source build's
# when it builds something (a wheel, a compile, a setup.py), and by the
# package's initials (build_fa) only when it also names its repository
# (directly or through an ARG whose default does). A stage that only
# runs or tests the package (triton-server FROM the runtime image,
# test_flash_attn importing it) is none.
stage_named(m, st) if {
	is_string(st.name)
	st.name != ""
	not lib.has_token(m, st.name)
	lib.strongly_named(m, st.name)
	not lib.package_name(m, st.name)
	not lib.allowed(m, st.name)
	stage_builds_package(m, st)
}

stage_named(m, st) if {
	is_string(st.name)
	st.name != ""
	not lib.has_token(m, st.name)
	not lib.strongly_named(m, st.name)
	lib.initials_named(m, st.name)
	not lib.allowed(m, st.name)
	stage_builds(st)
	stage_names_repository(m, st)
}

# stage_builds_package: the stage builds a Python package from a local
# tree (setup.py, python -m build, pip wheel or install of a directory:
# TGI's marlin kernels, axolotl's flash-attn), or compiles what it fetches
# from the package's repository. A stage that compiles something else or
# builds wheels of other projects from the index (the red team's
# flash-attn-builder that only builds docs, flash-attn-deps with `pip wheel
# einops`) is not the package's source build.
stage_builds_package(_, st) if {
	some ins in st.instructions
	is_object(ins.shell)
	some c in ins.shell.commands
	wheel_build(c)
}

stage_builds_package(m, st) if {
	stage_builds(st)
	stage_names_repository(m, st)
}

wheel_build(c) if {
	regex.match(`^python[0-9.]*$`, c.name)
	some w in c.words
	w.value in {"setup.py", "bdist_wheel"}
}

wheel_build(c) if {
	regex.match(`^python[0-9.]*$`, c.name)
	some i, w in c.words
	w.value == "-m"
	c.words[i + 1].value == "build"
}

wheel_build(c) if {
	is_object(c.pip)
	c.pip.op in {"install", "wheel"}
	some r in c.pip.requirements
	r.local_path != null
	not endswith(lower(r.raw), ".whl")
}

stage_builds(st) if {
	some ins in st.instructions
	is_object(ins.shell)
	some c in ins.shell.commands
	build_step(c)
}

stage_names_repository(m, st) if lib.mentions_repository(m, stage_text(st))

stage_names_repository(m, st) if {
	some n in repo_arg_names[m.package]
	lib.expands(stage_text(st), n)
}

stage_text(st) := concat("\n", [t |
	some ins in st.instructions
	some t in array.concat([ins.original], [h.body | some h in object.get(ins, "heredocs", [])])
])

# repo_arg_names are the ARGs whose default names the package's
# repository, in the Dockerfiles evaluated (the stage's own file in a
# file's evaluation: FA_REPO="https://github.com/…/flash-attention.git").
repo_arg_names := {m.package: {a.name |
	some d in input.documents
	d.kind == "dockerfile"
	some a in array.concat(object.get(d, "global_args", []), [a | some ins in lib.instructions(d); some a in ins.arg_defs])
	is_string(a.default)
	lib.mentions_repository(m, a.default)
} |
	some m in lib.migrations
}

# direct_stages are a Dockerfile's stages named for the source build, lower
# case (buildkit compares stage names case-insensitively).
direct_stages(m, d) := {lower(st.name) | some st in d.stages; stage_named(m, st)}

# stages are the source-build stages of the Dockerfile at path: those
# named for it, and those built FROM one (one level: the export stage of
# a build chain); from the repository table, where every relevant
# Dockerfile's are.
stages(m, path) := {s | some s in lib.table(["sourcebuild", m.package, "stages_by_doc", path], [])}

stages_of(m, d) := direct_stages(m, d) | {lower(st.name) |
	some st in d.stages
	is_string(st.name)
	st.name != ""
	is_string(st.base.value)
	lower(st.base.value) in direct_stages(m, d)
}

# targets are the bake targets of the source build, from every HCL
# document: named for it, or building a source-build stage.
targets(m) := {t | some t in lib.table(["sourcebuild", m.package, "targets"], [])}

# all_stages are the source-build stages of every Dockerfile in scope.
all_stages(m) := {s | some s in lib.table(["sourcebuild", m.package, "all_stages"], [])}

# name_needles are what else makes a file relevant: the names of the
# source build's stages and targets, and of the build arguments another
# file gives the repository.
name_needles(m) := (known_names(m) | arg_repos(m)) | context_repos(m)

arg_repos(m) := {s | some s in lib.table(["sourcebuild", m.package, "arg_repos"], [])}

# known_names are every stage and target name of the source build in the
# repository: a script that names one of them is about the source build.
known_names(m) := {s | some s in lib.table(["sourcebuild", m.package, "known_names"], [])}

# repo_vars are the variables of a document that hold the package's
# repository: declared build arguments named *REPO* or *URL*, and any ARG,
# ENV or shell variable whose value names the repository.
repo_vars(m, path) := repo_vars_by_doc[m.package][path]

repo_vars_by_doc := {m.package: by_doc |
	some m in lib.migrations
	named := {n | some n in m.build_args; regex.match(`REPO|URL`, upper(n))}
	by_doc := {d.path: vars | some d in docs(m); vars := named | value_vars(m, d)}
}

# arg_repo_names are the build arguments a file gives a value that names
# the repository (the build model's values across files): a bake target's
# args (directly, through format(), or through a variable whose default
# names it), a pipeline build's build-args and --set *.args.NAME=, and a
# command's NAME=value words (docker build --build-arg, bake --set).
arg_repo_names(m, d) := ({el.key.value |
	d.kind == "hcl"
	some x in lib.hcl_attributes(d)
	x.attr.name == "args"
	some el in x.attr.elements
	is_string(el.key.value)
	hcl_names_repo(m, d, el)
} | {n |
	some s in lib.scripts_of(d)
	some c in s.script.commands
	some i, w in c.words
	v := word_value(w)
	build_arg_word(c, i, v)
	repo_text(m, v)
	some n in var_of(v)
}) | {n |
	d.kind == "pipeline"
	some b in d.builds
	some w in array.concat(b.build_args, b.sets)
	is_string(w.value)
	repo_text(m, w.value)
	some n in var_of(w.value)
}

# context_repo_names are the names of build contexts a file gives the
# repository: a bake target's contexts = { NAME = "URL" }, a command's
# --build-context NAME=URL, compose's additional_contexts.
context_repo_names(m, d) := ({el.key.value |
	d.kind == "hcl"
	some x in lib.hcl_attributes(d)
	x.attr.name == "contexts"
	some el in x.attr.elements
	is_string(el.key.value)
	hcl_names_repo(m, d, el)
} | {n |
	some s in lib.scripts_of(d)
	some c in s.script.commands
	some i, w in c.words
	v := word_value(w)
	context_word(c, i, v)
	n := split(trim_prefix(v, "--build-context="), "=")[0]
	repo_text(m, v)
}) | {n |
	d.kind == "pipeline"
	some b in d.builds
	some w in object.get(b, "contexts", [])
	is_string(w.value)
	buildgate.repository(w.value) in repo_ids(m)
	n := split(w.text, ":")[0]
}

context_word(c, i, v) if {
	i > 0
	c.words[i - 1].value == "--build-context"
	contains(v, "=")
}

context_word(_, _, v) if startswith(v, "--build-context=")

# build_arg_word: word i of command c (value v) passes a build argument:
# --build-arg NAME=value (or --build-arg=NAME=value), bake's
# --set TARGET.args.NAME=value.
build_arg_word(c, i, v) if {
	i > 0
	c.words[i - 1].value in {"--build-arg", "--set"}
	contains(v, "=")
}

build_arg_word(_, _, v) if startswith(v, "--build-arg=")

build_arg_word(_, _, v) if contains(v, ".args.")

hcl_names_repo(m, _, el) if lib.mentions_repository(m, el.value_text)

hcl_names_repo(m, d, el) if {
	some r in el.refs
	some a in d.variables[r.name].attributes
	a.name == "default"
	is_string(a.value)
	repo_text(m, a.value)
}

# repo_text reports whether a text names the repository, in any spelling
# a URL after "=" may have.
repo_text(m, v) if lib.mentions_repository(m, v)

repo_text(m, v) if {
	i := indexof(v, "=")
	buildgate.repository(substring(v, i + 1, -1)) in repo_ids(m)
}

# arg_vars are a Dockerfile's build arguments that another file of the
# repository gives a value naming the repository.
arg_vars(m, d) := {a.name |
	d.kind == "dockerfile"
	given := {n | some n in lib.table(["sourcebuild", m.package, "arg_repos"], [])}
	count(given) > 0
	some ins in lib.instructions(d)
	some a in ins.arg_defs
	a.name in given
}

value_vars(m, d) := arg_vars(m, d) | own_value_vars(m, d)

own_value_vars(m, d) := (({a.name |
	d.kind == "dockerfile"
	some ins in lib.instructions(d)
	some a in ins.arg_defs
	is_string(a.default)
	lib.mentions_repository(m, a.default)
} | {e.key |
	d.kind == "dockerfile"
	some ins in lib.instructions(d)
	some e in ins.env
	lib.mentions_repository(m, e.value)
}) | {a.name |
	some s in lib.scripts_of(d)
	some a in s.script.assignments
	lib.mentions_repository(m, a.value_text)
}) | {e.name |
	d.kind == "pipeline"
	some e in d.env
	lib.mentions_repository(m, concat("\n", [e.value_text, object.get(e, "value", "")]))
}

# repo_ids are the identities of the migration's repositories (what
# buildgate.repository makes of any spelling), repo_names their own names
# (a fork or mirror keeps the name).
repo_ids(m) := repo_ids_by_package[m.package]

repo_ids_by_package := {m.package: {id | some r in m.repositories; id := buildgate.repository(r)} | some m in lib.migrations}

repo_names(m) := repo_names_by_package[m.package]

repo_names_by_package := {m.package: {n | some id in repo_ids(m); n := base_name(id)} | some m in lib.migrations}

# url_identity is the repository a word's value names, for a value that
# may be a URL (it holds a slash or a colon: asked of every word of the
# commands that may fetch).
url_identity(w) := buildgate.repository(v) if {
	v := word_value(w)
	contains(v, "/")
}

# word_value is a word's static value, else its resolved one (the file's
# static values of its variables put in place).
word_value(w) := w.value if is_string(w.value)

word_value(w) := w.resolved if {
	not is_string(w.value)
	is_string(object.get(w, "resolved", null))
}

# repo_word reports whether a word names the repository, directly or
# through one of its variables. A word that is the URL of another
# repository does not (Mooncake-docs is not Mooncake).
repo_word(m, _, w) if url_identity(w) in repo_ids(m)

repo_word(m, _, w) if {
	not other_repository(m, w)
	lib.mentions_repository(m, w.text)
}

# A word's value says what the text may spell with escapes (a pipeline's
# "…/\x4dooncake").
repo_word(m, _, w) if {
	not other_repository(m, w)
	is_string(w.value)
	lib.mentions_repository(m, w.value)
}

# A variable that holds the repository: the value the file gives it
# (another repository's, a default) is not what it holds when a build
# argument or another file gives it the repository.
repo_word(m, path, w) if {
	some v in repo_vars(m, path)
	lib.expands(w.text, v)
}

other_repository(m, w) if {
	id := url_identity(w)
	not id in repo_ids(m)
	not base_name(id) in repo_names(m)
}

# may_fetch is a cheap first test for fetch: the model found a fetch, or
# the command's name is one that fetches.
may_fetch(c) if is_object(object.get(c, "fetch", null))

may_fetch(c) if c.name in {"git", "wget", "curl", "gh", "svn", "hg", "pip", "pip3", "uv", "go"}

may_fetch(c) if startswith(c.name, "python")

# source_fetch reports whether the model's fetch of command c is the
# package's repository.
source_fetch(m, c) if c.fetch.repository in repo_ids(m)

# fork_fetch reports whether command c fetches a repository of the same
# name elsewhere (a fork or a mirror): its clone counts when something is
# built in it.
fork_fetch(m, c) if {
	not source_fetch(m, c)
	base_name(c.fetch.repository) in repo_names(m)
}

fetch_verbs := {
	"clone": "clones",
	"update": "clones",
	"download": "downloads",
	"install": "installs from the repository",
	"context": "builds from the repository",
}

# fetch reports whether a command fetches the package's source: what the
# build model says it fetches (any spelling of the repository), else a
# git clone (or fetch, pull, archive, submodule add), a download, a pip
# or go install whose words name the repository through a variable.
fetch(m, path, c) := fetch_verbs[c.fetch.kind] if {
	source_fetch(m, c)
} else := fetch_verbs[c.fetch.kind] if {
	fork_fetch(m, c)
	fork_built(m, path, c)
} else := word_fetch(m, path, c) if {
	# One file of the repository (a LICENSE, a script) is not its source,
	# nor is a wheel built already (a release asset pip installs as it is).
	not object.get(c, ["fetch", "kind"], "") in {"file", "wheel"}
}

# fork_built reports whether something is built in the clone of a fork.
fork_built(m, path, c) if {
	is_string(c.fetch.into)
	some s in doc_scripts(m, path)
	some x in s.script.commands
	build_step(x)
	in_clone(m, path, {c.fetch.into}, x)
}

word_fetch(m, path, c) := "clones" if {
	c.name == "git"
	some i, w in c.words
	i > 0
	w.value in {"clone", "fetch", "pull", "archive", "add"}
	some u in array.slice(c.words, i + 1, count(c.words))
	repo_word(m, path, u)
}

word_fetch(m, path, c) := "downloads" if {
	c.name in {"wget", "curl", "gh", "svn", "hg"}
	some u in array.slice(c.words, 1, count(c.words))
	repo_word(m, path, u)
}

word_fetch(m, path, c) := "installs from the repository" if {
	installer(c)
	some u in array.slice(c.words, 1, count(c.words))
	repo_word(m, path, u)
	not wheel_url(u.text)
}

# wheel_url reports whether a word (expansions and all) names a wheel
# file: pip installs it as it is, building nothing.
wheel_url(text) if regex.match(`(?i)\.whl["']?([#?].*)?$`, text)

installer(c) if pip_install(c)

installer(c) if {
	c.name == "go"
	count(c.words) > 1
	c.words[1].value in {"install", "get"}
}

# pip_install reports whether a command is pip install, uv pip install,
# python -m pip install, or go install / go get.
pip_install(c) if {
	c.name in {"pip", "pip3"}
	count(c.words) > 1
	c.words[1].value == "install"
}

pip_install(c) if {
	c.name == "uv"
	count(c.words) > 2
	c.words[1].value == "pip"
	c.words[2].value == "install"
}

pip_install(c) if {
	regex.match(`^python[0-9.]*$`, c.name)
	some i, w in c.words
	w.value == "-m"
	c.words[i + 1].value == "pip"
	c.words[i + 2].value == "install"
}

# clone_options are git clone options that take a separate value.
clone_options := {
	"-b", "--branch", "--depth", "-o", "--origin", "-c", "--config", "--reference",
	"--reference-if-able", "--separate-git-dir", "-j", "--jobs", "--filter", "-u",
	"--upload-pack", "--template", "--shallow-since", "--shallow-exclude", "--server-option",
	"--bundle-uri", "--revision",
}

# clone_positionals are the arguments of git clone that are not options or
# option values: the repository, then the directory if given.
clone_positionals(c) := [w |
	some i, w in c.words
	i > 1
	not startswith(w.text, "-")
	not option_value(c, i)
]

option_value(c, i) if c.words[i - 1].value in clone_options

# dest_stages are [directory, stage] pairs: each directory a document
# fetches the package's source into (the build model's fetch "into",
# for a fork or mirror too; for a clone whose URL a variable holds, its
# directory), copies or mounts a source tree into, or copies or moves a
# clone to, with the Dockerfile stage it is in (-1 outside a Dockerfile):
# a clone in one stage is not in another's filesystem unless that stage
# is built FROM it.
dest_stages(m, path) := object.get(dest_stages_by_doc[m.package], path, set())

dest_stages_by_doc := {m.package: {d.path: dest_stages_of(m, d) | some d in docs(m)} | some m in lib.migrations}

dest_stages_of(m, d) := (fetched | copied) | moved if {
	fetched := fetched_dests(m, d)
	copied := copied_trees(m, d, {x[0] | some x in fetched})
	moved := moved_trees(d, {x[0] | some x in (fetched | copied)})
}

# clone_dests are those directories, whatever their stage.
clone_dests(m, path) := object.get(clone_dests_by_doc[m.package], path, set())

clone_dests_by_doc := {m.package: {d.path: {x[0] | some x in dest_stages(m, d.path)} | some d in docs(m)} | some m in lib.migrations}

# dests_for are the clone directories script s can work in: in a
# Dockerfile, those of its stage and of the stages it is built FROM. A
# file with more than max_scoped clone directories is not scoped by
# stage (the cost would grow as stages times directories).
dests_for(m, path, s) := clone_dests(m, path) if s.doc.kind != "dockerfile"

dests_for(m, path, s) := clone_dests(m, path) if {
	s.doc.kind == "dockerfile"
	count(dest_stages(m, path)) > max_scoped
}

dests_for(m, path, s) := object.get(dests_by_stage[m.package][path], script_stage(path, s), set()) if {
	s.doc.kind == "dockerfile"
	count(dest_stages(m, path)) <= max_scoped
}

max_scoped := 256

# dests_by_stage: for each Dockerfile and stage, the clone directories of
# the stages it descends from (itself included).
dests_by_stage := {m.package: {d.path: by_stage |
	some d in docs_of_kind(m, "dockerfile")
	ds := dest_stages(m, d.path)
	count(ds) <= max_scoped
	below := {s: graph.reachable(stage_children[d.path], {s}) | some x in ds; s := x[1]}
	by_stage := {t: {x[0] | some x in ds; t in below[x[1]]} | some t, _ in object.union(stage_graph[d.path], {})}
} |
	some m in lib.migrations
}

# stage_children: each stage's stages built FROM it.
stage_children := {path: {i: [j | some j, bases in g; i in bases] | some i, _ in g} |
	some path, g in stage_graph
}

# script_stage is the index of the Dockerfile stage a script is in (-1
# for none).
script_stage(path, s) := stage_of(path, s.run.pos) if is_object(s.run)

else := -1

stage_of(path, pos) := object.get(stage_by_line, [path, sprintf("%d", [pos.line])], -1)

# stage_by_line: for each Dockerfile, the stage of each instruction by its
# first line (built once: a file of thousands of stages must not be
# searched for each).
stage_by_line := {d.path: {sprintf("%d", [ins.pos.line]): i |
	some i, st in d.stages
	some ins in st.instructions
} |
	some d in lib.documents("dockerfile")
}

# stage_graph: each stage's bases among the file's stages (by name).
stage_graph := {d.path: object.union(edges, {-1: []}) |
	some d in lib.documents("dockerfile")
	edges := {i: [j |
		some j, sj in d.stages
		j < i
		sj.name != ""
		lower(sj.name) == lower(object.get(st.base, "value", ""))
	] |
		some i, st in d.stages
	}
}

# fetched_dests are [directory, stage] of what the document fetches.
fetched_dests(m, d) := ({[f.into, -1] |
	some f in pipeline_fetches(m, d)
	is_string(f.into)
} | {[c.fetch.into, script_stage(d.path, s)] |
	some s in lib.scripts_of(d)
	some c in s.script.commands
	is_string(c.fetch.into)
	fetched(m, c)
}) | {[into, script_stage(d.path, s)] |
	some s in lib.scripts_of(d)
	some c in s.script.commands
	c.name == "git"
	not fetched(m, c)
	word_fetch(m, d.path, c) == "clones"
	some into in word_dests(m, c)
}

# word_dests: where a clone whose URL a variable holds lands: the
# model's directory for it when it knows one, else the directory given
# (or the repository's name) under the command's.
word_dests(_, c) := {c.fetch.into} if is_string(c.fetch.into)

word_dests(m, c) := {dir_join(c.dir, dest) | some dest in clone_dest(m, c)} if not is_string(object.get(c, ["fetch", "into"], null))

# copied_trees are the [directory, stage] a Dockerfile copies or
# bind-mounts a source tree into: a COPY or ADD (or RUN
# --mount=type=bind) whose source is a directory named for the repository
# (third_party/Mooncake), a clone directory of the file (COPY
# --from=fetch /opt/src /src), the repository's URL (ADD <git URL> DEST),
# or a named context another file gives the repository (bake contexts,
# --build-context).
copied_trees(m, d, fetched) := ({[dest, stage_of(d.path, ins.pos)] |
	d.kind == "dockerfile"
	some ins in lib.instructions(d)
	ins.cmd in {"copy", "add"}
	count(ins.args) > 1
	some src in array.slice(ins.args, 0, count(ins.args) - 1)
	tree_source(m, fetched, src.value)
	dest := trim_suffix(ins.args[count(ins.args) - 1].value, "/")
	is_string(dest)
} | {[dest, stage_of(d.path, ins.pos)] |
	d.kind == "dockerfile"
	some ins in lib.instructions(d)
	ins.cmd == "copy"
	is_string(ins.copy_from.value)
	ins.copy_from.value in context_repos(m)
	count(ins.args) > 1
	dest := trim_suffix(ins.args[count(ins.args) - 1].value, "/")
	is_string(dest)
}) | {[mt.target, stage_of(d.path, ins.pos)] |
	d.kind == "dockerfile"
	some ins in lib.instructions(d)
	some mt in object.get(ins, "mounts", [])
	mt.type == "bind"
	mount_tree(m, fetched, mt)
	mt.target != ""
}

tree_source(m, _, p) if lower(base_name(p)) in repo_names(m)

tree_source(_, fetched, p) if {
	some f in fetched
	inside(trim_suffix(p, "/"), f)
}

tree_source(m, _, p) if buildgate.repository(p) in repo_ids(m)

mount_tree(m, fetched, mt) if tree_source(m, fetched, mt.source)

# A mount of a stage's whole filesystem, or of a directory above a
# clone, holds the clone.
mount_tree(_, fetched, mt) if {
	mt.from != ""
	src := trim_suffix(object.get(mt, "source", ""), "/")
	some f in fetched
	startswith(f, "/")
	inside(f, src)
}

mount_tree(_, fetched, mt) if {
	mt.from != ""
	object.get(mt, "source", "") in {"", "/"}
	count(fetched) > 0
}

# context_repos are the named build contexts a file of the repository
# gives the repository (bake's contexts, --build-context NAME=URL).
context_repos(m) := {s | some s in lib.table(["sourcebuild", m.package, "context_repos"], [])}

# moved_trees are where a clone is copied or moved (cp -r, mv, rsync:
# the model's copies).
moved_trees(d, dests) := {[c.fetch.into, script_stage(d.path, s)] |
	some s in lib.scripts_of(d)
	some c in s.script.commands
	c.fetch.kind == "copy"
	is_string(c.fetch.from)
	some f in dests
	inside(c.fetch.from, f)
	is_string(c.fetch.into)
}

# pipeline_fetches are a pipeline's checkouts of the repository (the
# build model's fetches outside its scripts: actions/checkout with
# repository:).
pipeline_fetches(m, d) := [f |
	d.kind == "pipeline"
	some f in object.get(d, "fetches", [])
	fetched(m, {"fetch": f})
]

# remote_contexts are a pipeline's builds whose context (or bake
# definition) is the repository: build-push-action's context, bake-action's
# source, compose's context and additional_contexts.
remote_contexts(m, d) := [w |
	d.kind == "pipeline"
	some b in d.builds
	some w in object.get(b, "contexts", [])
	is_string(w.value)
	buildgate.repository(w.value) in repo_ids(m)
]

fetched(m, c) if source_fetch(m, c)

fetched(m, c) if fork_fetch(m, c)

clone_dest(_, c) := {trim_suffix(p[1].text, "/")} if {
	p := clone_positionals(c)
	count(p) > 1
	is_string(p[1].value)
}

clone_dest(m, c) := {trim_suffix(base_name(r), ".git") | some r in m.repositories} if {
	count(clone_positionals(c)) < 2
}

# dir_join is a path under a command's directory ("." its start).
dir_join(_, p) := p if startswith(p, "/")

dir_join(dir, p) := p if {
	not startswith(p, "/")
	dir == "."
}

dir_join(dir, p) := concat("/", [dir, p]) if {
	not startswith(p, "/")
	is_string(dir)
	dir != "."
}

base_name(p) := parts[count(parts) - 1] if parts := split(trim_suffix(p, "/"), "/")

# in_clone reports whether command c works inside a clone of the
# repository: the directory it runs in (the build model's dir, which
# follows cd, pushd, popd, subshells and WORKDIR) or one it works on
# (make -C, cmake -S/-B/--build, pip install PATH …) is a clone
# directory or below one. A directory's own ancestors are looked up in
# the set (a file of thousands of clones costs its commands' depth), the
# patterns and relative clones of an unknown start one by one.
in_clone(_, _, dests, c) if {
	some p in worked_dirs(c)
	some a in ancestors(p)
	a in dests
}

in_clone(m, path, dests, c) if {
	some d in object.get(loose_dests[m.package], path, set())
	d in dests
	some p in worked_dirs(c)
	inside(p, d)
}

# loose_dests are the clone directories of each document that are
# patterns or relative to an unknown start, matched one by one.
loose_dests := {m.package: {d.path: {x[0] | some x in dest_stages(m, d.path); loose_dest(x[0])} | some d in docs(m)} | some m in lib.migrations}

worked_dirs(c) := array.concat(array.concat([c.dir], object.get(c, "dirs", [])), copied_from(c)) if is_string(c.dir)

else := array.concat(object.get(c, "dirs", []), copied_from(c))

# copied_from are the directories a copy command (cp, install) takes what
# it copies from, joined to its directory: `cp plugins/bin/* /usr/libexec/cni/`
# from above the clone works on the clone (the red team's podman shape
# with WORKDIR /src), as a cp run inside it does.
copied_from(c) := [p |
	c.name in {"cp", "install"}
	is_string(c.dir)
	count(c.words) > 2
	some w in array.slice(c.words, 1, count(c.words) - 1)
	is_string(w.value)
	not startswith(w.value, "-")
	not startswith(w.value, "/")
	not contains(w.value, "..")
	contains(w.value, "/")
	dir := regex.replace(w.value, `/[^/]*$`, "")
	p := trim_suffix(concat("/", [c.dir, dir]), "/.")
]

# ancestors are a path and the directories above it ("." above a
# relative one).
ancestors(p) := {concat("/", array.slice(parts, 0, i)) |
	parts := split(p, "/")
	some i in numbers.range(1, count(parts))
} | {"." | relative_to_start(p)} if not startswith(p, "/")

relative_to_start(p) if {
	not startswith(p, "$")
	not startswith(p, "~")
	not startswith(p, "..")
}

ancestors(p) := {concat("/", array.slice(parts, 0, i)) |
	parts := split(p, "/")
	some i in numbers.range(2, count(parts))
} if startswith(p, "/")

loose_dest(d) if contains(d, "*")

loose_dest(d) if {
	not startswith(d, "/")
	not startswith(d, "$")
	d != "."
}

inside(p, d) if p == d

# An archive's own top directory is a pattern (/opt/Mooncake-*): a
# directory is inside when its first parts match it.
inside(p, d) if {
	contains(d, "*")
	is_string(p)
	dp := split(d, "/")
	pp := split(p, "/")
	count(pp) >= count(dp)
	glob.match(lower(d), ["/"], lower(concat("/", array.slice(pp, 0, count(dp)))))
}

inside(p, d) if startswith(p, concat("", [d, "/"]))

inside(p, d) if {
	d == "."
	is_string(p)
	not startswith(p, "/")
	not startswith(p, "$")
	not startswith(p, "~")
	not startswith(p, "..")
}

# A clone made where the file does not say (a relative directory of an
# unknown start) is met by an absolute directory that has it as its last
# parts (/workspace/Mooncake/build is in Mooncake).
inside(p, d) if {
	d != "."
	not startswith(d, "/")
	not startswith(d, "$")
	not startswith(d, "..")
	startswith(p, "/")
	contains(concat("", [p, "/"]), concat("", ["/", d, "/"]))
}

# build_step reports what a command does when run inside the clone:
# configure, compile or install it, or run its own scripts.
build_step(c) := "compiles" if c.name in {"cmake", "make", "ninja", "meson", "bazel", "cargo", "scons"}

build_step(c) := "compiles" if {
	c.name == "go"
	count(c.words) > 1
	c.words[1].value in {"build", "install", "generate"}
}

build_step(c) := "runs the repository's script" if {
	c.name in {"bash", "sh"}
	count(c.words) > 1
	endswith(c.words[1].text, ".sh")
}

build_step(c) := "runs the repository's script" if {
	startswith(c.name, "./")
}

build_step(c) := "builds a wheel" if {
	regex.match(`^python[0-9.]*$`, c.name)
	not pip_install(c)
	some w in c.words
	w.value in {"setup.py", "build", "bdist_wheel"}
}

build_step(c) := "builds and installs" if {
	pip_install(c)
	some i, w in c.words
	i > 1
	w.value in {".", "./", "-e", "--editable"}
} else := "builds and installs" if {
	installs_dir(c)
}

# installs_dir: pip or uv installs a local directory (the build model's
# dirs of an install).
installs_dir(c) if {
	count(object.get(c, "dirs", [])) > 0
	pip_install(c)
}

build_step(c) := "builds a wheel" if {
	c.name in {"pip", "pip3"}
	count(c.words) > 1
	c.words[1].value == "wheel"
}

build_step(c) := "builds a wheel" if {
	startswith(c.name, "python")
	some i, w in c.words
	w.value == "-m"
	c.words[i + 1].value == "pip"
	c.words[i + 2].value == "wheel"
	regex.match(`^python[0-9.]*$`, c.name)
}

build_step(c) := "builds a wheel" if {
	c.name == "uv"
	count(c.words) > 1
	c.words[1].value == "build"
}

# A copy out of the clone (podman's `cp bin/* /usr/libexec/cni` after
# ./build_linux.sh; issue 32): the install of what the build made.
build_step(c) := "installs what the build made" if {
	c.name in {"cp", "install"}
	count(c.words) > 2
	some w in array.slice(c.words, 1, count(c.words) - 1)
	is_string(w.value)
	not startswith(w.value, "-")
	not startswith(w.value, "/")
	not startswith(w.text, "$")
	startswith(c.words[count(c.words) - 1].value, "/")
}

build_step(c) := "checks out" if {
	c.name == "git"
	git_subcommand(c) in {"checkout", "submodule", "pull", "fetch", "switch", "reset"}
}

# git_subcommand is git's subcommand, after its global options (-C DIR,
# -c NAME=VALUE, --git-dir=…).
git_subcommand(c) := [w.value |
	some i, w in c.words
	i > 0
	not startswith(w.text, "-")
	not c.words[i - 1].value in {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
][0]

# local_wheel reports whether a pip install in script s installs a wheel
# built here: a path naming the package, in a file that shows the
# package's platform, or a path under the target of a RUN --mount from a
# source-build stage. A path alone says little: the Mooncake repository's
# own test_installation.sh installs mooncake-wheel/dist/*.whl, its default
# (CUDA) build (issue 13).
local_wheels(m, path, run, c) := {w |
	pip_install(c)
	some i, w in c.words
	i > 1
	is_string(w.value)
	contains(w.value, "/")
	built_artifact(w.value)
	not downloaded(path, w.value)
	not contains(w.value, "://") # a URL is a download or a VCS install, not a local wheel
	lib.has_token(m, w.value)
	platform_shown(m, path)
} | {w |
	pip_install(c)
	is_object(run)
	some mt in run.mounts
	lower(mt.from) in stages(m, path)
	mt.target != ""
	some i, w in c.words
	i > 1
	startswith(w.text, mt.target)
}

# downloaded reports whether a wheel path is under a directory a pip
# download of the same file writes (pip download -d DIR: the published
# wheel, not one built here).
downloaded(path, p) if {
	some d in object.get(download_dirs, path, set())
	startswith(p, concat("", [d, "/"]))
}

# download_dirs: each document's pip download directories, found once (a
# file of 35,000 installs must not be searched for each).
download_dirs := {d.path: dirs |
	some d in input.documents
	dirs := {trim_suffix(c.words[i + 1].value, "/") |
		some s in lib.scripts_of(d)
		some c in s.script.commands
		c.name in {"pip", "pip3", "uv"}
		some x in c.words
		x.value == "download"
		some i, w in c.words
		w.value in {"-d", "--dest", "--destination-directory"}
		is_string(c.words[i + 1].value)
	}
	count(dirs) > 0
}

# built_artifact: a path that is a wheel or an archive built here (a
# directory installed is a build from source, build_step's).
built_artifact(p) if {
	some ext in [".whl", ".tar.gz", ".zip", ".egg", "*"]
	endswith(p, ext)
}

built_artifact(p) if contains(p, "dist/")

# arg_uses are the places a document declares, passes or reads a variable
# that might be a source-build argument: [{el, name, what}]. The rules
# BG102 and BG103 pick those whose name is theirs. Only names the migration
# could be about are kept (lib.mentions), which keeps this cheap.
arg_uses(m, path) := object.get(arg_uses_by_doc[m.package], path, [])

arg_uses_by_doc := {m.package: {d.path: [u |
	some u in all_arg_uses(m, d)
	lib.mentions(m, u.name)
] |
	some d in docs(m)
} |
	some m in lib.migrations
}

all_arg_uses(m, d) := array.concat(
	array.concat(dockerfile_arg_uses(m, d), script_arg_uses(m, d)),
	array.concat(hcl_arg_uses(d), pipeline_arg_uses(m, d)),
)

# pipeline_arg_uses are a CI pipeline's environment assignments (set for
# every command of its scope, as an ENV would be) and the build arguments
# its docker/build-push-action and docker/bake-action steps and Buildkite
# docker-compose plugins pass; what its commands do is read with the
# scripts.
pipeline_arg_uses(_, d) := [] if d.kind != "pipeline"

pipeline_arg_uses(m, d) := array.concat(
	[{"el": e, "name": e.name, "what": "set"} | some e in d.env],
	[{"el": named_el(w, n), "name": n, "what": "passed"} |
		some b in d.builds
		b.via in {"action", "plugin"}
		some w in array.concat(b.build_args, b.sets)
		is_string(w.value)
		lib.mentions(m, w.value)
		some n in named_vars(m, w.value)
	],
) if d.kind == "pipeline"

dockerfile_arg_uses(_, d) := [] if d.kind != "dockerfile"

dockerfile_arg_uses(m, d) := array.concat(
	[{"el": a, "name": a.name, "what": "declared"} |
		some ins in lib.instructions(d)
		some a in ins.arg_defs
	],
	array.concat(
		[{"el": e, "name": e.key, "what": "set"} |
			some ins in lib.instructions(d)
			ins.cmd == "env"
			some e in ins.env
		],
		[{"el": w, "name": n, "what": "read"} |
			some ins in lib.instructions(d)
			not is_object(ins.shell)
			ins.cmd != "arg"
			lib.mentions(m, ins.original)
			some w in ins.args
			lib.mentions(m, w.text)
			some n in expanded_names(w.text)
		],
	),
) if d.kind == "dockerfile"

# declared_cache_args are the cache-key variables a file declares as a
# build's input: a Dockerfile ARG, a bake variable or a target's args key,
# a build argument a CI build passes. A variable with the name of a cache
# (TRITON_CACHE_DIR) that no build declares is a runtime setting of what
# the image or a test runs, not a key of the build's cache (issue 32).
declared_cache_args(m, d) := {n |
	some n in declared_args(d)
	lib.mentions(m, n)
	lib.source_arg(m, n)
	lib.cache_arg(n)
}

# declared_args are the names a file declares or passes as build
# arguments, read from the document alone (a file's facts cannot ask the
# repository's table).
declared_args(d) := ((({a.name |
	d.kind == "dockerfile"
	some ins in lib.instructions(d)
	some a in ins.arg_defs
} | {b.labels[0].value |
	d.kind == "hcl"
	some b in d.blocks
	b.type == "variable"
	count(b.labels) > 0
}) | {el.key.value |
	d.kind == "hcl"
	some x in lib.hcl_attributes(d)
	x.attr.name == "args"
	some el in x.attr.elements
	is_string(el.key.value)
}) | {n |
	d.kind == "pipeline"
	some b in d.builds
	some w in b.build_args
	is_string(w.value)
	n := split(w.value, "=")[0]
}) | script_build_args(d)

# script_build_args are the names a command's --build-arg NAME[=value]
# passes (docker build, buildx, podman, buildah: the red team's `docker
# build --build-arg TRITON_CACHE_DIR=/tmp/x` in a script).
script_build_args(d) := {n |
	some s in lib.scripts_of(d)
	some c in s.script.commands
	c.name in {"docker", "podman", "buildah", "nerdctl", "buildctl", "depot"} # narrow before the words
	some i, w in c.words
	is_string(w.value)
	some v in build_arg_values(c, i, w.value)
	n := split(v, "=")[0]
}

build_arg_values(c, i, v) := [c.words[i + 1].value] if {
	v == "--build-arg"
	count(c.words) > i + 1
	is_string(c.words[i + 1].value)
}

build_arg_values(_, _, v) := [trim_prefix(v, "--build-arg=")] if startswith(v, "--build-arg=")

# build_cache_use reports whether a use of a cache-key variable is the
# build's: the build declares or passes it there, its name says it keys a
# cache, it is a bake file's, the configuration lists it as a build
# argument, or a build of the repository declares it (the table's
# cache_args). Otherwise it is a runtime cache's (issue 32: triton's
# kernel cache TRITON_CACHE_DIR, set for the tests a CI script runs).
build_cache_use(_, _, u) if u.what in {"declared", "passed"}

# A name that says it identifies a build's cache (a key, a ref, a tag, a
# digest: MOONCAKE_CACHE_KEY, mooncake_cache_ref) is one wherever it is
# used; a cache directory (TRITON_CACHE_DIR) only where a build takes it.
build_cache_use(_, _, u) if regex.match(`(^|[_.-])(KEY|KEYS|REF|REFS|TAG|TAGS|IMAGE|ID|HASH|DIGEST|SHA)([_.-]|$)`, upper(u.name))

build_cache_use(_, d, _) if d.kind == "hcl"

build_cache_use(m, _, u) if u.name in m.build_args

build_cache_use(m, _, u) if u.name in cache_args(m)

cache_args(m) := {s | some s in lib.table(["sourcebuild", m.package, "cache_args"], [])}

# expanded_names are the variables a piece of text expands.
expanded_names(text) := {x[1] | some x in regex.find_all_string_submatch_n(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`, text, -1)}

script_arg_uses(m, d) := [u |
	some s in doc_scripts(m, d.path)
	some u in array.concat(
		array.concat(
			[{"el": x, "name": x.name, "what": "read"} | some x in s.script.expansions],
			[{"el": a, "name": a.name, "what": "set"} | some a in s.script.assignments],
		),
		array.concat(
			[{"el": named_el(w, n), "name": n, "what": "named"} |
				some c in s.script.commands
				some i, w in c.words
				i > 0
				some n in word_names(m, w)
			],
			[{"el": w, "name": n, "what": "named"} |
				some loop in s.script.for_loops
				some w in loop.words
				is_string(w.value)
				lib.mentions(m, w.value)
				some n in named_vars(m, w.value)
			],
		),
	)
]

# named_vars are the variable names a static word names that mention the
# migration: the word itself ("MOONCAKE_BRANCH"), NAME=value (--build-arg),
# or each name of a list.
named_vars(m, v) := {n |
	is_string(v)
	some item in lib.items_mentioning(m, v)
	some n in var_of(item)
}

# word_names are the variables a command's word names: those of its value
# when static, else the NAME of NAME=… or --build-arg=NAME=… whose value
# holds an expansion (--build-arg MOONCAKE_WHEEL="${URL}", the name quoted
# or not: "MOONCAKE_WHEEL=${URL}", 'MOONCAKE_WHEEL'="$W").
word_names(m, w) := named_vars(m, w.value) if {
	is_string(w.value)
	lib.mentions(m, w.value)
} else := {n |
	not is_string(w.value)
	lib.mentions(m, w.text)
	x := regex.find_all_string_submatch_n(`^["']?(?:--build-arg=)?["']?([A-Za-z_][A-Za-z0-9_]*)["']?=`, w.text, 1)
	count(x) > 0
	n := x[0][1]
	lib.mentions(m, n)
}

# var_of is the variable an item names: NAME or NAME=value, bake's
# --set TARGET.args.NAME=value, or --build-arg=NAME=value in one word.
var_of(item) := {n |
	some p in [item, trim_prefix(item, "--build-arg=")]
	lhs := split(p, "=")[0]
	parts := split(lhs, ".args.")
	n := parts[count(parts) - 1]
	regex.match(`^[A-Za-z_][A-Za-z0-9_]*$`, n)
	count(parts) <= 2
}

# named_el is the part of word w that is the variable n, so that a finding
# points at the name (--build-arg NAME=value, --set *.args.NAME=value), not
# at the option; the whole word where the name cannot be placed in it.
named_el(w, n) := {"text": n, "value": n, "pos": object.union(w.pos, {"column": w.pos.column + i, "end_column": (w.pos.column + i) + count(n)})} if {
	w.pos.line == w.pos.end_line
	i := indexof(w.text, n)
	i >= 0
} else := w

hcl_arg_uses(d) := [] if d.kind != "hcl"

hcl_arg_uses(d) := array.concat(
	[{"el": b.labels[0], "name": b.labels[0].value, "what": "declared"} |
		some b in d.blocks
		b.type == "variable"
		count(b.labels) > 0
	],
	array.concat(
		[{"el": r, "name": r.name, "what": "read"} |
			some x in lib.hcl_attributes(d)
			some r in x.attr.refs
		],
		[{"el": el.key, "name": el.key.value, "what": "passed"} |
			some x in lib.hcl_attributes(d)
			x.attr.name == "args"
			some el in x.attr.elements
			is_object(el.key)
			is_string(el.key.value)
		],
	),
) if d.kind == "hcl"
