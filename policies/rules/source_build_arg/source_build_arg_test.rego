package buildgate.rules.source_build_arg_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.source_build_arg as rule

deny_lines(kind, lines) := fx.lines(got) if {
	got := rule.deny with input as fx.one(kind, "f", lines)
}

test_dockerfile_args if {
	deny_lines("dockerfile", [
		"ARG MOONCAKE_BRANCH=v0.3.13", # 1: declared
		"FROM base:${MOONCAKE_COMMIT} AS b", # 2: read outside a RUN
		"ARG MOONCAKE_REPO", # 3
		"ENV MOONCAKE_GO_VERSION=1.23", # 4: set
		"RUN git checkout ${MOONCAKE_BRANCH}", # 5: read in a RUN
		"ARG MOONCAKE_VERSION=0.3.13",
		"ARG NIXL_BRANCH=abc",
		"RUN echo $MOONCAKE_VERSION $NIXL_BRANCH",
		"# ARG MOONCAKE_BRANCH=old",
	]) == {1, 2, 3, 4, 5}
}

test_cache_keys_are_not_this_rule if {
	deny_lines("dockerfile", ["FROM a", "ARG MOONCAKE_CACHE_KEY"]) == set()
}

test_bake_variables_args_and_refs if {
	deny_lines("hcl", [
		"variable \"MOONCAKE_BRANCH\" {", # 1
		"  default = \"\"",
		"}",
		"variable \"NIXL_BRANCH\" {",
		"  default = \"\"",
		"}",
		"target \"t\" {",
		"  args = {",
		"    MOONCAKE_REPO = \"x\"", # 9: passed
		"    NIXL_BRANCH = NIXL_BRANCH",
		"  }",
		"  tags = [\"img:${MOONCAKE_BRANCH}\"]", # 12: read
		"}",
	]) == {1, 9, 12}
}

test_shell_variables if {
	deny_lines("shell", [
		"MOONCAKE_BRANCH=main", # 1: set
		"export MOONCAKE_REPO", # 2: declared
		"echo \"${MOONCAKE_BRANCH}\"", # 3: read
		"v=$(resolve_arg Dockerfile \"MOONCAKE_COMMIT\")", # 4: named
		"for var in NIXL_BRANCH MOONCAKE_BRANCH; do :; done", # 5: named in a loop
		"docker build --build-arg MOONCAKE_BRANCH=main .", # 6: passed
		"MOONCAKE_VERSION=\"${MOONCAKE_VERSION:-}\"",
		"uv pip install \"mooncake-transfer-engine-cuda13==${MOONCAKE_VERSION}\"",
		"# MOONCAKE_BRANCH=old",
	]) == {1, 2, 3, 4, 5, 6}
}

test_message if {
	some f in rule.deny with input as fx.one("dockerfile", "Dockerfile", ["ARG MOONCAKE_BRANCH=v1"])
	f.msg == "`MOONCAKE_BRANCH` is a build argument of the mooncake-transfer-engine-rocm source build; remove it and install the published wheel pinned in requirements/rocm.txt instead"
}

# sglang's switch: ENV BUILD_MOONCAKE="1" turns its source build on.
test_toggle_switched_on if {
	got := rule.deny with input as fx.one("dockerfile", "Dockerfile", [
		"ARG INSTALL_MOONCAKE=1", # 1
		"FROM base",
		"ENV BUILD_MOONCAKE=\"1\" OTHER=2", # 3
		"ARG WITH_MOONCAKE=true", # 4
		"ARG USE_MOONCAKE=0", # off
		"ARG BUILD_NIXL=1", # another package
	])
	fx.lines(got) == {1, 3, 4}
}

test_toggle_in_a_script if {
	got := rule.deny with input as fx.one("shell", "ci.sh", ["export ENABLE_MOONCAKE=yes", "BUILD_MOONCAKE=0"])
	fx.lines(got) == {1}
}

# A build argument passed on a command line: the finding starts at the
# name, in every form (issue 13).
test_passed_build_args_point_at_the_name if {
	got := rule.deny with input as fx.one("shell", "ci.sh", [
		"docker build --build-arg MOONCAKE_BRANCH=main -t x .",
		"docker build --build-arg=MOONCAKE_REPO=x .",
		"docker buildx bake --set \"*.args.MOONCAKE_COMMIT=abc\" t",
	])
	{[f.pos.line, f.pos.column, f.pos.end_column] | some f in got} == {[1, 26, 41], [2, 26, 39], [3, 34, 49]}
}

# CI pipelines (issue 19): env entries, the build arguments their commands
# and docker/build-push-action steps pass, and toggles.
test_pipeline_env_and_commands if {
	got := rule.deny with input as fx.one("pipeline", ".buildkite/release.yaml", [
		"env:",
		"  MOONCAKE_BRANCH: main", # 2: set
		"  OTHER: x",
		"steps:",
		"  - commands:",
		"      - |",
		"        docker build \\",
		"          --build-arg MOONCAKE_REPO=\"${REPO_URL}\" \\", # 8: passed, its value an expansion
		"          --build-arg NIXL_BRANCH=x .",
		"      - 'echo \"$$MOONCAKE_COMMIT\"'", # 10: read
	])
	{[f.pos.line, f.pos.column] | some f in got} == {[2, 3], [8, 23], [10, 16]}
}

test_pipeline_action_build_args_and_toggles if {
	got := rule.deny with input as fx.one("pipeline", ".github/workflows/img.yml", [
		"jobs:",
		"  b:",
		"    env:",
		"      BUILD_MOONCAKE: \"1\"", # 4: a toggle switched on
		"    steps:",
		"      - uses: docker/build-push-action@v6",
		"        with:",
		"          build-args: |",
		"            MOONCAKE_GO_VERSION=1.23", # 9: passed
		"            OTHER=1",
	])
	{[f.pos.line, f.pos.column] | some f in got} == {[4, 7], [9, 13]}
}

test_pipeline_without_the_source_build if {
	rule.deny == set() with input as fx.one("pipeline", ".gitlab-ci.yml", [
		"variables:",
		"  MOONCAKE_VERSION: \"0.3.13\"",
		"build:",
		"  script:",
		"    - uv pip install \"mooncake-transfer-engine-rocm==${MOONCAKE_VERSION}\"",
	])
}

# Review of issue 19: the name of NAME=value quoted with its expansion.
test_quoted_build_arg_with_an_expansion if {
	got := rule.deny with input as fx.one("shell", "ci.sh", [
		"docker build --build-arg \"MOONCAKE_BRANCH=${BRANCH}\" .", # 1
		"docker build --build-arg 'MOONCAKE_REPO'=\"$R\" .", # 2
		"docker build --build-arg \"OTHER=${MOONCAKE}\" .",
	])
	{[f.pos.line, f.msg] | some f in got; contains(f.msg, "`MOONCAKE_")} == {
		[1, "`MOONCAKE_BRANCH` is a build argument of the mooncake-transfer-engine-rocm source build; remove it and install the published wheel pinned in requirements/rocm.txt instead"],
		[2, "`MOONCAKE_REPO` is a build argument of the mooncake-transfer-engine-rocm source build; remove it and install the published wheel pinned in requirements/rocm.txt instead"],
	}
}

# Issue 32 (OpenLLM's OCI Dockerfile): a generic build argument each
# builder stage declares for its own clone is that stage's; another
# builder's stage (it fetches another repository) is not the source
# build's, nor is a stage of a file whose source build is another stage.
test_build_args_are_scoped_to_their_stage if {
	m := object.union(fx.migration, {"build_args": ["COMMIT_HASH"]})
	got := rule.deny with input as {"config": {"migrations": [m]}, "documents": [buildgate.parse("dockerfile", "Dockerfile", concat("\n", [
		"FROM k AS mooncake-builder", # 1
		"ARG COMMIT_HASH=abc", # 2
		"RUN git clone https://github.com/kvcache-ai/Mooncake && git -C Mooncake checkout ${COMMIT_HASH}", # 3
		"FROM k AS flash-builder", # 4
		"ARG COMMIT_HASH=def", # 5
		"RUN git clone https://github.com/Dao-AILab/flash-attention && git -C flash-attention checkout ${COMMIT_HASH}", # 6
		"FROM k", # 7
		"ARG COMMIT_HASH", # 8
		"RUN echo ${COMMIT_HASH}", # 9
	]))]}
	fx.lines(got) == {2, 3}
}

test_build_args_in_a_single_stage_build if {
	m := object.union(fx.migration, {"build_args": ["COMMIT_HASH"]})
	got := rule.deny with input as {"config": {"migrations": [m]}, "documents": [buildgate.parse("dockerfile", "Dockerfile", concat("\n", [
		"FROM k",
		"ARG COMMIT_HASH=abc",
		"RUN git clone https://github.com/kvcache-ai/Mooncake && git -C Mooncake checkout ${COMMIT_HASH}",
	]))]}
	fx.lines(got) == {2, 3}
}
