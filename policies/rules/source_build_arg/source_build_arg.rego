# METADATA
# title: Source-build argument
# description: |
#   A parameter of the package's source build (its branch, repository,
#   commit, Go toolchain, ...) declared, set, passed or read: a Dockerfile
#   ARG or ENV, a bake variable, an `args` key or reference, a shell
#   variable or a script that names it.
# custom:
#   id: BG102
#   name: source-build-arg
#   severity: error
#   precision: high
#   tags: [migration, source-build]
package buildgate.rules.source_build_arg

import data.buildgate.lib
import data.buildgate.lib.sourcebuild as sb

deny contains lib.finding(d, u.el, msg) if {
	some m in lib.migrations
	some d in sb.docs(m)
	some u in sb.arg_uses(m, d.path)
	u.name in m.build_args
	not lib.cache_arg(u.name)
	msg := sprintf("`%s` is a build argument of the %s source build; remove it and %s", [u.name, m.package, lib.remedy(m)])
}
