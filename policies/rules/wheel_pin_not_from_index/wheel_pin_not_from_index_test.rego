package buildgate.rules.wheel_pin_not_from_index_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.wheel_pin_not_from_index as rule

deny(lines) := got if {
	got := rule.deny with input as fx.one("requirements", "requirements/rocm.txt", lines)
}

test_sources if {
	fx.lines(deny([
		"mooncake-transfer-engine-rocm @ https://example.com/wheels/mooncake_transfer_engine_rocm-0.3.13-py3-none-any.whl", # 1
		"git+https://github.com/kvcache-ai/Mooncake.git#egg=mooncake-transfer-engine-rocm", # 2
		"./wheels/mooncake_transfer_engine_rocm-0.3.13-py3-none-manylinux_2_35_x86_64.whl", # 3
		"mooncake-transfer-engine-rocm>=0.3.13",
		"nixl @ https://example.com/nixl-1.0-py3-none-any.whl",
	])) == {1, 2, 3}
}

test_messages if {
	msgs := {f.msg | some f in deny([
		"git+https://github.com/kvcache-ai/Mooncake.git#egg=mooncake-transfer-engine-rocm",
		"./wheels/mooncake_transfer_engine_rocm-0.3.13-py3-none-any.whl",
	])}
	msgs == {
		"mooncake-transfer-engine-rocm is required from a VCS checkout `git+https://github.com/kvcache-ai/Mooncake.git#egg=mooncake-transfer-engine-rocm`, not from the package index; require the published wheel `mooncake-transfer-engine-rocm >= 0.3.13`",
		"mooncake-transfer-engine-rocm is required from the local path `./wheels/mooncake_transfer_engine_rocm-0.3.13-py3-none-any.whl`, not from the package index; require the published wheel `mooncake-transfer-engine-rocm >= 0.3.13`",
	}
}

# Issue 32: the published pin takes the place of the package's own wheel
# in a command that reaches the package index; one that cannot (--no-index,
# another index) gets no fix.
test_published_fix_needs_the_index if {
	fixes := {f.pos.line: object.get(f, "fix", null) |
		some f in rule.deny
		contains(f.msg, "the local path")
	} with input as fx.one("shell", "f", [
		"pip install /w/mooncake_transfer_engine_rocm-0.3.9-cp312-cp312-linux_x86_64.whl",
		"pip install --no-index /w/mooncake_transfer_engine_rocm-0.3.9-cp312-cp312-linux_x86_64.whl",
		"pip install --index-url https://example.com/simple /w/mooncake_transfer_engine_rocm-0.3.9-cp312-cp312-linux_x86_64.whl",
	])
	fixes[1].replacement == "\"mooncake-transfer-engine-rocm>=0.3.13\""
	fixes[2] == null
	fixes[3] == null
}
