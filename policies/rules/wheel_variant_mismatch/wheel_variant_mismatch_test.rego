package buildgate.rules.wheel_variant_mismatch_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.wheel_variant_mismatch as rule

test_variant_in_pinned_file if {
	got := rule.deny with input as fx.input_of([
		["requirements", "requirements/rocm.txt", [
			"mooncake-transfer-engine-rocm>=0.3.13",
			"mooncake-transfer-engine>=0.3.13", # 2
			"-r common.txt",
		]],
		["requirements", "requirements/common.txt", ["Mooncake-Transfer-Engine-CUDA13"]], # 1
		["requirements", "requirements/cuda.txt", ["mooncake-transfer-engine>=0.3.12"]],
	])
	fx.at(got) == {["requirements/rocm.txt", 2], ["requirements/common.txt", 1]}
}

test_message if {
	some f in rule.deny with input as fx.one("requirements", "requirements/rocm.txt", ["mooncake-transfer-engine"])
	f.msg == "mooncake-transfer-engine is a different variant of the package; requirements/rocm.txt must pin `mooncake-transfer-engine-rocm >= 0.3.13` instead"
}
