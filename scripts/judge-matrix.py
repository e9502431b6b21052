#!/usr/bin/env python3
"""Judges the quality matrix's exported GLBs with readers we did not write.

    scripts/judge-matrix.py DIR

DIR holds what `RETARGET_MATRIX_OUT=DIR cargo test --test e2e quality_matrix` wrote: one GLB
per case (a BVH for a BVH target) and manifest.json. Each source, output and target is read back
by Blender (the independent tools' pose-dump) and measured by their judge. Every case must pass the
thresholds (except the measures the manifest lists as known), and judge must agree with our own
`check` figures
(an independent reader: a bug shared by our reader and writer does not fool Blender; a file
this Blender cannot import, Draco, an extension its add-on lacks or a humanoid with no skin, is
read by ref-dump). The
target's own pose is its file posed in its bind pose with no animation (`target_bind`), or, for
a BVH target, the target file itself: its own clip, whose lowest feet are its floor. As `check`
does, the body is also held to the target as its file declares it (`target_declared`: Blender's
reading of the target's own first clip), and the worse figure counts.
Each case's FBX of the same retarget (written beside its output) is read by Blender's FBX
importer too, and must put every joint where Blender's reading of the GLB (or BVH) does, within
FBX_TOL of the figure's size.
judge has no penetration mode: the penetration figure (forearms and hands into the torso, a
thigh into the other, mm at 1.75 m above the bind pose's overlap; the target's worst frame
against the source's own there) is computed here, in plain Python, on Blender's readings of the
source and the output, with the body capsules our reader fitted (written into the manifest by
the matrix test): a second reader checks the positions, not the capsules.
Exit 0 when all hold, 1 otherwise. Python standard library only.
"""
import concurrent.futures as cf
import hashlib
import json
import os
import subprocess
import sys

# judge's figures as a dict, shared with the corpus harness.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
from measure import judge  # noqa: E402
from run import rest_copy  # noqa: E402

TOOLS = os.environ.get("SHARED_TOOLS", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "tools"))
LIMITS = {"direction": 5.0, "body": 1e-2, "pelvis": 0.05, "ground": 25.0, "skate": 5.0,
          "grip": 30.0, "penetration": 10.0}
# Finger segments' directions in the hand's frame, mean degrees (cases whose spec has hands).
LIMITS["fingers"] = 5.0
# How far Blender's reading of a case's FBX may be from its reading of the GLB, as a share of
# the figure's size (its largest extent at the first frame).
FBX_TOL = 1e-4
# How far judge's reading may be from ours before the two readers disagree.
AGREE = {"direction": 0.5, "body": 2e-3, "pelvis": 0.02, "ground": 8.0, "skate": 5.0,
         "grip": 3.0, "penetration": 5.0}
AGREE["fingers"] = 0.5
# The share of a thigh's axis cut from its top (core::body::capsules::THIGH_TRIM).
THIGH_TRIM = 0.3


# A humanoid of bare nodes (a VRM with no skin): Blender makes empties, not an armature.
NO_ARMATURE = "no armature (skeleton) found"
# What this Blender cannot import (no Draco library; glTF extensions its add-on lacks): such
# files are read by ref-dump, the tools' pure-Python evaluator, instead.
BLENDER_CANNOT = ("libextern_draco", "is not available on this addon version",
                  "unsupported input type '.vrma'", NO_ARMATURE)
# pose-dump options ref-dump does not take, with their values.
BLENDER_ONLY = ("--armature",)


def dump(args):
    path, extra, out = args
    # A dump older than its file is of an earlier run into the same folder: dump again.
    stale = not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(path)
    if stale:
        r = subprocess.run([os.path.join(TOOLS, "pose-dump"), path, "-o", out] + extra,
                           capture_output=True, text=True)
        if r.returncode != 0 and any(c in r.stderr for c in BLENDER_CANNOT):
            plain = [a for i, a in enumerate(extra)
                     if a not in BLENDER_ONLY and (i == 0 or extra[i - 1] not in BLENDER_ONLY)]
            # A VRMA or a skinless humanoid has no armature: its nodes are the joints.
            bare = path.endswith(".vrma") or NO_ARMATURE in r.stderr
            nodes = ["--all-nodes"] if bare else []
            r = subprocess.run([os.path.join(TOOLS, "ref-dump"), path, "-o", out] + plain + nodes,
                               capture_output=True, text=True)
            if r.returncode == 0:
                print(f"read by ref-dump (Blender cannot import it): {path}")
        if r.returncode != 0:
            return f"{path}: {r.stderr.strip().splitlines()[-1:]}"
    return None


def closest(p0, p1, q0, q1):
    """The parameters of the closest points of two segments (Ericson 5.1.9)."""
    sub = lambda a, b: [a[i] - b[i] for i in range(3)]
    dot = lambda a, b: sum(a[i] * b[i] for i in range(3))
    d1, d2, r = sub(p1, p0), sub(q1, q0), sub(p0, q0)
    a, e, f = dot(d1, d1), dot(d2, d2), dot(d2, r)
    clamp = lambda x: min(1.0, max(0.0, x))
    if a <= 1e-12 and e <= 1e-12:
        return 0.0, 0.0
    if a <= 1e-12:
        return 0.0, clamp(f / e)
    c = dot(d1, r)
    if e <= 1e-12:
        return clamp(-c / a), 0.0
    b = dot(d1, d2)
    denom = a * e - b * b
    s = clamp((b * f - c * e) / denom) if denom > 1e-12 * a * e else 0.0
    t = (b * s + f) / e
    if t < 0.0:
        t, s = 0.0, clamp(-c / a)
    elif t > 1.0:
        t, s = 1.0, clamp((b - c) / a)
    return s, t


def capsule(c, at, frame):
    """A capsule's axis and radius at one frame of a dump (`None` if a joint is missing)."""
    lerp = lambda a, b, t: [a[i] + (b[i] - a[i]) * t for i in range(3)]
    if c["joint"] not in at:
        return None
    start = at[c["joint"]][frame]
    if c["end"] is not None:
        if c["end"] not in at:
            return None
        end = at[c["end"]][frame]
    else:
        name, share = c["beyond"]
        if name not in at:
            return None
        before = at[name][frame]
        end = [start[i] + (start[i] - before[i]) * share for i in range(3)]
    if c["part"] in ("left_thigh", "right_thigh"):
        start = lerp(start, end, THIGH_TRIM)
    return start, end, c["radius"]


def penetration(dump, body):
    """Per frame, the deepest pair's depth over its bind overlap (mm at 1.75 m)."""
    at = json.load(open(dump))["joints"]
    frames = min(len(v) for v in at.values())
    mm = 1750.0 / max(body["height"], 1e-9)
    out = []
    for f in range(frames):
        deepest = 0.0
        for k, (limb, other) in enumerate(body["pairs"]):
            caps = lambda part: [x for x in (capsule(c, at, f) for c in body["capsules"]
                                             if c["part"] == part) if x]
            base = max(body["bind_mm"][k] or 0.0, 0.0)
            for a in caps(limb):
                for b in caps(other):
                    s, t = closest(a[0], a[1], b[0], b[1])
                    pa = [a[0][i] + (a[1][i] - a[0][i]) * s for i in range(3)]
                    pb = [b[0][i] + (b[1][i] - b[0][i]) * t for i in range(3)]
                    d = sum((pa[i] - pb[i]) ** 2 for i in range(3)) ** 0.5
                    deepest = max(deepest, (a[2] + b[2] - d) * mm - base)
        out.append(deepest)
    return out


def penetration_excess(case, a, b):
    """The target's worst frame against the source's own there, or `None` without capsules."""
    bodies = case.get("capsules") or {}
    if not bodies.get("source") or not bodies.get("target"):
        return None
    src, tgt = penetration(a, bodies["source"]), penetration(b, bodies["target"])
    return max(t - (src[i] if i < len(src) else 0.0) for i, t in enumerate(tgt))


def declared_reading(dumps, work):
    """The target's first clip followed by its nodes' rest, as one reading."""
    clip = dumps["target_declared"]
    rest = dumps.get("target_rest")
    if not rest or not os.path.exists(rest):
        return clip
    a, b = json.load(open(clip)), json.load(open(rest))
    joints = {n: v + b["joints"][n] for n, v in a["joints"].items() if n in b["joints"]}
    out = os.path.join(work, os.path.basename(clip) + ".rest.json")
    json.dump(dict(a, frames=a["frames"] + [a["frames"][-1] + 1.0], joints=joints), open(out, "w"))
    return out


def measure(case, dumps, work):
    a, b, t = dumps["source"], dumps["output"], dumps["target"]
    spec = os.path.join(work, case["slug"] + ".spec.json")
    json.dump(case["spec"], open(spec, "w"))
    own = dict(case["spec"])
    own["hips_b"] = own["hips_a"]
    own["segments"] = [[s[0], s[0]] for s in own["segments"]]
    own["feet"] = [[f[0], f[0]] for f in own["feet"]]
    spec_own = os.path.join(work, case["slug"] + ".own.json")
    json.dump(own, open(spec_own, "w"))
    d = judge("directions", a, b, spec)
    i = judge("integrity", dumps.get("target_own", t), b)
    if "target_declared" in dumps:
        # As `check` does: the body held to the target as its file declares it (Blender's
        # reading of its own first clip, then of its nodes' rest where the file has one
        # apart: a bone the two disagree on is not held rigid) as well as to its bind
        # pose; the worse of the two.
        declared = judge("integrity", declared_reading(dumps, work), b)
        if declared and (not i or declared.get("length_change_max", 0) > i.get("length_change_max", 0)):
            i = declared
    p = judge("pelvis", a, b, t, spec)
    g, g0 = judge("ground", a, b, t, spec), judge("ground", a, a, a, spec_own)
    s, s0 = judge("skate", a, b, spec), judge("skate", a, a, spec_own)
    # Hand contacts held through the clip (the spec lists only those): the worst frame, mm.
    h = judge("grip", a, b, t, spec) if case["spec"].get("grips") else None
    f = judge("fingers", a, b, spec) if case["spec"].get("hands") else None
    # An empty reading (a creature has no judged limb segments) is no figure, not `{}`.
    val = lambda r, k: r.get(k) if r else None
    sub = lambda x, y: None if x is None or y is None else x - y
    fig = {
        "direction": val(d, "dir_mean"),
        "body": val(i, "length_change_max"),
        "pelvis": val(p, "pelvis_diff"),
        "ground": sub(val(g, "float_mean_mm"), val(g0, "float_mean_mm")),
        "skate": sub(val(s, "skate_mean_mm"), val(s0, "skate_mean_mm")),
        "grip": None if val(h, "grip_diff_max") is None else val(h, "grip_diff_max") * 1750,
        "fingers": val(f, "finger_dir_mean"),
        "penetration": penetration_excess(case, a, b),
    }
    o = case.get("ours") or {}
    diff = lambda a, b: None if o.get(a) is None or o.get(b) is None else o[a] - o[b]
    ours = {
        "direction": o.get("direction_mean"),
        "body": o.get("body"),
        "pelvis": diff("pelvis_tgt", "pelvis_src"),
        "ground": diff("ground_tgt", "ground_src"),
        "skate": diff("skate_tgt", "skate_src"),
        "grip": o.get("grip"),
        "fingers": o.get("fingers_mean"),
        "penetration": o.get("penetration"),
    }
    return fig, ours


def fbx_agrees(case):
    """Blender's FBX reading against its reading of the GLB (or BVH) of the same retarget."""
    a, b = case["dumps"]["output"], case["dumps"]["fbx"]
    frame0 = [p[0] for p in json.load(open(a))["joints"].values()]
    size = max(max(p[i] for p in frame0) - min(p[i] for p in frame0) for i in range(3))
    size = str(max(size, 1e-3))
    r = subprocess.run([os.path.join(TOOLS, "pose-compare"), a, b, "--relative",
                        "--height-a", size, "--height-b", size, "--tol-max", str(FBX_TOL)],
                       capture_output=True, text=True)
    last = (r.stdout.strip().splitlines() or [r.stderr.strip() or "(no output)"])[-1]
    return r.returncode == 0, last


def main():
    work = sys.argv[1]
    cases = json.load(open(os.path.join(work, "manifest.json")))
    jobs = {}
    for n, c in enumerate(cases):
        c["slug"] = f"case{n:03d}"
        src_extra = c["source_args"]
        key = c["source"] + " " + " ".join(src_extra)
        c["dumps"] = {
            "source": jobs.setdefault(key, (c["source"], src_extra, os.path.join(work, f"src{len(jobs)}.json")))[2],
            "output": jobs.setdefault(c["output"], (c["output"], c.get("output_args", ["-a", "0"]),
                                                    c["output"] + ".json"))[2],
        }
        if c.get("fbx"):
            c["dumps"]["fbx"] = jobs.setdefault(c["fbx"], (c["fbx"], ["-a", "0"], c["fbx"] + ".json"))[2]
        # The target's own pose: a GLB copy of it in its bind pose, or a BVH target's own file
        # (its clip, read in its unit and axes: its floor is its motion's).
        bind, bind_args = c["target_bind"], c.get("target_args", [])
        key = bind + " " + " ".join(bind_args)
        c["dumps"]["target"] = jobs.setdefault(
            key, (bind, bind_args, os.path.join(work, f"tgt{len(jobs)}.json")))[2]
        declared = c.get("target_declared")
        if declared:
            args = c.get("target_declared_args", [])
            key = declared + " " + " ".join(args)
            c["dumps"]["target_declared"] = jobs.setdefault(
                key, (declared, args, os.path.join(work, f"decl{len(jobs)}.json")))[2]
            # Its nodes' rest: a copy without its animations (one per file, named by its path).
            named = hashlib.sha1(declared.encode()).hexdigest()[:8] + os.path.basename(declared)
            rest = rest_copy({"path": declared, "file": named}, work)
            if rest != declared:
                # The clip's `-a` (last) left off: the copy has no animation.
                c["dumps"]["target_rest"] = jobs.setdefault(
                    rest + " rest", (rest, args[:-2], rest + ".json"))[2]
        own = c.get("target_own")
        if own:
            # The body against the target's own clip (its root motion moves a joint below
            # the top of its hierarchy; see tests/e2e/common/matrix_export.rs).
            c["dumps"]["target_own"] = jobs.setdefault(
                own + " own", (own, ["-a", "0"], os.path.join(work, f"own{len(jobs)}.json")))[2]
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        problems = [e for e in pool.map(dump, jobs.values()) if e]
    for e in problems:
        print("pose-dump failed:", e)
    failed = bool(problems)
    print("| pair | measure: judge (ours) |")
    for c in cases:
        if any(not os.path.exists(p) for p in c["dumps"].values()):
            print(f"| {c['pair']} | not dumped |")
            continue
        fig, ours = measure(c, c["dumps"], work)
        cells = []
        for m, v in fig.items():
            if v is None:
                cells.append(f"{m}: -")
                continue
            over = abs(v) > LIMITS[m] if m in ("pelvis", "ground") else v > LIMITS[m]
            apart = ours[m] is not None and abs(v - ours[m]) > AGREE[m]
            known = m in c["known"] or "*" in c["known"]
            mark = ("!" if over and not known else "") + ("≠" if apart else "")
            failed |= (over and not known) or apart
            cells.append(f"{m}: {v:.3g} ({ours[m] if ours[m] is None else f'{ours[m]:.3g}'}){mark}")
        print(f"| {c['pair']} | " + ", ".join(cells) + " |")
    fbx_failed = 0
    for c in cases:
        if "fbx" not in c["dumps"] or not os.path.exists(c["dumps"]["fbx"]):
            continue
        good, last = fbx_agrees(c)
        if not good:
            fbx_failed += 1
            print(f"FBX of {c['pair']} read by Blender is not its GLB's reading: {last}")
    fbx_cases = sum(1 for c in cases if "fbx" in c["dumps"])
    print(f"FBX: {fbx_cases - fbx_failed} of {fbx_cases} cases read back by Blender as their "
          f"GLB or BVH, within {FBX_TOL:g} of the figure's size")
    failed |= fbx_failed > 0
    print("judge-matrix:", "FAILED (! over a threshold, ≠ judge and check disagree)" if failed
          else f"{len(cases)} cases pass, judge and check agree")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
