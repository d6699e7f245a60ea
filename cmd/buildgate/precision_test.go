package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// Issue 13: every false-positive class and every miss seen on real
// repositories, as a minimal fixture of ours run through the binary. The
// upstream file each reproduces is named beside it; the repositories
// themselves are swept from fetched snapshots (docs/precision.md).
func TestRealRepositoryClasses(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		// Pinned, so that BG201 does not add to what is tested here.
		"requirements/rocm.txt": "mooncake-transfer-engine-rocm >= 0.3.13\n",

		// kvcache-ai/Mooncake .claude/skills/mooncake-ci-local/scripts/
		// check-prerequisites.sh and its test scripts: process names
		// started, found or killed are no stages.
		"scripts/processes.sh": "#!/bin/bash\n" +
			"pkill -f mooncake_http_metadata_server || true\n" +
			"nohup mooncake_master --port 1 &\n" +
			"killall mooncake_client\n" +
			"which mooncake_master\n" +
			"for p in mooncake_master mooncake_client; do pkill \"$p\"; done\n",
		// kvcache-ai/Mooncake scripts/tone_tests/scripts/test_moe_mooncake.sh:
		// a test label.
		"scripts/tone_tests/test_moe_mooncake.sh": "#!/bin/bash\n" +
			"test_case_name=\"test_moe_mooncake\"\n" +
			"python3 -m pytest test_moe_mooncake.py\n",
		// kvcache-ai/Mooncake scripts/test_installation.sh: a directory of
		// the repository, and its own (default, CUDA) wheel installed from
		// it; no platform shown.
		"scripts/test_installation.sh": "#!/bin/bash\n" +
			"cd mooncake-wheel\n" +
			"cd ..\n" +
			"pip install mooncake-wheel/dist/*.whl\n",
		// kvcache-ai/Mooncake scripts/ascend/dependencies_ascend.sh: an
		// Ascend build of Mooncake is not the ROCm package's source build.
		"scripts/ascend/deps.sh": "#!/bin/bash\n" +
			"export LD_LIBRARY_PATH=/usr/local/Ascend/ascend-toolkit/latest/lib64\n" +
			"git clone https://github.com/kvcache-ai/Mooncake.git\n" +
			"cd Mooncake && mkdir build && cd build && cmake .. -DUSE_ASCEND=ON && make -j\n" +
			"pip install mooncake-wheel/dist/*.whl --force\n",
		// NVIDIA/TensorRT-LLM docker/common/install_mooncake.sh: a CUDA build.
		"docker/common/install_mooncake.sh": "#!/bin/bash\n" +
			"MOONCAKE_REPO=https://github.com/kvcache-ai/Mooncake.git\n" +
			"git clone ${MOONCAKE_REPO} /tmp/Mooncake\n" +
			"cd /tmp/Mooncake && cmake -B build -DUSE_CUDA=ON && cmake --build build\n",
		// docker-library/official-images test/config.sh and
		// docker-library/python generate-stackbrew-library.sh: valid bash
		// that mvdan/sh reads as arithmetic (associative-array keys).
		"test/config.sh": "#!/bin/bash\n" +
			"declare -A testAlias=(\n\t[:onbuild]='base'\n)\n" +
			"declare -A aliases=([3.14]='3 latest')\n" +
			"echo \"${testAlias[$repo:$variant]:-}\"\n",
		// A syntax error in a script that never mentions the migration
		// cannot hide its source build: not a finding.
		"hack/broken.sh": "#!/bin/bash\nif true; then\n  echo \"unterminated\nfi\n",
		// One that does is reported once, knock-on errors folded in: the
		// name is spelled with an escape, which hides nothing.
		"ci/broken-build.sh": "#!/bin/bash\n" +
			"R=$'https://github.com/kvcache-ai/\\x6dooncake'\n" +
			"if true; then\n  echo \"x\nfi\nfor i in a; do\n  echo )\ndone\n",

		// Misses: a RUN <<EOF heredoc that clones and builds, a switch
		// turned on (sglang docker/rocm.Dockerfile's ENV BUILD_MOONCAKE="1",
		// ROCm/ATOM's ARG INSTALL_MOONCAKE=1), WORKDIR into the clone.
		"docker/Dockerfile.rocm": "FROM rocm/dev-ubuntu-22.04 AS base\n" +
			"ENV BUILD_MOONCAKE=\"1\"\n" + // 2
			"ARG INSTALL_MOONCAKE=1\n" + // 3
			"RUN <<EOF\n" +
			"git clone https://github.com/kvcache-ai/Mooncake.git /opt/mc\n" + // 5
			"EOF\n" +
			"WORKDIR /opt/mc\n" +
			"RUN cmake -B build -DUSE_HIP=ON && cmake --build build\n", // 8
		// Shell inside shell: docker run … bash -lc, su -c, sh -c, with the
		// positions of the commands inside the quoted script (a ROCm build
		// script that runs its build in a container).
		"ci/build-rocm.sh": "#!/bin/bash\n" +
			"docker run --rm rocm/dev bash -lc 'git clone https://github.com/kvcache-ai/Mooncake.git /w/mc && cd /w/mc && make -j'\n" + // 2:37, 2:99
			"su builder -c \"pip install git+https://github.com/kvcache-ai/Mooncake\"\n" + // 3:15
			"sh -c 'true'\n",
	}
	dir := writeTree(t, files)
	rep, r := lintJSON(t, dir)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", f.Path, f.Line, f.Column, f.Rule))
	}
	sort.Strings(got)
	want := []string{
		"ci/broken-build.sh:4:8 BG001",
		"ci/build-rocm.sh:2:110 BG104", // make -j inside the quoted script
		"ci/build-rocm.sh:2:36 BG104",  // git clone inside it
		"ci/build-rocm.sh:3:16 BG104",  // pip install git+… inside su -c
		"docker/Dockerfile.rocm:2:5 BG102",
		"docker/Dockerfile.rocm:3:5 BG102",
		"docker/Dockerfile.rocm:5:1 BG104",
		"docker/Dockerfile.rocm:8:36 BG104",
		"docker/Dockerfile.rocm:8:5 BG104",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	for _, f := range rep.Findings {
		if f.Rule == "BG001" && !strings.Contains(f.Message, "and 3 more syntax errors after it, at line 5, 7, 8") {
			t.Errorf("BG001 does not fold its knock-on errors: %s", f.Message)
		}
	}
}

// The review of issues 13 and 14 found these fail-opens; each is a fixture
// through the binary.
func TestReviewFailOpens(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		files map[string]string
		want  []string // path:line rule, among the findings
	}{
		{"a CUDA comment and a rocm630 base image are no other platform", map[string]string{
			"docker/Dockerfile.mi300": "# Unlike the CUDA image, this one builds the transfer engine itself.\nFROM lmsysorg/sglang:v0.4.5-rocm630-mi30x\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/Mooncake\n",
		}, []string{"docker/Dockerfile.mi300:3 BG104"}},
		{"a directory named xpu is no other platform", map[string]string{
			"docker/xpu/Dockerfile": "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/M && cd /opt/M && make\n",
		}, []string{"docker/xpu/Dockerfile:3 BG104"}},
		{"line continuations inside an unquoted bash -c script", map[string]string{
			"build.sh": "#!/bin/bash\nbash -c g\\\ni\\\nt\\\n\\ clone\\ https://github.com/kvcache-ai/Mooncake.git\\ /opt/M\\;cd\\ /opt/M\\;make\n",
		}, []string{"build.sh:2 BG104"}},
		{"a $'…' script, a here-document and a here-string given to a shell, su --command=", map[string]string{
			"run.sh": "#!/bin/bash\n" +
				"docker run --rm img bash -lc $'git clone https://github.com/kvcache-ai/Mooncake.git /a\\ncd /a && make'\n" +
				"docker run -i img bash <<'EOF'\ngit clone https://github.com/kvcache-ai/Mooncake.git /b\nEOF\n" +
				"sh <<< \"git clone https://github.com/kvcache-ai/Mooncake.git /c\"\n" +
				"su u --command='git clone https://github.com/kvcache-ai/Mooncake.git /d'\n",
		}, []string{"run.sh:2 BG104", "run.sh:4 BG104", "run.sh:6 BG104", "run.sh:7 BG104"}},
		{"a construct mvdan/sh refuses in a RUN is an error, not a gap", map[string]string{
			"docker/Dockerfile.rocm": "FROM rocm/dev-ubuntu-22.04\nRUN f() { echo $((1.5)); }; git clone https://github.com/kvcache-ai/Mooncake.git /opt/M && cd /opt/M && make\n",
		}, []string{"docker/Dockerfile.rocm:2 BG001"}},
		{"${VAR} in a pin's extras", map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm[${MC_EXTRAS}]>=0.3.13\n",
		}, []string{"requirements/rocm.txt:1 BG202"}},
		{"a UTF-7 coding line", map[string]string{
			"requirements/rocm.txt": "# -*- coding: utf-7 -*-\n# pinned +AAo-mooncake-transfer-engine-rocm==0.3.0 # +AFw-\nmooncake-transfer-engine-rocm>=0.3.13\n",
		}, []string{"requirements/rocm.txt:1 BG001"}},
		// The second review's bypasses of those fixes.
		{"a line continuation in a double-quoted bash -c script", map[string]string{
			"build.sh": "#!/bin/bash\ndocker run rocm/pytorch bash -c \"set -e && \\\n  git clone https://github.com/kvcache-ai/Mooncake /m && \\\n  cd /m && cmake -B b -DUSE_HIP=ON && \\\n  make -C b -j\"\n",
		}, []string{"build.sh:3 BG104", "build.sh:4 BG104", "build.sh:5 BG104"}},
		{"a coding line with a vertical tab", map[string]string{
			"requirements/rocm.txt": "# coding:\vutf-7 ; python_version<\"0\"\n# +AAo-mooncake-transfer-engine-rocm==0.3.12 # \\\nmooncake-transfer-engine-rocm>=0.3.13\n",
		}, []string{"requirements/rocm.txt:1 BG001"}},
		{"a CUDA word in a block comment of a bake file", map[string]string{
			"docker/ci.hcl": "/* same stages as the CUDA bake file */\ngroup \"default\" {\n  targets = [\"mooncake-build\", \"vllm\"]\n}\ntarget \"mooncake-build\" {\n  target = \"mooncake_source\"\n}\n",
		}, []string{"docker/ci.hcl:5 BG101"}},
		{"ROCm named only in a string after a #", map[string]string{
			"docker/Dockerfile": "ARG BASE_IMAGE=ubuntu:22.04\nFROM ${BASE_IMAGE}\nRUN git clone https://github.com/kvcache-ai/Mooncake /opt/mc && cd /opt/mc && cmake -B b -DUSE_CUDA=OFF && make -C b -j\nRUN echo \"build #2 for ROCm gfx942 (HIP)\"\n",
		}, []string{"docker/Dockerfile:3 BG104"}},
		{"pre-releases count without a --pre in the files (pip install --pre, PIP_PRE)", map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm==0.3.13.*\n",
		}, []string{"requirements/rocm.txt:1 BG202"}},
		{"targets handed to bake through a variable", map[string]string{
			"ci.sh": "#!/bin/bash\nfor t in mooncake_rocm vllm_rocm; do docker buildx bake -f ci.hcl \"$t\"; done\n",
		}, []string{"ci.sh:2 BG101"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTree(t, c.files)
			rep, r := lintJSON(t, dir)
			got := map[string]bool{}
			for _, f := range rep.Findings {
				got[fmt.Sprintf("%s:%d %s", f.Path, f.Line, f.Rule)] = true
			}
			for _, w := range c.want {
				if !got[w] {
					t.Errorf("no %s (exit %d): %v", w, r.code, rep.Findings)
				}
			}
		})
	}
}
