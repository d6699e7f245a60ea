package buildgate.lib.sourcebuild_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.lib.sourcebuild as sb

m := fx.migration

doc(kind, lines) := fx.one(kind, "f", lines).documents[0]

test_stages_follow_from if {
	inp := fx.one("dockerfile", "f", [
		"FROM base AS Mooncake_Source",
		"FROM mooncake_source AS export_wheels",
		"FROM base AS nixl",
	])
	sb.stages(m, "f") == {"mooncake_source", "export_wheels"} with input as inp
}

test_clone_dest_given_or_repository_name if {
	inp := fx.one("shell", "f", [
		"git clone https://github.com/kvcache-ai/Mooncake.git /opt/mc",
		"git clone --depth 1 -b v1 $MOONCAKE_REPO",
		"git clone https://github.com/ai-dynamo/nixl.git /opt/nixl",
	])
	sb.clone_dests(m, "f") == {"/opt/mc", "Mooncake"} with input as inp
}

test_repo_vars if {
	inp := fx.one("shell", "f", ["MC=https://github.com/kvcache-ai/mooncake", "OTHER=https://github.com/x/y"])
	sb.repo_vars(m, "f") == {"MOONCAKE_REPO", "MC"} with input as inp
}

commands_in_clone(lines) := {c.pos.line |
	inp := fx.one("shell", "f", lines)
	d := inp.documents[0]
	dests := sb.clone_dests(m, "f") with input as inp
	some c in d.commands
	sb.in_clone(m, "f", dests, c) with input as inp
}

test_in_clone_tracks_cd if {
	commands_in_clone([
		"git clone https://github.com/kvcache-ai/Mooncake.git",
		"cmake ..",
		"cd Mooncake",
		"mkdir build && cd build",
		"cmake ..",
		"cd ..",
		"make",
		"cd ..",
		"make",
	]) == {4, 5, 6, 7, 8}
}

test_in_clone_absolute_and_home if {
	commands_in_clone([
		"git clone https://github.com/kvcache-ai/Mooncake.git /app/mc",
		"cd /app/mc/build",
		"make",
		"cd /tmp",
		"make",
		"cd /app/mc",
		"make",
		"cd",
		"make",
	]) == {3, 4, 7, 8}
}

test_build_steps if {
	d := doc("shell", [
		"cmake ..",
		"go build ./...",
		"bash dependencies.sh -y",
		"./configure",
		"python3 setup.py bdist_wheel",
		"pip install -e .",
		"pip wheel .",
		"git submodule update --init",
		"ls",
		"python3 -m pip install numpy",
	])
	got := {c.pos.line: sb.build_step(c) | some c in d.commands; sb.build_step(c)}
	got == {
		1: "compiles", 2: "compiles", 3: "runs the repository's script", 4: "runs the repository's script",
		5: "builds a wheel", 6: "builds and installs", 7: "builds a wheel", 8: "checks out",
	}
}

test_fetch_kinds if {
	inp := fx.one("shell", "f", [
		"git clone https://github.com/kvcache-ai/Mooncake.git",
		"curl -L https://github.com/kvcache-ai/Mooncake/archive/v1.tar.gz",
		"pip install git+https://github.com/kvcache-ai/Mooncake.git",
		"go get github.com/kvcache-ai/Mooncake/mooncake-p2p-store",
		"python3 -m pip install git+https://github.com/kvcache-ai/Mooncake",
		"uv pip install git+https://github.com/kvcache-ai/Mooncake",
		"git clone https://github.com/ai-dynamo/nixl.git",
		"echo https://github.com/kvcache-ai/Mooncake",
	])
	d := inp.documents[0]
	got := {c.pos.line: sb.fetch(m, "f", c) | some c in d.commands; sb.fetch(m, "f", c)} with input as inp
	got == {
		1: "clones", 2: "downloads", 3: "installs from the repository", 4: "installs from the repository",
		5: "installs from the repository", 6: "installs from the repository",
	}
}

test_arg_uses_named_words if {
	m := fx.migration
	sb.named_vars(m, "--build-arg MOONCAKE_BRANCH=main") == {"MOONCAKE_BRANCH"} with input as {"config": fx.config}
	sb.named_vars(m, "--set *.args.MOONCAKE_REPO=x other") == {"MOONCAKE_REPO"} with input as {"config": fx.config}
	sb.named_vars(m, "base MOONCAKE_COMMIT x") == {"MOONCAKE_COMMIT"} with input as {"config": fx.config}
	sb.named_vars(m, "base x") == set() with input as {"config": fx.config}
	sb.named_vars(m, null) == set() with input as {"config": fx.config}
}

# Issue 32: a wheel a release publishes (llm-d-kv-cache's vLLM +cpu
# wheels) is installed as it is; an sdist or a VCS URL is built.
test_release_wheel_is_no_source_build if {
	doc := buildgate.parse("shell", "a.sh", concat("\n", [
		"pip install https://github.com/kvcache-ai/Mooncake/releases/download/v${V}/mooncake-${V}-cp312-manylinux_2_35_x86_64.whl",
		"pip install https://github.com/kvcache-ai/Mooncake/releases/download/v0.3/mooncake-0.3-py3-none-any.whl",
		"pip install https://github.com/kvcache-ai/Mooncake/archive/v0.3.tar.gz",
		"pip install git+https://github.com/kvcache-ai/Mooncake@v0.3",
	]))
	{c.pos.line | some c in doc.commands; sb.fetch(fx.migration, "a.sh", c)} == {3, 4} with input as {"documents": [doc], "config": fx.config}
}
