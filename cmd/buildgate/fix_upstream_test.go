package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/buildgate/buildgate/fix"
)

// The source build of vLLM's ROCm Mooncake migration (PR #52650 added it,
// #55002 removed it; ../shared/corpus/vllm/SOURCE.md), put back into all
// four real after-state files where an upstream author following the
// file's own patterns puts it, in another order than testdata's and
// realBefore's: the Mooncake stages after build_deepep with their ARGs
// inside the stage (as build_nixl has them), the wheel mounted into the
// one RUN that installs NIXL and DeepEP, the bake variables beside
// DeepEP's, the cache-only target after deepep-rocm-ci, and in
// .buildkite/scripts/ci-bake-rocm.sh (the after-state is the corpus's
// latest/, from before #52650: SOURCE.md) the stage words, the pin
// extraction loop, the cache key, the metadata and the cache target,
// which #55002's digest counts as 40 removed and 3 changed lines.
var upstreamBefore = map[string][]insertion{
	"docker/Dockerfile.rocm": {
		{anchor: "# MoRI runtime dependencies live in Dockerfile.rocm so NIC backend changes do\n", before: true, text: "" +
			"# ==== Mooncake TransferEngine ====\n" +
			"# Built from source with HIP; the Go toolchain is needed by its etcd wrapper.\n" +
			"FROM base AS mooncake_source\n" +
			"ARG MOONCAKE_BRANCH=\"v0.3.9\"\n" +
			"ARG MOONCAKE_REPO=\"https://github.com/kvcache-ai/Mooncake.git\"\n" +
			"ARG MOONCAKE_GO_VERSION=\"1.23.8\"\n" +
			"RUN git clone ${MOONCAKE_REPO} /opt/Mooncake \\\n" +
			" && cd /opt/Mooncake \\\n" +
			" && git checkout ${MOONCAKE_BRANCH} \\\n" +
			" && git submodule update --init --recursive\n" +
			"\n" +
			"FROM mooncake_source AS build_mooncake\n" +
			"ARG MOONCAKE_GO_VERSION\n" +
			"RUN curl -fsSL https://go.dev/dl/go${MOONCAKE_GO_VERSION}.linux-amd64.tar.gz | tar -C /usr/local -xz\n" +
			"ENV PATH=/usr/local/go/bin:${PATH}\n" +
			"RUN cd /opt/Mooncake \\\n" +
			" && bash dependencies.sh -y \\\n" +
			" && mkdir -p build && cd build \\\n" +
			" && cmake .. -DUSE_HIP=ON -DUSE_ETCD=ON -DWITH_P2P_STORE=ON \\\n" +
			" && make -j\"${MAX_JOBS:-$(nproc)}\" \\\n" +
			" && cd .. && python3 -m build --wheel --outdir /app/mooncake_install\n" +
			"\n" +
			"FROM scratch AS export_mooncake\n" +
			"COPY --from=build_mooncake /app/mooncake_install/*.whl /\n" +
			"\n"},
		{anchor: "    --mount=type=bind,from=build_deepep,src=/app/deep_install,target=/deep_install \\\n", text: "    --mount=type=bind,from=export_mooncake,src=/,target=/mooncake_install \\\n"},
		{anchor: "    uv pip install --system /nixl_install/*.whl /deep_install/*.whl", text: " /mooncake_install/*.whl"},
	},
	"docker/ci-rocm.hcl": {
		{anchor: "variable \"DEEPEP_CACHE_KEY\" {\n  default = \"\"\n}\n", text: "\nvariable \"MOONCAKE_BRANCH\" {\n  default = \"\"\n}\n\nvariable \"MOONCAKE_CACHE_KEY\" {\n  default = \"\"\n}\n"},
		{anchor: "deepep-rocm-${DEEPEP_BRANCH}-rocshmem-${ROCSHMEM_BRANCH}\" : \"\"),\n", text: "    MOONCAKE_CACHE_KEY != \"\" ? \"type=registry,ref=${DOCKERHUB_CACHE_REPO}:mooncake-rocm-${MOONCAKE_CACHE_KEY}\" : (MOONCAKE_BRANCH != \"\" ? \"type=registry,ref=${DOCKERHUB_CACHE_REPO}:mooncake-rocm-${MOONCAKE_BRANCH}\" : \"\"),\n"},
		{anchor: "deepep-rocm-${DEEPEP_BRANCH}-rocshmem-${ROCSHMEM_BRANCH},mode=min\" : \"\"),\n  ])\n}\n", text: "\nfunction \"get_cache_to_rocm_mooncake\" {\n" +
			"  params = []\n" +
			"  result = compact([\n" +
			"    MOONCAKE_CACHE_KEY != \"\" ? \"type=registry,ref=${DOCKERHUB_CACHE_REPO}:mooncake-rocm-${MOONCAKE_CACHE_KEY},mode=min\" : (MOONCAKE_BRANCH != \"\" ? \"type=registry,ref=${DOCKERHUB_CACHE_REPO}:mooncake-rocm-${MOONCAKE_BRANCH},mode=min\" : \"\"),\n" +
			"  ])\n" +
			"}\n"},
		{anchor: "  cache-to   = get_cache_to_rocm_deepep()\n  output     = [\"type=cacheonly\"]\n}\n", text: "\ntarget \"mooncake-rocm-ci\" {\n" +
			"  inherits   = [\"_common-rocm\", \"_ci-rocm\"]\n" +
			"  target     = \"build_mooncake\"\n" +
			"  cache-from = get_cache_from_rocm_deps()\n" +
			"  cache-to   = get_cache_to_rocm_mooncake()\n" +
			"  output     = [\"type=cacheonly\"]\n" +
			"}\n"},
		{anchor: "\"deepep-rocm-ci\", \"ci-base-rocm-ci\"]\n}", before: true, text: "\"mooncake-rocm-ci\", "},
	},
	".buildkite/scripts/ci-bake-rocm.sh": {
		{anchor: "build_deepep mori_base ci_base\"\n", before: true, text: "mooncake_source build_mooncake "},
		{anchor: "    for var in NIXL_BRANCH UCX_BRANCH ROCSHMEM_BRANCH DEEPEP_BRANCH", text: " MOONCAKE_BRANCH"},
		{anchor: "            echo \"Extracted ${var}=${val} from Dockerfile.rocm\"\n        fi\n    done\n", text: "" +
			"\n" +
			"    # Mooncake's toolchain pins are read the same way.\n" +
			"    for var in MOONCAKE_GO_VERSION MOONCAKE_REPO; do\n" +
			"        val=$(resolve_dockerfile_arg_value \"${dockerfile_rocm}\" \"${var}\")\n" +
			"        if [[ -n \"${val}\" ]]; then\n" +
			"            export \"${var}=${val}\"\n" +
			"        fi\n" +
			"    done\n"},
		{anchor: "    local deepep_material=\"\"\n", text: "    local mooncake_branch=\"\"\n    local mooncake_material=\"\"\n"},
		{anchor: "    deepep_branch=$(resolve_dockerfile_arg_value \"${dockerfile_rocm}\" \"DEEPEP_BRANCH\")\n", text: "    mooncake_branch=$(resolve_dockerfile_arg_value \"${dockerfile_rocm}\" \"MOONCAKE_BRANCH\")\n"},
		{anchor: "        echo \"DeepEP dependency cache key: ${DEEPEP_CACHE_KEY}\"\n    fi\n", text: "" +
			"\n" +
			"    if [[ -n \"${mooncake_branch}\" ]]; then\n" +
			"        mooncake_material=$(compose_stage_cache_material \"${dockerfile_rocm}\" \"base mooncake_source build_mooncake\")\n" +
			"        MOONCAKE_CACHE_KEY=$(\n" +
			"            compose_dependency_cache_key \\\n" +
			"                \"${mooncake_branch}\" \\\n" +
			"                \"${mooncake_material}\"\n" +
			"        )\n" +
			"        export MOONCAKE_CACHE_KEY\n" +
			"        echo \"Mooncake dependency cache key: ${MOONCAKE_CACHE_KEY}\"\n" +
			"    fi\n"},
		{anchor: "    metadata_pair \"vllm.rocm.deepep_rocm_arch\" \"$(resolve_dockerfile_arg_value \"${dockerfile}\" \"DEEPEP_ROCM_ARCH\")\"\n", text: "" +
			"    metadata_pair \"vllm.rocm.mooncake_repo\" \"$(resolve_dockerfile_arg_value \"${dockerfile}\" \"MOONCAKE_REPO\")\"\n" +
			"    metadata_pair \"vllm.rocm.mooncake_commit\" \"${MOONCAKE_BRANCH:-$(resolve_dockerfile_arg_value \"${dockerfile}\" \"MOONCAKE_BRANCH\")}\"\n"},
		{anchor: "    metadata_pair \"vllm.rocm.deepep_cache_key\" \"${DEEPEP_CACHE_KEY:-}\"\n", text: "    metadata_pair \"vllm.rocm.mooncake_cache_key\" \"${MOONCAKE_CACHE_KEY:-}\"\n"},
		{anchor: "                printf '%s\\n' \"${cache_repo}:deepep-rocm-${DEEPEP_BRANCH}-rocshmem-${ROCSHMEM_BRANCH:-}\"\n            fi\n            ;;\n", text: "" +
			"        mooncake-rocm-ci)\n" +
			"            if [[ -n \"${MOONCAKE_CACHE_KEY:-}\" ]]; then\n" +
			"                printf '%s\\n' \"${cache_repo}:mooncake-rocm-${MOONCAKE_CACHE_KEY}\"\n" +
			"            elif [[ -n \"${MOONCAKE_BRANCH:-}\" ]]; then\n" +
			"                printf '%s\\n' \"${cache_repo}:mooncake-rocm-${MOONCAKE_BRANCH}\"\n" +
			"            fi\n" +
			"            ;;\n"},
		{anchor: "            for target in nixl-rocm-ci rocshmem-rocm-ci deepep-rocm-ci", text: " mooncake-rocm-ci"},
		{anchor: "            add_dependency_cache_target \"deepep-rocm-ci\"\n        fi\n    fi\n", text: "" +
			"\n" +
			"    if [[ \"${mode}\" != \"always\" && -n \"${MOONCAKE_CACHE_KEY:-}\" ]]; then\n" +
			"        mooncake_ref=$(dependency_cache_ref_for_target \"mooncake-rocm-ci\")\n" +
			"        if dependency_cache_ref_exists \"${mooncake_ref}\"; then\n" +
			"            echo \"Mooncake dependency cache exists: ${mooncake_ref}\"\n" +
			"        else\n" +
			"            echo \"Mooncake dependency cache missing; will seed: ${mooncake_ref}\"\n" +
			"            add_dependency_cache_target \"mooncake-rocm-ci\"\n" +
			"        fi\n" +
			"    fi\n"},
		{anchor: "    local deepep_ref=\"\"\n", text: "    local mooncake_ref=\"\"\n"},
	},
}

// upstreamAfter names where each file of the real after-state is read.
var upstreamAfter = map[string]string{
	"docker/Dockerfile.rocm":             "vllm/after/docker/Dockerfile.rocm",
	"docker/ci-rocm.hcl":                 "vllm/after/docker/ci-rocm.hcl",
	"requirements/rocm.txt":              "vllm/after/requirements/rocm.txt",
	".buildkite/scripts/ci-bake-rocm.sh": "vllm/latest/.buildkite/scripts/ci-bake-rocm.sh",
}

// buildBefore writes the before-state of upstreamBefore into a new
// directory and returns it with the real after-state it should fix into.
func buildBefore(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	want := map[string]string{}
	for rel, src := range upstreamAfter {
		b, err := os.ReadFile(filepath.Join(corpusDir(t, "vllm"), strings.TrimPrefix(src, "vllm/")))
		if err != nil {
			t.Fatal(err)
		}
		want[rel] = string(b)
		s := withoutPin(t, rel, putBack(t, rel, string(b), upstreamBefore[rel]))
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir, want
}

// differingLines counts the lines a unified diff of got against want
// adds or removes.
func differingLines(path, got, want string) int {
	n := 0
	for _, l := range strings.Split(fix.Diff(path, []byte(want), []byte(got)), "\n") {
		if (strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++")) || (strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---")) {
			n++
		}
	}
	return n
}

// Issue 30, done means: fix on the upstream-order before-state of all four
// real files gives back the real after-state within 10 differing lines,
// and lint is then clean.
func TestFixRestoresTheUpstreamOrder(t *testing.T) {
	t.Parallel()
	dir, want := buildBefore(t)
	if out := os.Getenv("BUILDGATE_KEEP_BEFORE"); out != "" {
		// For reading the before-state by hand: BUILDGATE_KEEP_BEFORE=DIR.
		_ = os.CopyFS(out, os.DirFS(dir))
	}
	rep, r := lintJSON(t, dir)
	if r.code != 1 || len(rep.Findings) < 20 {
		t.Fatalf("the before-state: exit %d, %d findings (the rules should see the source build)\n%s", r.code, len(rep.Findings), r.stdout)
	}
	fr := runBin(t, dir, "fix", "--root", ".")
	if fr.code != 0 {
		t.Errorf("fix: exit %d\n%s%s", fr.code, fr.stdout, fr.stderr)
	}
	total := 0
	for rel, w := range want {
		b, _ := os.ReadFile(filepath.Join(dir, rel))
		n := differingLines(rel, string(b), w)
		if n > 0 {
			t.Logf("%s: %d differing lines\n%s", rel, n, fix.Diff(rel, []byte(w), b))
		}
		total += n
	}
	if total > 10 {
		t.Errorf("%d lines differ from the real after-state (at most 10)", total)
	}
	if rep, r := lintJSON(t, dir); r.code != 0 || len(rep.Findings) != 0 {
		t.Errorf("after fix: exit %d, %+v", r.code, rep.Findings)
	}
}
