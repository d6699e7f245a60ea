package main

import "testing"

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
		// 4. where the package comes from
		{name: "another index on the command line", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nCOPY requirements/rocm.txt /r.txt\nRUN pip install --index-url https://mirror.example/simple -r /r.txt\n"},
			want: []string{"BG203 docker/Dockerfile.rocm:3"}},
		{name: "another index from the environment", files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04 AS base\nENV UV_EXTRA_INDEX_URL=https://mirror.example/simple\nFROM base\nCOPY requirements/rocm.txt /r.txt\nRUN uv pip install --system -r /r.txt\n"},
			want: []string{"BG203 docker/Dockerfile.rocm:2"}},
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
		// 6. a repository without vLLM's layout: the finding is at the
		// image's install command (shaped like sglang's and ATOM's)
		{name: "a source build in an image without requirements/rocm.txt", noBase: true, files: map[string]string{
			df: "FROM rocm/dev-ubuntu-22.04\nRUN pip install --no-cache-dir msgpack quart\nRUN git clone https://github.com/kvcache-ai/Mooncake.git /m && cd /m && cmake -B b && make -C b install\n"},
			want: []string{"BG201 docker/Dockerfile.rocm:2", "BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:3", "BG104 docker/Dockerfile.rocm:3"}},
	})
}
