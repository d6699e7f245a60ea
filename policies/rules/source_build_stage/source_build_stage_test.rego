package buildgate.rules.source_build_stage_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.source_build_stage as rule

deny_lines(kind, lines) := fx.lines(got) if {
	got := rule.deny with input as fx.one(kind, "f", lines)
}

test_dockerfile_stage_chain if {
	deny_lines("dockerfile", [
		"FROM base AS mooncake_source", # 1: named
		"RUN echo build",
		"FROM mooncake_source AS packager", # 3: built from one
		"FROM mooncake_source", # 4: unnamed, from one
		"FROM base AS vllm",
		"COPY --from=packager /w /w", # 6
		"RUN --mount=type=bind,from=export_mooncake,target=/m ls /m", # 7
		"COPY --from=build_nixl /x /x",
	]) == {1, 3, 4, 6, 7}
}

test_stage_names_are_case_insensitive if {
	deny_lines("dockerfile", [
		"FROM base AS Mooncake_Build",
		"FROM base",
		"COPY --from=MOONCAKE_BUILD /w /w",
	]) == {1, 3}
}

test_package_named_stage_is_not_source if {
	deny_lines("dockerfile", [
		"FROM base AS mooncake-transfer-engine-cuda13",
		"FROM base AS nixl_build",
	]) == set()
}

test_bake_targets_and_groups if {
	deny_lines("hcl", [
		"target \"mooncake-rocm-ci\" {", # 1
		"  target = \"build_mooncake\"",
		"}",
		"target \"wheels\" {", # 4: builds a source stage of a Dockerfile
		"  target = \"export_mooncake\"",
		"}",
		"target \"nixl-rocm-ci\" {",
		"  inherits = [\"mooncake-rocm-ci\"]", # 8
		"}",
		"group \"deps\" {",
		"  targets = [\"nixl-rocm-ci\", \"mooncake-rocm-ci\"]", # 11
		"}",
	]) == {1, 8, 11}
}

test_bake_target_building_a_dockerfile_source_stage if {
	inp := fx.input_of([
		["dockerfile", "docker/Dockerfile", ["FROM base AS mc_build", "FROM mc_build AS mooncake_export"]],
		["hcl", "docker/bake.hcl", [
			"target \"wheels\" {",
			"  target = \"mooncake_export\"",
			"}",
			"group \"all\" {",
			"  targets = [\"wheels\"]",
			"}",
		]],
	])
	got := rule.deny with input as inp
	fx.at(got) == {["docker/Dockerfile", 2], ["docker/bake.hcl", 1], ["docker/bake.hcl", 5]}
}

test_script_stage_lists if {
	deny_lines("shell", [
		"STAGES=\"base build_nixl mooncake_source export_mooncake ci_base\"", # 1
		"ARR=(nixl mooncake-rocm-ci)", # 2
		"for t in nixl-rocm-ci mooncake-rocm-ci; do", # 3
		"  case \"$t\" in",
		"    mooncake-rocm-ci) echo one ;;", # 5
		"    nixl-rocm-ci) echo two ;;",
		"  esac",
		"done",
		"add_target \"mooncake-rocm-ci\"", # 9
		"hash_stages \"base mooncake_source\"", # 10
	]) == {1, 2, 3, 5, 9, 10}
}

test_script_precision if {
	deny_lines("shell", [
		"# build the mooncake_source stage",
		"echo \"skipping mooncake_source\"",
		"read -r CUDA_MAJOR NIXL_VERSION MOONCAKE_VERSION <<<\"${KV}\"",
		"MOONCAKE_VERSION=\"${MOONCAKE_VERSION:-}\"",
		"uv pip uninstall --system mooncake-transfer-engine",
		"python3 -c \"import mooncake\"",
		"metadata_pair \"vllm.rocm.mooncake_commit\" x",
		"PKGS=\"mooncake-transfer-engine-cuda13 nixl\"",
	]) == set()
}

test_script_names_known_targets_of_other_files if {
	inp := fx.input_of([
		["hcl", "ci.hcl", ["target \"MC\" {", "  target = \"mc_wheel\"", "}"]],
		["dockerfile", "Dockerfile", ["FROM base AS mooncake", "FROM mooncake AS mc_wheel"]],
		["shell", "ci.sh", ["build_target MC"]],
	])
	got := rule.deny with input as inp
	fx.at(got) == {["Dockerfile", 1], ["Dockerfile", 2], ["ci.hcl", 1], ["ci.sh", 1]}
}

test_scope_limits_files if {
	cfg := {"migrations": [object.union(fx.migration, {"scope": ["docker/**"]})]}
	inp := fx.input_of([
		["dockerfile", "docker/Dockerfile", ["FROM base AS mooncake_build"]],
		["dockerfile", "other/Dockerfile", ["FROM base AS mooncake_build"]],
	])
	got := rule.deny with input as object.union(inp, {"config": cfg})
	fx.at(got) == {["docker/Dockerfile", 1]}
}

test_message if {
	some f in rule.deny with input as fx.one("dockerfile", "Dockerfile", ["FROM base AS mooncake_source"])
	f.msg == "stage `mooncake_source` builds mooncake-transfer-engine-rocm from source; install the published wheel pinned in requirements/rocm.txt instead"
	f.pos == {"line": 1, "column": 14, "end_line": 1, "end_column": 29}
}

# Process names, test labels and the like that only contain the name token
# are no stages (issue 13: kvcache-ai/Mooncake's own scripts).
test_words_that_only_contain_the_token_are_no_stages if {
	got := rule.deny with input as fx.one("shell", "ci.sh", [
		"pkill -f mooncake_http_metadata_server || true",
		"which mooncake_master",
		"nohup mooncake_master --port 1 &",
		"killall mooncake_client",
		"docker build --target mooncake_build .", # 5: a stage passed to docker
		"test_case_name=\"test_moe_mooncake\"", # scripts/tone_tests/scripts/test_moe_mooncake.sh
		"for p in mooncake_master mooncake_client; do pkill \"$p\"; done",
		"case \"$1\" in mooncake_master) echo m ;; esac",
		"case \"$target\" in mooncake_master) echo m ;; esac", # 9: a target's case
		"IMAGES=\"mooncake_master\"", # 10: an image list
	])
	fx.lines(got) == {5, 9, 10}
}

# A list handed to bake or docker through a variable names targets, even
# when the file that defines them is elsewhere (review of issue 13).
test_lists_handed_to_a_builder if {
	got := rule.deny with input as fx.one("shell", "ci.sh", [
		"for t in mooncake_rocm vllm_rocm; do docker buildx bake -f ci.hcl \"$t\"; done", # 1
		"TS=\"mooncake-rocm vllm-rocm\"", # 2
		"docker buildx bake -f ci.hcl $TS",
		"for p in mooncake_master mooncake_client; do pkill \"$p\"; done", # not to a builder
	])
	fx.lines(got) == {1, 2}
}

test_quote_meta if {
	rule.quote_meta(`a.b\c(d)`) == `a\.b\\c\(d\)`
	regex.match(rule.quote_meta("x.y+z"), "-x.y+z-")
	not regex.match(rule.quote_meta("x.y"), "xzy")
}

test_pipeline_targets if {
	got := rule.deny with input as fx.input_of([
		["dockerfile", "docker/Dockerfile.rocm", ["FROM base AS mooncake_source", "FROM base AS final"]],
		["pipeline", ".github/workflows/img.yml", [
			"jobs:",
			"  b:",
			"    steps:",
			"      - run: docker buildx build --target mooncake_source -f docker/Dockerfile.rocm .", # 4
			"      - uses: docker/build-push-action@v6",
			"        with:",
			"          target: mooncake_source", # 7
			"      - uses: docker/build-push-action@v6",
			"        with:",
			"          target: final",
		]],
	])
	{[f.path, f.pos.line, f.pos.column] | some f in got; f.path != "docker/Dockerfile.rocm"} == {
		[".github/workflows/img.yml", 4, 43],
		[".github/workflows/img.yml", 7, 19],
	}
}

# Issue 32: a stage named after the package itself is the source build's
# when it builds; by the initials only when it names the repository too.
# A stage that runs or tests the package, or a TypeScript build whose
# name shares the initials, is none (the red team's cases).
test_package_named_stages if {
	m := {"package": "flash-attn", "minimum": "2.0.8", "requirements": [], "variants": [], "names": [], "build_args": [], "repositories": ["github.com/Dao-AILab/flash-attention"], "scope": []}
	got := rule.deny with input as {"config": {"migrations": [m]}, "documents": [buildgate.parse("dockerfile", "Dockerfile", concat("\n", [
		"ARG FA_REPO=https://github.com/Dao-AILab/flash-attention.git", # 1
		"FROM python AS flash-attn-builder", # 2: builds
		"RUN git clone https://github.com/Dao-AILab/flash-attention && cd flash-attention && python setup.py bdist_wheel",
		"FROM python AS build_fa", # 4: builds from the repository through its ARG
		"ARG FA_REPO",
		"RUN git clone ${FA_REPO} fa && cd fa && python setup.py bdist_wheel",
		"FROM python AS test_flash_attn", # 7: only imports it
		"RUN python -c 'import flash_attn'",
		"FROM node:20 AS fa-build", # 9: another build sharing the initials
		"RUN npm ci && make",
		"FROM nvcr.io/flash-attn-server:1 AS flash-attn-server", # 11: no build at all
		"FROM python",
		"COPY --from=flash-attn-builder /d /d",
		"COPY --from=fa-build /app /srv",
	]))]}
	fx.lines(got) == {2, 4, 13}
}
