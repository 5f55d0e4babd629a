#!/usr/bin/env bash
# No source file of the app or the widgets grows past 600 lines: a file holds one concern, and a
# longer one is split by concern before it grows further (docs/hacking.md, "Where the main
# window's code lives"). Usage: scripts/check-file-size.sh [LIMIT]   (default 600)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
limit="${1:-600}"
over=0
while IFS= read -r f; do
  n=$(wc -l <"$f")
  if ((n > limit)); then
    echo "$f: $n lines, more than $limit" >&2
    over=1
  fi
done < <(git ls-files 'app/*.cpp' 'app/*.h' 'widgets/*.cpp' 'widgets/*.h')
if ((over)); then
  echo "check-file-size: split the files above by concern (docs/hacking.md)" >&2
  exit 1
fi
echo "check-file-size: every app/ and widgets/ source is at most $limit lines"
