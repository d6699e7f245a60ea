#!/usr/bin/env bash
# Runs buildgate lint and publishes what it found: the SARIF report, a job
# summary (the markdown report), annotations when there is no upload
# (code scanning annotates the same lines otherwise, and GitHub shows at
# most 10 error and 10 warning annotations per step), and the outputs
# exit-code, sarif-file, errors, warnings, notes, findings.
# Needs: RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, the BG_* inputs.
set -euo pipefail
# shellcheck source=action/bool.sh disable=SC1091
. "$(dirname "$0")/bool.sh"

BG_FROM_BASE=$(bool_input config-from-base "${BG_FROM_BASE:-true}") || exit 2
json="$RUNNER_TEMP/buildgate-report.json"
summary="$RUNNER_TEMP/buildgate-summary.md"
args=(lint --format "sarif=$BG_SARIF" --format "json=$json" --format "markdown=$summary" --fail-on "$BG_FAIL_ON")
if [ "${BG_ANNOTATE:-true}" = true ]; then
  args+=(--format github)
fi
if [ -n "${BG_CATEGORY:-}" ]; then
  args+=(--category "$BG_CATEGORY")
fi
if [ -n "${BG_CONFIG:-}" ]; then
  args+=(--config "$BG_CONFIG")
fi
if [ "${BG_FROM_BASE:-true}" = true ] && [ -n "${BG_BASE_SHA:-}" ]; then
  # A shallow checkout of the merge commit lacks the base commit.
  if ! git cat-file -e "$BG_BASE_SHA^{commit}" 2>/dev/null; then
    git -c protocol.version=2 fetch --no-tags --depth=1 origin "$BG_BASE_SHA"
  fi
  args+=(--config-from-rev "$BG_BASE_SHA")
fi
# Paths are separated by newlines, so that a path may hold spaces; a line
# may hold several paths separated by spaces when none has one.
paths=()
while IFS= read -r line; do
  [ -n "$line" ] || continue
  if [ -e "$line" ]; then
    paths+=("$line")
  else
    read -r -a words <<< "$line"
    paths+=("${words[@]}")
  fi
done <<< "${BG_PATHS:-.}"

set +e
buildgate "${args[@]}" "${paths[@]}"
status=$?
set -e

count() {
  # The JSON report's summary: "    \"errors\": 3," on its own line.
  local n
  n=$(sed -n "s/^    \"$1\": \([0-9][0-9]*\),\{0,1\}$/\1/p" "$json" 2>/dev/null | tail -n 1)
  echo "${n:-0}"
}
{
  echo "exit-code=$status"
  echo "sarif-file=$BG_SARIF"
  echo "errors=$(count errors)"
  echo "warnings=$(count warnings)"
  echo "notes=$(count notes)"
  echo "findings=$(count findings)"
  # Whether there is a report to upload, wherever sarif-file points (the
  # upload step cannot tell a path outside the workspace with hashFiles).
  if [ -s "$BG_SARIF" ]; then echo "sarif-written=true"; else echo "sarif-written=false"; fi
} >> "$GITHUB_OUTPUT"
if [ "${BG_ANNOTATE:-true}" = true ]; then
  echo "::notice title=buildgate::findings annotated in this run (no upload to code scanning)"
elif [ -s "$BG_SARIF" ]; then
  echo "::notice title=buildgate::findings go to code scanning (the SARIF report $BG_SARIF is uploaded next), not annotated here"
fi
if [ -s "$summary" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$summary" >> "$GITHUB_STEP_SUMMARY"
fi
