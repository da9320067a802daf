#!/usr/bin/env bash
# Installs the Debian packages mxcosim needs; installs only what is missing,
# so running it again is cheap. `--fuzz` adds what scripts/fuzz.sh needs.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  verilator
  libboost-dev libcxxopts-dev catch2 zlib1g-dev
  libyaml-cpp-dev nlohmann-json3-dev libsqlite3-dev
  chromium slurmctld slurmd slurm-client
)
# scripts/fuzz.sh: Clang and its libFuzzer runtime.
if [[ ${1:-} == --fuzz ]]; then packages+=(clang libclang-rt-dev); fi
# The HTML report's charting library comes from npm (regress/report); keep a
# Node.js that is already there (it brings its own npm).
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi

# Installs the report's npm packages (pinned by package-lock.json) when
# they are missing.
install_report_assets() {
  local dir
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/regress/report"
  if [[ ! -f "$dir/node_modules/chart.js/dist/chart.umd.js" ]]; then
    echo "install-deps: npm ci in $dir"
    (cd "$dir" && npm ci --omit=dev --no-audit --no-fund)
  fi
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  install_report_assets
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_report_assets
