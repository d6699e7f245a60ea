# METADATA
# title: Source-build cache key or cache ref
# description: |
#   A cache key, cache ref or cache metadata of the package's source build:
#   a `*_CACHE_KEY` variable named for it, a bake cache function or call
#   named for it, a cache ref string that names it, a metadata pair of a CI
#   script that records it.
# custom:
#   id: BG103
#   name: source-build-cache
#   severity: error
#   precision: high
#   tags: [migration, source-build, cache]
package buildgate.rules.source_build_cache

import data.buildgate.lib
import data.buildgate.lib.sourcebuild as sb

# A cache-key variable declared, set, passed or read.
deny contains lib.finding(d, u.el, msg) if {
	some m in lib.migrations
	some d in sb.docs(m)
	some u in sb.arg_uses(m, d.path)
	lib.source_arg(m, u.name)
	lib.cache_arg(u.name)
	sb.build_cache_use(m, d, u)
	msg := sprintf("`%s` is a cache key of the %s source build; remove it and %s", [u.name, m.package, lib.remedy(m)])
}

# A bake function named for the source build.
deny contains lib.finding(d, b.labels[0], msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "hcl")
	some b in d.blocks
	b.type == "function"
	count(b.labels) > 0
	lib.source_build_name(m, b.labels[0].value)
	msg := sprintf("function `%s` computes cache refs of the %s source build; remove it and %s", [b.labels[0].value, m.package, lib.remedy(m)])
}

# A call of such a function.
deny contains lib.finding(d, call, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "hcl")
	some x in lib.hcl_attributes(d)
	some call in x.attr.calls
	lib.source_build_name(m, call.name)
	msg := sprintf("`%s()` imports or exports the cache of the %s source build; remove it and %s", [call.name, m.package, lib.remedy(m)])
}

# A cache ref string naming the source build, inside a cache function or a
# cache-from / cache-to attribute.
deny contains lib.finding(d, w, msg) if {
	some m in lib.migrations
	some d in sb.docs_of_kind(m, "hcl")
	some x in lib.hcl_attributes(d)
	cache_context(x)
	some w in x.attr.strings
	lib.has_token(m, w.value)
	not lib.package_name(m, trim_left(w.value, ":/-_"))
	not cache_key_ref_on_line(m, x.attr, w.pos.line)
	msg := sprintf("cache ref `%s` belongs to the %s source build; remove it and %s", [w.value, m.package, lib.remedy(m)])
}

cache_context(x) if x.attr.name in {"cache-from", "cache-to"}

cache_context(x) if {
	x.block.type == "function"
	contains(lower(x.block.labels[0].value), "cache")
}

# The line's cache-key reference is reported already, as the same finding.
cache_key_ref_on_line(m, attr, line) if {
	some r in attr.refs
	r.pos.line == line
	lib.source_arg(m, r.name)
	lib.cache_arg(r.name)
}

# A metadata, label or annotation key of a CI script that records the
# source build ("vllm.rocm.mooncake_commit").
deny contains lib.finding(s.doc, w, msg) if {
	some m in lib.migrations
	some s in sb.scripts(m)
	some c in s.script.commands
	regex.match(`(?i)metadata|label|annotat`, c.name)
	some i, w in c.words
	i > 0
	is_string(w.value)
	regex.match(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$`, w.value)
	lib.has_token(m, w.value)
	msg := sprintf("metadata `%s` records the %s source build in the cache metadata; remove it and %s", [w.value, m.package, lib.remedy(m)])
}
