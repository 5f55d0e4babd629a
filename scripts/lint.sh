#!/usr/bin/env bash
# Static checks over widgets/ and app/ (app/cli included): clazy's Qt checks on every
# source, and clang-tidy's (.clang-tidy), on the dev build's compile_commands.json.
# Fails on any finding, with the list.
#
#   scripts/lint.sh                  # clazy on every source, clang-tidy on every source
#   LINT_TIDY=changed scripts/lint.sh   # clang-tidy only on the sources changed since the
#                                    # merge-base with main (what scripts/test.sh runs)
#   LINT_TIDY=none scripts/lint.sh   # clazy only
#   LINT_CLAZY=none scripts/lint.sh  # clang-tidy only (a PARAPLAN_CLAZY build ran clazy as it compiled)
#   scripts/lint.sh FILE.cpp...      # only these files
#
# Each tool parses a whole TU (Qt headers included): about 10 s (clazy) and 20 s (clang-tidy)
# of CPU per widgets/ source, so test.sh keeps clang-tidy to the changed ones.
# Needs the dev preset configured; builds the moc/uic output the sources include.
# JOBS sets the parallelism (default: the core count).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

BUILD="${BUILD:-$ROOT/build/dev}"
LINT_TIDY="${LINT_TIDY:-all}"
LINT_CLAZY="${LINT_CLAZY:-all}"
[[ $LINT_CLAZY == all || $LINT_CLAZY == none ]] || { echo "LINT_CLAZY: expected all or none, got '$LINT_CLAZY'" >&2; exit 2; }

if (($#)); then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'widgets/*.cpp' 'app/*.cpp' | sort)
fi

tidy_files=()
case $LINT_TIDY in
  all) tidy_files=("${files[@]}") ;;
  none) ;;
  changed)
    base=""
    for ref in main origin/main; do
      base=$(git merge-base HEAD "$ref" 2>/dev/null) && break
    done
    if [[ -n $base ]]; then
      # A changed header counts as a change of the source of the same name.
      mapfile -t changed < <({ git diff --name-only "$base" -- 'widgets/*.cpp' 'app/*.cpp'
                               git diff --name-only "$base" -- 'widgets/*.h' 'app/*.h' | sed 's/\.h$/.cpp/'; } | sort -u)
      for f in "${changed[@]}"; do
        [[ -f $f && " ${files[*]} " == *" $f "* ]] && tidy_files+=("$f")
      done
    fi
    ;;
  *) echo "LINT_TIDY: expected all, changed or none, got '$LINT_TIDY'" >&2; exit 2 ;;
esac

if [[ ! -f $BUILD/compile_commands.json ]]; then
  log "Configuring (dev) for compile_commands.json"
  cmake --preset dev >/dev/null
fi
# clazy's checks are the build's (PARAPLAN_CLAZY_CHECKS, cmake/ParaplanWarnings.cmake, which says why).
CLAZY_CHECKS="${CLAZY_CHECKS:-$(sed -n 's/^PARAPLAN_CLAZY_CHECKS:STRING=//p' "$BUILD/CMakeCache.txt")}"
[[ -n $CLAZY_CHECKS ]] || { echo "no PARAPLAN_CLAZY_CHECKS in $BUILD/CMakeCache.txt" >&2; exit 2; }
log "Generating moc/uic output for the checked targets"
cmake --build "$BUILD" -j "$JOBS" --target paraplan_widgets_autogen paraplan_app_lib_autogen paraplan_autogen >/dev/null

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The tools read a copy of the compile database without the precompiled header (a GCC build's .gch is
# not clang's: clang 14 stops with "not a valid precompiled PCH file") and without the clazy plugin of
# a PARAPLAN_CLAZY build, so each source is parsed with its own includes only.
python3 - "$BUILD/compile_commands.json" "$out/compile_commands.json" <<'PY'
import json, re, sys
entries = json.load(open(sys.argv[1]))
for e in entries:
    e["command"] = re.sub(r" -Winvalid-pch| -include \S*cmake_pch\.hxx"
                          r"| -Xclang -include-pch -Xclang \S+| -Xclang -include -Xclang \S*cmake_pch\.hxx"
                          r"| -Xclang -load -Xclang \S+ -Xclang -add-plugin -Xclang clazy"
                          r"| -Xclang -plugin-arg-clazy -Xclang \S+", "", e["command"])
json.dump(entries, open(sys.argv[2], "w"))
PY
export BUILD CLAZY_CHECKS out
# The compile database holds GCC's flags: clang skips the warning options it does not know.
# Findings in Qt's and other system headers are not ours (-isystem); headers of widgets/ and
# app/ are checked through the sources that include them.
run_clazy() {
  clazy-standalone -p "$out" -checks="$CLAZY_CHECKS" -header-filter='/(widgets|app)/' -ignore-dirs='_autogen' \
    --extra-arg=-Wno-unknown-warning-option "$1" >"$out/clazy_${1//\//_}.log" 2>&1 || true
}
run_tidy() {
  clang-tidy -p "$out" --quiet --extra-arg=-Wno-unknown-warning-option "$1" >"$out/tidy_${1//\//_}.log" 2>&1 || true
}
export -f run_clazy run_tidy

start=$SECONDS
nclazy=${#files[@]}; [[ $LINT_CLAZY == all ]] || nclazy=0
log "clazy ($CLAZY_CHECKS) over $nclazy files, clang-tidy over ${#tidy_files[@]} ($JOBS at a time)"
{
  if [[ $LINT_CLAZY == all ]]; then printf 'run_clazy %s\n' "${files[@]}"; fi
  if ((${#tidy_files[@]})); then printf 'run_tidy %s\n' "${tidy_files[@]}"; fi
} | xargs -P "$JOBS" -I{} bash -c '{}'
findings=$(cat "$out"/*.log 2>/dev/null | grep -E '^[^ ].*: (warning|error): ' | sort -u || true)
log "lint took $((SECONDS - start)) s"
if [[ -n $findings ]]; then
  printf '%s\n' "$findings"
  echo "lint: $(printf '%s\n' "$findings" | wc -l) finding(s) above (clazy: [-Wclazy-...], clang-tidy: [check-name])" >&2
  exit 1
fi
log "lint: clean"
