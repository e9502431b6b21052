"""A copy of a binary FBX that Blender 3.4's importer reads as the FBX SDK does, where their
transforms part: its pre- and post-rotations.

The FBX SDK (and Maya, ufbx, Unity) composes a node as T * Roff * Rp * Rpre * R * Rpost^-1 *
Rp^-1 * ..., with Rpre and Rpost always in XYZ order, whatever the node's RotationOrder
(Autodesk's FBX help, "Computing transformation matrices"; ufbx's `ufbxi_get_rotation`).
Blender 3.4's importer (`io_scene_fbx` 4.37.1, `blen_read_object_transform_do`) multiplies
Rpost itself, not its inverse, and reads both in the node's RotationOrder. A file whose
post-rotation is not its own inverse (Unity's Robot Kyle: 36.6 degrees on its left upper arm,
156 degrees on its forearm) then comes out of Blender with the bones below it turned away
from where the file's own skin clusters bind them (its TransformLink matrices agree with the
SDK's formula to 0.000 cm, and are up to 76 cm from Blender's).

`blender_copy` writes the rotations Blender composes in their place: PostRotation becomes the
Euler angles, in the node's order, of the inverse of the XYZ post-rotation, and PreRotation of a
node with another order the Euler angles in that order of the XYZ pre-rotation. Blender's
product is then the SDK's; every other byte is kept (a Properties70 value is rewritten in
place, three doubles for three doubles). Python standard library only.
"""
import math
import os
import struct
import zlib

# FBX RotationOrder enum -> the axes in the order they apply (eEulerXYZ: R = Rz * Ry * Rx).
ORDERS = {0: "XYZ", 1: "XZY", 2: "YZX", 3: "YXZ", 4: "ZXY", 5: "ZYX", 6: "XYZ"}
# Rotations closer than this (largest matrix element apart) are the same rotation.
SAME = 1e-9


def axis_matrix(axis, degrees):
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    if axis == "X":
        return [[1, 0, 0], [0, c, -s], [0, s, c]]
    if axis == "Y":
        return [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    return [[c, -s, 0], [s, c, 0], [0, 0, 1]]


def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def transpose(m):
    return [list(r) for r in zip(*m)]


def euler_matrix(angles, order):
    """The rotation of Euler `angles` (degrees, about X, Y, Z) applied in `order`."""
    m = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    for axis in order:
        m = mul(axis_matrix(axis, angles["XYZ".index(axis)]), m)
    return m


def matrix_euler(m, order):
    """Euler angles (degrees, about X, Y, Z) that `euler_matrix` turns into `m` in `order`."""
    i, j, k = ("XYZ".index(a) for a in order)
    # +1 for a cyclic order (XYZ, YZX, ZXY), -1 for the others.
    s = 1.0 if (j - i) % 3 == 1 else -1.0
    middle = math.asin(max(-1.0, min(1.0, -s * m[k][i])))
    if abs(m[k][i]) < 1.0 - 1e-12:
        first = math.atan2(s * m[k][j], m[k][k])
        last = math.atan2(s * m[j][i], m[i][i])
    else:
        # Gimbal lock: the first and last axes line up; put all of it on the first.
        first = math.atan2(-s * m[j][k], m[j][j])
        last = 0.0
    out = [0.0, 0.0, 0.0]
    out[i], out[j], out[k] = math.degrees(first), math.degrees(middle), math.degrees(last)
    return out


def apart(a, b):
    return max(abs(a[r][c] - b[r][c]) for r in range(3) for c in range(3))


# --- binary FBX records --------------------------------------------------------------------

def records(data, offset, end, wide):
    """The node records between `offset` and `end`: (name, properties, children's range),
    where each property is (type, value, byte offset of the value)."""
    head = 25 if wide else 13
    while offset + head <= end:
        if wide:
            stop, count, _size = struct.unpack_from("<QQQ", data, offset)
        else:
            stop, count, _size = struct.unpack_from("<III", data, offset)
        name_len = data[offset + head - 1]
        if stop == 0:
            return
        name = data[offset + head:offset + head + name_len]
        at = offset + head + name_len
        props = []
        for _ in range(count):
            kind = chr(data[at])
            at += 1
            if kind in "YCIFDL":
                size = {"Y": 2, "C": 1, "I": 4, "F": 4, "D": 8, "L": 8}[kind]
                fmt = {"Y": "<h", "C": "<?", "I": "<i", "F": "<f", "D": "<d", "L": "<q"}[kind]
                props.append((kind, struct.unpack_from(fmt, data, at)[0], at))
                at += size
            elif kind in "fdlib":
                length, encoding, clen = struct.unpack_from("<III", data, at)
                at += 12
                raw = data[at:at + clen]
                if encoding == 1:
                    raw = zlib.decompress(raw)
                props.append((kind, (length, raw), at))
                at += clen
            elif kind in "SR":
                (length,) = struct.unpack_from("<I", data, at)
                at += 4
                props.append((kind, bytes(data[at:at + length]), at))
                at += length
            else:
                raise ValueError(f"unknown FBX property type {kind!r} at byte {at - 1}")
        yield name, props, (at, stop)
        offset = stop


def child(data, rng, wide, name):
    for n, props, sub in records(data, rng[0], rng[1], wide):
        if n == name:
            return props, sub
    return None


def model_fixes(data, models_range, wide):
    """(byte offsets of the three values, their type, new angles, what) for every Model whose
    pre- or post-rotation Blender composes otherwise than the SDK."""
    fixes = []
    for name, props, sub in records(data, models_range[0], models_range[1], wide):
        if name != b"Model":
            continue
        found = child(data, sub, wide, b"Properties70")
        if not found:
            continue
        p = {}
        for n, pprops, _ in records(data, found[1][0], found[1][1], wide):
            if n == b"P" and pprops and pprops[0][0] == "S":
                p[pprops[0][1]] = pprops[4:]
        active = p.get(b"RotationActive")
        if not active or not active[0][1]:
            continue
        order_prop = p.get(b"RotationOrder")
        order = ORDERS.get(order_prop[0][1] if order_prop else 0, "XYZ")
        label = props[1][1].split(b"\x00")[0].decode("utf-8", "replace") if len(props) > 1 else "?"
        for key, inverse in ((b"PreRotation", False), (b"PostRotation", True)):
            values = p.get(key)
            if not values or len(values) != 3 or values[0][0] not in "DF":
                continue
            angles = [v[1] for v in values]
            sdk = euler_matrix(angles, "XYZ")
            if inverse:
                sdk = transpose(sdk)
            if apart(euler_matrix(angles, order), sdk) < SAME:
                continue
            new = matrix_euler(sdk, order)
            if apart(euler_matrix(new, order), sdk) > 1e-7:
                raise ValueError(f"{label}: no {order} angles for its {key.decode()}")
            fixes.append(([v[2] for v in values], values[0][0], new, f"{label} {key.decode()}"))
    return fixes


def fixes_of(data):
    """What `blender_copy` would rewrite in a binary FBX's bytes (empty for an ASCII one)."""
    if not data.startswith(b"Kaydara FBX Binary  \x00"):
        return []
    (version,) = struct.unpack_from("<I", data, 23)
    wide = version >= 7500
    for name, _props, sub in records(data, 27, len(data), wide):
        if name == b"Objects":
            return model_fixes(data, sub, wide)
    return []


def blender_copy(path, out_dir):
    """`path` itself when Blender reads its rotations as the SDK does, else a copy in
    `out_dir` with them rewritten (see the module's note); and the nodes rewritten."""
    data = bytearray(open(path, "rb").read())
    fixes = fixes_of(bytes(data))
    if not fixes:
        return path, []
    for offsets, kind, new, _what in fixes:
        for at, value in zip(offsets, new):
            struct.pack_into("<d" if kind == "D" else "<f", data, at, value)
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, os.path.basename(path))
    if not os.path.exists(out) or open(out, "rb").read() != data:
        with open(out + ".part", "wb") as f:
            f.write(data)
        os.replace(out + ".part", out)
    return out, [f[3] for f in fixes]


if __name__ == "__main__":
    # fbx_rotations.py FILE.fbx ...: what Blender is handed otherwise than the file has it.
    import sys

    for name in sys.argv[1:]:
        found = fixes_of(open(name, "rb").read())
        print(f"{name}: {len(found)} rotation(s) Blender composes otherwise than the FBX SDK")
        for _offsets, _kind, new, what in found:
            print(f"  {what} -> {', '.join(f'{a:.6g}' for a in new)} (as Blender reads it)")
