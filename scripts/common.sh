# Shared by scripts/run.sh and scripts/test.sh: install missing Debian packages,
# configure and build with CMake presets (Ninja + ccache).
# It leaves the caller's shell options alone (no set -e here): each script sets its own, so
# that sourcing it in an interactive shell to get the ccache settings does not make a later
# failing command (a grep that matches nothing) end that shell.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Packages the build, the app and the tests need (Debian 12).
# The dev preset compiles with clang (CMakePresets.json) and links with lld where it is installed.
PARAPLAN_BUILD_PACKAGES=(build-essential clang cmake ninja-build ccache pkg-config
  qt6-base-dev qt6-svg-dev libqcustomplot-dev nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libgl-dev)
PARAPLAN_TEST_PACKAGES=(lld clang-format clang-tidy clazy python3 python3-yaml xvfb xauth openbox x11-utils dpkg-dev desktop-file-utils appstream file
  openssh-server openssh-client procps python3-torch slurmctld slurmd slurm-client munge ffmpeg zsh)

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || printf '%s\n' "$p"
  done
}

install_packages() {
  local missing
  mapfile -t missing < <(missing_packages "$@")
  ((${#missing[@]})) || return 0
  log "Installing missing Debian packages: ${missing[*]}"
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "Need root or sudo to install: ${missing[*]}" >&2; exit 2; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  # Refresh the package lists once if they are missing or stale (> 1 day).
  if [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n 1) ]]; then
    "${sudo[@]}" apt-get update -qq
  fi
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
# Hits across clones and worktrees: paths relative to the checkout.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
export CCACHE_NOHASHDIR=1
# The test executables and paraplan_core use precompiled headers (cmake/ParaplanTests.cmake,
# core/CMakeLists.txt): ccache caches such compiles only with these sloppiness settings
# (ccache manual, "Precompiled headers").
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
JOBS="${JOBS:-$(nproc)}"

# build_preset PRESET [TARGET...]: configure, then build the named targets (all when none).
build_preset() {
  local preset=$1
  shift
  local targets=()
  (($#)) && targets=(--target "$@")
  log "Configuring ($preset)"
  cmake --preset "$preset" >/dev/null
  log "Building ($preset${1:+: $*})"
  cmake --build --preset "$preset" -j "$JOBS" "${targets[@]}"
}
