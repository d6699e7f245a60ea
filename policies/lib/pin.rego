# METADATA
# title: Wheel pin vocabulary
# description: |
#   What the pin rules (BG201-BG204) share: the requirements documents, the
#   files each one pulls in with -r, and the requirements that name a
#   migration's package or its variants.
package buildgate.lib.pin

import data.buildgate.lib

# file_facts are what the pin rules need of document d when they read
# another file: of a requirements file, the files it pulls in (-r: the
# pin follows them; -c installs nothing), the packages it names and
# whether it is in hash-checking mode; of any file, which configured
# requirements files it names (a Dockerfile that copies or installs one,
# a script or bake file that passes it, a requirements file that includes
# it).
file_facts(d) := {
	"requirement_includes": [i.path | d.kind == "requirements"; some i in d.includes; i.kind == "requirement"; i.path != ""],
	"names": [r.normalized | d.kind == "requirements"; some r in d.requirements; applies(r)],
	"unmarked": [r.normalized | d.kind == "requirements"; some r in d.requirements; r.marker == null],
	"marked": [[r.normalized, r.marker.value] | d.kind == "requirements"; some r in d.requirements; r.marker != null],
	"hashed": is_hashed(d),
	"named": [f | some f in configured; d.path != f; names_requirements(d, f)],
	"pip_files": pip_files(d),
	"run_installs": run_installs(d),
}

# run_installs are the packages a build file's pip and uv commands
# install by name (normalized), markers that may hold on the image kept.
run_installs(d) := [r.normalized |
	some c in pip_commands(d)
	c.pip.op in {"install", "sync", "add"}
	some r in c.pip.requirements
	of_interest(r.normalized)
	applies(r)
]

# of_interest reports whether a normalized name may concern a migration:
# its package, a variant, or a distribution named after the package.
of_interest(n) if n in interesting

of_interest(n) if {
	some p in packages
	startswith(n, concat("", [p, "-"]))
}

packages := {x.package | some x in normalized}

interesting := packages | {v | some x in normalized; some v in x.variants}

# pip_files are the requirement files the pip and uv commands of a build
# file install (-r), as written and as resolved: the table matches them
# with the repository's requirements files.
pip_files(d) := [v |
	shows_platform(d)
	some c in pip_commands(d)
	c.pip.op in {"install", "sync", "add"}
	some f in c.pip.files
	f.kind == "requirement"
	some v in [f.word.value, f.path]
	is_string(v)
]

# pip_commands are a build file's pip and uv commands, where its text may
# hold any: read straight from the document (not through lib.scripts_of,
# which builds each RUN's text).
pip_commands(d) := cmds if {
	d.kind in {"dockerfile", "shell", "pipeline"}
	buildgate.source_contains(d.path, ["pip", "uv "])
	cmds := [c | some c in commands_of(d); c.pip]
} else := []

commands_of(d) := [c |
	some st in d.stages
	some ins in st.instructions
	ins.shell != null
	some c in ins.shell.commands
] if d.kind == "dockerfile"

commands_of(d) := d.commands if d.kind == "shell"

commands_of(d) := [c | some sc in d.scripts; some c in sc.commands] if d.kind == "pipeline"

is_hashed(d) if {
	d.kind == "requirements"
	hashed(d)
} else := false

# configured are every migration's requirements files.
configured contains f if {
	some m in lib.migrations
	some f in object.get(m, "requirements", [])
}

# A requirements file that pulls f in (-r or -c) names it, however the
# line spells the path (-r rocm.txt beside it): the loader resolves
# includes, so the text need not hold f.
names_requirements(d, f) if {
	d.kind == "requirements"
	some i in d.includes
	i.path == f
}

# Any other file names it where its text does (one native scan first, the
# document only where the path occurs).
names_requirements(d, f) if {
	d.kind != "requirements"
	buildgate.source_contains(d.path, [f])
	names_file(d, f)
}

# fold is the pin rules' part of the repository table.
fold(files) := {
	"by_path": {f.path: {
		"names": f.facts.pin.names, "hashed": f.facts.pin.hashed,
		"unmarked": f.facts.pin.unmarked, "marked": f.facts.pin.marked,
	} |
		some f in files
		f.kind == "requirements"
	},
	"includes": edges,
	"reach": {f: graph.reachable(edges, {f}) | some f in configured},
	"named": {n | some f in files; some n in f.facts.pin.named},
	"run_installed": {n | some f in files; some n in object.get(f.facts.pin, "run_installs", [])},
	"installed": {p |
		some v in {v | some f in files; some v in object.get(f.facts.pin, "pip_files", [])}
		some p in req_paths
		installs_path(v, p)
	},
} if {
	edges := {f.path: f.facts.pin.requirement_includes | some f in files; f.kind == "requirements"}
	req_paths := [f.path | some f in files; f.kind == "requirements"]
}

# shows_platform: the file is a build of a migration's platform by its
# path or words (rocm, hip …), or no migration names its platform: the
# files a CUDA image installs are not the ROCm image's.
shows_platform(d) if {
	some m in lib.migrations
	ws := object.get(m, "platform", [])
	count(ws) > 0
	buildgate.source_words(d.path, ws)
}

shows_platform(_) if {
	some m in lib.migrations
	count(object.get(m, "platform", [])) == 0
}

# installs_path: a file argument as written or resolved is the
# repository's file p, or ends with it (`-r requirements/rocm.txt` run in
# /workspace/vllm), or has its base name (a copy under another directory).
installs_path(v, p) if trim_prefix(trim_prefix(v, "./"), "/") == p

installs_path(v, p) if endswith(v, concat("", ["/", p]))

# installed are the requirements files build files install with -r.
installed := lib.table(["pin", "installed"], [])

# by_path are the requirements files of the repository, by path: the
# packages each names and whether it is in hash-checking mode.
by_path := lib.table(["pin", "by_path"], {})

# file_of is what the table holds of one requirements file (null: no
# such file).
file_of(p) := lib.table(["pin", "by_path", p], null)

# includes is the -r graph (constraints files install nothing, so -c is
# not followed for the pin).
includes := lib.table(["pin", "includes"], {})

# reachable are a file and every file it pulls in with -r: folded once for
# the configured files (every file's evaluation asks of them).
reachable(path) := r if {
	r := lib.table(["pin", "reach", path], null)
	r != null
} else := graph.reachable(includes, {path})

# names reports whether requirement r is for the migration's package.
names(m, r) if r.normalized == normalized[m.package].package

# variant reports whether requirement r is for a sibling variant.
variant(m, r) if r.normalized in normalized[m.package].variants

# normalized are each migration's package and variants, PEP 503
# normalized once per evaluation (not once per requirement looked at).
normalized := {m.package: {
	"package": pep503.normalize(m.package),
	"variants": {pep503.normalize(v) | some v in object.get(m, "variants", [])},
} |
	some m in lib.migrations
}

# carried reports whether a requirements file, or one it pulls in, names
# the package.
carried(m, path) if {
	some p in reachable(path)
	some n in object.get(file_of(p), "names", [])
	n == normalized[m.package].package
}

# applies reports whether a requirement line may apply on a Linux CPython
# 3 image: no marker, or one that holds (or may: the kernel's version) for
# x86_64 or aarch64 and some CPython 3.x. pip skips the others ("Ignoring
# …: markers … don't match your environment"): a pin under
# `sys_platform == "win32"` is no pin.
applies(r) if r.marker == null

applies(r) if {
	r.marker != null
	buildgate.marker_may_hold(r.marker.value, ["x86_64", "aarch64"], [])
}

# carried_for reports whether a requirements file, or one it pulls in,
# names the package on an image of the given architectures and Python
# versions (markers evaluated for it).
carried_for(m, path, _) if {
	some p in reachable(path)
	some n in object.get(file_of(p), "unmarked", [])
	n == normalized[m.package].package
}

carried_for(m, path, env) if {
	some p in reachable(path)
	some x in object.get(file_of(p), "marked", [])
	x[0] == normalized[m.package].package
	buildgate.marker_may_hold(x[1], env.arches, env.pythons)
}

# from_index reports whether a requirement is resolved from a package index
# (not a URL, VCS checkout or local path).
from_index(r) if {
	r.url == null
	r.local_path == null
}

# wanted is the pin line the migration asks for.
wanted(m) := sprintf("%s >= %s", [m.package, m.minimum]) if object.get(m, "minimum", "") != ""

else := m.package

# shell_word is the published pin as one quoted word of a command
# (`"flash-attn>=2.0.8"`: unquoted, the shell reads `>` as a redirection),
# what the fixes put where a command installed the package's source or its
# own wheel.
shell_word(m) := sprintf("\"%s\"", [replace(wanted(m), " ", "")])

# spec_span is the position covering every clause of a requirement's
# specifier.
spec_span(r) := {
	"line": first.line, "column": first.column,
	"end_line": last.end_line, "end_column": last.end_column,
} if {
	count(r.specifiers) > 0
	first := r.specifiers[0].pos
	last := r.specifiers[count(r.specifiers) - 1].pos
}

# after_name is the empty position just after a requirement's name (and
# extras): where a specifier goes.
after_name(r) := {"line": p.end_line, "column": p.end_column, "end_line": p.end_line, "end_column": p.end_column} if {
	count(r.extras) == 0
	p := r.name_word.pos
}

after_name(r) := {"line": p.end_line, "column": p.end_column + 1, "end_line": p.end_line, "end_column": p.end_column + 1} if {
	count(r.extras) > 0
	p := r.extras[count(r.extras) - 1].pos
}

# append_at is where a new pin line goes: the start of the line after the
# file's last requirement, option or include (comments and blank lines after it
# stay below it), else the start of the file. vLLM's own migration added
# its pin as the last requirement of requirements/rocm.txt.
append_at(d) := {"line": n, "column": 1, "end_line": n, "end_column": 1} if {
	ends := [x.pos.end_line | some x in array.concat(array.concat(d.requirements, d.options), d.includes)]
	count(ends) > 0
	n := max(ends) + 1
} else := lib.start_of_file

# hashed reports whether a requirements file is in pip's hash-checking
# mode (--require-hashes, or a --hash on any requirement): a pin added or
# changed without its hashes would make pip refuse the whole file, so the
# pin rules offer no fix there.
hashed(d) if {
	some o in d.options
	o.name == "require-hashes"
}

hashed(d) if {
	some r in d.requirements
	count(r.hashes) > 0
}

# hash_mode reports whether pip installs a requirements file in
# hash-checking mode: it, a file it pulls in with -r, or a file that pulls
# it in (and everything that one pulls in) uses hashes; pip applies the
# mode to the whole install.
hash_mode(path) if {
	some f, _ in by_path
	path in reachable(f)
	some g in reachable(f)
	by_path[g].hashed == true
}

# unread reports whether a requirements file was not read whole (too
# large, binary, past a bound): what it holds is unknown, so no line is
# added to it.
unread(d) if {
	some e in d.errors
	not e.syntax
}

# named_by_build_file reports whether a build file other than the
# requirements file f names it (from the repository table).
named_by_build_file(f) if f in lib.table(["pin", "named"], [])

# names_file reports whether a document other than a requirements file
# names f: an instruction of a Dockerfile (COPY, RUN pip install -r …), a
# word of a script, an attribute of a bake file.
names_file(d, f) if {
	d.kind == "dockerfile"
	some ins in lib.instructions(d)
	contains(ins.original, f)
	object.get(ins, "shell", null) == null
}

# A command names the repository's file unless it runs inside a clone of
# another repository the same file made (ATOM's Dockerfile clones vLLM and
# runs `pip install -r requirements/rocm.txt` there: vLLM's file, which no
# file of ATOM's could stand for).
names_file(d, f) if {
	d.kind == "dockerfile"
	some ins in lib.instructions(d)
	contains(ins.original, f)
	some c in object.get(ins, ["shell", "commands"], [])
	some w in c.words
	contains(w.text, f)
	not in_clone(c.dir, clone_dirs(d))
}

names_file(d, f) if {
	d.kind == "shell"
	some c in d.commands
	some w in c.words
	contains(w.text, f)
	not in_clone(c.dir, clone_dirs(d))
}

names_file(d, f) if {
	d.kind == "pipeline"
	some s in d.scripts
	some c in s.commands
	some w in c.words
	contains(w.text, f)
	not in_clone(c.dir, clone_dirs(d))
}

# clone_dirs are the directories the file's commands clone a repository
# into.
clone_dirs(d) := {c.fetch.into |
	some e in lib.scripts_of(d)
	some c in e.script.commands
	c.fetch.kind == "clone"
	is_string(c.fetch.into)
}

in_clone(dir, clones) if {
	is_string(dir)
	some x in clones
	x != "."
	startswith(concat("", [dir, "/"]), concat("", [x, "/"]))
}

names_file(d, f) if {
	d.kind == "hcl"
	some x in lib.hcl_attributes(d)
	contains(x.attr.text, f)
}
