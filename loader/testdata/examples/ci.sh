#!/bin/bash
STAGES="base mooncake_source"
build() {
  echo "${MOONCAKE_BRANCH}"
}
