package buildgate.rules.source_build_step_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.source_build_step as rule

deny_lines(kind, lines) := fx.lines(got) if {
	got := rule.deny with input as fx.one(kind, "f", lines)
}

test_clone_and_build_in_one_run if {
	deny_lines("dockerfile", [
		"FROM base",
		"ARG MOONCAKE_REPO=https://github.com/kvcache-ai/Mooncake.git",
		"RUN git clone ${MOONCAKE_REPO} && \\", # 3
		"    cd Mooncake && \\",
		"    git checkout v0.3.13 && \\", # 5
		"    bash dependencies.sh -y && \\", # 6
		"    wget https://go.dev/dl/go1.22.2.linux-amd64.tar.gz && \\",
		"    mkdir -p build && cd build && \\",
		"    cmake .. -DUSE_HIP=ON && \\", # 9
		"    make -j && make install", # 10
	]) == {3, 5, 6, 9, 10}
}

test_clone_and_build_across_runs if {
	deny_lines("dockerfile", [
		"FROM base",
		"ARG MC=https://github.com/kvcache-ai/Mooncake.git",
		"RUN git clone $MC /app/mooncake", # 3
		"RUN cd /app/mooncake && bash dependencies.sh -y", # 4
		"RUN make", # 5: a new shell, no cd: not inside
		"RUN mkdir -p /app/mooncake/build && cd /app/mooncake/build && cmake .. && make install", # 6
	]) == {3, 4, 6}
}

test_other_dependencies_do_not_fire if {
	deny_lines("dockerfile", [
		"FROM base",
		"ARG NIXL_REPO=https://github.com/ai-dynamo/nixl.git",
		"RUN git clone ${NIXL_REPO} /opt/nixl && cd /opt/nixl && meson setup build && ninja -C build install",
		"RUN git clone https://github.com/ROCm/DeepEP.git && cd DeepEP && python3 setup.py install",
		"# RUN git clone https://github.com/kvcache-ai/Mooncake.git",
		"RUN uv pip install --system \"mooncake-transfer-engine-cuda13==${MOONCAKE_VERSION}\"",
	]) == set()
}

test_local_wheels if {
	deny_lines("dockerfile", [
		"FROM base AS export_mooncake",
		"FROM base",
		"RUN --mount=type=bind,from=export_mooncake,target=/install/mc uv pip install --system /install/mc/*.whl", # 3
		"RUN pip install /wheels/mooncake_transfer_engine-0.3.13-py3-none-any.whl", # 4
		"RUN pip install /wheels/nixl-0.1-py3-none-any.whl",
		"RUN pip install mooncake-transfer-engine-rocm",
	]) == {3, 4}
}

test_shell_script if {
	deny_lines("shell", [
		"MOONCAKE_REPO=\"https://github.com/kvcache-ai/Mooncake.git\"",
		"git clone --depth 1 https://github.com/alibaba/yalantinglibs.git",
		"cd yalantinglibs",
		"cmake ..",
		"cd ..",
		"git clone --depth 1 -b ${MOONCAKE_VERSION} ${MOONCAKE_REPO}", # 6
		"cd Mooncake",
		"mkdir build && cd build",
		"cmake .. -DUSE_CUDA=ON", # 9
		"make -j", # 10
		"cd ../..",
		"make",
		"pip3 install --no-cache-dir \"mooncake-transfer-engine==${MOONCAKE_VERSION#v}\"",
	]) == {6, 9, 10}
}

test_exec_form_and_add if {
	deny_lines("dockerfile", [
		"FROM base",
		"ADD https://github.com/kvcache-ai/Mooncake.git /src", # 2
		"RUN [\"git\", \"clone\", \"https://github.com/kvcache-ai/Mooncake.git\"]", # 3
		"ADD https://github.com/ai-dynamo/nixl.git /nixl",
	]) == {2, 3}
}

test_bake_context if {
	deny_lines("hcl", [
		"target \"mc\" {",
		"  context = \"https://github.com/kvcache-ai/Mooncake.git#v0.3.13\"", # 2
		"}",
		"target \"vllm\" {",
		"  context = \".\"",
		"}",
	]) == {2}
}

test_message_shortens_long_commands if {
	some f in rule.deny with input as fx.one("shell", "a.sh", ["git clone --depth 1 --branch v0.3.13 --single-branch https://github.com/kvcache-ai/Mooncake.git /opt/mooncake"])
	startswith(f.msg, "`git clone --depth 1 --branch v0.3.13 ...` clones the source of mooncake-transfer-engine-rocm")
}

# RUN <<EOF runs the heredoc: a clone and build inside it are the source
# build (issue 13: missed before, the RUN's first line says only "<<EOF").
test_clone_and_build_in_a_heredoc if {
	deny_lines("dockerfile", [
		"FROM base",
		"RUN <<EOF",
		"git clone https://github.com/kvcache-ai/Mooncake.git", # 3
		"cd Mooncake && make", # 4
		"EOF",
	]) == {3, 4}
}

# A heredoc that is only data written to a file is not run.
test_heredoc_as_data_is_not_run if {
	deny_lines("dockerfile", [
		"FROM base",
		"RUN cat > /notes.txt <<EOF",
		"git clone https://github.com/kvcache-ai/Mooncake.git",
		"EOF",
	]) == set()
}

# WORKDIR into the clone counts like cd (issue 13: only cd was followed).
test_build_in_a_workdir_inside_the_clone if {
	deny_lines("dockerfile", [
		"FROM base",
		"RUN git clone https://github.com/kvcache-ai/Mooncake.git /src/Mooncake", # 2
		"WORKDIR /src/Mooncake/build",
		"RUN cmake .. && make install", # 4
		"WORKDIR /app",
		"RUN make", # 6: outside the clone
	]) == {2, 4}
}

# A build for another platform is not the ROCm package's source build: the
# same clone and build in a CUDA script (TensorRT-LLM's
# docker/common/install_mooncake.sh, -DUSE_CUDA=ON) or an Ascend one (the
# Mooncake repository's scripts/ascend/dependencies_ascend.sh) is silent;
# in a ROCm file, in a file that shows both, or in one that shows no
# platform it is reported (issue 13).
test_other_platforms_are_not_this_source_build if {
	build := [
		"git clone https://github.com/kvcache-ai/Mooncake.git",
		"cd Mooncake && cmake .. && make -j",
	]
	inp := fx.input_of([["shell", p, build] | some p in ["cuda.sh", "ascend.sh", "rocm.sh", "both.sh", "none.sh"]])
	got := rule.deny with input as inp with buildgate.source_words as fx.shows with buildgate.code_words as fx.shows
	{f.path | some f in got} == {"rocm.sh", "both.sh", "none.sh"}
}

# A wheel path that only names the package counts in a file that shows
# ROCm: scripts/test_installation.sh in the Mooncake repository installs
# mooncake-wheel/dist/*.whl, its default build.
test_a_wheel_path_alone_needs_the_platform if {
	inp := fx.input_of([["shell", p, ["pip install mooncake-wheel/dist/*.whl"]] | some p in ["rocm.sh", "none.sh", "ascend.sh"]])
	got := rule.deny with input as inp with buildgate.source_words as fx.shows
	{f.path | some f in got} == {"rocm.sh"}
}

# A VCS URL is an install from the repository (one finding), not also a
# local wheel (issue 13).
test_a_vcs_url_is_no_local_wheel if {
	got := rule.deny with input as fx.one("shell", "rocm.sh", ["pip install git+https://github.com/kvcache-ai/Mooncake"])
	count(got) == 1
}

test_pipeline_clone_and_build if {
	got := rule.deny with input as fx.one("pipeline", ".gitlab-ci.yml", [
		"rocm-image:",
		"  script:",
		"    - git clone https://github.com/kvcache-ai/Mooncake.git", # 3
		"    - cd Mooncake",
		"    - cmake -B build", # 5: one script with the lines before
	])
	fx.lines(got) == {3, 5}
}

# Review of issue 19: an escape in a YAML string spells the repository.
test_pipeline_repository_spelled_with_an_escape if {
	got := rule.deny with input as fx.one("pipeline", ".gitlab-ci.yml", [
		"rocm-image:",
		"  script:",
		"    - \"git clone https://github.com/kvcache-ai/\\x4dooncake mc\"", # 3
		"    - cd mc",
		"    - cmake -B build -DUSE_HIP=ON", # 5
	])
	fx.lines(got) == {3, 5}
}

# Issue 32: a pip install of the package's source URL gets the published
# pin in its place, but not an editable install (pip's -e takes no
# requirement) nor a subdirectory of the repository (another project).
test_published_fix if {
	fixes := {f.pos.line: object.get(f, "fix", null) | some f in rule.deny} with input as fx.one("shell", "f", [
		"pip install git+https://github.com/kvcache-ai/Mooncake@v0.3",
		"pip install -e git+https://github.com/kvcache-ai/Mooncake@v0.3#egg=mooncake",
		"pip install 'git+https://github.com/kvcache-ai/Mooncake@v0.3#subdirectory=mooncake-wheel'",
	])
	fixes[1].replacement == "\"mooncake-transfer-engine-rocm>=0.3.13\""
	fixes[2] == null
	fixes[3] == null
}
