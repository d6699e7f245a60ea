# METADATA
# title: Which documents the built-in rules read
# description: |
#   The engine converts in full only the documents listed here (the others
#   reach the rules as {kind, path, errors}): requirements files, and the
#   files the source-build rules find relevant, and the files that name a
#   configured requirements file (BG201 asks whether one does). It evaluates this rule
#   until it lists nothing new, so that a file naming a stage defined in
#   another is found once that other file is read. With user policies
#   loaded every document is converted.
package buildgate.select

import data.buildgate.lib
import data.buildgate.lib.pin
import data.buildgate.lib.sourcebuild as sb

paths contains d.path if {
	some d in input.documents
	d.kind == "requirements"
}

paths contains p if {
	some m in lib.migrations
	some p in sb.relevant_by_package[m.package]
}

paths contains d.path if {
	some m in lib.migrations
	count(object.get(m, "requirements", [])) > 0
	some d in input.documents
	d.kind != "requirements"
	buildgate.source_contains(d.path, m.requirements)
}

# facts are the repository's facts the source-build and pin rules take
# from every document, computed once over the whole selection (each
# selected document as its stub) for the streaming evaluation, which gives
# them to every batch as input.facts: the batches need not look at the
# other documents for them.
facts := {
	"relevant0": {pkg: [p | some p in ps] | some pkg, ps in sb.relevant0_by_package},
	"relevant": {pkg: [p | some p in ps] | some pkg, ps in sb.relevant_by_package},
	"all_stages": {pkg: [x | some x in xs] | some pkg, xs in sb.all_stages_by_package},
	"targets": {pkg: [x | some x in xs] | some pkg, xs in sb.targets_by_package},
	"named_requirements": [f |
		some f in {f | some m in lib.migrations; some f in object.get(m, "requirements", [])}
		pin.named_by_build_file(f)
	],
}

# needles are the arrays of strings the relevance questions
# (buildgate.source_contains) ask of every file, as far as they depend on
# the configuration alone. The streaming evaluation answers them for every
# file in one pass over its text, on every core, before the selection
# (each answer is the builtin's own, kept per file and needles), so that
# the selection, which runs on one, does not read and lower each file once
# per question. A question missing here is still answered when asked.
needles contains sb.base_needles(m) if some m in lib.migrations

needles contains m.requirements if {
	some m in lib.migrations
	count(object.get(m, "requirements", [])) > 0
}

needles contains [f] if {
	some m in lib.migrations
	some f in object.get(m, "requirements", [])
}
