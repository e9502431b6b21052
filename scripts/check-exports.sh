#!/usr/bin/env bash
# Judges our exports with readers we did not write (the independent tools): the Khronos glTF
# validator must report zero errors, and Blender's glTF importer must see the same world
# joint positions as our own reader (pose-dump vs dump-pose, within 1 mm).
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${SHARED_TOOLS:-../shared/tools}
B=${RETARGET_STUDIO:-target/debug/retarget-studio}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

run() { echo "+ $*"; "$@"; }
run "$B" retarget --source assets/bvh/02_01.bvh --target assets/gltf/RobotExpressive.glb --out "$OUT/walk_robot.glb"
run "$B" retarget --source assets/gltf/RobotExpressive.glb --clip Dance --target assets/vrm/cryptovoxels.vrm --out "$OUT/dance_vrm.glb"
run "$B" retarget --source assets/gltf/CesiumMan.glb --target assets/gltf/RobotExpressive.glb --out "$OUT/cesium_robot.glb"
run "$B" retarget --source assets/bvh/05_06.bvh --target assets/vrm/cryptovoxels.vrm --out "$OUT/dance_anim_only.glb" --animation-only
# FBX: a target whose GLB carries the meshes the FBX reader read, and an FBX source.
run "$B" retarget --source assets/bvh/02_01.bvh --target assets/fbx/RobotExpressive.fbx --out "$OUT/walk_robot_fbx.glb"
run "$B" retarget --source assets/fbx/CesiumMan.fbx --target assets/gltf/RobotExpressive.glb --out "$OUT/cesium_fbx_robot.glb"
# Curves: the VRMA's `happy` expression onto the robot's `Sad` face morph (a weights channel).
run "$B" retarget --source assets/vrm/three-vrm_test.vrma --target assets/gltf/RobotExpressive.glb --curve happy=Sad --out "$OUT/happy_robot.glb"

failed=0
for glb in "$OUT"/*.glb; do
  name=$(basename "$glb" .glb)
  if "$TOOLS/gltf-validate" "$glb" > "$OUT/$name.validator.txt" 2>&1; then
    echo "validator $name: $(tail -n 1 "$OUT/$name.validator.txt")"
  else
    echo "validator $name FAILED:"; grep -m 20 ERROR "$OUT/$name.validator.txt" || tail -n 5 "$OUT/$name.validator.txt"
    failed=1
  fi
  "$TOOLS/pose-dump" "$glb" -a 0 -o "$OUT/$name.blender.json"
  "$B" dump-pose "$glb" -o "$OUT/$name.ours.json"
  if "$TOOLS/pose-compare" "$OUT/$name.blender.json" "$OUT/$name.ours.json" --tol-max 0.001 > "$OUT/$name.compare.txt"; then
    echo "blender vs ours $name: $(tail -n 1 "$OUT/$name.compare.txt")"
  else
    echo "blender vs ours $name FAILED: $(tail -n 3 "$OUT/$name.compare.txt")"
    failed=1
  fi
done
exit $failed
