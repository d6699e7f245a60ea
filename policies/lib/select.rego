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
