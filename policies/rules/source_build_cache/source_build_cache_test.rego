package buildgate.rules.source_build_cache_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.source_build_cache as rule

deny_lines(kind, lines) := fx.lines(got) if {
	got := rule.deny with input as fx.one(kind, "f", lines)
}

test_bake_cache_functions_refs_and_keys if {
	deny_lines("hcl", [
		"variable \"MOONCAKE_CACHE_KEY\" {", # 1
		"  default = \"\"",
		"}",
		"function \"get_cache_from_rocm_deps\" {",
		"  params = []",
		"  result = compact([",
		"    NIXL_CACHE_KEY != \"\" ? \"type=registry,ref=r:nixl-rocm-${NIXL_CACHE_KEY}\" : \"\",",
		"    MOONCAKE_CACHE_KEY != \"\" ? \"type=registry,ref=r:mooncake-rocm-${MOONCAKE_CACHE_KEY}\" : \"\",", # 8
		"    X != \"\" ? \"type=registry,ref=r:mooncake-rocm-${X}\" : \"\",", # 9: a ref by its text
		"  ])",
		"}",
		"function \"get_cache_to_rocm_mooncake\" {", # 12
		"  params = []",
		"  result = []",
		"}",
		"target \"t\" {",
		"  cache-to = get_cache_to_rocm_mooncake()", # 17
		"  cache-from = [\"type=registry,ref=r:nixl\"]",
		"  tags = [\"mooncake-rocm:latest\"]",
		"}",
	]) == {1, 8, 9, 12, 17}
}

test_one_finding_per_line_for_a_ref_and_its_key if {
	got := rule.deny with input as fx.one("hcl", "f", [
		"function \"f_cache\" {",
		"  params = []",
		"  result = [\"ref=r:mooncake-rocm-${MOONCAKE_CACHE_KEY}\"]",
		"}",
	])
	count(got) == 1
}

test_shell_cache_keys_and_metadata if {
	deny_lines("shell", [
		"MOONCAKE_CACHE_KEY=$(hash x)", # 1
		"export MOONCAKE_CACHE_KEY", # 2
		"local mooncake_cache_key=\"\"", # 3
		"metadata_pair \"vllm.rocm.mooncake_commit\" \"$c\"", # 4
		"metadata_pair \"vllm.rocm.nixl_commit\" \"$c\"",
		"python3 -m mooncake.mooncake_master",
		"echo \"${NIXL_CACHE_KEY}\"",
	]) == {1, 2, 3, 4}
}

test_dockerfile_cache_key if {
	deny_lines("dockerfile", ["ARG MOONCAKE_CACHE_KEY", "FROM a", "ARG NIXL_CACHE_KEY"]) == {1}
}

# Issue 32: a cache directory is a build's cache key only where a build
# takes it; set for what a CI script runs (triton's TRITON_CACHE_DIR in
# vLLM's run-amd-test.sh), it is a runtime cache.
test_cache_directory_by_context if {
	deny_lines("shell", [
		"MOONCAKE_CACHE_DIR=\"${root}/cache/mooncake\"",
		"export MOONCAKE_CACHE_DIR",
		"mkdir -p \"${MOONCAKE_CACHE_DIR}\"",
		"docker run -e \"MOONCAKE_CACHE_DIR=/c/mooncake\" img",
	]) == set()
	deny_lines("dockerfile", ["FROM a", "ARG MOONCAKE_CACHE_DIR", "ENV MOONCAKE_CACHE_PATH=/c"]) == {2}
}

test_cache_directory_a_build_declares if {
	got := rule.deny with input as fx.input_of([
		["dockerfile", "Dockerfile", ["FROM a", "ARG MOONCAKE_CACHE_DIR"]],
		["shell", "ci.sh", ["export MOONCAKE_CACHE_DIR=/c", "docker build --build-arg MOONCAKE_CACHE_DIR ."]],
	])
	fx.at(got) == {["Dockerfile", 2], ["ci.sh", 1], ["ci.sh", 2]}
}

test_cache_directory_a_script_passes if {
	got := rule.deny with input as fx.input_of([
		["shell", "ci.sh", ["export MOONCAKE_CACHE_DIR=/c", "docker build --build-arg MOONCAKE_CACHE_DIR=/tmp/x ."]],
		["shell", "run.sh", ["docker run -e MOONCAKE_CACHE_DIR=/c img"]],
	])
	fx.at(got) == {["ci.sh", 1], ["ci.sh", 2], ["run.sh", 1]}
}
