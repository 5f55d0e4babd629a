#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the full suite (dev preset),
# the core suite under AddressSanitizer + UBSan, a bounded libFuzzer run, the format check
# (scripts/format-check.sh) and the static checks of the Qt code (scripts/lint.sh).
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

# One build for the suite and the sanitizers: core is compiled twice, plain and under AddressSanitizer
# + UBSan (PARAPLAN_SANITIZED_CORE), and every core test links once to each (core_tst_*_asan, label
# asan): the tests' own objects are compiled once (docs/benchmarks.md, "CI build").
log "Configuring (dev, with core also under AddressSanitizer + UBSan)"
cmake --preset dev -DPARAPLAN_SANITIZED_CORE=ON >/dev/null
log "Building (dev)"
cmake --build --preset dev -j "$JOBS"
log "Core tests under AddressSanitizer + UBSan"
ctest --preset dev -L asan -j "$JOBS" || status=1

log "Configuring (fuzz)"
cmake --preset fuzz >/dev/null
log "Building the fuzz targets"
cmake --build --preset fuzz -j "$JOBS" --target fuzzers
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
log "Fuzzing the input parsers for ${FUZZ_SECONDS}s"
scripts/fuzz.sh "$FUZZ_SECONDS" || status=1

log "Lint: clazy and clang-tidy over widgets/ and app/"
LINT_TIDY=changed scripts/lint.sh || status=1
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
