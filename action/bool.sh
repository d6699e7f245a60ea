#!/usr/bin/env bash
# Boolean inputs of the Action: "true" or "false" in any case (YAML's
# True, TRUE); anything else is an error, never a silent "off".
# Usage: source bool.sh; v=$(bool_input NAME VALUE) || exit 2

bool_input() {
  local name=$1 value=${2:-}
  case "${value,,}" in
    true) echo true ;;
    false) echo false ;;
    *)
      echo "::error title=buildgate::input $name is \"$value\": want true or false" >&2
      return 2
      ;;
  esac
}
