"""Judges one corpus pair on Blender's readings with the independent tools' `judge`, from the
joints the manifests name (never from our own map: a wrong map must not choose what is
measured).

    /usr/bin/python3 scripts/corpus/measure.py --self-test   # the floor readings, on synthetic rests
"""
import functools
import json
import math
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
            # "198/222": how many of how many (the bones integrity found rigid).
            n, _, _ = value.partition("/")
            if n.isdigit():
                figures[key] = float(n)
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


@functools.lru_cache(maxsize=16)
def _dump(path):
    """A dump, read once: a target's rest and own clip serve each of its pairs (never
    changed here: `stood_up` makes a new one)."""
    with open(path) as f:
        return json.load(f)


def floor_reading(rest, clip, feet, hips=None, upright_path=None):
    """The reading judge takes the target's own floor from (its lowest feet): the rest pose,
    unless the target's own clip stands lower than the rest by more than judge's contact band
    (4 % of the height) on every foot: a rest pose that is a frame in mid-air (a jump), where
    the feet of the character's own motion say where its floor is. A rest that lies tilted in
    its file is read stood up (`stood_up`), written to `upright_path`."""
    if not feet:
        return rest
    r = _dump(rest)["joints"]
    if any(f not in r for f in feet):
        return rest
    if clip:
        c = _dump(clip)["joints"]
        if all(f in c for f in feet):
            first = [p[0] for p in r.values()]
            height = max(p[1] for p in first) - min(p[1] for p in first)
            lowest = lambda d, f: min(p[1] for p in d[f])
            if all(lowest(r, f) - lowest(c, f) > 0.04 * height for f in feet):
                return clip
    if hips and upright_path and all(h in r for h in hips):
        upright = stood_up(_dump(rest), hips, feet)
        if upright is not None:
            json.dump(upright, open(upright_path, "w"))
            return upright_path
    return rest


# A rest whose legs lean further than this off +Y is not standing in its file's world.
TILTED_DEG = 30.0


def stood_up(dump, hips, feet):
    """The rest dump stood up where the whole skeleton lies tilted in its file (the VRM Add-on's
    armature_transform: legs 57° off +Y, its feet 0.41 m apart in height though level along
    its own legs), else `None`. judge takes each foot's floor from its own lowest height, and
    there a tilt, not the floor, sets those heights: no upright output can stand on both. The
    legs' line (hips' midpoint to feet's) is turned onto +Y, and the whole lifted so its lowest
    foot keeps the height the file gives the lowest foot (the floor judge's pelvis measure
    takes from the same dump). Only where the feet come level (within judge's 4 % contact
    band) stood up and are not so tilted: the evidence that the tilt is the file's, not a
    pose's."""
    j = dump["joints"]
    first = [p[0] for p in j.values()]
    height = max(p[1] for p in first) - min(p[1] for p in first)
    mid = lambda names: [sum(j[n][0][c] for n in names) / len(names) for c in range(3)]
    h, f = mid(hips), mid(feet)
    up = [h[c] - f[c] for c in range(3)]
    length = math.sqrt(sum(x * x for x in up))
    if length < 1e-9 or math.degrees(math.acos(max(-1.0, min(1.0, up[1] / length)))) < TILTED_DEG:
        return None
    up = [x / length for x in up]
    along = lambda p: sum(p[c] * up[c] for c in range(3))
    level_tilted = max(j[n][0][1] for n in feet) - min(j[n][0][1] for n in feet)
    level_up = max(along(j[n][0]) for n in feet) - min(along(j[n][0]) for n in feet)
    if level_up > 0.04 * height or level_tilted <= 0.04 * height:
        return None
    turn = _turn_onto_y(up)
    lowest = min(p[1] for n in feet for p in j[n])
    turned = {n: [_apply(turn, p) for p in ps] for n, ps in j.items()}
    lift = lowest - min(p[1] for n in feet for p in turned[n])
    joints = {n: [[p[0], p[1] + lift, p[2]] for p in ps] for n, ps in turned.items()}
    return dict(dump, joints=joints)


def _turn_onto_y(v):
    """The rotation matrix (rows) of the shortest arc from the unit vector `v` onto +Y."""
    # Rodrigues about axis v × Y, by the angle between them.
    axis = [-v[2], 0.0, v[0]]
    s = math.sqrt(axis[0] ** 2 + axis[2] ** 2)
    c = v[1]
    if s < 1e-12:
        return [[1, 0, 0], [0, 1, 0], [0, 0, 1]] if c > 0 else [[1, 0, 0], [0, -1, 0], [0, 0, -1]]
    x, y, z = axis[0] / s, 0.0, axis[2] / s
    t = 1 - c
    return [[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
            [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
            [t * x * z - s * y, t * y * z + s * x, t * z * z + c]]


def _apply(m, p):
    return [sum(m[r][k] * p[k] for k in range(3)) for r in range(3)]


def target_floor(dumps, spec, work, slug):
    """The dump judge's pelvis and ground take the target's floor from (`floor_reading`)."""
    return floor_reading(dumps["target"], dumps.get("target_clip"), [f[1] for f in spec["feet"]],
                         spec.get("hips_b"), os.path.join(work, slug + ".upright.json"))


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
    # A dump without its hierarchy (ref-dump's, of a Draco file Blender cannot read) leaves
    # judge no bone to hold rigid: "0 of 0" is no figure, not a pass.
    body = judge("integrity", t, b)
    fig = {"direction": val(judge("directions", a, b, spec_path), "dir_mean"),
           "body": val(body, "length_change_max") if val(body, "rigid_bones") else None}
    t = target_floor(dumps, spec, work, slug)
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


def self_test():
    """The floor readings on synthetic rests: an upright one is judged as it is; the same
    tilted 57° (both feet level along the legs, 0.4 m apart in height) is stood up with both
    feet on the lowest foot's height; one whose legs lean but whose feet are level in the
    file (a bird's folded legs) is judged as it is."""
    import tempfile
    names = {"hip.L": [0.1, 1.0, 0], "hip.R": [-0.1, 1.0, 0], "foot.L": [0.1, 0.1, 0],
             "foot.R": [-0.1, 0.1, 0], "head": [0, 1.75, 0]}
    hips, feet = ["hip.L", "hip.R"], ["foot.L", "foot.R"]
    dump = lambda joints: {"frames": [0.0], "joints": {n: [p] for n, p in joints.items()}}
    assert stood_up(dump(names), hips, feet) is None
    a = math.radians(57)
    tilt = [[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]]
    roll = [[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]]
    tilted = {n: _apply(roll, _apply(tilt, p)) for n, p in names.items()}
    low = min(tilted[f][1] for f in feet)
    assert max(tilted[f][1] for f in feet) - low > 0.1
    up = stood_up(dump(tilted), hips, feet)["joints"]
    for f in feet:
        assert abs(up[f][0][1] - low) < 1e-6, (f, up[f][0][1], low)
    assert abs(up["head"][0][1] - low - 1.65) < 1e-6
    leaning = dict(names, **{"foot.L": [0.1, 0.1, 0.8], "foot.R": [-0.1, 0.1, 0.8]})
    assert stood_up(dump(leaning), hips, feet) is None
    with tempfile.TemporaryDirectory() as d:
        rest, out = os.path.join(d, "rest.json"), os.path.join(d, "up.json")
        json.dump(dump(tilted), open(rest, "w"))
        assert floor_reading(rest, None, feet, hips, out) == out
        assert floor_reading(rest, None, feet) == rest
    print("measure.py: self-test passed")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    else:
        sys.exit(f"usage: {sys.argv[0]} --self-test")
