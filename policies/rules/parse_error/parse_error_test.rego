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
