variable "MOONCAKE_CACHE_KEY" {
  default = ""
}
group "ci" {
  targets = ["mooncake-rocm-ci"]
}
