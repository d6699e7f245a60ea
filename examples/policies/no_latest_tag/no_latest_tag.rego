# METADATA
# title: Base image on a floating tag
# description: |
#   A FROM whose image has no tag or the `latest` tag (and no digest) builds
#   on whatever was pushed last, so the same Dockerfile builds different
#   images from one day to the next.
# custom:
#   id: EX001
#   name: no-latest-tag
#   severity: warning
#   precision: very-high
#   tags: [example, reproducibility]
package buildgate.rules.example.no_latest_tag

import data.buildgate.lib

# A finding as {"msg", "loc"}: loc is the element (here the FROM's image
# word); buildgate finds the file that holds it.
deny contains {"msg": msg, "loc": st.base} if {
	some d in lib.documents("dockerfile")
	some st in d.stages
	image := resolved(d, st.base.value)
	not earlier_stage(d, image)
	image != "scratch"
	floating(image)
	msg := sprintf("FROM %s has no pinned tag, so it builds on whatever was pushed last; use a version tag or a digest (%s:<version> or %s@sha256:...)", [image, repository(image), repository(image)])
}

# resolved is the image a FROM names, with a global ARG's default put in
# for a lone ${NAME} or $NAME.
resolved(_, value) := value if not regex.match(`^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$`, value)

resolved(d, value) := a.default if {
	regex.match(`^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$`, value)
	name := trim_right(trim_left(value, "${"), "}")
	some a in d.global_args
	a.name == name
	is_string(a.default)
}

earlier_stage(d, image) if {
	some st in d.stages
	lower(st.name) == lower(image)
}

# floating: no digest, and the last path segment has no tag or `latest`.
floating(image) if {
	not contains(image, "@")
	not contains(last_segment(image), ":")
}

floating(image) if {
	not contains(image, "@")
	endswith(last_segment(image), ":latest")
}

last_segment(image) := parts[count(parts) - 1] if parts := split(image, "/")

repository(image) := trim_suffix(image, ":latest")
