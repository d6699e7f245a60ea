# Written for buildgate's tests: an abridged rendition of vLLM's
# docker/ci-rocm.hcl before the Mooncake wheel migration,
# reconstructed from the change description.

variable "BUILDKITE_COMMIT" {
  default = ""
}

variable "CI_MAX_JOBS" {
  default = ""
}

variable "NIXL_BRANCH" {
  default = ""
}

variable "NIXL_CACHE_KEY" {
  default = ""
}

variable "MOONCAKE_BRANCH" {
  default = ""
}

variable "MOONCAKE_CACHE_KEY" {
  default = ""
}

variable "DOCKERHUB_CACHE_REPO" {
  default = "rocm/vllm-ci-cache"
}

function "get_cache_from_rocm_deps" {
  params = []
  result = compact([
    NIXL_CACHE_KEY != "" ? "type=registry,ref=${DOCKERHUB_CACHE_REPO}:nixl-rocm-${NIXL_CACHE_KEY}" : (NIXL_BRANCH != "" ? "type=registry,ref=${DOCKERHUB_CACHE_REPO}:nixl-rocm-${NIXL_BRANCH}" : ""),
    MOONCAKE_CACHE_KEY != "" ? "type=registry,ref=${DOCKERHUB_CACHE_REPO}:mooncake-rocm-${MOONCAKE_CACHE_KEY}" : "",
    MOONCAKE_BRANCH != "" ? "type=registry,ref=${DOCKERHUB_CACHE_REPO}:mooncake-rocm-${MOONCAKE_BRANCH}" : "",
  ])
}

function "get_cache_to_rocm_mooncake" {
  params = []
  result = compact([
    MOONCAKE_CACHE_KEY != "" ? "type=registry,ref=${DOCKERHUB_CACHE_REPO}:mooncake-rocm-${MOONCAKE_CACHE_KEY},mode=min" : "",
  ])
}

function "get_cache_to_rocm_nixl" {
  params = []
  result = compact([
    NIXL_CACHE_KEY != "" ? "type=registry,ref=${DOCKERHUB_CACHE_REPO}:nixl-rocm-${NIXL_CACHE_KEY},mode=min" : "",
  ])
}

target "_ci-rocm" {
  args = {
    max_jobs        = CI_MAX_JOBS
    MOONCAKE_BRANCH = MOONCAKE_BRANCH
  }
}

target "nixl-rocm-ci" {
  inherits   = ["_common-rocm", "_ci-rocm"]
  target     = "build_nixl"
  cache-from = get_cache_from_rocm_deps()
  cache-to   = get_cache_to_rocm_nixl()
  output     = ["type=cacheonly"]
}

target "mooncake-rocm-ci" {
  inherits   = ["_common-rocm", "_ci-rocm"]
  target     = "export_mooncake"
  cache-from = get_cache_from_rocm_deps()
  cache-to   = get_cache_to_rocm_mooncake()
  output     = ["type=cacheonly"]
}

target "ci-base-rocm-ci" {
  inherits   = ["_common-rocm"]
  target     = "ci_base"
  cache-from = get_cache_from_rocm_deps()
  cache-to   = ["type=inline"]
  output     = ["type=registry"]
}

group "ci-base-rocm-ci-with-deps" {
  targets = ["nixl-rocm-ci", "mooncake-rocm-ci", "ci-base-rocm-ci"]
}
