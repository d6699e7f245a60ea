package buildgate.rules.wheel_pin_missing_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.wheel_pin_missing as rule

req(path, lines) := ["requirements", path, lines]

deny(files) := got if {
	got := rule.deny with input as fx.input_of(files)
}

test_pinned_passes if {
	count(deny([req("requirements/rocm.txt", ["numpy", "mooncake-transfer-engine-rocm >= 0.3.13"])])) == 0
}

test_missing_pin if {
	got := deny([req("requirements/rocm.txt", ["numpy"])])
	fx.at(got) == {["requirements/rocm.txt", 1]}
	some f in got
	f.msg == "requirements/rocm.txt does not require mooncake-transfer-engine-rocm; add the line `mooncake-transfer-engine-rocm >= 0.3.13` so the image installs the published wheel"
	f.fix.replacement == "mooncake-transfer-engine-rocm >= 0.3.13\n"
	f.fix.pos == {"line": 2, "column": 1, "end_line": 2, "end_column": 1}
}

# The pin goes after the last requirement (where vLLM put it), below any
# option or -r line; a file with none gets it on its first line.
test_fix_goes_after_the_last_requirement if {
	some f in deny([req("requirements/rocm.txt", ["-r common.txt", "numpy", "# comment", "", "--extra-index-url https://x"])])
	f.fix.pos.line == 6
	some g in deny([req("requirements/rocm.txt", ["# nothing yet"])])
	g.fix.pos.line == 1
}

docker(path, lines) := ["dockerfile", path, lines]

# A missing file in a repository the migration does not concern (moby,
# buildx, terraform …: nothing names it, no source build) is no finding.
test_missing_file_unconcerned if {
	count(deny([req("requirements/cuda.txt", ["numpy"]), docker("Dockerfile", ["FROM a", "RUN pip install -r requirements/cuda.txt"])])) == 0
}

# vLLM's Dockerfile.rocm copies and installs requirements/rocm.txt: with
# the file deleted, the pin is missing.
test_missing_file_named_by_a_dockerfile if {
	got := deny([
		req("requirements/cuda.txt", ["mooncake-transfer-engine-rocm>=0.3.13"]),
		docker("docker/Dockerfile.rocm", [
			"FROM base",
			"COPY ${COMMON_WORKDIR}/vllm/requirements/rocm.txt requirements/",
			"RUN uv pip install --system -r requirements/rocm.txt",
		]),
	])
	some f in got
	f.path == "requirements/rocm.txt"
	contains(f.msg, "does not exist")
}

test_missing_file_named_by_a_script if {
	count(deny([["shell", "ci/install.sh", ["pip install -r requirements/rocm.txt"]]])) == 1
}

test_missing_file_named_by_a_bake_file if {
	count(deny([["hcl", "docker/ci.hcl", ["target \"a\" {", "  args = { REQS = \"requirements/rocm.txt\" }", "}"]]])) == 1
}

test_missing_file_included_by_another if {
	count(deny([req("requirements/all.txt", ["-r rocm.txt"])])) == 1
}

# The include counts even though the including file's text does not hold
# the path (review of issue 16: the text scan skipped it in real runs).
test_missing_file_included_by_a_relative_path if {
	got := rule.deny with input as fx.input_of([req("requirements/all.txt", ["-r rocm.txt"])])
		with buildgate.source_contains as never
	count(got) == 1
}

never(_, _) := false

# A source build of the package makes the migration relevant even when no
# file names the requirements file.
test_missing_file_with_a_source_build if {
	count(deny([docker("Dockerfile", ["FROM base AS mooncake_build", "RUN make"])])) == 1
}

test_commented_pin_is_missing if {
	count(deny([req("requirements/rocm.txt", ["# mooncake-transfer-engine-rocm >= 0.3.13"])])) == 1
}

test_pin_through_include_counts if {
	count(deny([
		req("requirements/rocm.txt", ["-r common.txt"]),
		req("requirements/common.txt", ["-r more.txt"]),
		req("requirements/more.txt", ["Mooncake_Transfer_Engine_ROCm>=0.3.13"]),
	])) == 0
}

test_pin_in_constraints_only_is_missing if {
	count(deny([
		req("requirements/rocm.txt", ["-c constraints.txt"]),
		req("requirements/constraints.txt", ["mooncake-transfer-engine-rocm>=0.3.13"]),
	])) == 1
}

test_a_variant_is_not_the_pin if {
	count(deny([req("requirements/rocm.txt", ["mooncake-transfer-engine >= 0.3.13"])])) == 1
}

# In pip's hash-checking mode a pin line without hashes makes pip refuse
# the file: the finding stays, without a fix.
test_no_fix_in_hash_checking_mode if {
	some f in deny([req("requirements/rocm.txt", ["torch==2.0 --hash=sha256:abc"])])
	not f.fix
	some g in deny([req("requirements/rocm.txt", ["--require-hashes", "numpy"])])
	not g.fix
}

# Hash-checking mode comes from the whole -r family: a file a hashed one
# pulls in, or one pulling in a hashed one, gets no pin line either.
test_no_fix_when_an_included_file_uses_hashes if {
	some f in deny([req("requirements/rocm.txt", ["-r base.txt"]), req("requirements/base.txt", ["--require-hashes"])])
	not f.fix
	some g in deny([req("requirements/rocm.txt", ["numpy"]), req("requirements/all.txt", ["-r rocm.txt", "torch==2.0 --hash=sha256:abc"])])
	not g.fix
}
