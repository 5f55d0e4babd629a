#!/usr/bin/env bash
# Every rule cites a source anyone can read: a framework's file and function at a named
# release, a paper's section, a man page. This check fails when a comment or a doc cites
# the team's private research notes instead (files that are not in the repository).
# Usage: scripts/check-sources.sh [DIR]   (default: the repository root)
set -uo pipefail

ROOT="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
# Names of the private note files and their folder; written in pieces so that this
# script does not match itself.
pattern='colossalai''\.md|frameworks''\.md|costmodel''\.md|gui''-notes|shared''/reference'

hits=$(grep -rnIE "$pattern" "$ROOT" \
  --exclude-dir=build --exclude-dir=.git --exclude=.git --exclude-dir=.cache --exclude-dir=node_modules)
if [[ -n $hits ]]; then
  printf '%s\n' "$hits" >&2
  echo "check-sources: the lines above cite notes that are not in the repository; cite the public" >&2
  echo "source instead (file and function at a release, paper and section) or bring the fact into docs/." >&2
  exit 1
fi
echo "check-sources: no citation of files outside the repository"
