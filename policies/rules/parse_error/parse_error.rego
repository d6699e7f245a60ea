# METADATA
# title: Input could not be read or parsed
# description: |
#   A build file that buildgate could not read or parse, in whole or in
#   part. buildgate fails closed: what it cannot read could hide exactly the
#   source build or missing pin the other rules look for. A file or part not
#   read at all (unreadable, binary, not a regular file, past a bound) is
#   always reported; a syntax error only where it could hide something: in
#   a file whose text, decoded, mentions a migration's package, names,
#   build arguments, repositories, requirements files or source-build
#   stages, in a migration's requirements file, and anywhere when user
#   policies are loaded.
# custom:
#   id: BG001
#   name: parse-error
#   severity: error
#   precision: very-high
#   tags: [robustness]
#   locked: true
package buildgate.rules.parse_error

import data.buildgate.lib
import data.buildgate.lib.sourcebuild as sb

deny contains lib.finding_at(d, e.pos, msg) if {
	some d in input.documents
	some e in d.errors
	reported(d, e)
	msg := sprintf("%s: %s; buildgate fails closed on what it cannot read: fix the file", [d.path, e.message])
}

reported(_, e) if not e.syntax

reported(d, e) if {
	e.syntax
	may_hide(d.path)
}

# may_hide reports whether a syntax error in the file at path could hide
# what the enabled rules look for. buildgate.source_contains also matches
# the file's text with escapes decoded and split words joined, so that
# $'\x6dooncake' or "moon""cake" cannot make a file look unrelated.
may_hide(_) if data.buildgate.user_policies == true

may_hide(path) if {
	some m in lib.migrations
	path in m.requirements
}

# A file that names a requirements file: the pin rules ask whether a
# build file does (BG201), whatever its platform.
may_hide(path) if {
	some m in lib.migrations
	lib.in_scope(m, path)
	buildgate.source_contains(path, m.requirements)
}

# A file that mentions the source build, unless it is a build for another
# platform (its code names cuda or ascend and not the package's platform):
# the source-build rules do not read those even when they parse, so an
# error there hides nothing from them; and lazy parsing, which parses only
# what the rules read, gives the same answer (review of issue 16).
may_hide(path) if {
	some m in lib.migrations
	lib.in_scope(m, path)
	not sb.other_platform(m, path)
	mentions(m, path)
}

# mentions: the file names the migration as the source-build rules read a
# file (a name token as a word: `fa` is no mention inside "default"), or
# the package, a variant, a stage or target of its source build.
mentions(m, path) if sb.mentions_words(m, path)

mentions(m, path) if buildgate.source_contains(path, array.concat(array.concat([m.package], object.get(m, "variants", [])), [n | some n in sb.known_names(m)]))
