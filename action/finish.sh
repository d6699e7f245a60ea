#!/usr/bin/env bash
# Fails the job as lint's exit status says, after the upload ran.
# Needs: BG_STATUS (lint's exit status), BG_UPLOAD_OUTCOME.
set -euo pipefail

if [ "${BG_UPLOAD_OUTCOME:-}" = failure ]; then
  echo "::warning title=buildgate::the upload to code scanning failed (see its step); the lint result stands"
fi
case "${BG_STATUS:-2}" in
  0) exit 0 ;;
  1) echo "buildgate found problems at or above the fail-on severity (see the annotations, the job summary and code scanning)." ;;
  *) echo "buildgate could not run (exit ${BG_STATUS:-unknown}): see the Lint step's log." ;;
esac
exit "${BG_STATUS:-2}"
