# METADATA
# title: Wheel pin missing
# description: |
#   The image does not install the published wheel (issue 29, the
#   effective pin). Markers are evaluated for a Linux CPython 3 image: a
#   pin under `sys_platform == "win32"` is no pin, nor is a line pip
#   refuses. An image that installs another requirements file than the
#   configured one, or a stage whose image installs one beside it
#   without the package, is reported at its install command, and the
#   fix adds `"package>=minimum"` there; so is a repository without the
#   configured file whose image builds the package (sglang's, ATOM's).
#   An uninstall of the package that nothing later in its stage undoes is
#   reported too. `requirements: []` turns this rule off for a migration.
#   A requirements file the configuration names (for the default Mooncake
#   migration, `requirements/rocm.txt`) does not require the package, or
#   does not exist. Requirements it pulls in with `-r` count; constraints
#   files (`-c`) do not, since they install nothing. A missing file is
#   reported only where the repository shows the migration concerns it:
#   a build file names that requirements file (a Dockerfile copies or
#   installs it, a script or bake file passes it, another requirements file
#   includes it), or the run finds a source build (BG101-BG104). Elsewhere
#   the migration has nothing to guard.
# custom:
#   id: BG201
#   name: wheel-pin-missing
#   severity: error
#   precision: very-high
#   tags: [migration, pin]
#   repository_level: true
package buildgate.rules.wheel_pin_missing

import data.buildgate.lib
import data.buildgate.lib.install
import data.buildgate.lib.pin
import data.buildgate.lib.sourcebuild as sb

# The file exists and does not carry the pin: reported in the file's own
# evaluation, which has its document (where the pin line goes).
deny contains object.union(lib.file_finding(f, msg), fix_of(m, d)) if {
	some m in lib.migrations
	some d in lib.documents("requirements")
	some f in m.requirements
	d.path == f
	not pin.carried(m, f)
	msg := sprintf("%s does not require %s; add the line `%s` so the image installs the published wheel", [f, m.package, pin.wanted(m)])
}

# fix_of adds the pin line, unless the file is in pip's hash-checking
# mode (a line without its hashes would make pip refuse the whole install)
# or was not read whole (what it holds is unknown).
fix_of(m, d) := {"fix": {
	"description": sprintf("add `%s`", [pin.wanted(m)]),
	"replacement": sprintf("%s\n", [pin.wanted(m)]),
	"pos": pin.append_at(d),
}} if {
	not pin.hash_mode(d.path)
	not pin.unread(d)
} else := {}

# The file does not exist, in a repository it concerns: a finding about
# the repository, from its evaluation (not each file's).
deny contains object.union(lib.file_finding(f, msg), {"fix": fix}) if {
	not lib.per_file
	some m in lib.migrations
	some f in m.requirements
	pin.file_of(f) == null
	concerned(f)
	not image_installs_elsewhere(m, f)
	msg := sprintf("%s does not exist; create it with the line `%s` so the image installs the published wheel", [f, pin.wanted(m)])
	fix := object.union(
		{
			"description": sprintf("create %s with `%s`", [f, pin.wanted(m)]),
			"replacement": sprintf("%s\n", [pin.wanted(m)]),
			"pos": lib.start_of_file,
		},
		unread(f),
	)
}

# unread marks the creation of a file no build file names as an unsafe
# fix (issue 30): lint is then clean while no image installs the file,
# so buildgate fix makes it only with --unsafe-fixes.
unread(f) := {} if pin.named_by_build_file(f)

else := {"unsafe": "no build file installs the file it creates: lint would be clean and the image would still install nothing"}

concerned(f) if pin.named_by_build_file(f)

concerned(_) if source_build_found

# source_build_found: any source-build finding, whichever migration (a
# repository with a source build the configuration guards is one it
# concerns). Rules turned off by configuration still count: the evidence
# is there. In the repository's evaluation the files' findings are
# input.findings; in an evaluation over every document, the rules'.
source_build_found if {
	some f in object.get(input, "findings", [])
	f.rule in {"BG101", "BG102", "BG103", "BG104"}
}

source_build_found if count(data.buildgate.rules.source_build_stage.deny) > 0

source_build_found if count(data.buildgate.rules.source_build_step.deny) > 0

source_build_found if count(data.buildgate.rules.source_build_arg.deny) > 0

source_build_found if count(data.buildgate.rules.source_build_cache.deny) > 0

# image_installs_elsewhere: no build file names the missing file, and an
# image installs its Python packages elsewhere: the finding is there
# (creating a file nothing reads would make lint clean and the image
# still without the package).
image_installs_elsewhere(m, f) if {
	not pin.named_by_build_file(f)
	some d in lib.documents("dockerfile")
	image_target(m, d)
}

# An install command installs the package by name (the fix of the
# finding below, or the build's own): a file nothing reads is no help.
image_installs_elsewhere(m, f) if {
	not pin.named_by_build_file(f)
	pin.normalized[m.package].package in lib.table(["pin", "run_installed"], [])
}

# In the repository's evaluation, the files' findings say it: an image's
# own BG201 at its install command.
image_installs_elsewhere(m, f) if {
	not pin.named_by_build_file(f)
	some x in object.get(input, "findings", [])
	x.rule == "BG201"
	x.path != f
	startswith(x.msg, sprintf("this image does not install %s:", [m.package]))
}

# An image of the migration that does not install the package: the
# finding is at the command where it installs its Python packages, and
# the fix adds the pin there.
deny contains object.union(lib.finding(d, c.cmd.words[0], msg), fix) if {
	some m in lib.migrations
	count(object.get(m, "requirements", [])) > 0
	some d in lib.documents("dockerfile")
	c := image_target(m, d)
	msg := sprintf("this image does not install %s: nothing it installs requires it on this image (%s; configured: %s); add `%s` to this command (`%s`) so the image installs the published wheel", [m.package, env_text(d), concat(", ", m.requirements), pin.shell_word(m), lib.command_text(c.cmd)])
	fix := {"fix": {
		"description": sprintf("install `%s` here", [pin.shell_word(m)]),
		"replacement": sprintf(" %s", [pin.shell_word(m)]),
		"pos": end_of(c.cmd),
	}}
}

# A stage of an image that installs the package elsewhere installs, in
# place of a configured requirements file, another one beside it
# (requirements/rocm-runtime.txt) that does not carry the package, and
# nothing in the stage's image installs it.
deny contains object.union(lib.finding(d, f.word, msg), fix) if {
	some m in lib.migrations
	count(object.get(m, "requirements", [])) > 0
	some d in lib.documents("dockerfile")
	lib.in_scope(m, d.path)
	install.effective(m, d)
	some c in install.calls(d)
	c.pip.op in install.installing
	some f in c.files
	f.kind == "requirement"
	some p in f.paths
	not p in m.requirements
	sibling_of_configured(m, p)
	not pin.carried(m, p)
	not install.stage_effective(m, d, c.stage)
	not install.installs_variant(m, d)
	msg := sprintf("this stage installs %s, which does not require %s, and nothing else in its image installs it (the configured %s does not reach this stage's image); add `%s` to this command so the image installs the published wheel", [p, m.package, concat(", ", m.requirements), pin.shell_word(m)])
	fix := {"fix": {
		"description": sprintf("install `%s` here", [pin.shell_word(m)]),
		"replacement": sprintf(" %s", [pin.shell_word(m)]),
		"pos": end_of(c.cmd),
	}}
}

sibling_of_configured(m, p) if {
	some f in m.requirements
	dir_of(f) == dir_of(p)
}

dir_of(p) := concat("/", array.slice(parts, 0, count(parts) - 1)) if parts := split(p, "/")

# An uninstall of the package that nothing later in its stage undoes.
deny contains lib.finding(x.doc, x.req.name_word, msg) if {
	some m in lib.migrations
	count(object.get(m, "requirements", [])) > 0
	some x in install.uninstalls(m)
	msg := sprintf("this command uninstalls %s and nothing later in this stage installs it again, so the image does not have the published wheel; remove the uninstall", [m.package])
}

# image_target is the install command a Dockerfile that concerns the
# migration (it names a configured requirements file, or builds the
# package from source) uses, when it installs neither the package nor a
# configured file: its last plain install (no index, target or other
# option that would change where the package comes from or goes), one
# with requirements files first, outside the source build's own RUNs.
image_target(m, d) := c if {
	lib.in_scope(m, d.path)
	concerns(m, d)
	not install.effective(m, d)
	not install.installs_variant(m, d)

	# A configured file the image installs without the package at all is
	# reported in that file (its own evaluation, with the fix there).
	count({p | some p in install.installed_files(d); p in m.requirements; not pin.carried(m, p)}) == 0
	all := plain_calls(m, d)
	count(all) > 0

	# A RUN that runs only on a condition (`if [ "$BUILD_TRITON" = 1 ]`,
	# `[ "$ENABLE_NIXL" = 1 ] || exit 0`) may be skipped by the default
	# build: an unconditional install is preferred.
	# So is one outside a clone of another repository (its own installs).
	clones := pin.clone_dirs(d)
	unconditional := [x | some x in all; not x.conditional]
	cs := prefer([x | some x in unconditional; not pin.in_clone(x.cmd.dir, clones)], prefer(unconditional, all))
	with_files := [x | some x in cs; count(x.pip.files) > 0]
	c := last_of(in_source_image(m, d, cs), last_of(with_files, cs))
}

prefer(a, _) := a if count(a) > 0

prefer(a, b) := b if count(a) == 0

# in_source_image are the calls in the image of the stage that builds the
# package from source (its stage and the stages it is built FROM): where
# the wheel replaces the build.
in_source_image(m, d, cs) := [c |
	lines := source_lines(m, d)
	count(lines) > 0
	first := min(lines)
	some i, st in d.stages
	st.pos.line <= first
	first <= st.pos.end_line
	chain := install.stage_chain(d, i)
	some c in cs
	c.stage in chain
]

last_of(a, _) := a[count(a) - 1] if count(a) > 0

last_of(a, b) := b if {
	count(a) == 0
	is_object(b)
}

last_of(a, b) := b[count(b) - 1] if {
	count(a) == 0
	is_array(b)
}

concerns(m, d) if {
	some f in m.requirements
	buildgate.source_contains(d.path, [f])
	pin.names_file(d, f)
}

concerns(m, d) if some _ in source_lines(m, d)

# source_lines are the lines of d's source-build findings: gathered once
# per evaluation (source_lines_of), not at each instruction that asks.
source_lines(m, d) := object.get(source_lines_of, [m.package, d.path], set())

source_lines_of[m["package"]] := {path: {g.pos.line | some g in source_findings; g.path == path} |
	some path in {f.path | some f in source_findings}
} if {
	some m in lib.migrations
}

source_findings := data.buildgate.rules.source_build_step.deny | data.buildgate.rules.source_build_stage.deny

plain_calls(m, d) := [c |
	lines := source_lines(m, d)
	builders := sb.stages(m, d.path)
	kept := install.stage_chain(d, count(d.stages) - 1)
	some i, st in d.stages
	stays(builders, kept, i, st)
	some ins in st.instructions
	ins.shell != null
	some cmd in ins.shell.commands
	cmd.pip
	cmd.pip.op == "install"
	not source_run(lines, ins)
	is_string(cmd.words[0].value) # not an interpreter a variable names (a venv's)
	plain(cmd.pip)
	c := {"pip": cmd.pip, "cmd": cmd, "stage": i, "conditional": regex.match(`(?m)(^|[;&|(]\s*|\s)(if|case)\s|\|\|\s*(exit|true)\b|&&\s*exit\b`, ins.original)}
]

# stays: the pin belongs to an image that stays. A stage of the source
# build goes with it (vLLM's build_fa installs its build's torch wheel
# first) unless the image the file builds is that stage or is built FROM
# it.
stays(builders, _, _, st) if not lower(st.name) in builders

stays(_, kept, i, _) if i in kept

# source_run: a line of the instruction has a source-build finding (its
# lines looked up in the set, not the set scanned).
source_run(lines, ins) if {
	some l in numbers.range(ins.pos.line, min([ins.pos.end_line, ins.pos.line + 10000]))
	l in lines
}

# plain: no option that sends the package elsewhere or installs it
# otherwise (another index, a target directory, no dependencies, an
# editable project only).
plain(p) if count([o | some o in p.options; not o.env; o.name in unplain]) == 0

unplain := {
	"index-url", "extra-index-url", "index", "default-index", "no-index", "find-links", "target", "prefix",
	"root", "no-deps", "no-binary", "only-binary", "dry-run", "user", "editable", "platform", "python-version",
	"report", "upgrade-strategy", "force-reinstall",
}

# end_of is the empty position just after a command's last word.
end_of(c) := {"line": p.end_line, "column": p.end_column, "end_line": p.end_line, "end_column": p.end_column} if {
	p := c.words[count(c.words) - 1].pos
}

env_text(d) := sprintf("Linux %s, CPython %s", [concat("/", e.arches), py]) if {
	e := install.image_env(d)
	py := concat("/", e.pythons)
	py != ""
} else := sprintf("Linux %s, CPython 3", [concat("/", install.image_env(d).arches)])
