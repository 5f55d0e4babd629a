#!/usr/bin/env bash
# Fails when a C++ file does not follow .clang-format (clang-format 14), with the list of
# files; changes nothing. To format them: clang-format -i FILE...
#
#   scripts/format-check.sh            # every tracked .cpp/.h
#   scripts/format-check.sh FILE...    # only these
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CLANG_FORMAT="${CLANG_FORMAT:-clang-format}"
command -v "$CLANG_FORMAT" >/dev/null || { echo "format-check: $CLANG_FORMAT is not installed (apt-get install clang-format)" >&2; exit 2; }

if (($#)); then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
fi
rc=0
out=$(printf '%s\0' "${files[@]}" | xargs -0 "$CLANG_FORMAT" --style=file --dry-run --Werror 2>&1) || rc=$?
mapfile -t bad < <(printf '%s\n' "$out" | sed -nE 's/^(.+):[0-9]+:[0-9]+: error: code should be clang-formatted.*/\1/p' | sort -u)
if ((rc != 0 && ${#bad[@]} == 0)); then
  printf '%s\n' "$out" >&2
  echo "format-check: $CLANG_FORMAT failed" >&2
  exit 2
fi
if ((${#bad[@]})); then
  printf '%s\n' "${bad[@]}"
  echo "format-check: ${#bad[@]} of ${#files[@]} files do not follow .clang-format (clang-format -i FILE to fix)" >&2
  exit 1
fi
echo "format-check: ${#files[@]} files follow .clang-format"
