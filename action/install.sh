#!/usr/bin/env bash
# Puts buildgate on PATH for the next steps.
#   BG_VERSION set (the action's `version` input): installs that release
#     with `go install` (its module version is its reported version);
#   else builds the action's own checkout, reporting the ref the action was
#     invoked at (BG_ACTION_REF: a tag, branch or commit) as its version;
#     `uses: ./` has no ref, and the build reports devel+<commit>.
# Needs: RUNNER_TEMP, GITHUB_PATH, BG_ACTION_PATH (the action's checkout).
set -euo pipefail

bin="$RUNNER_TEMP/buildgate-bin"
mkdir -p "$bin"
if [ -n "${BG_VERSION:-}" ]; then
  case "$BG_VERSION" in
    v[0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "::error title=buildgate::version input \"$BG_VERSION\": want a release tag such as v1.2.3"; exit 2 ;;
  esac
  GOBIN="$bin" go install "github.com/buildgate/buildgate/cmd/buildgate@$BG_VERSION"
else
  ldflags=""
  if [ -n "${BG_ACTION_REF:-}" ]; then
    ldflags="-X main.version=$BG_ACTION_REF"
  fi
  (cd "$BG_ACTION_PATH" && go build -trimpath -ldflags="$ldflags" -o "$bin/buildgate" ./cmd/buildgate)
fi
echo "$bin" >> "$GITHUB_PATH"
"$bin/buildgate" version
