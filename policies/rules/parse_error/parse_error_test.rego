package buildgate.rules.parse_error_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.parse_error

test_every_error_entry_is_a_finding if {
	inp := fx.input_of([
		["hcl", "docker/ci.hcl", ["target \"a\" {", "  x = ", "}"]],
		["requirements", "requirements.txt", ["numpy", "foo>=>1"]],
		["shell", "ok.sh", ["echo ok"]],
	])
	got := parse_error.deny with input as inp
	{f.path | some f in got} == {"docker/ci.hcl", "requirements.txt"}
	some f in got
	f.path == "requirements.txt"
	f.pos.line == 2
	startswith(f.msg, "requirements.txt: invalid version clause \">=>1\"")
}

test_clean_files_pass if {
	inp := fx.one("dockerfile", "Dockerfile", ["FROM alpine", "RUN echo hi"])
	got := parse_error.deny with input as inp
	count(got) == 0
}

# mentions mocks buildgate.source_contains: only docker/ci.hcl mentions
# what the migration's rules look for.
mentions(path, _) if path == "docker/ci.hcl"

hostile_input := fx.input_of([
	["hcl", "docker/ci.hcl", ["target \"a\" {", "  x = ", "}"]],
	["shell", "hack/unrelated.sh", ["if true; then", "fi fi"]],
	["requirements", "requirements/rocm.txt", ["--frobnicate"]],
	["requirements", "requirements/dev.txt", ["--frobnicate"]],
])

# Issue 13: a syntax error in a file that never mentions the package, its
# names, arguments, repositories or stages cannot hide its source build
# (official-images' test/config.sh, docker-library/python's
# generate-stackbrew-library.sh were 28 errors for nothing); in a file
# that does, or in a migration's requirements file, it is reported.
test_syntax_errors_where_they_can_hide if {
	got := parse_error.deny with input as hostile_input with buildgate.source_contains as mentions with buildgate.source_words as mentions
	{f.path | some f in got} == {"docker/ci.hcl", "requirements/rocm.txt"}
}

# With user policies loaded, whatever they read counts: every syntax error.
test_syntax_errors_everywhere_with_user_policies if {
	got := parse_error.deny with input as hostile_input
		with buildgate.source_contains as mentions with buildgate.source_words as mentions
		with data.buildgate.user_policies as true
	{f.path | some f in got} == {"docker/ci.hcl", "hack/unrelated.sh", "requirements/rocm.txt", "requirements/dev.txt"}
}

# A file or part not read (too big, binary, not regular) is always
# reported, whatever it mentions.
test_parts_not_read_always if {
	doc := {"kind": "shell", "path": "hack/big.sh", "errors": [{"message": "over the size bound", "pos": {"line": 1, "column": 1, "end_line": 1, "end_column": 1}}]}
	got := parse_error.deny with input as {"documents": [doc], "config": fx.config} with buildgate.source_contains as mentions with buildgate.source_words as mentions
	{f.path | some f in got} == {"hack/big.sh"}
}

# A build for another platform (its code names cuda, not rocm) is not read
# by the source-build rules even when it parses: a syntax error there
# hides nothing from them, and lazy parsing (which parses what the rules
# read) agrees. A requirements path it names still counts (BG201).
test_syntax_errors_in_another_platforms_build if {
	inp := fx.input_of([
		["shell", "cuda.sh", ["git clone https://github.com/kvcache-ai/Mooncake", "if [ -n x ]; then"]],
		["shell", "rocm.sh", ["git clone https://github.com/kvcache-ai/Mooncake", "if [ -n x ]; then"]],
	])
	errs := [{"message": "unclosed if", "syntax": true, "pos": {"line": 2, "column": 1, "end_line": 2, "end_column": 3}}]
	docs := [object.union(d, {"errors": errs}) | some d in inp.documents]
	got := parse_error.deny with input as object.union(inp, {"documents": docs})
		with buildgate.source_contains as names_no_requirements
		with buildgate.source_words as fx.shows
		with buildgate.code_words as fx.shows
	{f.path | some f in got} == {"rocm.sh"}
}

# names_no_requirements mocks buildgate.source_contains: every file
# mentions the source build, none a requirements file.
names_no_requirements(_, needles) if not "requirements/rocm.txt" in needles
