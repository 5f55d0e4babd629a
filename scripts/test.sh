#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the full suite (dev preset),
# the core suite under AddressSanitizer + UBSan, a bounded libFuzzer run, the format check
# (scripts/format-check.sh) and the static checks: clazy in the build, clang-tidy (scripts/lint.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
scripts/check-sources.sh   # comments and docs cite public sources only (docs/hacking.md)
scripts/check-file-size.sh   # no app/ or widgets/ source over 600 lines (docs/hacking.md)
scripts/check-layers.py   # widgets/ includes no app/ header; no files or rooms need each other (docs/architecture.md)

install_packages "${PARAPLAN_BUILD_PACKAGES[@]}" "${PARAPLAN_TEST_PACKAGES[@]}"
export QT_QPA_PLATFORM=offscreen

status=0

log "Format: every C++ file follows .clang-format (clang-format -i FILE to fix)"
scripts/format-check.sh || status=1

# One build for the suite, the sanitizers, the fuzzers and clazy: core is compiled twice, plain and
# under AddressSanitizer + UBSan with libFuzzer's coverage (PARAPLAN_SANITIZED_CORE); every core test
# links once to each (core_tst_*_asan, label asan) and the fuzz targets to the second; clazy's checks
# run inside the compiler on core/, widgets/ and app/ (PARAPLAN_CLAZY): docs/benchmarks.md, "CI build".
log "Configuring (dev, with core also under AddressSanitizer + UBSan, and clazy)"
cmake --preset dev -DPARAPLAN_SANITIZED_CORE=ON -DPARAPLAN_CLAZY=ON >/dev/null
log "Building (dev; a clazy finding stops the build as an error)"
cmake --build --preset dev -j "$JOBS"
log "Core tests under AddressSanitizer + UBSan"
ctest --preset dev -L asan -j "$JOBS" || status=1

FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
log "Fuzzing the input parsers for ${FUZZ_SECONDS}s"
FUZZ_BUILD=build/dev scripts/fuzz.sh "$FUZZ_SECONDS" || status=1

log "Lint: clang-tidy over the changed sources of widgets/ and app/ (clazy ran in the build)"
LINT_TIDY=changed LINT_CLAZY=none scripts/lint.sh || status=1
# The Slurm tests run against a real Slurm on loopback (scripts/slurm-up.sh; needs root).
log "Starting the loopback Slurm"
if SLURM_CONF=$(bash scripts/slurm-up.sh start); then
  export SLURM_CONF
else
  log "The loopback Slurm did not start (see above); the Slurm tests will fail"
fi
log "Full test suite"
ctest --preset dev -LE asan -j "$JOBS" 2>&1 | tee build/dev/ctest-full.log || status=1
# This script installed sshd, Slurm, torch, ffmpeg and zsh: a test that skips for want of one of them
# means the set-up is broken here, so it fails the run (CTest shows it as skipped, not passed).
if grep -q "(Skipped)" build/dev/ctest-full.log; then
  log "Tests skipped for want of a component this machine should have:"
  grep "(Skipped)" build/dev/ctest-full.log >&2
  status=1
fi

exit $status
