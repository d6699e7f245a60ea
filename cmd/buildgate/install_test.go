package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The install side of the build model (issue 29): what the image really
// installs decides the pin rules, not the spelling of a line. Each case
// is a fixture of ours on modelBase (a migrated tree: the Dockerfile
// copies requirements/rocm.txt and installs it); want is every finding.
func TestEffectivePin(t *testing.T) {
	df := "docker/Dockerfile.rocm"
	base := "FROM rocm/dev-ubuntu-22.04 AS base\nCOPY requirements/rocm.txt /r.txt\nRUN pip install -r /r.txt\n"
	runModelCases(t, []modelCase{
		{name: "the migrated tree is clean"},
		// 1. markers pip never applies on a Linux CPython 3 image
		{name: "a pin under a Windows marker", files: map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm >= 0.3.13 ; sys_platform == \"win32\"\n"},
			want: []string{"BG201 requirements/rocm.txt:1"}},
		{name: "a pin under python 2 or an extra", files: map[string]string{
			"requirements/rocm.txt": "numpy\nmooncake-transfer-engine-rocm>=0.3.13; python_version < \"3\" or extra == \"x\"\n"},
			want: []string{"BG201 requirements/rocm.txt:1"}},
		{name: "a pin under a Linux marker applies", files: map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm>=0.3.13; platform_system == 'Linux' and python_version >= '3.8'\n"}},
		{name: "a pin for aarch64 in an amd64 image", files: map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm >= 0.3.13 ; platform_machine == \"aarch64\"\n",
			df:                      "FROM --platform=linux/amd64 rocm/dev-ubuntu-22.04\nCOPY requirements/rocm.txt /r.txt\nRUN pip install -r /r.txt\n"},
			want: []string{"BG201 docker/Dockerfile.rocm:3"}},
		{name: "a pin for old Pythons in a Python 3.12 image", files: map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm >= 0.3.13 ; python_version < \"3.10\"\n",
			df:                      "ARG PYTHON_VERSION=3.12\nFROM rocm/dev-ubuntu-22.04\nCOPY requirements/rocm.txt /r.txt\nRUN pip install -r /r.txt\n"},
			want: []string{"BG201 docker/Dockerfile.rocm:4"}},
		{name: "a pin for x86_64 in an amd64 image applies", files: map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm >= 0.3.13 ; platform_machine == \"x86_64\"\n",
			df:                      "FROM --platform=linux/amd64 rocm/dev-ubuntu-22.04\nCOPY requirements/rocm.txt /r.txt\nRUN pip install -r /r.txt\n"}},
		{name: "a project install reads the configured file", files: map[string]string{
			"requirements/rocm.txt": "numpy\n",
			df:                      "FROM rocm/dev-ubuntu-22.04\nCOPY . /src\nRUN cd /src && pip install .\n# see requirements/rocm.txt\n"},
			want: []string{"BG201 requirements/rocm.txt:1"}},
		// 2. the image installs another file
		{name: "the image installs a file without the pin", files: map[string]string{
			"requirements/rocm-runtime.txt": "numpy\n",
			df:                              "FROM rocm/dev-ubuntu-22.04\nCOPY requirements/rocm.txt requirements/rocm-runtime.txt /req/\nRUN pip install -r /req/rocm-runtime.txt\n"},
			want: []string{"BG201 docker/Dockerfile.rocm:3"}},
		{name: "a lock file with a direct reference", files: map[string]string{
			"requirements/rocm.lock": "mooncake-transfer-engine-rocm @ git+https://github.com/kvcache-ai/Mooncake.git@v0.3.13\n",
			df:                       base + "COPY requirements/rocm.lock /l.lock\nRUN pip install -r /l.lock\n"},
			want: []string{"BG203 requirements/rocm.lock:1"}},
		// 3. installs at RUN level
		{name: "uv pip install of an old version", files: map[string]string{
			df: base + "RUN uv pip install --system \"mooncake-transfer-engine-rocm==0.3.0\"\n"},
			want: []string{"BG202 docker/Dockerfile.rocm:4"}},
		{name: "an old version from an ARG", files: map[string]string{
			df: "ARG MC=0.3.9\n" + base + "RUN python3 -m pip install mooncake_transfer_engine_rocm==${MC}\n"},
			want: []string{"BG202 docker/Dockerfile.rocm:5"}},
		{name: "an uninstall", files: map[string]string{
			df: base + "RUN pip uninstall -y mooncake-transfer-engine-rocm\n"},
			want: []string{"BG201 docker/Dockerfile.rocm:4"}},
		{name: "an uninstall then a reinstall is a swap", files: map[string]string{
			df: base + "RUN pip uninstall -y mooncake-transfer-engine-rocm && pip install 'mooncake-transfer-engine-rocm>=0.3.14'\n"}},
		{name: "an override file the build writes", files: map[string]string{
			df: base + "RUN echo 'mooncake-transfer-engine-rocm==0.3.0' > /tmp/o.txt\nENV UV_OVERRIDE=/tmp/o.txt\nRUN uv pip install --system -r /r.txt\n"},
			want: []string{"BG203 docker/Dockerfile.rocm:5"}},
		{name: "a constraints file of unknown content", files: map[string]string{
			df: base + "ENV PIP_CONSTRAINT=/etc/c.txt\nRUN pip install -r /r.txt\n"},
			want: []string{"BG203 docker/Dockerfile.rocm:4"}},
		{name: "the CUDA variant at RUN level", files: map[string]string{
			df: base + "RUN uv pip install --system mooncake-transfer-engine\n"},
			want: []string{"BG204 docker/Dockerfile.rocm:4"}},
		// 4. where the package comes from
		{name: "another index on the command line", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nCOPY requirements/rocm.txt /r.txt\nRUN pip install --index-url https://mirror.example/simple -r /r.txt\n"},
			want: []string{"BG203 docker/Dockerfile.rocm:3"}},
		{name: "another index from the environment", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04 AS base\nENV UV_EXTRA_INDEX_URL=https://mirror.example/simple\nFROM base\nCOPY requirements/rocm.txt /r.txt\nRUN uv pip install --system -r /r.txt\n"},
			want: []string{"BG203 docker/Dockerfile.rocm:2"}},
		{name: "another index among pip's general options", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nCOPY requirements/rocm.txt /r.txt\nRUN python3 -m pip --index-url https://mirror.example/simple install -r /r.txt\n"},
			want: []string{"BG203 docker/Dockerfile.rocm:3"}},
		{name: "an allowed index", files: map[string]string{
			".buildgate.yaml": "migrations:\n  - package: mooncake-transfer-engine-rocm\n    minimum: \"0.3.13\"\n    requirements: [requirements/rocm.txt]\n    indexes: [https://mirror.example/simple]\n",
			df:                "FROM rocm/dev-ubuntu-22.04\nCOPY requirements/rocm.txt /r.txt\nRUN pip install --index-url https://mirror.example/simple/ -r /r.txt\n"}},
		{name: "no-binary in the file", files: map[string]string{
			"requirements/rocm.txt": "--no-binary :all:\nmooncake-transfer-engine-rocm >= 0.3.13\n"},
			want: []string{"BG203 requirements/rocm.txt:1"}},
		{name: "no-binary from the environment", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nENV PIP_NO_BINARY=mooncake_transfer_engine_rocm\nCOPY requirements/rocm.txt /r.txt\nRUN pip install -r /r.txt\n"},
			want: []string{"BG203 docker/Dockerfile.rocm:2"}},
		{name: "a local version", files: map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm==0.3.13+rocm.custom\n"},
			want: []string{"BG203 requirements/rocm.txt:1"}},
		{name: "find-links that nothing fills", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nCOPY requirements/rocm.txt /r.txt\nRUN pip install --no-index --find-links /wheels -r /r.txt\n"},
			want: []string{"BG203 docker/Dockerfile.rocm:3", "BG203 docker/Dockerfile.rocm:3"}},
		{name: "find-links filled from the context without the package, as vLLM's /install", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nENV UV_INDEX_STRATEGY=unsafe-best-match\nCOPY ctx/base-wheels/ /tmp/bw/\nRUN mkdir -p /install\nRUN cp /tmp/bw/*.whl /install/\nCOPY requirements/rocm.txt /r.txt\nRUN uv pip install --system --find-links /install -r /r.txt\n"}},
		// 5. lines pip refuses are no pins
		{name: "extras with a trailing comma", files: map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm[a,]>=0.3.13\n"},
			want: []string{"BG001 requirements/rocm.txt:1", "BG201 requirements/rocm.txt:1"}},
		{name: "arbitrary equality swallowing a comma", files: map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm=== 0.3.13, <1\n"},
			want: []string{"BG001 requirements/rocm.txt:1", "BG201 requirements/rocm.txt:1"}},
		{name: "an egg fragment with a version and a marker", files: map[string]string{
			"requirements/rocm.txt": "git+https://github.com/kvcache-ai/Mooncake.git#egg=mooncake-transfer-engine-rocm==0.3.0 ;python_version>\"3\"\n"},
			want: []string{"BG203 requirements/rocm.txt:1"}},
		{name: "a quoted editable VCS URL", files: map[string]string{
			"requirements/rocm.txt": "-e 'git+https://github.com/kvcache-ai/Mooncake.git#egg=mooncake-transfer-engine-rocm'\n"},
			want: []string{"BG203 requirements/rocm.txt:1"}},
		// The review of issue 29 (each a false finding or a crash before)
		{name: "an uninstall undone by installing the requirements file", files: map[string]string{
			df: base + "RUN pip uninstall -y mooncake-transfer-engine-rocm && pip install -r /r.txt\n"}},
		{name: "a requirement constrained by the pinned file in the same command", files: map[string]string{
			df: base + "RUN pip install -c /r.txt mooncake-transfer-engine-rocm\n"}},
		{name: "a general option with a value before install", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nCOPY requirements/rocm.txt /r.txt\nRUN pip --timeout 100 install -r /r.txt\nRUN uv --cache-dir /c pip install --system numpy\n"}},
		{name: "an architecture a test names is no architecture of the image", files: map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm >= 0.3.13 ; platform_machine == \"x86_64\"\n",
			df:                      "FROM rocm/dev-ubuntu-22.04\nARG TARGETARCH\nCOPY requirements/rocm.txt /r.txt\nRUN if [ \"$TARGETARCH\" = \"arm64\" ]; then exit 0; fi && pip install -r /r.txt # works on aarch64 too\n"}},
		{name: "an ARG of the parent stage does not reach a child's RUN", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04 AS base\nARG PIP_INDEX_URL=https://mirror.internal/simple\nFROM base\nCOPY requirements/rocm.txt /r.txt\nRUN pip install -r /r.txt\n"}},
		{name: "an index from a build argument with no value", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nARG PIP_INDEX_URL\nENV PIP_INDEX_URL=${PIP_INDEX_URL}\nCOPY requirements/rocm.txt /r.txt\nRUN pip install -r /r.txt\n"}},
		{name: "uv sync installs the project", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nCOPY pyproject.toml ./\nCOPY requirements/rocm.txt requirements/rocm.txt\nRUN uv sync\nRUN uv pip install debugpy\n"}},
		{name: "a valued uv option is not a requirement", files: map[string]string{
			df: base + "RUN uv pip install --system --no-build-package mooncake-transfer-engine -r /r.txt\n"}},
		{name: "a marker past the evaluator's bound is kept, not a crash", files: map[string]string{
			"requirements/rocm.txt": "mooncake-transfer-engine-rocm >= 0.3.13 ; python_version > \"3\"" + strings.Repeat(" or python_version > \"3\"", 600) + "\n"}},
		// 6. a repository without vLLM's layout: the finding is at the
		// image's install command (shaped like sglang's and ATOM's)
		// ROCm/ATOM's docker/Dockerfile clones vLLM and installs vLLM's
		// requirements/rocm.txt in the clone: not the repository's file,
		// so no "create requirements/rocm.txt" nobody could act on.
		{name: "a requirements file of a cloned repository", noBase: true, files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nRUN pip install --no-cache-dir msgpack\nRUN git clone https://github.com/vllm-project/vllm /app/vllm && cd /app/vllm && pip install -r requirements/rocm.txt\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /m && cd /m && cmake -B b && make -C b install\n"},
			want: []string{"BG201 docker/Dockerfile.rocm:2", "BG104 docker/Dockerfile.rocm:4", "BG104 docker/Dockerfile.rocm:4", "BG104 docker/Dockerfile.rocm:4"}},
		{name: "a source build in an image without requirements/rocm.txt", noBase: true, files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nRUN pip install --no-cache-dir msgpack quart\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /m && cd /m && cmake -B b && make -C b install\n"},
			want: []string{"BG201 docker/Dockerfile.rocm:2", "BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:3"}}, // vLLM's Dockerfile.rocm_base: a build stage installs its own torch
		// first and goes with the source build; the pin goes to an image
		// that stays (the last stage or one it is built FROM).
		{name: "a build stage the image only copies from", noBase: true, files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04 AS base\nRUN pip install numpy\nFROM base AS mooncake-builder\nRUN pip install torch\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /m && cd /m && cmake -B b && make -C b install\nFROM base AS final\nCOPY --from=mooncake-builder /usr/local/lib /usr/local/lib\n"},
			want: []string{"BG201 docker/Dockerfile.rocm:2", "BG101 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:5", "BG104 docker/Dockerfile.rocm:5", "BG104 docker/Dockerfile.rocm:5", "BG101 docker/Dockerfile.rocm:7"}},
		{name: "the image built FROM the build stage", noBase: true, files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04 AS mooncake-builder\nRUN pip install torch\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /m && cd /m && cmake -B b && make -C b install\nFROM mooncake-builder AS final\nRUN pip install requests\n"},
			want: []string{"BG101 docker/Dockerfile.rocm:1", "BG201 docker/Dockerfile.rocm:2", "BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:3", "BG101 docker/Dockerfile.rocm:4"}},
		{name: "the build stage is the image", noBase: true, files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04 AS mooncake-build\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /m && cd /m && cmake -B b && make -C b install\nRUN pip install requests\n"},
			want: []string{"BG101 docker/Dockerfile.rocm:1", "BG104 docker/Dockerfile.rocm:2", "BG104 docker/Dockerfile.rocm:2", "BG104 docker/Dockerfile.rocm:2", "BG201 docker/Dockerfile.rocm:3"}},
	})
}

// Done means (issue 29): an image shaped like sglang's and ATOM's ROCm
// Dockerfiles (docker/rocm.Dockerfile, docker/atom_release.dockerfile:
// Mooncake built from a clone, no requirements/rocm.txt) gets the pin
// finding at its install command, and fix makes it install the wheel:
// lint is then clean of the pin rules, and a second fix changes nothing.
func TestFixInstallsTheWheelWhereTheImageInstalls(t *testing.T) {
	t.Parallel()
	df := "FROM rocm/dev-ubuntu-22.04 AS base\n" +
		"RUN pip install --no-cache-dir msgpack msgspec quart\n" +
		"ARG INSTALL_MOONCAKE=1\n" +
		"RUN if [ \"${INSTALL_MOONCAKE}\" = \"1\" ]; then git clone https://github.com/kvcache-ai/Mooncake.git /app/mc && cd /app/mc && mkdir build && cd build && cmake .. -DUSE_HIP=ON && make -j && make install; fi\n" +
		"RUN pip install --index-url https://download.pytorch.org/whl/rocm6.3 torch\n"
	dir := writeTree(t, map[string]string{"docker/rocm.Dockerfile": df})
	rep, _ := lintJSON(t, dir)
	var pin []string
	for _, f := range rep.Findings {
		if f.Rule == "BG201" {
			pin = append(pin, fmt.Sprintf("%s:%d", f.Path, f.Line))
		}
	}
	if strings.Join(pin, ",") != "docker/rocm.Dockerfile:2" {
		t.Fatalf("BG201 at %v, want docker/rocm.Dockerfile:2 (the plain install, not the one from the torch index)", pin)
	}
	if r := runBin(t, dir, "fix", "--root", "."); r.code != 0 {
		t.Fatalf("fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, "docker/rocm.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "RUN pip install --no-cache-dir msgpack msgspec quart \"mooncake-transfer-engine-rocm>=0.3.13\"\n") {
		t.Errorf("fixed Dockerfile:\n%s", got)
	}
	rep, r := lintJSON(t, dir)
	if r.code != 0 || len(rep.Findings) != 0 {
		t.Errorf("after fix: exit %d, %+v", r.code, rep.Findings)
	}
	if r := runBin(t, dir, "fix", "--root", "."); r.code != 0 || !strings.Contains(r.stdout+r.stderr, "nothing") {
		t.Errorf("second fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
