#!/bin/bash
# Written for buildgate's tests: an abridged rendition of vLLM's
# .buildkite/scripts/ci-bake-rocm.sh after the Mooncake wheel migration.
set -euo pipefail

DEFAULT_CI_BASE_DOCKERFILE="docker/Dockerfile.rocm"
DEFAULT_CI_BASE_DOCKERFILE_STAGES="base rust-toolchain build_nixl build_rocshmem build_deepep mori_base ci_base"
VLLM_BAKE_FILE="${VLLM_BAKE_FILE:-docker/docker-bake-rocm.hcl}"
TARGET="${1:-test-rocm-ci}"
BAKE_TARGETS=("${TARGET}")
DEPENDENCY_CACHE_TARGETS=()

resolve_dockerfile_arg_value() {
    local dockerfile="$1"
    local name="$2"
    sed -n -E "s/^[[:space:]]*ARG[[:space:]]+${name}=\"?([^\"[:space:]]+)\"?.*/\\1/p" "${dockerfile}" | head -1
}

metadata_pair() {
    printf '%s=%s\n' "$1" "$2"
}

ci_base_metadata_pairs() {
    local dockerfile="${CI_BASE_DOCKERFILE:-${DEFAULT_CI_BASE_DOCKERFILE}}"
    local stages="${CI_BASE_DOCKERFILE_STAGES:-${DEFAULT_CI_BASE_DOCKERFILE_STAGES}}"

    metadata_pair "vllm.ci_base.dockerfile" "${dockerfile}"
    metadata_pair "vllm.ci_base.dockerfile_stages" "${stages}"
    metadata_pair "vllm.rocm.nixl_repo" "$(resolve_dockerfile_arg_value "${dockerfile}" "NIXL_REPO")"
    metadata_pair "vllm.rocm.nixl_commit" "${NIXL_BRANCH:-$(resolve_dockerfile_arg_value "${dockerfile}" "NIXL_BRANCH")}"
    metadata_pair "vllm.rocm.nixl_cache_key" "${NIXL_CACHE_KEY:-}"
}

extract_dependency_pins() {
    local dockerfile_rocm=""
    local var=""
    local val=""

    dockerfile_rocm="$(dirname "${VLLM_BAKE_FILE}")/Dockerfile.rocm"
    for var in NIXL_BRANCH UCX_BRANCH ROCSHMEM_BRANCH DEEPEP_BRANCH; do
        if [[ -n "${!var:-}" ]]; then
            echo "Using provided ${var}: ${!var}"
            continue
        fi
        val=$(resolve_dockerfile_arg_value "${dockerfile_rocm}" "${var}")
        if [[ -n "${val}" ]]; then
            export "${var}=${val}"
        fi
    done
}

compute_dependency_cache_keys() {
    local dockerfile_rocm=""
    local nixl_branch=""

    dockerfile_rocm="$(dirname "${VLLM_BAKE_FILE}")/Dockerfile.rocm"
    nixl_branch=$(resolve_dockerfile_arg_value "${dockerfile_rocm}" "NIXL_BRANCH")
    if [[ -n "${nixl_branch}" ]]; then
        NIXL_CACHE_KEY=$(printf '%s' "${nixl_branch}-base build_nixl" | sha256sum | cut -c1-16)
        export NIXL_CACHE_KEY
        echo "NIXL dependency cache key: ${NIXL_CACHE_KEY}"
    fi
}

dependency_cache_ref_for_target() {
    local target="$1"
    local cache_repo="${DOCKERHUB_CACHE_REPO:-rocm/vllm-ci-cache}"

    case "${target}" in
        nixl-rocm-ci)
            if [[ -n "${NIXL_CACHE_KEY:-}" ]]; then
                printf '%s\n' "${cache_repo}:nixl-rocm-${NIXL_CACHE_KEY}"
            fi
            ;;
    esac
}

add_dependency_cache_target() {
    DEPENDENCY_CACHE_TARGETS+=("$1")
}

resolve_ci_base_dependency_targets() {
    local mode="${ROCM_DEP_CACHE_EXPORT_MODE:-missing}"
    local target=""

    [[ "${TARGET}" == "ci-base-rocm-ci-with-deps" ]] || return 0
    if [[ "${mode}" == "always" ]]; then
        for target in nixl-rocm-ci; do
            if [[ -n "$(dependency_cache_ref_for_target "${target}")" ]]; then
                add_dependency_cache_target "${target}"
            fi
        done
    fi
    BAKE_TARGETS=("ci-base-rocm-ci")
}

extract_dependency_pins
compute_dependency_cache_keys
resolve_ci_base_dependency_targets
ci_base_metadata_pairs > /tmp/ci-base-metadata.txt
docker buildx bake -f "${VLLM_BAKE_FILE}" -f docker/ci-rocm.hcl "${BAKE_TARGETS[@]}" "${DEPENDENCY_CACHE_TARGETS[@]}"
