#!/usr/bin/env python3
"""Compares our FBX reader with Blender's on every FBX in assets/fbx that Blender reads.

    scripts/fbx-vs-blender.py [FILE.fbx ...]

For each file (default: every .fbx under assets/fbx) that Blender 3.4's importer accepts (binary FBX
7.1 or later; ASCII and older files are skipped here, as Blender refuses them), Blender runs
once: the independent tools' pose-dump dumps the first animation stack that has keys, and
`retarget-studio dump-pose --clip <that stack>` dumps the same stack as our reader sees it.
Their pose-compare then measures the world joint positions of the joints both have,
relative to the figure's height (Blender's, used unscaled on both sides), at Blender's key
times. Every file must agree within TOL (1e-4 of height). Then our writer: the file
retargeted onto itself (`retarget --source F --target F --clip <stack> --no-plant`, a copy
of its motion) is written as FBX and as GLB, and Blender's readings of the two must agree
within TOL (a clip the retarget resamples, the fox's uneven run, is resampled in both).
Last, blend shapes: a walk retargeted onto each target with morph targets (the bundled
RobotExpressive and VALID avatar, and, when the shared corpus is there, the Ready Player Me
avatars whose visemes leave some meshes unmoved) is written as FBX, which Blender must read,
and its joints must agree within TOL with Blender's reading of the GLB of the same retarget
(written without meshes, as Blender's glTF importer has no WebP).
Exit 0 when all agree, 1 otherwise. Python standard library only; run it
with Debian's /usr/bin/python3 (Blender's numpy breaks under a pyenv python).
"""
import glob
import json
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TOOLS = os.environ.get("SHARED_TOOLS", os.path.join(ROOT, "..", "shared", "tools"))
OURS = os.environ.get("RETARGET_STUDIO", os.path.join(ROOT, "target", "debug", "retarget-studio"))
CORPUS = os.environ.get("SHARED_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))
TOL = 1e-4
MORPH_TARGETS = [
    os.path.join(ROOT, "assets", "gltf", "RobotExpressive.glb"),
    os.path.join(ROOT, "assets", "gltf", "morph", "valid_hispanic_f2_meshopt_65morphs.glb"),
    os.path.join(CORPUS, "characters", "gltf", "rpm_talkinghead_brunette_tpose_arkit_visemes.glb"),
    os.path.join(CORPUS, "sets", "gltf", "readyplayer.me_noanim.glb"),
]


def blender_reads(path):
    """Blender 3.4 reads binary FBX 7.1+ only (the independent tools' README, FBX)."""
    with open(path, "rb") as f:
        head = f.read(27)
    if not head.startswith(b"Kaydara FBX Binary  \0") or len(head) < 27:
        return False, "ASCII FBX"
    version = struct.unpack("<I", head[23:27])[0]
    if version < 7100:
        return False, f"binary FBX {version}"
    return True, f"binary FBX {version}"


def compare(path, tmp):
    name = os.path.splitext(os.path.basename(path))[0]
    blender = os.path.join(tmp, name + ".blender.json")
    ours = os.path.join(tmp, name + ".ours.json")
    r = subprocess.run([os.path.join(TOOLS, "pose-dump"), path, "-o", blender],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return False, f"pose-dump failed: {r.stderr.strip()[-400:]}"
    with open(blender) as f:
        dump = json.load(f)
    stack = dump["meta"]["animation"]
    # The figure's height in Blender's reading (Y extent at the first frame); both sides are
    # measured against it unscaled, so a unit or scale error still shows.
    ys = [p[0][1] for p in dump["joints"].values()]
    height = max(max(ys) - min(ys), 1e-9)
    # A file with no animation stack (a character in its rest pose) is compared at rest.
    clip = ["--clip", stack] if stack else []
    r = subprocess.run([OURS, "dump-pose", path, *clip, "-o", ours],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return False, f"dump-pose failed: {r.stderr.strip()[-400:]}"
    r = subprocess.run([os.path.join(TOOLS, "pose-compare"), blender, ours,
                        "--relative", "--height-a", str(height), "--height-b", str(height),
                        "--tol-max", str(TOL)], capture_output=True, text=True)
    last = (r.stdout.strip().splitlines() or [r.stderr.strip() or "(no output)"])[-1]
    return r.returncode == 0, f"stack '{stack or '(rest)'}': {last}"


def written_back(path, tmp):
    """Blender's reading of our FBX of the file's own motion against its reading of our GLB
    of the same retarget (a resampled clip, Fox's uneven run, is the same in both)."""
    name = os.path.splitext(os.path.basename(path))[0]
    with open(os.path.join(tmp, name + ".blender.json")) as f:
        stack = json.load(f)["meta"]["animation"]
    if not stack:
        return True, "no animation stack: nothing to write back"
    dumps = {}
    for ext in ("glb", "fbx"):
        out = os.path.join(tmp, f"{name}.ours.{ext}")
        dumps[ext], error = retarget_and_dump(
            ["--source", path, "--target", path, "--clip", stack, "--no-plant"], out)
        if error:
            return False, error
    good, last = compare_dumps(dumps["glb"], dumps["fbx"])
    return good, f"our FBX and GLB of stack '{stack}' onto itself: {last}"


def retarget_and_dump(args, out):
    """Our `retarget` with `args` written to `out`, then Blender's reading of it: the dump's
    path and `None`, or `None` and what failed."""
    ext = os.path.splitext(out)[1]
    r = subprocess.run([OURS, "retarget", *args, "--quiet", "--out", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"retarget to {ext} failed: {r.stderr.strip()[-400:]}"
    dump = out + ".json"
    r = subprocess.run([os.path.join(TOOLS, "pose-dump"), out, "-o", dump],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"pose-dump of our {ext} failed: {r.stderr.strip()[-400:]}"
    return dump, None


def compare_dumps(a, b):
    """pose-compare of two dumps relative to A's height at its first frame."""
    with open(a) as f:
        ys = [p[0][1] for p in json.load(f)["joints"].values()]
    height = max(max(ys) - min(ys), 1e-9)
    r = subprocess.run([os.path.join(TOOLS, "pose-compare"), a, b,
                        "--relative", "--height-a", str(height), "--height-b", str(height),
                        "--tol-max", str(TOL)], capture_output=True, text=True)
    last = (r.stdout.strip().splitlines() or [r.stderr.strip() or "(no output)"])[-1]
    return r.returncode == 0, last


def blend_shapes(target, tmp):
    """Our FBX of a walk onto a target with morph targets, against our GLB of it."""
    name = os.path.splitext(os.path.basename(target))[0]
    dumps = {}
    walk = os.path.join(ROOT, "assets", "bvh", "02_01.bvh")
    for ext, extra in (("glb", ["--animation-only"]), ("fbx", [])):
        out = os.path.join(tmp, f"{name}.shapes.{ext}")
        dumps[ext], error = retarget_and_dump(["--source", walk, "--target", target, *extra], out)
        if error:
            return False, error
    good, last = compare_dumps(dumps["glb"], dumps["fbx"])
    return good, f"our FBX and GLB of a walk onto it: {last}"


def main():
    files = sys.argv[1:] or sorted(
        glob.glob(os.path.join(ROOT, "assets", "fbx", "**", "*.fbx"), recursive=True))
    failed = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            ok, kind = blender_reads(path)
            rel = os.path.relpath(path, ROOT)
            if not ok:
                print(f"skip {rel}: {kind}, which Blender's importer refuses")
                continue
            good, what = compare(path, tmp)
            checked += 1
            print(f"{'ok  ' if good else 'FAIL'} {rel} ({kind}): {what}")
            failed += 0 if good else 1
            if good:
                good, what = written_back(path, tmp)
                checked += 1
                print(f"{'ok  ' if good else 'FAIL'} {rel} (our FBX of it): {what}")
                failed += 0 if good else 1
        for target in MORPH_TARGETS if len(sys.argv) == 1 else []:
            rel = os.path.relpath(target, ROOT)
            if not os.path.exists(target):
                print(f"skip {rel}: not there (the shared corpus is optional)")
                continue
            good, what = blend_shapes(target, tmp)
            checked += 1
            print(f"{'ok  ' if good else 'FAIL'} {rel} (blend shapes): {what}")
            failed += 0 if good else 1
    print(f"fbx-vs-blender: {checked - failed} passed, {failed} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
