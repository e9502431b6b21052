#!/usr/bin/env bash
# Installs what Retarget Studio needs to build, run and test on Debian/Ubuntu.
# Idempotent: installs only what is missing. Runs apt-get as root (through sudo if needed).
set -euo pipefail

packages=(
  build-essential pkg-config            # C compiler for crates that build C code (ufbx, FBX import)
  libgl1 libglx-mesa0 libgl1-mesa-dri   # OpenGL at run time (the editor's viewports)
  libxkbcommon-x11-0 libx11-6 libxcursor1 libxrandr2 libxi6  # X11 windowing at run time
  xvfb xauth                            # headless display for screenshot tests
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
  echo "setup: installing the Rust toolchain with rustup"
  command -v curl >/dev/null 2>&1 || { ${SUDO:-} apt-get install -y -qq curl ca-certificates; }
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
  echo "setup: run 'source \$HOME/.cargo/env' or open a new shell before cargo"
fi
echo "setup: ok"
