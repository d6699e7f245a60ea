# The build model, as BG104 reads it (issue 28; docs/documents.md "The
# build model"): one test per class of the issue, on fixtures of ours.
package buildgate.rules.source_build_step_test

import data.buildgate.lib.fixtures as fx
import data.buildgate.rules.source_build_step as rule

mc := "https://github.com/kvcache-ai/Mooncake.git"

# at are the [path, line] of the findings of the files.
at(files) := fx.at(got) if {
	got := rule.deny with input as fx.input_of(files)
}

# 1. The command behind its wrappers, an alias, a function, xargs.
test_model_commands_behind_commands if {
	at([["shell", "b.sh", [
		sprintf("timeout 1800 /usr/bin/git clone %s /opt/a", [mc]), # 1
		"sudo -E nice -n 5 make -C /opt/a install", # 2
		"alias g=git",
		sprintf("g clone %s /opt/b", [mc]), # 4
		sprintf("echo %s | xargs git clone", [mc]), # 5
		"retry() { \"$@\"; }",
		"cd /opt/b && retry cmake -B build", # 7
		"SUDO=\"\"",
		"$SUDO ninja -C /opt/b/build install", # 9
	]]])
}

test_model_code_that_runs_later if {
	at([["dockerfile", "Dockerfile.rocm", [
		"FROM rocm/x",
		sprintf("ONBUILD RUN git clone %s /m && make -C /m", [mc]),
		"CMD cd /m && make install",
		"RUN cat > /tmp/b <<'EOS'",
		sprintf("git clone %s /n", [mc]),
		"EOS",
		"RUN sh /tmp/b && cd /n && cmake .",
		sprintf("RUN python3 -c \"import os; os.system('git clone %s /p')\"", [mc]),
	]]]) == {["Dockerfile.rocm", 2], ["Dockerfile.rocm", 3], ["Dockerfile.rocm", 5], ["Dockerfile.rocm", 7], ["Dockerfile.rocm", 8]}
}

test_model_repository_identity if {
	at([["shell", "b.sh", [
		"git clone https://github.com:443/kvcache-ai/Mooncake.git a",
		"git clone git@github.com:KVCache-AI/mooncake b",
		"git clone https://github.com//kvcache-ai/./%4Dooncake c",
		"gh repo clone kvcache-ai/Mooncake d",
		"git clone https://github.com/kvcache-ai/Mooncake-docs.git e && make -C e html",
		"git clone https://github.com/someone/Mooncake.git /f",
		"make -C /f",
		"git clone https://github.com/other/Mooncake.git /g",
		"curl -fsSLo L https://raw.githubusercontent.com/kvcache-ai/Mooncake/main/LICENSE",
	]]]) == {["b.sh", 1], ["b.sh", 2], ["b.sh", 3], ["b.sh", 4], ["b.sh", 6], ["b.sh", 7]}
}

test_model_values_from_elsewhere if {
	at([
		["dockerfile", "docker/Dockerfile.rocm", [
			"FROM rocm/x",
			"ARG H=https://github.com",
			"ARG R=kvcache-ai/Mooncake",
			"RUN git clone $H/$R.git /a",
			"ARG SRC_URL",
			"RUN git clone ${SRC_URL} /b && make -C /b",
		]],
		["hcl", "docker-bake.hcl", [
			"variable \"U\" {",
			sprintf("  default = \"%s\"", [mc]),
			"}",
			"target \"x\" {",
			"  args = { SRC_URL = U }",
			"}",
		]],
	]) == {["docker/Dockerfile.rocm", 4], ["docker/Dockerfile.rocm", 6]}
}

test_model_where_the_build_happens if {
	at([["dockerfile", "Dockerfile.rocm", [
		"FROM rocm/x AS a",
		sprintf("RUN git clone %s /src", [mc]),
		"RUN cmake -S /src -B /b && (cd /src && make) && make",
		"FROM rocm/x AS other",
		"RUN git clone https://github.com/ROCm/rocshmem.git /src && cd /src && make",
		"FROM a AS c",
		"RUN pip install /src",
		"COPY third_party/Mooncake /v",
		"RUN cd /v && make",
		"RUN --mount=type=bind,from=a,source=/src,target=/w cd /w && make",
	]]]) == {["Dockerfile.rocm", 2], ["Dockerfile.rocm", 3], ["Dockerfile.rocm", 7], ["Dockerfile.rocm", 9], ["Dockerfile.rocm", 10]}
}

test_model_files_read_by_name_and_reference if {
	at([
		["shell", "Makefile", ["mc:", sprintf("\tgit clone %s /m", [mc]), "\tcd /m && $(MAKE) install"]],
		["shell", "justfile", ["mc:", sprintf("    git clone %s /j", [mc]), "    cmake -S /j -B /b"]],
		["shell", "tools/b.py", ["import subprocess", sprintf("subprocess.run(['git', 'clone', '%s'], cwd='/opt')", [mc])]],
		["pipeline", "compose.yaml", ["services:", "  a:", "    build:", "      dockerfile_inline: |", "        FROM rocm/x", sprintf("        RUN git clone %s", [mc])]],
		["pipeline", ".github/workflows/b.yml", [
			"on: push", "jobs:", "  b:", "    runs-on: x", "    steps:",
			"      - uses: actions/checkout@v4", "        with:", "          repository: kvcache-ai/Mooncake", "          path: mc",
			"      - run: make", "        working-directory: mc",
		]],
	]) == {
		["Makefile", 2], ["Makefile", 3], ["justfile", 2], ["justfile", 3], ["tools/b.py", 2],
		["compose.yaml", 6], [".github/workflows/b.yml", 8], [".github/workflows/b.yml", 10],
	}
}

test_model_platform_from_the_repository_and_what_runs_it if {
	at([
		["dockerfile", "cuda.Dockerfile", ["FROM nvidia/cuda:12.4", "RUN make"]],
		["shell", "none.sh", [sprintf("git clone %s /m && make -C /m", [mc])]],
	]) == set() with buildgate.source_words as fx.shows with buildgate.code_words as fx.shows
	at([
		["dockerfile", "rocm.Dockerfile", ["FROM rocm/x", "RUN bash cuda.sh"]],
		["dockerfile", "cuda.Dockerfile", ["FROM nvidia/cuda:12.4"]],
		["shell", "cuda.sh", [sprintf("git clone %s /m && cmake -S /m -DUSE_CUDA=OFF", [mc])]],
	]) == {["cuda.sh", 1]} with buildgate.source_words as fx.shows with buildgate.code_words as fx.shows
}
