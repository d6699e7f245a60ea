# METADATA
# title: What the image installs
# description: |
#   The install side of the build model, as the pin rules (BG201-BG204)
#   read it: the pip and uv commands of each build file (the loader's
#   `pip` of a command: requirements, files, options with the PIP_*/UV_*
#   environment), which requirement lines apply on the image (markers
#   evaluated for Linux CPython 3), and where the package would come from.
package buildgate.lib.install

import data.buildgate.lib
import data.buildgate.lib.pin
import data.buildgate.lib.sourcebuild

# installing are the subcommands that put packages into the environment.
installing := {"install", "add", "sync"}

# calls are the pip and uv commands of document d, each with its stage
# (a Dockerfile's stage index; -1 elsewhere), its command and its files,
# each file with the repository's requirements files it may be
# (`paths`): made once per document (calls_by_path), not at each use.
calls(d) := object.get(calls_by_path, d.path, [])

# pip_docs are the documents that may run pip or uv.
pip_docs := [d |
	some d in input.documents
	d.kind in {"dockerfile", "shell", "pipeline", "hcl"}
	buildgate.source_contains(d.path, ["pip", "uv "])
]

calls_by_path[d.path] := [object.union(c, {"files": [object.union(f, {"paths": paths_in(d, f)}) | some f in c.pip.files]}) |
	some c in raw_calls(d)
] if {
	some d in pip_docs
}

raw_calls(d) := [{"pip": c.pip, "cmd": c, "stage": i} |
	some i, st in d.stages
	some ins in st.instructions
	ins.shell != null
	some c in ins.shell.commands
	c.pip
] if {
	d.kind == "dockerfile"
} else := [{"pip": c.pip, "cmd": c, "stage": -1} |
	some e in lib.scripts_of(d)
	some c in e.script.commands
	c.pip
]

# spellings are the words by which a file may name the package or its
# variants, for a native scan before the document is read: the first part
# of each name (mooncake), in any case.
spellings(m) := {p |
	some n in array.concat([m.package], object.get(m, "variants", []))
	p := regex.split(`[-_.]+`, lower(n))[0]
}

# mentions reports whether the file at path may name the package.
mentions(m, path) if buildgate.source_contains(path, [s | some s in spellings(m)])

# docs_naming are the documents that may name the package (scripts,
# Dockerfiles, pipelines, bake files), in the migration's scope.
docs_naming(m) := [d |
	some d in input.documents
	d.kind in {"dockerfile", "shell", "pipeline", "hcl"}
	lib.in_scope(m, d.path)
	mentions(m, d.path)
]

# pins reports whether a migration has pin rules: `requirements: []`
# says it has none (vLLM's CUDA pair, whose wheel comes through a file the
# pair does not hold).
pins(m) if count(object.get(m, "requirements", [])) > 0

# checks_installs reports whether the install commands of the package
# itself are checked against the minimum (BG202, BG203): with pins, and
# with a minimum even when no requirements file holds the pin (issue 32:
# refact pins `vllm==0.8.4` in a RUN only, `requirements: []`).
checks_installs(m) if pins(m)

checks_installs(m) if object.get(m, "minimum", "") != ""

# docs_installing are the documents that may run pip or uv, in the
# migration's scope: the package may come through a requirements file, so
# the file need not name it.
docs_installing(m) := [d |
	some d in pip_docs
	lib.in_scope(m, d.path)
]

# named are the requirements of d's pip and uv commands that may concern
# a migration (its package, a variant, a distribution named after the
# package), each with its call and the call's index: gathered once per
# document, so that the rules below do not walk every command (a script
# of 35,000 installs).
named(d) := object.get(named_by_path, d.path, [])

named_by_path[d.path] := [{"i": i, "call": c, "req": r} |
	some i, c in calls(d)
	some r in c.pip.requirements
	pin.of_interest(r.normalized)
] if {
	some d in pip_docs
}

# own_platform reports whether a file may be the package's platform's (not
# only another platform's build: TensorRT-LLM's CUDA image installs the
# CUDA wheel rightly).
own_platform(m, path) if not sourcebuild.other_platform(m, path)

# package_installs are the requirements of RUN-level installs that name
# the package: {doc, call, req}.
package_installs(m) := [x |
	checks_installs(m)
	some d in docs_naming(m)
	some e in named(d)
	e.call.pip.op in installing
	pin.names(m, e.req)
	pin.applies(e.req)
	x := {"doc": d, "call": e.call, "req": e.req}
]

# variant_installs are RUN-level installs of a sibling variant.
variant_installs(m) := [x |
	pins(m)
	some d in docs_naming(m)
	own_platform(m, d.path)
	some e in named(d)
	e.call.pip.op in installing
	pin.variant(m, e.req)
	pin.applies(e.req)
	not variant_swap(m, d, e)
	x := {"doc": d, "call": e.call, "req": e.req}
]

# variant_swap: the install follows, in its stage or script, an uninstall
# of another variant (vLLM's kv-connector script swaps the CUDA 12 wheel
# for the CUDA 13 one): a choice between other platforms' builds, not the
# package's.
variant_swap(m, d, e) if {
	some u in named(d)
	u.i < e.i
	u.call.stage == e.call.stage
	u.call.pip.op == "uninstall"
	pin.variant(m, u.req)
}

# sibling reports whether a requirement is the package, a configured
# variant, or a distribution named after the package (NAME-cuda13): what
# an uninstall may be swapped for.
sibling(m, r) if pin.names(m, r)

sibling(m, r) if pin.variant(m, r)

sibling(m, r) if startswith(r.normalized, sprintf("%s-", [pin.normalized[m.package].package]))

# uninstalls are RUN-level uninstalls of the package not followed, in the
# same stage (or script) and later, by an install of it or a sibling.
uninstalls(m) := [x |
	pins(m)
	some d in docs_naming(m)
	some e in named(d)
	e.call.pip.op == "uninstall"
	pin.names(m, e.req)
	not reinstalled(m, d, e)
	x := {"doc": d, "call": e.call, "req": e.req}
]

reinstalled(m, d, e) if {
	some y in named(d)
	y.i > e.i
	stage_after(e.call.stage, y.call.stage)
	y.call.pip.op in installing
	sibling(m, y.req)
}

# A later install of a requirements file that carries the package, or of
# a project (whose packaging may require it), puts it back too.
reinstalled(m, d, e) if {
	some j, c in calls(d)
	j > e.i
	stage_after(e.call.stage, c.stage)
	c.pip.op in installing
	some f in c.files
	reinstalls(m, f)
}

reinstalls(m, f) if {
	f.kind == "requirement"
	some p in f.paths
	pin.carried(m, p)
}

reinstalls(_, f) if f.kind == "project"

# pinned_by_files reports whether a call's own requirements or
# constraints files name the package: pip resolves the command's
# arguments with them (`pip install -c rocm.txt pkg`), and the files'
# pins are checked in the files.
pinned_by_files(m, c) if {
	some f in c.files
	f.kind in {"requirement", "constraint"}
	some p in f.paths
	pin.carried(m, p)
}

# stage_after: a call in stage t runs in the image of stage s (the same
# stage, or a later one built FROM it); scripts have stage -1.
stage_after(s, s)

stage_after(s, t) if {
	s >= 0
	t > s
	some d in input.documents
	d.kind == "dockerfile"
	s in stage_chain(d, t)
}

# installs_package reports whether a pip call installs the package: a
# requirement of it among the arguments, or a requirements file that
# carries it.
installs_package(m, _, c) if {
	some r in c.pip.requirements
	pin.names(m, r)
}

installs_package(m, _, c) if {
	some f in c.files
	f.kind == "requirement"
	some p in f.paths
	pin.carried(m, p)
}

# repo_paths are the repository's requirements files a file argument may
# be: its path as written or resolved, matched against the repository's
# requirements files by their trailing path (`-r requirements/rocm.txt`
# run in /workspace/vllm is requirements/rocm.txt).
repo_paths(f) := {p |
	some v in file_values(f)
	some p in suffixes(v)
	pin.file_of(p) != null
}

# suffixes are the trailing paths of v (a/b/c: a/b/c, b/c, c), looked up
# in the table one by one rather than the table scanned (a repository of
# 20,000 requirements files).
suffixes(v) := {concat("/", array.slice(parts, i, n)) |
	parts := [x | some x in split(trim_prefix(v, "./"), "/"); x != ""]
	n := count(parts)
	n <= 64
	some i in numbers.range(0, n - 1)
}

file_values(f) := {v | some v in [f.word.value, f.path]; is_string(v)}

# paths_in are repo_paths, and in a Dockerfile a requirements file of the
# same name that the Dockerfile names (COPY requirements/rocm.txt
# /tmp/req/, then -r /tmp/req/rocm.txt).
paths_in(d, f) := repo_paths(f) | copied_in(d, f) if {
	count(pin.by_path) > 0
	count(repo_paths(f)) > 0
} else := named_alike(d, f) | copied_in(d, f) if count(pin.by_path) > 0

else := set()

named_alike(d, f) := {p |
	d.kind == "dockerfile"
	some v in file_values(f)
	some src in copy_sources_all(d)
	sourcebuild.base_name(src) == sourcebuild.base_name(v)
	some p in suffixes(src)
	pin.file_of(p) != null
}

# copy_sources_all are the sources of every COPY and ADD of a Dockerfile,
# --from ones included (COPY --from=fetch ${W}/vllm/requirements/rocm.txt
# /tmp/req/ names requirements/rocm.txt).
copy_sources_all(d) := {a.value |
	some ins in lib.instructions(d)
	ins.cmd in {"copy", "add"}
	n := count(ins.args)
	n >= 2
	some a in array.slice(ins.args, 0, n - 1)
	is_string(a.value)
}

# A file the Dockerfile copies to where the command reads it (COPY
# requirements/rocm.txt /r.txt, then -r /r.txt; or into a directory).
copied_in(d, f) := {p |
	d.kind == "dockerfile"
	some v in file_values(f)
	some p in copy_sources(d, v)
	pin.by_path[p]
}

copy_sources(d, v) := (file_copies(d, v) | dir_copies(d, v)) | mount_sources(d, v)

# mount_sources: a RUN --mount=type=bind of the build context puts a file
# where the command reads it (vLLM's CUDA image mounts
# requirements/kv_connectors.txt at /tmp/kv_connectors.txt).
mount_sources(d, v) := {trim_prefix(m.source, "./") |
	d.kind == "dockerfile"
	some ins in lib.instructions(d)
	ins.cmd == "run"
	some m in object.get(ins, "mounts", [])
	m.type == "bind"
	m.from == ""
	m.source != ""
	trim_suffix(m.target, "/") == trim_suffix(v, "/")
}

# copies are a Dockerfile's COPY and ADD of the build context (not
# --from): each destination with its sources, made once per document.
copies(d) := object.get(copies_by_path, d.path, [])

copies_by_path[d.path] := [{"dst": dst, "srcs": srcs, "many": count(srcs) > 1} |
	some ins in lib.instructions(d)
	ins.cmd in {"copy", "add"}
	count([x | some x in ins.flags; x.name == "from"]) == 0
	n := count(ins.args)
	n >= 2
	dst := ins.args[n - 1].value
	is_string(dst)
	srcs := [v | some a in array.slice(ins.args, 0, n - 1); v := a.value; is_string(v)]
] if {
	some d in pip_docs
	d.kind == "dockerfile"
	count(pin.by_path) > 0
}

# dir_copies: COPY requirements/ /req/, then -r /req/rocm-runtime.txt is
# requirements/rocm-runtime.txt.
dir_copies(d, v) := {concat("/", [trim_suffix(trim_prefix(src, "./"), "/"), rel]) |
	startswith(v, "/")
	some c in copies(d)
	prefix := concat("", [trim_suffix(c.dst, "/"), "/"])
	startswith(v, prefix)
	rel := trim_prefix(v, prefix)
	some src in c.srcs
	endswith(src, "/")
}

file_copies(d, v) := {trim_prefix(src, "./") |
	some c in copies(d)
	some src in c.srcs
	copied_to(v, c.dst, src, c.many)
}

copied_to(v, dst, _, _) if trim_suffix(v, "/") == trim_suffix(dst, "/")

copied_to(v, dst, _, _) if {
	not startswith(v, "/")
	endswith(dst, concat("", ["/", v]))
}

copied_to(v, dst, src, many) if {
	dir_dest(dst, many)
	sourcebuild.base_name(v) == sourcebuild.base_name(src)
	endswith(concat("/", [trim_suffix(dst, "/"), sourcebuild.base_name(src)]), v)
}

copied_to(v, dst, src, many) if {
	dir_dest(dst, many)
	sourcebuild.base_name(v) == sourcebuild.base_name(src)
	not startswith(v, "/")
}

dir_dest(dst, _) if endswith(dst, "/")

dir_dest(_, many) if many

# installed_files are the repository's requirements files a document's
# pip calls install (-r, uv pip sync).
installed_files(d) := object.get(installed_by_path, d.path, set())

# installs_variant reports whether document d installs a configured
# variant of the package (the CUDA wheel `mooncake-transfer-engine` in
# vLLM's CUDA image, through requirements/kv_connectors.txt): an image of
# another platform, which the migration's pin is not for (issue 30's
# sweep: fix added the ROCm wheel to seven CUDA install commands).
installs_variant(m, d) if {
	some c in calls(d)
	c.pip.op in installing
	some r in c.pip.requirements
	pin.variant(m, r)
}

installs_variant(m, d) if {
	some p in installed_files(d)
	some q in pin.reachable(p)
	some n in object.get(pin.file_of(q), "names", [])
	n in pin.normalized[m.package].variants
}

installed_by_path[d.path] := {p |
	some c in calls(d)
	c.pip.op in installing
	some f in c.files
	f.kind == "requirement"
	some p in f.paths
} | project_files(d) if {
	some d in pip_docs
}

# project_files: a project install (pip install ., -e .[extra]) installs
# what the project's packaging declares, which buildgate does not read:
# the configured requirements files that exist count as installed (vLLM's
# setup.py reads requirements/rocm.txt).
project_files(d) := {f |
	some c in calls(d)
	c.pip.op in installing
	some x in c.pip.files
	x.kind == "project"
	some m in lib.migrations
	some f in m.requirements
	pin.file_of(f) != null
}

# stage_chain is a Dockerfile stage and the stages of the file it is
# built FROM: what its image holds.
stage_chain(d, i) := graph.reachable(stage_edges(d), {i})

stage_edges(d) := {i: [j |
	some j, base in d.stages
	j < i
	lower(st.base.text) == base.name
] |
	some i, st in d.stages
}

# stage_effective reports whether the image of stage i installs the
# package with a pin (a call in it or a stage it is built FROM).
stage_effective(m, d, i) if {
	some s in effective_stages(m, d)
	s in stage_chain(d, i)
}

# effective_stages are the stages of d with a call that installs the
# package with a pin.
effective_stages(m, d) := {c.stage |
	some c in calls(d)
	c.pip.op in installing
	call_effective(m, d, c)
}

call_effective(m, _, c) if {
	some r in c.pip.requirements
	pin.names(m, r)
	pin.applies(r)
}

call_effective(m, d, c) if {
	some f in c.files
	f.kind == "requirement"
	some p in f.paths
	pin.carried_for(m, p, image_env(d))
}

# effective reports whether document d installs the package with a pin:
# a RUN-level requirement of it, or a requirements file it installs that
# carries it.
effective(m, d) if {
	some c in calls(d)
	c.pip.op in installing
	some r in c.pip.requirements
	pin.names(m, r)
	pin.applies(r)
}

effective(m, d) if {
	some p in installed_files(d)
	pin.carried_for(m, p, image_env(d))
}

# image_env are the architectures and Python versions of a Dockerfile's
# image as the file says them (the loader's `image`), else x86_64 and
# aarch64 and every CPython 3.x.
image_env(d) := {"arches": arches(d), "pythons": object.get(d, ["image", "pythons"], [])}

arches(d) := a if {
	a := object.get(d, ["image", "arches"], [])
	count(a) > 0
} else := ["x86_64", "aarch64"]

# allowed_index reports whether an index URL is one the migration allows.
allowed_index(m, url) if {
	some a in object.get(m, "indexes", [])
	trim_suffix(a, "/") == trim_suffix(url, "/")
}

allowed_index(m, url) if {
	count(object.get(m, "indexes", [])) == 0
	trim_suffix(url, "/") in {"https://pypi.org/simple", "https://pypi.python.org/simple"}
}

# no_binary_covers reports whether a --no-binary value covers the package
# (":all:", or a list naming it; ":none:" clears).
no_binary_covers(_, v) if {
	some part in split(v, ",")
	trim_space(part) == ":all:"
}

no_binary_covers(m, v) if {
	some part in split(v, ",")
	pep503.normalize(trim_space(part)) == pin.normalized[m.package].package
}

# source_problem is what an option of a call installing the package says
# about where the package comes from; undefined when nothing.
source_problem(m, o) := sprintf("takes packages from the index %s", [o.value]) if {
	o.name in {"index-url", "extra-index-url", "index", "default-index"}
	is_string(o.value)
	not allowed_index(m, o.value)
}

source_problem(_, o) := "installs from no index at all" if o.name == "no-index"

source_problem(m, o) := sprintf("builds %s from source (--no-binary %s)", [m.package, o.value]) if {
	o.name == "no-binary"
	is_string(o.value)
	no_binary_covers(m, o.value)
}

# only_binary_names reports whether a call's --only-binary names the
# package: pip then takes its wheel whatever --no-binary :all: says.
only_binary_names(m, c) if {
	some o in c.pip.options
	o.name == "only-binary"
	is_string(o.value)
	some part in split(o.value, ",")
	pep503.normalize(trim_space(part)) == pin.normalized[m.package].package
}

source_problem(m, o) := sprintf("takes packages from the links at %s", [o.value]) if {
	o.name == "find-links"
	is_string(o.value)
	contains(o.value, "://")
	not allowed_index(m, o.value)
}

# local_version reports whether a specifier pins a local version (+…),
# which the public index never serves.
local_version(r) if {
	some s in r.specifiers
	s.op in {"==", "==="}
	contains(s.version, "+")
}

# find_links_problem is what a local --find-links directory of a
# Dockerfile says about where the package comes from: nothing the build
# shows fills it (a foreign source), or what fills it names the package
# (its wheel can land there). vLLM's /install, filled from the build
# context's base-wheels with `cp *.whl`, says nothing.
find_links_problem(_, d, o) := sprintf("takes packages from %s, which nothing in the build fills", [o.value]) if {
	o.name == "find-links"
	d.kind == "dockerfile"
	is_string(o.value)
	not contains(o.value, "://")
	count(fillers(d, o.value)) == 0
}

find_links_problem(m, d, o) := sprintf("takes packages from %s, where the build puts a wheel of %s", [o.value, m.package]) if {
	o.name == "find-links"
	d.kind == "dockerfile"
	is_string(o.value)
	not contains(o.value, "://")
	some ins in fillers(d, o.value)
	some s in spellings(m)
	contains(lower(filler_text(ins)), s)
}

# filler_text is what of an instruction may fill a directory: a RUN's
# commands other than the pip and uv installs (whose own requirements say
# what they install, not what lands in the directory), or the whole
# instruction.
filler_text(ins) := concat(" ", [w.text |
	some c in ins.shell.commands
	not installing_call(c)
	some w in c.words
]) if {
	ins.shell != null
} else := ins.original

installing_call(c) if c.pip.op in installing

# fillers are the instructions that may put files into dir: those that
# name it other than to create it or install from it.
fillers(d, dir) := [ins |
	some ins in lib.instructions(d)
	contains(ins.original, dir)
	not regex.match(`(?s)^\s*RUN\s+mkdir\s+(-p\s+)?\S+\s*$`, ins.original)
	not installs_from(ins, dir)
]

installs_from(ins, dir) if {
	ins.shell != null
	some c in ins.shell.commands
	c.pip
	some o in c.pip.options
	o.name == "find-links"
	o.value == dir
	count([x | some x in ins.shell.commands; x.pip == null; some w in x.words; contains(w.text, dir)]) == 0
}
