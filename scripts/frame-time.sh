#!/usr/bin/env bash
# The editor's frame time and playback speed on this machine's OpenGL: plays the bundled demo
# (two skinned characters) in a window of WxH for N seconds, then prints the frames drawn,
# frame-to-frame times, CPU per frame, and clip seconds played per wall second.
#
#   scripts/frame-time.sh [WxH] [SECONDS] [editor arguments...]
#
# Without a DISPLAY it runs on its own Xvfb (Mesa's llvmpipe: software GL). The binary is
# target/release/retarget-studio unless RETARGET_STUDIO_BIN names another.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1920x1080}
seconds=${2:-10}
shift $(( $# > 2 ? 2 : $# ))
bin=${RETARGET_STUDIO_BIN:-target/release/retarget-studio}
if [ ! -x "$bin" ]; then
    cargo build --release
fi
if [ -z "${DISPLAY:-}" ]; then
    display=:$(( 90 + RANDOM % 100 ))
    Xvfb "$display" -screen 0 "${size}x24" >/dev/null 2>&1 &
    xvfb=$!
    trap 'kill $xvfb 2>/dev/null || true' EXIT
    sleep 1
    export DISPLAY=$display
fi
state=$(mktemp -d)
trap 'rm -rf "$state"; [ -n "${xvfb:-}" ] && kill "$xvfb" 2>/dev/null || true' EXIT
RETARGET_STUDIO_STATE_DIR=$state RETARGET_STUDIO_PLAY_SECONDS=$seconds \
    "$bin" --size "$size" "$@"
