# METADATA
# title: What the built-in rules know of the repository
# description: |
#   The engine evaluates each file alone, with one prepared query, on every
#   core (issue 27). What a rule needs to know of the other files is
#   declared here, in Rego, not in the engine: each file's facts (file,
#   evaluated with that file as the one document), folded once into the
#   repository's table (repo), which every file's evaluation then reads as
#   data.buildgate.facts.repo. needles are the strings a file's text
#   (escapes decoded, any case) must hold for its document to be parsed at
#   all: a file without one is evaluated as {kind, path, errors}.
package buildgate.facts

import data.buildgate.lib
import data.buildgate.lib.pin
import data.buildgate.lib.sourcebuild as sb

# file are the facts of the one document of a per-file evaluation.
file := of(input.documents[0])

# of are the facts of one document.
of(d) := {
	"sourcebuild": {m.package: sb.file_facts(m, d) | some m in lib.migrations},
	"pin": pin.file_facts(d),
}

# files are every file's facts: the engine's ([{path, kind, facts}], as
# input.files), or, in an evaluation over every document at once (policy
# tests, a user policy that reads the table), each document's.
files := input.files if is_array(input.files)

else := [{"path": d.path, "kind": d.kind, "facts": of(d)} | some d in input.documents]

# repo is the repository's table: the source-build rules' part per
# migration, the pin rules' part. In the evaluation of a file (or of the
# repository) it is the engine's, folded once (input.repo); otherwise it
# is folded here from the files' facts.
repo := input.repo if is_object(input.repo)

else := folded

folded := {
	"sourcebuild": {m.package: sb.fold(m, files) | some m in lib.migrations},
	"pin": pin.fold(files),
}

# needles: a file whose text holds none of them (and that is no
# requirements file, which is always read) says nothing the built-in
# rules look for: the migrations' name tokens, build arguments and
# repositories, the names of the source build's stages and targets the
# repository table knows, and the configured requirements files.
needles contains n if {
	some m in lib.migrations
	some n in sb.base_needles(m)
}

needles contains n if {
	some m in lib.migrations
	some n in sb.name_needles(m)
}

needles contains f if some f in pin.configured

# A Dockerfile may install a configured file copied under another
# directory (COPY requirements/ /req/, -r /req/rocm.txt): its base name.
needles contains b if {
	some f in pin.configured
	parts := split(f, "/")
	b := parts[count(parts) - 1]
}
