"""Judges one corpus pair on Blender's readings with the independent tools' `judge`, from the
joints the manifests name (never from our own map: a wrong map must not choose what is
measured)."""
import json
import os
import subprocess
import sys

TOOLS = os.environ.get("SHARED_TOOLS", os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                    "shared", "tools"))
# The thresholds `check` uses (docs/quality.md), applied to judge's figures.
LIMITS = {"direction": 5.0, "body": 1e-2, "pelvis": 0.05, "ground": 25.0, "skate": 5.0}
# A clip onto its own character comes back within this share of the height, at every joint
# and frame.
OWN_LIMIT = 1e-3


def judge(*args):
    """judge's figures as a dict (`None` when it found nothing to measure)."""
    r = subprocess.run([sys.executable, os.path.join(TOOLS, "judge.py"), *args],
                       capture_output=True, text=True)
    out = r.stdout.strip()
    if r.returncode != 0 or "no contacts" in out or not out:
        return None
    figures = {}
    for word in out.split():
        key, _, value = word.partition("=")
        try:
            figures[key] = float(value.removesuffix("deg"))
        except ValueError:
            pass
    return figures


def spec_of(source, target):
    """judge's SPEC from the two manifest rows: upper arm, forearm, hand, thigh, shin and foot
    of each side; segments whose joints either row leaves out are not measured."""
    a = {"left": source.get("left") or [None] * 6, "right": source.get("right") or [None] * 6}
    b = {"left": target.get("left") or [None] * 6, "right": target.get("right") or [None] * 6}
    segments, feet = [], []
    for side in ("left", "right"):
        for i, j in ((0, 1), (1, 2), (3, 4), (4, 5)):
            if a[side][i] and a[side][j] and b[side][i] and b[side][j]:
                segments.append([[a[side][i], a[side][j]], [b[side][i], b[side][j]]])
        if a[side][5] and b[side][5]:
            feet.append([a[side][5], b[side][5]])
    spec = {"segments": segments, "feet": feet}
    if a["left"][3] and a["right"][3] and b["left"][3] and b["right"][3]:
        spec["hips_a"] = [a["left"][3], a["right"][3]]
        spec["hips_b"] = [b["left"][3], b["right"][3]]
    return spec


def own_spec(spec):
    """The source against itself (the source's own ground and skate)."""
    own = dict(spec)
    if "hips_a" in own:
        own["hips_b"] = own["hips_a"]
    own["segments"] = [[s[0], s[0]] for s in spec["segments"]]
    own["feet"] = [[f[0], f[0]] for f in spec["feet"]]
    return own


def measure_own(source_dump, output_dump):
    """A clip onto its own character: the worst joint's distance at any frame, over the
    source's height at its first frame (judge's `positions` rule), joints paired by their
    exact names: one file on both sides, and judge's loose pairing would take a look target
    `HEAD` for the `head`."""
    a, b = json.load(open(source_dump)), json.load(open(output_dump))
    ja, jb = a["joints"], b["joints"]
    names = [n for n in ja if n in jb]
    if not names or not a["frames"] or not b["frames"]:
        return {}
    first = [ja[n][0] for n in names]
    height = max(p[1] for p in first) - min(p[1] for p in first)
    worst = 0.0
    for i, t in enumerate(a["frames"]):
        k = min(range(len(b["frames"])), key=lambda k: abs(b["frames"][k] - t))
        if abs(b["frames"][k] - t) > 0.02:
            return {"same": float("inf")}
        for n in names:
            p, q = ja[n][i], jb[n][k]
            worst = max(worst, sum((p[c] - q[c]) ** 2 for c in range(3)) ** 0.5)
    missing = len(ja) - len(names)
    fig = {"same": worst / max(height, 1e-9)}
    if missing:
        fig["missing joints"] = missing
    return fig


def floor_reading(rest, clip, feet):
    """The reading judge takes the target's own floor from (its lowest feet): the rest pose,
    unless the target's own clip stands lower than the rest by more than judge's contact band
    (4 % of the height) on every foot: a rest pose that is a frame in mid-air (a jump), where
    the feet of the character's own motion say where its floor is."""
    if not clip or not feet:
        return rest
    r, c = json.load(open(rest))["joints"], json.load(open(clip))["joints"]
    if any(f not in r or f not in c for f in feet):
        return rest
    first = [p[0] for p in r.values()]
    height = max(p[1] for p in first) - min(p[1] for p in first)
    lowest = lambda d, f: min(p[1] for p in d[f])
    airborne = all(lowest(r, f) - lowest(c, f) > 0.04 * height for f in feet)
    return clip if airborne else rest


def measure_pair(source, target, dumps, work, slug):
    """judge's figures for a pair onto another character: each measure against the source's
    own where judge's rule asks for it (ground, skate)."""
    spec = spec_of(source, target)
    if not spec["segments"]:
        return {}
    spec_path = os.path.join(work, slug + ".spec.json")
    own_path = os.path.join(work, slug + ".own.json")
    json.dump(spec, open(spec_path, "w"))
    json.dump(own_spec(spec), open(own_path, "w"))
    a, b, t = dumps["source"], dumps["output"], dumps["target"]
    val = lambda r, k: r.get(k) if r else None
    sub = lambda x, y: None if x is None or y is None else x - y
    fig = {"direction": val(judge("directions", a, b, spec_path), "dir_mean"),
           "body": val(judge("integrity", t, b), "length_change_max")}
    t = floor_reading(t, dumps.get("target_clip"), [f[1] for f in spec["feet"]])
    if "hips_a" in spec and len(spec["feet"]) == 2:
        fig["pelvis"] = val(judge("pelvis", a, b, t, spec_path), "pelvis_diff")
        g, g0 = judge("ground", a, b, t, spec_path), judge("ground", a, a, a, own_path)
        fig["ground"] = sub(val(g, "float_mean_mm"), val(g0, "float_mean_mm"))
        s, s0 = judge("skate", a, b, spec_path), judge("skate", a, a, own_path)
        fig["skate"] = sub(val(s, "skate_mean_mm"), val(s0, "skate_mean_mm"))
    return {k: v for k, v in fig.items() if v is not None}


def failing(fig):
    """The measures over their limits."""
    bad = []
    for m, v in fig.items():
        if m == "same":
            over = v > OWN_LIMIT
        elif m == "missing joints":
            # Joints Blender makes that our skeleton has not (leaf bones, nodes between
            # bones): listed, not judged (the motion of every joint both have is).
            over = False
        elif m in ("pelvis", "ground"):
            over = abs(v) > LIMITS[m]
        else:
            over = v > LIMITS[m]
        if over:
            bad.append(m)
    return bad
