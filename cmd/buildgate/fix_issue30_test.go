package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The shape of vLLM's ROCm files (an abridged rendition written for
// these tests; the real ones are ../shared/corpus/vllm/after and latest):
// a Dockerfile with the Mooncake stage chain, a bake file with its
// cache-only target, and a CI script with lines that name no Mooncake
// word but hold fragments ("use source", "ci.hcl", "Build mode: ci_base")
// next to expansions.
const (
	i30Dockerfile = "FROM rocm/dev AS base\n\nFROM base AS mooncake_source\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mc\n\nFROM mooncake_source AS build_mooncake\nRUN cd /opt/mc && make\n\nFROM base AS ci_base\nRUN echo ci\n"
	i30Bake       = "target \"ci-base-rocm-ci\" {\n  target = \"ci_base\"\n}\n\ntarget \"mooncake-rocm-ci\" {\n  target = \"build_mooncake\"\n}\n"
	i30Pin        = "mooncake-transfer-engine-rocm >= 0.3.13\n"
)

// Issue 30, item 1: only a whole word names a stage or a target.
func TestFixCrossFileWholeWords(t *testing.T) {
	t.Parallel()
	script := "#!/bin/bash\nset -euo pipefail\n" +
		"echo \"Non-canonical cache writes use source scope: ${CI_BASE_WRITE_SCOPE:-}\"\n" +
		"echo \"--- :page_facing_up: Loading ci.hcl ${X:-}\"\n" +
		"echo \"Build mode: ci_base ${Y:-}\"\n" +
		"docker buildx bake -f docker/ci-rocm.hcl \"${TARGET:-ci-base-rocm-ci}\"\n"
	for _, c := range []struct {
		name, script string
		fixed        bool
	}{
		{"fragments beside expansions name nothing", script, true},
		{"variant: a fragment of a stage name in a path", script + "ls /opt/build_${ARCH:-x}/mooncake\n", true},
		{"variant: a word bash builds from a loop's values still names the target", script + "for dep in nixl mooncake; do docker buildx bake \"${dep}-rocm-ci\"; done\n", false},
		{"variant: a brace expansion still names it", script + "docker buildx bake {nixl,mooncake}-rocm-ci\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, map[string]string{"docker/Dockerfile.rocm": i30Dockerfile, "docker/ci-rocm.hcl": i30Bake, "requirements/rocm.txt": i30Pin, ".buildkite/scripts/ci-bake-rocm.sh": c.script})
			r := runBin(t, dir, "fix", "--root", ".")
			b, _ := os.ReadFile(filepath.Join(dir, "docker/ci-rocm.hcl"))
			if fixed := !strings.Contains(string(b), "mooncake-rocm-ci"); fixed != c.fixed {
				t.Errorf("bake file fixed %v, want %v\n%s%s", fixed, c.fixed, r.stdout, r.stderr)
			}
			if c.fixed && r.code != 0 {
				t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// Issue 30, item 4: where the image installs its Python packages from a
// command and does not read the configured requirements file, fix adds
// the pin there and creates no file nothing reads; a step gated on the
// switch that names no part of the source build stays with its switch
// (an unsafe fix, listed); the source build's section comments and the
// PATH entry of its toolchain go.
func TestFixKeepsWhatTheImageDoes(t *testing.T) {
	t.Parallel()
	df := "FROM rocm/dev\nARG INSTALL_MOONCAKE=1\nARG MOONCAKE_REPO=https://github.com/kvcache-ai/Mooncake.git\n\n" +
		"# ==== Mooncake TransferEngine ====\n# Built from source with Go for its etcd wrapper.\n" +
		"ENV PATH=\"/usr/local/go/bin:${PATH}\"\n" +
		"RUN if [ \"${INSTALL_MOONCAKE}\" = \"1\" ]; then \\\n        apt-get install -y --no-install-recommends libibverbs-dev rdma-core && \\\n        curl -fsSL https://go.dev/dl/go1.22.2.linux-amd64.tar.gz | tar -C /usr/local -xz && rm -rf /usr/local/go/pkg/tool && \\\n        git clone ${MOONCAKE_REPO} /app/mooncake && cd /app/mooncake && cmake . && make install; \\\n    fi\n\n" +
		"# RDMA provider, required for correct RDMA operation.\n" +
		"RUN if [ \"${INSTALL_MOONCAKE}\" = \"1\" ]; then \\\n        apt-get install -y ./libionic1.deb; \\\n    fi\n\n" +
		"RUN pip install --no-cache-dir msgpack quart\n"
	dir := writeTree(t, map[string]string{"docker/Dockerfile": df})
	// Issue 32 (red team): the gated RUN also installs system packages,
	// which later steps may need: its removal, and the switch's, are
	// unsafe; the safe fix only adds the pin where the image installs
	// its Python tools.
	if r := runBin(t, dir, "lint", "--root", "."); !strings.Contains(r.stdout, "1 fixable with `buildgate fix` (6 more with --unsafe-fixes)") {
		t.Errorf("lint:\n%s", r.stdout)
	}
	r := runBin(t, dir, "fix", "--root", ".")
	b, _ := os.ReadFile(filepath.Join(dir, "docker/Dockerfile"))
	got := string(b)
	for _, want := range []string{"ARG INSTALL_MOONCAKE=1", "libionic1", `quart "mooncake-transfer-engine-rocm>=0.3.13"`, "git clone", "rdma-core"} {
		if !strings.Contains(got, want) {
			t.Errorf("lost %q:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "requirements/rocm.txt")); err == nil {
		t.Error("created requirements/rocm.txt, which the image does not read")
	}
	if r.code != 1 || !strings.Contains(r.stdout, "also does other work (`apt-get install -y --no-install-recommends libibverbs-dev rdma-core`)") || !strings.Contains(r.stdout, "6 fixes more with --unsafe-fixes") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, dir, "fix", "--root", ".", "--unsafe-fixes")
	b, _ = os.ReadFile(filepath.Join(dir, "docker/Dockerfile"))
	got = string(b)
	if r.code != 0 || strings.Contains(got, "INSTALL_MOONCAKE") || strings.Contains(got, "RDMA provider") {
		t.Errorf("--unsafe-fixes: exit %d\n%s%s\n%s", r.code, r.stdout, r.stderr, b)
	}
	for _, gone := range []string{"MOONCAKE_REPO", "==== Mooncake", "/usr/local/go/bin", "git clone"} {
		if strings.Contains(got, gone) {
			t.Errorf("left %q:\n%s", gone, got)
		}
	}
	if !strings.Contains(r.stderr, "note: line 8: the removed RUN also installed system packages (libibverbs-dev, rdma-core)") {
		t.Errorf("no note of the system packages:\n%s", r.stderr)
	}
}

// Issue 30, item 5: the smaller defects.
func TestFixSmallerDefects(t *testing.T) {
	t.Parallel()
	// A byte order mark does not block removing a block on line 1.
	dir := writeTree(t, map[string]string{"docker/docker-bake.hcl": "\ufeffvariable \"MOONCAKE_BRANCH\" {\n  default = \"\"\n}\n\ntarget \"app\" {\n  args = { X = \"1\" }\n}\n", "requirements/rocm.txt": i30Pin})
	if r := runBin(t, dir, "fix", "--root", "."); r.code != 0 {
		t.Errorf("BOM: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "docker/docker-bake.hcl")); string(b) != "\ufefftarget \"app\" {\n  args = { X = \"1\" }\n}\n" {
		t.Errorf("BOM: %q", b)
	}

	// A --build-arg on the last line of a continued command goes with the
	// backslash before it, in a CI pipeline and in a script.
	yml := "steps:\n  - command: |\n      docker build -f docker/Dockerfile.rocm \\\n        --build-arg BASE=x \\\n        --build-arg MOONCAKE_BRANCH=v0.3.9\n      echo done\n"
	sh := "#!/bin/bash\ndocker build -f docker/Dockerfile.rocm \\\n  --build-arg BASE=x \\\n  --build-arg MOONCAKE_BRANCH=v0.3.9\necho done\n"
	dir = writeTree(t, map[string]string{".buildkite/pipeline.yml": yml, "ci/build.sh": sh, "requirements/rocm.txt": i30Pin})
	if r := runBin(t, dir, "fix", "--root", "."); r.code != 0 {
		t.Errorf("continuation: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".buildkite/pipeline.yml"))
	if string(b) != "steps:\n  - command: |\n      docker build -f docker/Dockerfile.rocm \\\n        --build-arg BASE=x\n      echo done\n" {
		t.Errorf("pipeline: %q", b)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "ci/build.sh"))
	if string(b) != "#!/bin/bash\ndocker build -f docker/Dockerfile.rocm \\\n  --build-arg BASE=x\necho done\n" {
		t.Errorf("script: %q", b)
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		if out, err := exec.Command(bash, "-n", filepath.Join(dir, "ci/build.sh")).CombinedOutput(); err != nil {
			t.Errorf("bash -n: %v %s", err, out)
		}
	}

	// An exact pin below the minimum stays exact; a pin the fix would
	// loosen waits for --unsafe-fixes.
	dir = writeTree(t, map[string]string{"requirements/rocm.txt": "mooncake-transfer-engine-rocm==0.3.9\n"})
	if r := runBin(t, dir, "fix", "--root", "."); r.code != 0 || !strings.Contains(r.stdout, "Found 1 finding (1 fixed, 0 remaining)") {
		t.Errorf("exact: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "requirements/rocm.txt")); string(b) != "mooncake-transfer-engine-rocm==0.3.13\n" {
		t.Errorf("exact: %q", b)
	}
	dir = writeTree(t, map[string]string{"requirements/rocm.txt": "mooncake-transfer-engine-rocm~=0.3.0\n"})
	if r := runBin(t, dir, "fix", "--root", "."); r.code != 1 || !strings.Contains(r.stdout, "unsafe fix: require mooncake-transfer-engine-rocm >= 0.3.13") {
		t.Errorf("~=: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBin(t, dir, "fix", "--root", ".", "--unsafe-fixes"); r.code != 0 {
		t.Errorf("~= --unsafe-fixes: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A read-only file is not rewritten, and says why.
	dir = writeTree(t, map[string]string{"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.9\n"})
	p := filepath.Join(dir, "requirements/rocm.txt")
	if err := os.Chmod(p, 0o444); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, dir, "fix", "--root", ".")
	if b, _ := os.ReadFile(p); string(b) != "mooncake-transfer-engine-rocm>=0.3.9\n" || r.code != 1 || !strings.Contains(r.stdout, "read-only (mode 0444)") {
		t.Errorf("0444: exit %d %q\n%s%s", r.code, b, r.stdout, r.stderr)
	}

	// The summary and what is left go to stdout, nothing left too.
	dir = writeTree(t, map[string]string{"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.9\n"})
	if r := runBin(t, dir, "fix", "--root", "."); r.stdout != "Found 1 finding (1 fixed, 0 remaining); 1 file changed; nothing left to fix.\n" {
		t.Errorf("stdout %q", r.stdout)
	}
}

// Review of issue 30: fix repeats until nothing changes, so a second run
// changes nothing (the shape of vLLM's CUDA image, which installs a
// requirements file beside the configured one: the pin added to the
// configured file shows the image-level finding).
func TestFixRunsUntilStable(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{
		"requirements/rocm.txt": "torch\n",
		"requirements/dev.txt":  "pytest\n",
		"docker/Dockerfile":     "FROM ubuntu AS test\nRUN pip install -r requirements/dev.txt\nRUN pip install -e tests/utils\nRUN if [ -n \"${MOONCAKE_WHEEL}\" ]; then pip install \"${MOONCAKE_WHEEL}\"; fi\n",
	})
	r := runBin(t, dir, "fix", "--root", ".")
	if r.code != 0 || !strings.Contains(r.stdout, "Found 1 finding and 1 more while fixing (2 fixed, 0 remaining); 2 files changed") {
		t.Errorf("first: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBin(t, dir, "fix", "--root", ".", "--diff"); r.code != 0 || r.stdout != "" {
		t.Errorf("second: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Review of issue 30: the `source` builtin and the words echo prints name
// no stage; the word a removal would leave is a whole word (an escaped
// dash, $'…', $(echo …)) and still blocks it.
func TestFixCrossFileReview(t *testing.T) {
	t.Parallel()
	// A stage named `source` built FROM the Mooncake stage goes with it
	// (red team of issue 30).
	df := "FROM rocm/dev AS base\n\nFROM base AS mooncake_go\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /opt/mc\n\nFROM mooncake_go AS source\nRUN make -C /opt/mc\n\nFROM base AS app\nRUN echo app\n"
	yml := func(run string) string {
		return "name: b\non: push\njobs:\n  b:\n    runs-on: ubuntu-latest\n    steps:\n      - run: " + run + "\n"
	}
	for _, c := range []struct {
		name, path, script string
		fixed              bool
	}{
		{"a workflow's echo", ".github/workflows/b.yml", yml(`echo "use source ${{ github.sha }}"`), true},
		{"variant: a workflow's prose in a name", ".github/workflows/b.yml", "name: build from source\non: push\njobs:\n  b:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n", true},
		{"variant: a workflow's --target", ".github/workflows/b.yml", yml("docker build --target source -f docker/Dockerfile.rocm ."), false},
		{"variant: a compose build target", "compose.yaml", "services:\n  a:\n    build:\n      context: .\n      target: source\n", false},
		{"a bake description", "docker-bake.hcl", "variable \"TAG\" {\n  default = \"x\"\n}\n\ntarget \"app\" {\n  target      = \"app\"\n  description = \"build from source ${TAG}\"\n}\n", true},
		{"variant: a bake target's stage", "docker-bake.hcl", "target \"app\" {\n  dockerfile = \"docker/Dockerfile.rocm\"\n  target     = \"source\"\n}\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, map[string]string{"docker/Dockerfile.rocm": df, "requirements/rocm.txt": i30Pin, c.path: c.script})
			r := runBin(t, dir, "fix", "--root", ".")
			b, _ := os.ReadFile(filepath.Join(dir, "docker/Dockerfile.rocm"))
			if fixed := !strings.Contains(string(b), "AS source"); fixed != c.fixed {
				t.Errorf("fixed %v, want %v\n%s%s", fixed, c.fixed, r.stdout, r.stderr)
			}
		})
	}
	for _, c := range []struct {
		name, script string
		fixed        bool
	}{
		{"the source builtin", "#!/bin/bash\nsource ./env.sh\necho \"use source ${X:-}\"\n", true},
		{"variant: a message printed with printf", "#!/bin/bash\nprintf '%s\\n' \"building from source\" source\n", true},
		{"variant: a real --target", "#!/bin/bash\ndocker build --target source .\n", false},
		{"variant: an escaped target word", "#!/bin/bash\ndocker build --target sour\\ce .\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, map[string]string{"docker/Dockerfile.rocm": df, "requirements/rocm.txt": i30Pin, "ci/build.sh": c.script})
			r := runBin(t, dir, "fix", "--root", ".")
			b, _ := os.ReadFile(filepath.Join(dir, "docker/Dockerfile.rocm"))
			if fixed := !strings.Contains(string(b), "AS source"); fixed != c.fixed {
				t.Errorf("fixed %v, want %v\n%s%s", fixed, c.fixed, r.stdout, r.stderr)
			}
		})
	}
}

// Review of issue 30 (real-repo sweep: kvcache-ai/vllm's CUDA image): an
// image that installs a configured variant of the package (the CUDA wheel
// mooncake-transfer-engine) is another platform's, and the ROCm pin is not
// asked of its requirements files; the file it installs may come through
// a bind mount of the build context.
func TestFixLeavesVariantImagesAlone(t *testing.T) {
	t.Parallel()
	base := map[string]string{
		"requirements/rocm.txt":    "torch\nmooncake-transfer-engine-rocm >= 0.3.13\n",
		"requirements/cuda.txt":    "torch\n",
		"requirements/kv_conn.txt": "mooncake-transfer-engine >= 0.3.8\n",
	}
	for _, c := range []struct{ name, df string }{
		{"through a bind mount", "FROM nvidia/cuda AS build\nCOPY requirements /workspace/requirements\nRUN uv pip install --system -r /workspace/requirements/cuda.txt\nFROM build AS final\nRUN --mount=type=bind,source=requirements/kv_conn.txt,target=/tmp/kv.txt uv pip install --system -r /tmp/kv.txt\nRUN if [ -n \"${MOONCAKE_WHEEL}\" ]; then uv pip install --system \"${MOONCAKE_WHEEL}\"; fi\n"},
		{"variant: through a COPY", "FROM nvidia/cuda AS build\nCOPY requirements /workspace/requirements\nRUN uv pip install --system -r /workspace/requirements/cuda.txt\nFROM build AS final\nRUN uv pip install --system -r /workspace/requirements/kv_conn.txt\nRUN if [ -n \"${MOONCAKE_WHEEL}\" ]; then uv pip install --system \"${MOONCAKE_WHEEL}\"; fi\n"},
		{"variant: named in the command", "FROM nvidia/cuda AS build\nCOPY requirements /workspace/requirements\nRUN uv pip install --system -r /workspace/requirements/cuda.txt\nFROM build AS final\nRUN uv pip install --system \"mooncake-transfer-engine>=0.3.8\"\nRUN if [ -n \"${MOONCAKE_WHEEL}\" ]; then uv pip install --system \"${MOONCAKE_WHEEL}\"; fi\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{"docker/Dockerfile": c.df}
			for k, v := range base {
				files[k] = v
			}
			dir := writeTree(t, files)
			if rep, r := lintJSON(t, dir); r.code != 0 || len(rep.Findings) != 0 {
				t.Errorf("exit %d, %+v", r.code, rep.Findings)
			}
		})
	}
}

// Final review of issue 30: references as bake and the CI systems
// evaluate them, and what only looks like one. The tree is the i30 shape
// (a Dockerfile with the Mooncake chain, a bake file with its target);
// fixed says whether the removal may go ahead.
func TestFixReferencesAsTheirOwnersRead(t *testing.T) {
	t.Parallel()
	gh := func(body string) string {
		return "name: b\non:\n  workflow_dispatch:\n    inputs:\n      what:\n        default: \"ci-base-rocm-ci\"\njobs:\n  b:\n    runs-on: ubuntu-latest\n" + body
	}
	for _, c := range []struct {
		name, path, text string
		fixed            bool
	}{
		{"a bake target built from a variable", "docker/extra.hcl", "variable \"DEP\" {\n  default = \"mooncake\"\n}\ntarget \"x\" {\n  dockerfile = \"docker/Dockerfile.rocm\"\n  target     = \"build_${DEP}\"\n}\n", false},
		{"variant: from format()", "docker/extra.hcl", "target \"x\" {\n  target = format(\"build_%s\", \"mooncake\")\n}\n", false},
		{"variant: from a matrix", "docker/extra.hcl", "target \"x\" {\n  name   = \"x-${dep}\"\n  matrix = { dep = [\"base\", \"mooncake\"] }\n  target = \"build_${dep}\"\n}\n", false},
		{"variant: bake JSON", "docker-bake.json", "{\"variable\": {\"DEP\": {\"default\": \"mooncake\"}}, \"target\": {\"x\": {\"target\": \"build_${DEP}\"}}}\n", false},
		{"a label that spells a stage", "docker/extra.hcl", "target \"x\" {\n  target = \"ci_base\"\n  labels = { \"note\" = \"build_mooncake\" }\n  description = \"mooncake-rocm-ci\"\n}\n", true},
		{"a bake-action's multi-line targets", ".github/workflows/b.yml", gh("    steps:\n      - uses: docker/bake-action@v5\n        with:\n          targets: |\n            ci-base-rocm-ci\n            mooncake-rocm-ci\n"), false},
		{"variant: an input's default used by a script", ".github/workflows/b.yml", "name: b\non:\n  workflow_dispatch:\n    inputs:\n      what:\n        default: \"ci-base-rocm-ci mooncake-rocm-ci\"\njobs:\n  b:\n    runs-on: ubuntu-latest\n    steps:\n      - run: docker buildx bake -f docker/ci-rocm.hcl ${{ inputs.what }}\n", false},
		{"variant: a matrix value in a word", ".github/workflows/b.yml", gh("    strategy:\n      matrix:\n        dep: [nixl, mooncake]\n    steps:\n      - run: docker buildx bake -f docker/ci-rocm.hcl \"${{ matrix.dep }}-rocm-ci\"\n"), false},
		{"variant: a job env value in a word", ".github/workflows/b.yml", gh("    env:\n      DEP: mooncake\n    steps:\n      - run: docker buildx bake -f docker/ci-rocm.hcl \"${DEP}-rocm-ci\"\n"), false},
		{"a job named like the target that only echoes", ".github/workflows/b.yml", "name: mooncake-rocm-ci\non: push\njobs:\n  mooncake-rocm-ci:\n    name: mooncake-rocm-ci\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hello\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, map[string]string{"docker/Dockerfile.rocm": i30Dockerfile, "docker/ci-rocm.hcl": i30Bake, "requirements/rocm.txt": i30Pin, c.path: c.text})
			r := runBin(t, dir, "fix", "--root", ".")
			df, _ := os.ReadFile(filepath.Join(dir, "docker/Dockerfile.rocm"))
			bake, _ := os.ReadFile(filepath.Join(dir, "docker/ci-rocm.hcl"))
			fixed := !strings.Contains(string(df), "build_mooncake") && !strings.Contains(string(bake), "mooncake-rocm-ci")
			if fixed != c.fixed {
				t.Errorf("fixed %v, want %v\n%s%s", fixed, c.fixed, r.stdout, r.stderr)
			}
		})
	}
}

// Final review of issue 30: a removal never takes away an install of
// the published wheel (a pin a first run added to a RUN a later run finds
// gated on the switch), so a second fix changes nothing.
func TestFixKeepsTheWheelItAdded(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{"docker/Dockerfile": "FROM ubuntu:22.04 AS base\nENV BUILD_MOONCAKE=1\n" +
		"RUN if [ \"$BUILD_MOONCAKE\" = \"1\" ]; then git clone https://github.com/kvcache-ai/Mooncake.git /opt/mooncake && cd /opt/mooncake && cmake . && make install; fi\n" +
		"RUN if [ \"$BUILD_MOONCAKE\" = \"1\" ]; then pip install /opt/mooncake_deps/*.whl; fi\n"})
	runBin(t, dir, "fix", "--root", ".")
	first, _ := os.ReadFile(filepath.Join(dir, "docker/Dockerfile"))
	if !strings.Contains(string(first), `"mooncake-transfer-engine-rocm>=0.3.13"`) {
		t.Fatalf("no pin after the first fix:\n%s", first)
	}
	r := runBin(t, dir, "fix", "--root", ".")
	second, _ := os.ReadFile(filepath.Join(dir, "docker/Dockerfile"))
	if string(second) != string(first) {
		t.Errorf("the second fix changed the file:\n%s\n%s%s", second, r.stdout, r.stderr)
	}
}
