# METADATA
# title: Source built from a floating ref
# description: |
#   A repository fetched and then built in the image, with no commit
#   pinned: the same Dockerfile builds different code from one day to the
#   next. Reads the build model (docs/documents.md "The build model"): each
#   command's fetch (its repository, whatever the URL's spelling, and the
#   directory it lands in), each command's directory and the directories
#   it works on, so that `git clone URL /src && make -C /src` counts as
#   much as `cd src && make`.
# custom:
#   id: EX002
#   name: pinned-source-build
#   severity: warning
#   precision: high
#   tags: [example, reproducibility, build-model]
package buildgate.rules.example.pinned_source_build

import data.buildgate.lib

# A fetched repository that a later command builds, with no commit pinned.
deny contains {"msg": msg, "loc": c.fetch.url} if {
	some s in lib.scripts
	some i, c in s.script.commands
	c.fetch.kind in {"clone", "download"}
	into := c.fetch.into
	is_string(into)
	some b in array.slice(s.script.commands, i + 1, count(s.script.commands))
	builds(b)
	works_in(b, into)
	not pinned(s.script.commands, c, into)
	msg := sprintf("%s is built from whatever its default branch holds today; pin a commit (git checkout <sha>, or an archive of a tag)", [c.fetch.repository])
}

# builds: a command that compiles or installs what it works on.
builds(b) if b.name in {"make", "cmake", "ninja", "meson", "cargo", "bazel", "scons"}

builds(b) if {
	b.name in {"pip", "pip3", "uv"}
	some w in b.words
	w.value == "install"
	count(object.get(b, "dirs", [])) > 0
}

# works_in: the command runs in the directory or below it, or works on it
# (make -C, cmake -S/-B, pip install PATH).
works_in(b, into) if within(b.dir, into)

works_in(b, into) if {
	some d in object.get(b, "dirs", [])
	within(d, into)
}

within(p, dir) if p == dir

within(p, dir) if startswith(p, concat("", [dir, "/"]))

# pinned: the clone is checked out at a full commit (git -C DIR checkout
# SHA, or a checkout run inside it), or cloned with --revision=SHA; a
# download of an archive names its ref in the URL.
pinned(cmds, _, into) if {
	some x in cmds
	x.name == "git"
	some w in x.words
	w.value in {"checkout", "reset", "switch"}
	some v in x.words
	is_string(v.value)
	regex.match(`^[0-9a-f]{40}$`, v.value)
	works_in(x, into)
}

pinned(_, c, _) if {
	some w in c.words
	is_string(w.value)
	regex.match(`^--revision=[0-9a-f]{40}$`, w.value)
}

pinned(_, c, _) if {
	c.fetch.kind == "download"
	url := object.get(c.fetch.url, "value", null)
	is_string(url)
	regex.match(`/(archive|tarball|zipball)/|/tar\.gz/|/zip/`, url)
}
