package buildgate.rules.example.no_latest_tag_test

import data.buildgate.rules.example.no_latest_tag as rule

findings(lines) := got if {
	doc := buildgate.parse("dockerfile", "Dockerfile", concat("\n", array.concat(lines, [""])))
	got := rule.deny with input as {"documents": [doc], "config": {"migrations": []}}
}

lines_of(fs) := {f.loc.pos.line | some f in fs}

test_floating_tags if {
	lines_of(findings([
		"ARG BASE=ubuntu",
		"ARG PINNED=ubuntu:22.04",
		"FROM python AS a", # 3: no tag
		"FROM nginx:latest AS b", # 4
		"FROM registry.local:5000/team/img AS c", # 5: a port is not a tag
		"FROM ${BASE} AS d", # 6: through an ARG
		"FROM ${PINNED} AS e",
		"FROM python:3.12-slim AS f",
		"FROM alpine@sha256:0123 AS g",
		"FROM registry.local:5000/team/img:1.2 AS h",
		"FROM a",
		"FROM scratch",
	])) == {3, 4, 5, 6}
}

test_message if {
	some f in findings(["FROM nginx:latest"])
	f.msg == "FROM nginx:latest has no pinned tag, so it builds on whatever was pushed last; use a version tag or a digest (nginx:<version> or nginx@sha256:...)"
}
