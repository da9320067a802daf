#!/usr/bin/env bash
# Installs the Debian packages mxcosim needs; installs only what is missing,
# so running it again is cheap.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  verilator
  libboost-dev libcxxopts-dev catch2 zlib1g-dev
  libyaml-cpp-dev nlohmann-json3-dev libsqlite3-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
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
