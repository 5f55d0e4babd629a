#!/usr/bin/env bash
# Installs what is missing, builds, and opens Paraplan on a built-in example project.
# Extra arguments go to the app (e.g. a project file, or --screenshot out.png).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

install_packages "${PARAPLAN_BUILD_PACKAGES[@]}"
# Only the app and the CLI: the tests and benchmarks are scripts/test.sh's to build.
build_preset dev paraplan paraplan-cli

APP="$ROOT/build/dev/app/paraplan"
args=("$@")
((${#args[@]})) || args=(--example llama3.1-70b-4nodes)

if [[ -z ${DISPLAY:-} && -z ${WAYLAND_DISPLAY:-} && ${QT_QPA_PLATFORM:-} != offscreen ]]; then
  for a in "${args[@]}"; do [[ $a == --screenshot* ]] && exec env QT_QPA_PLATFORM=offscreen "$APP" "${args[@]}"; done
  cat >&2 <<MSG
No display found. To use Paraplan on a headless machine, run it under a virtual X server:
    xvfb-run -a -s "-screen 0 1600x1000x24" $APP ${args[*]}
or render the main window to a PNG:
    $APP --screenshot paraplan.png --size 1600x1000
MSG
  exit 1
fi
log "Starting Paraplan"
exec "$APP" "${args[@]}"
