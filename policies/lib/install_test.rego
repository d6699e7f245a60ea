# Tests of the install side of the build model (issue 29) through the pin
# rules: RUN-level installs, options and the image's install command.
package buildgate.lib.install_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.wheel_pin_missing as bg201
import data.buildgate.rules.wheel_pin_not_from_index as bg203
import data.buildgate.rules.wheel_pin_too_low as bg202
import data.buildgate.rules.wheel_variant_mismatch as bg204

pinned := ["requirements", "requirements/rocm.txt", ["mooncake-transfer-engine-rocm >= 0.3.13"]]

image(lines) := fx.input_of([pinned, ["dockerfile", "docker/Dockerfile.rocm", array.concat(
	["FROM rocm/dev-ubuntu-22.04 AS base", "COPY requirements/rocm.txt /r.txt"],
	lines,
)]])

test_run_level_old_version if {
	fx.at(bg202.deny) == {["docker/Dockerfile.rocm", 3], ["docker/Dockerfile.rocm", 4]} with input as image([
		"RUN uv pip install --system \"mooncake-transfer-engine-rocm==0.3.0\"",
		"RUN pip install mooncake_transfer_engine_rocm",
		"RUN pip install 'mooncake-transfer-engine-rocm>=0.3.13'",
	])
}

test_run_level_variant_and_swap if {
	fx.at(bg204.deny) == {["docker/Dockerfile.rocm", 3]} with input as image([
		"RUN pip install mooncake-transfer-engine",
		"RUN pip uninstall -y mooncake-transfer-engine && pip install mooncake-transfer-engine-cuda13",
	])
}

test_run_level_sources if {
	fx.at(bg203.deny) == {
		["docker/Dockerfile.rocm", 3], # index
		["docker/Dockerfile.rocm", 4], # local wheel
		["docker/Dockerfile.rocm", 5], # local version
		["docker/Dockerfile.rocm", 6], # pip wheel --no-binary
	} with input as image([
		"RUN pip install -i https://mirror.example/simple -r /r.txt",
		"RUN pip install ./w/mooncake_transfer_engine_rocm-0.3.13-py3-none-any.whl",
		"RUN pip install mooncake-transfer-engine-rocm==0.3.13+local",
		"RUN pip wheel --no-binary :all: mooncake-transfer-engine-rocm",
	])
}

test_override_files if {
	fx.at(bg203.deny) == {["docker/Dockerfile.rocm", 4], ["docker/Dockerfile.rocm", 5]} with input as image([
		"RUN echo 'mooncake-transfer-engine-rocm==0.3.0' > /tmp/o.txt && echo numpy > /tmp/c.txt",
		"RUN uv pip install --system --override /tmp/o.txt -r /r.txt",
		"RUN uv pip install --system -c /tmp/unknown.txt -r /r.txt",
		"RUN uv pip install --system -c /tmp/c.txt -r /r.txt",
	])
}

test_find_links if {
	got := bg203.deny with input as image([
		"RUN pip install --find-links /nowhere -r /r.txt",
		"RUN pip install --find-links https://example.com/wheels/ -r /r.txt",
	])
	fx.at(got) == {["docker/Dockerfile.rocm", 3], ["docker/Dockerfile.rocm", 4]}
}

test_uninstall if {
	fx.at(bg201.deny) == {["docker/Dockerfile.rocm", 4]} with input as image([
		"RUN pip install -r /r.txt",
		"RUN pip uninstall -y mooncake-transfer-engine-rocm",
		"FROM rocm/dev-ubuntu-22.04 AS other",
		"RUN pip uninstall -y mooncake-transfer-engine-rocm && pip install mooncake-transfer-engine-rocm-foo",
	])
}

test_image_installs_another_file if {
	got := bg201.deny with input as fx.input_of([
		pinned,
		["requirements", "requirements/runtime.txt", ["numpy"]],
		["dockerfile", "docker/Dockerfile.rocm", [
			"FROM rocm/dev-ubuntu-22.04 AS base",
			"COPY requirements/rocm.txt requirements/runtime.txt /req/",
			"RUN pip install -r /req/runtime.txt",
		]],
	])
	fx.at(got) == {["docker/Dockerfile.rocm", 3]}
	some f in got
	f.fix.replacement == " \"mooncake-transfer-engine-rocm>=0.3.13\""
}

test_stage_installs_another_file if {
	got := bg201.deny with input as fx.input_of([
		pinned,
		["requirements", "requirements/runtime.txt", ["numpy"]],
		["dockerfile", "docker/Dockerfile.rocm", [
			"FROM rocm/dev-ubuntu-22.04 AS base",
			"COPY requirements/ /req/",
			"FROM base AS build",
			"RUN pip install -r /req/rocm.txt",
			"FROM base AS final",
			"RUN pip install -r /req/runtime.txt",
		]],
	])
	fx.at(got) == {["docker/Dockerfile.rocm", 6]}
}

test_markers if {
	got := bg201.deny with input as fx.input_of([["requirements", "requirements/rocm.txt", [
		"mooncake-transfer-engine-rocm >= 0.3.13 ; os_name == 'nt'",
		"mooncake-transfer-engine-rocm >= 0.3.13 ; platform_machine == 'ppc64le'",
	]]])
	fx.lines(got) == {1}
}

test_requirements_file_options if {
	fx.lines(bg203.deny) == {1, 2, 3, 4} with input as fx.input_of([["requirements", "requirements/rocm.txt", [
		"--extra-index-url https://mirror.example/simple",
		"--no-index",
		"--no-binary mooncake-transfer-engine-rocm",
		"--find-links ./wheels",
		"--index-url https://pypi.org/simple/",
		"mooncake-transfer-engine-rocm >= 0.3.13",
	]]])
}

test_variant_in_a_file_the_image_installs if {
	got := bg204.deny with input as fx.input_of([
		pinned,
		["requirements", "requirements/extra.txt", ["mooncake-transfer-engine"]],
		["requirements", "requirements/cuda.txt", ["mooncake-transfer-engine"]],
		["dockerfile", "docker/Dockerfile.rocm", [
			"FROM rocm/dev-ubuntu-22.04",
			"COPY requirements/ requirements/",
			"RUN pip install -r requirements/rocm.txt -r requirements/extra.txt",
		]],
	])
	fx.at(got) == {["requirements/extra.txt", 1]}
}

test_uninstall_undone_by_a_stage_built_from_it if {
	count(bg201.deny) == 0 with input as image([
		"RUN pip install -r /r.txt && pip uninstall -y mooncake-transfer-engine-rocm",
		"FROM base AS final",
		"RUN pip install 'mooncake-transfer-engine-rocm>=0.3.13'",
	])
}

test_only_binary_wins if {
	count(bg203.deny) == 0 with input as image(["RUN pip install --no-binary :all: --only-binary mooncake-transfer-engine-rocm -r /r.txt"])
}

test_constraints_copied_from_the_repository if {
	count(bg203.deny) == 0 with input as fx.input_of([
		pinned,
		["requirements", "constraints.txt", ["numpy<2"]],
		["dockerfile", "docker/Dockerfile.rocm", [
			"FROM rocm/dev-ubuntu-22.04",
			"COPY requirements/rocm.txt /r.txt",
			"COPY constraints.txt /c.txt",
			"RUN pip install -c /c.txt -r /r.txt",
		]],
	])
}
