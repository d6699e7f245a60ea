#!/usr/bin/env bash
# Decides whether the SARIF report can go to code scanning, before lint
# runs (lint then annotates the log itself only when it cannot).
#
# A pull request from a fork, and any run Dependabot starts, gets a
# read-only token: the upload would fail with 403 and fail a clean lint.
# Such runs skip the upload with a notice and keep the annotations.
# Needs: BG_UPLOAD (input), GITHUB_EVENT_NAME, GITHUB_REPOSITORY,
# BG_HEAD_REPO (the pull request's head repository, if any), GITHUB_ACTOR,
# GITHUB_OUTPUT.
set -euo pipefail
# shellcheck source=action/bool.sh disable=SC1091
. "$(dirname "$0")/bool.sh"

BG_UPLOAD=$(bool_input upload "${BG_UPLOAD:-true}") || exit 2
upload=true
reason=""
if [ "$BG_UPLOAD" != true ]; then
  upload=false
  reason="the upload input is not true"
elif [ "${GITHUB_ACTOR:-}" = "dependabot[bot]" ]; then
  upload=false
  reason="Dependabot's runs have a read-only token"
else
  case "${GITHUB_EVENT_NAME:-}" in
    pull_request|pull_request_review|pull_request_review_comment)
      if [ -n "${BG_HEAD_REPO:-}" ] && [ "$BG_HEAD_REPO" != "${GITHUB_REPOSITORY:-}" ]; then
        upload=false
        reason="a pull request from the fork $BG_HEAD_REPO has a read-only token"
      fi
      ;;
  esac
fi
echo "upload=$upload" >> "$GITHUB_OUTPUT"
if [ "$upload" = false ] && [ "${BG_UPLOAD:-true}" = true ]; then
  echo "::notice title=buildgate::not uploading to code scanning: $reason; the findings are annotated in this run instead"
fi
