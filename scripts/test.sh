#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the full suite (dev preset),
# the core suite under AddressSanitizer + UBSan, and a bounded libFuzzer run.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
scripts/check-sources.sh   # comments and docs cite public sources only (docs/hacking.md)

install_packages "${PARAPLAN_BUILD_PACKAGES[@]}" "${PARAPLAN_TEST_PACKAGES[@]}"
export QT_QPA_PLATFORM=offscreen

status=0

build_preset asan
log "Core tests under AddressSanitizer + UBSan"
ctest --preset asan -j "$JOBS" || status=1

log "Configuring (fuzz)"
cmake --preset fuzz >/dev/null
log "Building the fuzz targets"
cmake --build --preset fuzz -j "$JOBS" --target fuzzers
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
log "Fuzzing the input parsers for ${FUZZ_SECONDS}s"
scripts/fuzz.sh "$FUZZ_SECONDS" || status=1

build_preset dev
log "Full test suite"
ctest --preset dev -j "$JOBS" || status=1

exit $status
