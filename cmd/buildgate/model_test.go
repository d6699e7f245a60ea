package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The build model (issue 28, docs/documents.md "The build model"): a pull
// request that brings the source build back by another spelling of the
// same build must fail the gate, and a file that only looks like one must
// not. Each case is a fixture of ours on a minimal ROCm tree; where it
// reproduces a real file, the comment names it. want is every finding, as
// "RULE path:line".

// modelBase is a minimal migrated tree: a ROCm Dockerfile that installs
// the pinned wheel.
var modelBase = map[string]string{
	"requirements/rocm.txt":  "mooncake-transfer-engine-rocm >= 0.3.13\n",
	"docker/Dockerfile.rocm": "FROM rocm/dev-ubuntu-22.04 AS base\nCOPY requirements/rocm.txt /r.txt\nRUN pip install -r /r.txt\n",
}

const mcURL = "https://github.com/kvcache-ai/Mooncake.git"

type modelCase struct {
	name string
	// noBase: the tree is files alone, without modelBase.
	noBase bool
	files  map[string]string
	setup  func(t *testing.T, dir string)
	args   []string
	want   []string
}

func runModelCases(t *testing.T, cases []modelCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{}
			for k, v := range modelBase {
				if !tc.noBase {
					files[k] = v
				}
			}
			for k, v := range tc.files {
				files[k] = v
			}
			dir := writeTree(t, files)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			args := append([]string{"lint", "--root", ".", "--format", "json"}, tc.args...)
			r, _ := runLimited(t, dir, time.Minute, args...)
			var out struct {
				Findings []struct {
					Rule string `json:"rule"`
					Path string `json:"path"`
					Line int    `json:"line"`
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("exit %d, output not JSON: %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
			}
			var got []string
			for _, f := range out.Findings {
				got = append(got, fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line))
			}
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			if wantCode := min(len(want), 1); r.code != wantCode {
				t.Errorf("exit %d, want %d", r.code, wantCode)
			}
		})
	}
}

// rocm is a ROCm Dockerfile stage holding the lines after its FROM.
func rocm(lines ...string) string {
	return "FROM rocm/dev-ubuntu-22.04\n" + strings.Join(lines, "\n") + "\n"
}

func TestModelCommandsBehindCommands(t *testing.T) {
	t.Parallel()
	runModelCases(t, []modelCase{
		{name: "wrappers and an absolute path", files: map[string]string{"docker/Dockerfile.rocm": rocm(
			"RUN timeout 1800 /usr/bin/git clone "+mcURL+" /opt/mc", // 2
			"RUN cd /opt/mc && sudo -E nice -n 5 make install",      // 3
		)}, want: []string{"BG104 docker/Dockerfile.rocm:2", "BG104 docker/Dockerfile.rocm:3"}},
		{name: "a function that runs its arguments", files: map[string]string{"build.sh": "#!/bin/bash\n" +
			"retry() { for i in 1 2 3; do \"$@\" && return; done; }\n" +
			"retry git clone " + mcURL + " mc\n" + // 3
			"cd mc && retry cmake -B b\n"}, // 4
			want: []string{"BG104 build.sh:3", "BG104 build.sh:4"}},
		{name: "an alias, a command substitution, xargs", files: map[string]string{"build.sh": "#!/bin/sh\n" +
			"alias g=git\n" +
			"g clone " + mcURL + " a\n" + // 3
			"$(echo git) clone " + mcURL + " b\n" + // 4
			"echo " + mcURL + " | xargs git clone\n"}, // 5
			want: []string{"BG104 build.sh:3", "BG104 build.sh:4", "BG104 build.sh:5"}},
		{name: "eval and bash -c of static strings", files: map[string]string{"build.sh": "#!/bin/bash\n" +
			"S=\"git clone " + mcURL + " /opt/mc\"\n" +
			"eval \"$S\"\n" + // 3: the clone, placed at the expansion
			"bash -c 'cd /opt/mc && make install'\n"}, // 4
			want: []string{"BG104 build.sh:3", "BG104 build.sh:4"}},
	})
}

func TestModelCodeThatRunsLater(t *testing.T) {
	t.Parallel()
	runModelCases(t, []modelCase{
		{name: "ONBUILD, CMD and an exec-form shell", files: map[string]string{"docker/Dockerfile.rocm": rocm(
			"ONBUILD RUN git clone "+mcURL+" /src/mc && make -C /src/mc", // 2
			`ENTRYPOINT ["bash", "-c", "cd /src/mc && make install"]`,    // 3
		)}, want: []string{"BG104 docker/Dockerfile.rocm:2", "BG104 docker/Dockerfile.rocm:2", "BG104 docker/Dockerfile.rocm:3"}},
		{name: "a heredoc written to a file and run in a later RUN", files: map[string]string{"docker/Dockerfile.rocm": rocm(
			"RUN cat > /tmp/b <<'EOS'",
			"git clone "+mcURL+" /opt/mc", // 3
			"cd /opt/mc && make install",  // 4
			"EOS",
			"RUN sh /tmp/b",
		)}, want: []string{"BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:4"}},
		{name: "a COPY heredoc script", files: map[string]string{"docker/Dockerfile.rocm": "# syntax=docker/dockerfile:1\n" + rocm(
			"COPY <<EOS /tmp/b.sh",
			"git clone "+mcURL, // 4
			"cd Mooncake && cmake -B build && cmake --build build", // 5
			"EOS",
			"RUN bash /tmp/b.sh",
		)}, want: []string{"BG104 docker/Dockerfile.rocm:4", "BG104 docker/Dockerfile.rocm:5", "BG104 docker/Dockerfile.rocm:5"}},
		{name: "a bake target's dockerfile-inline", files: map[string]string{"docker-bake.hcl": "target \"x\" {\n" +
			"  dockerfile-inline = <<EOT\n" +
			"FROM rocm/dev-ubuntu-22.04\n" +
			"RUN git clone " + mcURL + " && cd Mooncake && make install\n" + // 4
			"EOT\n}\n"}, want: []string{"BG104 docker-bake.hcl:4", "BG104 docker-bake.hcl:4"}},
		// A Python build step (the shape of sglang's and ATOM's
		// tools that drive builds through subprocess).
		{name: "a Python script a RUN runs, and python -c", files: map[string]string{
			"tools/build_ext.py": "import subprocess\n" +
				"URL = \"" + mcURL + "\"\n" +
				"subprocess.run([\"git\", \"clone\", URL], check=True)\n" + // 3
				"subprocess.check_call([\"make\", \"install\"], cwd=\"Mooncake\")\n", // 4
			"docker/Dockerfile.rocm": rocm(
				"COPY tools/build_ext.py /tmp/",
				"RUN python3 /tmp/build_ext.py",
				"RUN python3 -c \"import os; os.system('git clone "+mcURL+"')\"", // 4
			)}, want: []string{"BG104 tools/build_ext.py:3", "BG104 tools/build_ext.py:4", "BG104 docker/Dockerfile.rocm:4"}},
		// A directory copied, a Python with options before its script.
		{name: "a Python script in a copied directory", files: map[string]string{
			"tools/fetch.py":         "import subprocess as sp\nsp.check_output(['git', 'clone', '" + mcURL + "', '/s'])\n", // 2
			"docker/Dockerfile.rocm": rocm("COPY tools /t", "RUN python3.11 -u /t/fetch.py")},
			want: []string{"BG104 tools/fetch.py:2"}},
	})
}

func TestModelRepositoryIdentity(t *testing.T) {
	t.Parallel()
	runModelCases(t, []modelCase{
		{name: "spellings of the same repository", files: map[string]string{"build.sh": "#!/bin/bash\n" +
			"git clone https://github.com:443/kvcache-ai/Mooncake.git a\n" + // 2
			"git clone git@github.com:KVCache-AI/mooncake b\n" + // 3
			"git clone https://github.com//kvcache-ai/./%4Dooncake c\n" + // 4
			"curl -L https://api.github.com/repos/kvcache-ai/Mooncake/tarball/v0.3.5 | tar xz -C /opt/mc --strip-components=1\n" + // 5
			"gh repo clone kvcache-ai/Mooncake d\n" + // 6
			"make -C /opt/mc\n"}, // 7: in the tarball's directory
			want: []string{"BG104 build.sh:2", "BG104 build.sh:3", "BG104 build.sh:4", "BG104 build.sh:5", "BG104 build.sh:6", "BG104 build.sh:7"}},
		{name: "an archive saved by wget -qO and unzipped", files: map[string]string{"build.sh": "#!/bin/bash\n" +
			"wget -qO mc.zip https://github.com/kvcache-ai/Mooncake/archive/refs/heads/main.zip\n" + // 2
			"unzip mc.zip -d /opt && cd /opt/Mooncake-main && cmake .\n"}, // 3
			want: []string{"BG104 build.sh:2", "BG104 build.sh:3"}},
		{name: "a fork of the same name that is built", files: map[string]string{"build.sh": "#!/bin/bash\n" +
			"git clone https://github.com/someone/Mooncake.git /opt/fork\n" + // 2
			"cmake -S /opt/fork -B /tmp/b\n"}, // 3
			want: []string{"BG104 build.sh:2", "BG104 build.sh:3"}},
		{name: "remote contexts and a checkout", files: map[string]string{
			"ci.sh": "#!/bin/bash\ndocker buildx build --build-context mc=" + mcURL + " -f docker/Dockerfile.rocm .\n", // 2
			".github/workflows/img.yml": "on: push\njobs:\n  b:\n    runs-on: ubuntu-latest\n    steps:\n" +
				"      - uses: actions/checkout@v4\n        with:\n          repository: kvcache-ai/Mooncake\n          path: mc\n" + // 8
				"      - run: cd mc && make install\n" + // 10
				"      - uses: docker/build-push-action@v6\n        with:\n          context: " + mcURL + "\n"}, // 13
			want: []string{"BG104 ci.sh:2", "BG104 .github/workflows/img.yml:8", "BG104 .github/workflows/img.yml:10", "BG104 .github/workflows/img.yml:13"}},
		{name: "another repository whose name starts the same is not it", files: map[string]string{"build.sh": "#!/bin/bash\n" +
			"git clone https://github.com/kvcache-ai/Mooncake-docs.git && cd Mooncake-docs && make html\n" +
			"curl -sSLo LICENSE.mooncake https://raw.githubusercontent.com/kvcache-ai/Mooncake/main/LICENSE\n"}},
	})
}

func TestModelValuesFromElsewhere(t *testing.T) {
	t.Parallel()
	dockerfile := rocm("ARG SRC_URL", "RUN git clone ${SRC_URL} /opt/src && cd /opt/src && make install") // 3
	want := []string{"BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:3"}
	runModelCases(t, []modelCase{
		{name: "a URL of two ARGs and of shell variables", files: map[string]string{"docker/Dockerfile.rocm": rocm(
			"ARG H=https://github.com",
			"ARG R=kvcache-ai/Mooncake",
			"RUN git clone $H/$R.git /opt/a", // 4
			"RUN S=https://github.com; S+=/kvcache-ai; git clone \"$S/Mooncake\" /opt/b", // 5
		)}, want: []string{"BG104 docker/Dockerfile.rocm:4", "BG104 docker/Dockerfile.rocm:5"}},
		{name: "a bake target's args", files: map[string]string{"docker/Dockerfile.rocm": dockerfile,
			"docker-bake.hcl": "variable \"U\" {\n  default = \"" + mcURL + "\"\n}\ntarget \"x\" {\n  dockerfile = \"docker/Dockerfile.rocm\"\n  args = { SRC_URL = U }\n}\n"},
			want: want},
		{name: "a --build-arg of a script", files: map[string]string{"docker/Dockerfile.rocm": dockerfile,
			"ci.sh": "#!/bin/bash\ndocker build --build-arg SRC_URL=" + mcURL + " -f docker/Dockerfile.rocm .\n"},
			want: want},
		{name: "bake's --set", files: map[string]string{"docker/Dockerfile.rocm": dockerfile,
			"ci.sh": "#!/bin/bash\ndocker buildx bake --set '*.args.SRC_URL=" + mcURL + "'\n"},
			want: want},
		{name: "compose build args", files: map[string]string{"docker/Dockerfile.rocm": dockerfile,
			"compose.yaml": "services:\n  app:\n    build:\n      context: .\n      dockerfile: docker/Dockerfile.rocm\n      args:\n        SRC_URL: " + mcURL + "\n"},
			want: want},
	})
}

func TestModelWhereTheBuildHappens(t *testing.T) {
	t.Parallel()
	runModelCases(t, []modelCase{
		// ROCm/ATOM's CI rebuilds the image's clone with cmake -S
		// /app/mooncake (its clone is in docker/Dockerfile).
		{name: "options that name the clone", files: map[string]string{"docker/Dockerfile.rocm": rocm(
			"RUN git clone "+mcURL+" /app/mooncake",                                     // 2
			"RUN cmake -S /app/mooncake -B /tmp/b -DUSE_HIP=ON && cmake --build /tmp/b", // 3: -S
			"RUN make -C /app/mooncake/build install && pip install /app/mooncake",      // 4
			"RUN pushd /app/mooncake && sudo make install && popd && make",              // 5: make install only
		)}, want: []string{"BG104 docker/Dockerfile.rocm:2", "BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:4", "BG104 docker/Dockerfile.rocm:4", "BG104 docker/Dockerfile.rocm:5"}},
		// ai-dynamo/nixl .gitlab/build-rocm.sh: a cd inside ( … ) is gone
		// after it, and cd .. leaves the clone.
		{name: "subshells and cd .. leave the clone", files: map[string]string{"build.sh": "#!/bin/bash\n" +
			"cd /tmp\n" +
			"( git clone " + mcURL + " && cd Mooncake && make )\n" + // 3
			"make\n" +
			"git clone " + mcURL + "\n" + // 5
			"cd Mooncake && cd .. && git clone https://github.com/other/x && cd x && git checkout v1 && make\n"},
			want: []string{"BG104 build.sh:3", "BG104 build.sh:3", "BG104 build.sh:5"}},
		{name: "a copied or bind-mounted source tree", files: map[string]string{
			"third_party/Mooncake/CMakeLists.txt": "project(mooncake)\n",
			"docker/Dockerfile.rocm": rocm(
				"COPY third_party/Mooncake /src",
				"RUN cd /src && cmake -B build && cmake --build build",                           // 3
				"RUN --mount=type=bind,source=third_party/Mooncake,target=/m make -C /m install", // 4
			)}, want: []string{"BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:4"}},
	})
}

func TestModelFilesReadByNameAndReference(t *testing.T) {
	t.Parallel()
	build := "RUN git clone " + mcURL + " /opt/mc && cd /opt/mc && make install\n" // line 2 of each
	twice := func(p string) []string { return []string{"BG104 " + p + ":2", "BG104 " + p + ":2"} }
	runModelCases(t, []modelCase{
		{name: "other Dockerfile names", files: map[string]string{
			"Containerfile.rocm": "FROM rocm/x\n" + build, "docker/Dockerfile-rocm": "FROM rocm/x\n" + build,
			"docker/dockerfile_rocm": "FROM rocm/x\n" + build,
			"dockerfile_test.go":     "package x\n// RUN git clone " + mcURL + "\n"},
			want: slices.Concat(twice("Containerfile.rocm"), twice("docker/Dockerfile-rocm"), twice("docker/dockerfile_rocm"))},
		{name: "a Dockerfile under vendor/ a bake target names, and bake JSON", files: map[string]string{
			"vendor/x/Dockerfile": "FROM rocm/x\n" + build,
			"docker-bake.json":    "{\"target\": {\"x\": {\"dockerfile\": \"vendor/x/Dockerfile\"}}}\n"},
			want: twice("vendor/x/Dockerfile")},
		{name: "compose's build: a dockerfile_inline", files: map[string]string{
			"docker-compose.yml": "services:\n  app:\n    build:\n      dockerfile_inline: |\n        FROM rocm/x\n        RUN git clone " + mcURL + " && cd Mooncake && make install\n"}, // 6
			want: []string{"BG104 docker-compose.yml:6", "BG104 docker-compose.yml:6"}},
		{name: "Makefile and justfile recipes", files: map[string]string{
			"Makefile": "SRC := " + mcURL + "\n.PHONY: mc\nmc:\n\t@git clone $(SRC) /opt/mc\n\tcd /opt/mc && $(MAKE) install\n", // 4, 5
			"justfile": "mc:\n    git clone " + mcURL + " /opt/j\n    cd /opt/j && cmake -B b\n"},                               // 2, 3
			want: []string{"BG104 Makefile:4", "BG104 Makefile:5", "BG104 justfile:2", "BG104 justfile:3"}},
		{name: "a copied script without an extension, another shell's #!", files: map[string]string{
			"scripts/build_mc":       "#!/usr/bin/env -S bash -e\ngit clone " + mcURL + " /opt/mc\n", // 2
			"docker/Dockerfile.rocm": rocm("COPY scripts/build_mc /usr/local/bin/", "RUN build_mc")},
			want: []string{"BG104 scripts/build_mc:2"}},
	})
}

func TestModelPlatformAndRuntime(t *testing.T) {
	t.Parallel()
	runModelCases(t, []modelCase{
		// dusty-nv/jetson-containers packages/llm/dynamo/mooncake/build.sh:
		// a build that names no platform in a repository whose builds are
		// all NVIDIA's.
		{name: "a CUDA-only repository's build", noBase: true, files: map[string]string{
			"Dockerfile": "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nCOPY build.sh /tmp/\nRUN bash /tmp/build.sh\n",
			"build.sh":   "#!/bin/bash\ngit clone " + mcURL + " /opt/mc\ncd /opt/mc && make install\n"}},
		// A script a ROCm Dockerfile runs is ROCm's, -DUSE_CUDA=OFF or not.
		{name: "a script run by the ROCm Dockerfile", files: map[string]string{
			"Dockerfile.cuda":        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n",
			"docker/Dockerfile.rocm": rocm("COPY scripts/mc.sh /tmp/", "RUN bash /tmp/mc.sh"),
			"scripts/mc.sh":          "#!/bin/bash\ngit clone " + mcURL + " /opt/mc\ncmake -S /opt/mc -B /b -DUSE_CUDA=OFF\n"},
			want: []string{"BG104 scripts/mc.sh:2", "BG104 scripts/mc.sh:3"}},
		// sgl-project/sglang: SGLANG_HICACHE_MOONCAKE_CONFIG_PATH is where
		// the runtime reads its configuration, no cache key of a build.
		{name: "a runtime setting is no cache key", files: map[string]string{"docker/Dockerfile.rocm": rocm(
			"ENV SGLANG_HICACHE_MOONCAKE_CONFIG_PATH=/etc/mooncake.json",
			"ARG MOONCAKE_CACHE_KEY=abc", // 3
		)}, want: []string{"BG103 docker/Dockerfile.rocm:3"}},
	})
}

// A file that becomes a build file in the change counts whole in
// --new-from-rev: notes renamed into a script the Dockerfile now runs.
func TestModelNewFromRevRename(t *testing.T) {
	t.Parallel()
	runModelCases(t, []modelCase{{
		name: "a notes file renamed into a script that is run",
		files: map[string]string{
			"notes.txt": "git clone " + mcURL + " /opt/mc\ncd /opt/mc && make install\n",
		},
		setup: func(t *testing.T, dir string) {
			gitCommit(t, dir)
			git := func(args ...string) {
				cmd := exec.Command("git", args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("mv", "notes.txt", "build_mc.sh")
			if err := os.WriteFile(filepath.Join(dir, "docker/Dockerfile.rocm"), []byte(modelBase["docker/Dockerfile.rocm"]+"COPY build_mc.sh /tmp/\nRUN bash /tmp/build_mc.sh\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			git("add", "-A")
			git("commit", "-qm", "rename")
		},
		args: []string{"--new-from-rev", "HEAD~1"},
		want: []string{"BG104 build_mc.sh:1", "BG104 build_mc.sh:2"},
	}})
}
