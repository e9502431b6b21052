#!/usr/bin/env bash
# Times three.js's SkeletonUtils.retargetClip against our retarget_clip on the same clip (CMU
# 01_01, 2,752 frames) onto itself and onto RobotExpressive, and one pose each way, in one run
# on this machine; prints a table (median, min–max, ratio). Not part of cargo test or CI.
#
#   scripts/threejs-bench.sh            # RUNS=15 clip runs, POSE_RUNS=2000 pose runs
#   RUNS=30 POSE_RUNS=5000 scripts/threejs-bench.sh
#
# Needs node (20 or later) and npm; installs three 0.187.0 into a cache outside the repo
# (THREE_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/retarget-studio/three-0.187) and
# builds our side as a release example (examples/clip_timing.rs).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${THREE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/retarget-studio/three-0.187}"
version=0.187.0

command -v node >/dev/null || { echo "threejs-bench: node is not installed" >&2; exit 2; }
command -v npm >/dev/null || { echo "threejs-bench: npm is not installed" >&2; exit 2; }

installed="$(node -p "try { require('$cache/node_modules/three/package.json').version } catch { '' }")"
if [ "$installed" != "$version" ]; then
  echo "threejs-bench: installing three@$version into $cache" >&2
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{ "private": true }' >"$cache/package.json"
  npm install --prefix "$cache" --no-audit --no-fund --silent "three@$version" >&2
fi

echo "threejs-bench: building examples/clip_timing (release)" >&2
(cd "$repo" && cargo build --quiet --release --example clip_timing)

echo "threejs-bench: $(nproc) cores, $(uname -m), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" >&2
THREE_DIR="$cache" OURS="$repo/target/release/examples/clip_timing" \
  node "$repo/scripts/threejs-bench.mjs"
