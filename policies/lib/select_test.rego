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

test_needles_are_the_configured_questions if {
	m := {
		"package": "p", "names": ["mooncake"], "build_args": ["MOONCAKE_BRANCH"],
		"repositories": ["kvcache-ai/Mooncake"], "requirements": ["requirements/rocm.txt", "requirements/common.txt"],
	}
	got := select.needles with input as {"documents": [], "config": {"migrations": [m]}}
	got == {
		["mooncake", "MOONCAKE_BRANCH", "kvcache-ai/Mooncake"],
		["requirements/rocm.txt", "requirements/common.txt"],
		["requirements/rocm.txt"],
		["requirements/common.txt"],
	}
}
