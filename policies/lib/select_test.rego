package buildgate.select_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.select

test_requirements_and_relevant_files if {
	inp := fx.input_of([
		["requirements", "requirements/rocm.txt", ["numpy"]],
		["dockerfile", "Dockerfile", ["FROM a AS mooncake_build"]],
	])
	got := select.paths with input as inp
	got == {"requirements/rocm.txt", "Dockerfile"}
}
