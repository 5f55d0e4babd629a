#!/usr/bin/env bash
# scripts/check-layers.py catches what it is for: small widgets/ trees with one broken rule each
# must fail with the file, the line and the reason, and a clean tree must pass.
# Usage: test_check_layers.sh SOURCE_DIR
set -uo pipefail
check="$1/scripts/check-layers.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# A tree with core/util/u.h, app/mainwindow.h, and the widgets files given as "path:include...".
make_tree() {
  local dir="$tmp/$1"
  shift
  mkdir -p "$dir/core/util" "$dir/app" "$dir/widgets"
  echo '#pragma once' >"$dir/core/util/u.h"
  echo '#pragma once' >"$dir/app/mainwindow.h"
  local spec file
  for spec in "$@"; do
    file="$dir/widgets/${spec%%:*}"
    mkdir -p "$(dirname "$file")"
    echo '// fixture' >"$file"
    IFS=',' read -ra incs <<<"${spec#*:}"
    for inc in "${incs[@]}"; do [[ -n $inc ]] && echo "#include \"$inc\"" >>"$file"; done
  done
  echo "$dir"
}

# expect NAME STATUS PATTERN TREE: the check on TREE exits STATUS and its output matches PATTERN.
expect() {
  local name="$1" want="$2" pattern="$3" dir="$4" out status
  out=$(python3 "$check" "$dir" 2>&1)
  status=$?
  if [[ $status -ne $want ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $status (want $want), output:" >&2
    echo "$out" >&2
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

expect clean 0 '4 widgets/ files: no app/ include' "$(make_tree clean \
  'a/x.h:util/u.h' 'a/x.cpp:a/x.h,b/y.h' 'b/y.h:' 'b/y.cpp:b/y.h,util/u.h')"
expect app-by-name 1 'widgets/a/x.cpp:3: #include "mainwindow.h": includes an app/ header' \
  "$(make_tree app1 'a/x.h:' 'a/x.cpp:a/x.h,mainwindow.h')"
expect app-by-path 1 'widgets/a/x.h:3: #include "../../app/mainwindow.h": includes an app/ header' \
  "$(make_tree app2 'a/x.h:util/u.h,../../app/mainwindow.h')"
expect unknown-header 1 'widgets/a/x.cpp:4: #include "nowhere.h": includes a header in neither' \
  "$(make_tree unknown 'a/x.h:' 'a/x.cpp:a/x.h,util/u.h,nowhere.h')"
expect pair 1 'widgets files that need each other: a/x, a/y' \
  "$(make_tree pair 'a/x.h:' 'a/y.h:' 'a/x.cpp:a/x.h,a/y.h' 'a/y.cpp:a/y.h,a/x.h')"
# A source named after its header with a suffix (x_more.cpp) is part of x: the cycle runs through it.
expect split-source 1 'a/y.cpp:3: #include "a/x.h"' \
  "$(make_tree split 'a/x.h:' 'a/y.h:' 'a/x.cpp:a/x.h' 'a/x_more.cpp:a/x.h,a/y.h' 'a/y.cpp:a/y.h,a/x.h')"
expect three-files 1 'widgets files that need each other: a/x, a/y, a/z' \
  "$(make_tree three 'a/x.h:a/y.h' 'a/y.h:a/z.h' 'a/z.h:a/x.h')"
expect folders 1 'widgets/ folders that need each other: a, b' \
  "$(make_tree rooms 'a/x.h:' 'a/w.h:' 'b/y.h:' 'b/z.h:' 'a/x.cpp:a/x.h,b/y.h' 'b/z.cpp:b/z.h,a/w.h')"

exit $((failures > 0))
