//! FBX-aware mutations. Binary: the node records are walked, and one of their length fields
//! (end offset, property count and size, name length, array length, encoding, compressed
//! size, string length) or one numeric property is set to an edge value. ASCII: token and
//! line mutations with FBX's keywords.

use super::{bytes, text};
use crate::rng::Rng;

/// A field of the binary file the mutator may change.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub at: usize,
    pub kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A u32 or u64 length, count or offset.
    Length(usize),
    /// A one-byte name length.
    NameLength,
    /// An f64 property value (transforms, key values).
    Double,
    /// An f32 property value.
    Float,
    /// An i32 or i64 property value (key times, indices).
    Int(usize),
}

/// Every field of the node records, depth first; stops quietly where the file stops making
/// sense (it was a mutant's parent, never a mutant, so it does make sense).
pub fn fields(data: &[u8]) -> Vec<Field> {
    let version = match data.get(23..27) {
        Some(v) => u32::from_le_bytes([v[0], v[1], v[2], v[3]]),
        None => return Vec::new(),
    };
    let wide = version >= 7500;
    let mut out = Vec::new();
    walk(data, 27, data.len(), wide, &mut out, 0);
    out
}

fn read(data: &[u8], at: usize, wide: bool) -> Option<usize> {
    if wide {
        let b = data.get(at..at + 8)?;
        usize::try_from(u64::from_le_bytes(b.try_into().ok()?)).ok()
    } else {
        let b = data.get(at..at + 4)?;
        Some(u32::from_le_bytes(b.try_into().ok()?) as usize)
    }
}

/// Records from `at` up to `end`.
fn walk(data: &[u8], mut at: usize, end: usize, wide: bool, out: &mut Vec<Field>, depth: usize) {
    let w = if wide { 8 } else { 4 };
    while at + 3 * w < end && depth < 64 {
        let Some(record_end) = read(data, at, wide) else {
            return;
        };
        if record_end == 0 || record_end <= at || record_end > end {
            return;
        }
        let name_len = usize::from(data[at + 3 * w]);
        for k in 0..3 {
            out.push(Field {
                at: at + k * w,
                kind: Kind::Length(w),
            });
        }
        out.push(Field {
            at: at + 3 * w,
            kind: Kind::NameLength,
        });
        let props_at = at + 3 * w + 1 + name_len;
        let props_len = read(data, at + 2 * w, wide).unwrap_or(0);
        properties(data, props_at, props_at + props_len, out);
        walk(data, props_at + props_len, record_end, wide, out, depth + 1);
        at = record_end;
    }
}

fn properties(data: &[u8], mut at: usize, end: usize, out: &mut Vec<Field>) {
    let u32_at = |i: usize| -> Option<usize> {
        Some(u32::from_le_bytes(data.get(i..i + 4)?.try_into().ok()?) as usize)
    };
    while at < end.min(data.len()) {
        let code = data[at];
        at += 1;
        let size = match code {
            b'Y' => 2,
            b'C' => 1,
            b'I' | b'F' => 4,
            b'D' | b'L' => 8,
            b'f' | b'd' | b'l' | b'i' | b'b' => {
                for k in 0..3 {
                    out.push(Field {
                        at: at + 4 * k,
                        kind: Kind::Length(4),
                    });
                }
                let Some(len) = u32_at(at + 8) else { return };
                at += 12 + len;
                continue;
            }
            b'S' | b'R' => {
                out.push(Field {
                    at,
                    kind: Kind::Length(4),
                });
                let Some(len) = u32_at(at) else { return };
                at += 4 + len;
                continue;
            }
            _ => return,
        };
        let kind = match code {
            b'D' => Some(Kind::Double),
            b'F' => Some(Kind::Float),
            b'I' => Some(Kind::Int(4)),
            b'L' => Some(Kind::Int(8)),
            _ => None,
        };
        if let Some(kind) = kind {
            out.push(Field { at, kind });
        }
        at += size;
    }
}

const DOUBLES: &[f64] = &[
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -1.0,
    1e300,
    -1e300,
    1e39,
    1e-320,
];

const INTS: &[i64] = &[
    0,
    -1,
    1,
    i64::MAX,
    i64::MIN,
    i32::MAX as i64,
    46186158000,
    -46186158000,
];

/// One change to one field.
pub fn mutate_field(rng: &mut Rng, data: &mut [u8], field: Field) {
    let old = match field.kind {
        Kind::Length(w) => read_le(data, field.at, w),
        _ => 0,
    };
    let mut put = |at: usize, bytes: &[u8]| {
        if let Some(slot) = data.get_mut(at..at + bytes.len()) {
            slot.copy_from_slice(bytes);
        }
    };
    match field.kind {
        Kind::Length(w) => {
            let v = match rng.below(3) {
                0 => u64::from(*rng.pick(bytes::INTERESTING_U32)),
                1 => old.wrapping_add([1, 2, u64::MAX, u64::MAX - 7][rng.below(4)]),
                _ => old / 2,
            };
            put(field.at, &v.to_le_bytes()[..w]);
        }
        Kind::NameLength => put(
            field.at,
            &[*rng.pick(&[0u8, 1, 255]) ^ (rng.next() as u8 & 1)],
        ),
        Kind::Double => put(field.at, &rng.pick(DOUBLES).to_le_bytes()),
        Kind::Float => put(field.at, &rng.pick(bytes::INTERESTING_F32).to_le_bytes()),
        Kind::Int(w) => put(field.at, &rng.pick(INTS).to_le_bytes()[..w]),
    }
}

fn read_le(data: &[u8], at: usize, w: usize) -> u64 {
    let mut b = [0u8; 8];
    if let Some(s) = data.get(at..at + w) {
        b[..w].copy_from_slice(s);
    }
    u64::from_le_bytes(b)
}

/// Words of ASCII FBX to swap in for tokens.
pub const ASCII_WORDS: &[&str] = &[
    "Model",
    "Deformer",
    "SubDeformer",
    "Cluster",
    "Skin",
    "LimbNode",
    "Mesh",
    "Connections",
    "C",
    "OO",
    "OP",
    "P",
    "Properties70",
    "Lcl",
    "Translation",
    "Rotation",
    "Scaling",
    "KeyTime",
    "KeyValueFloat",
    "Indexes",
    "Weights",
    "Transform",
    "TransformLink",
    "PolygonVertexIndex",
    "Vertices",
    "AnimationCurve",
    "AnimationCurveNode",
    "AnimationStack",
    "AnimationLayer",
    "Takes",
    "BindPose",
    "PoseNode",
    "Matrix",
    "a",
];

/// A mutant of a binary or ASCII FBX.
pub fn mutate(rng: &mut Rng, original: &[u8], fields: &[Field]) -> Vec<u8> {
    let mut out = original.to_vec();
    if !fields.is_empty() && rng.below(10) < 7 {
        for _ in 0..1 + rng.below(2) {
            let field = *rng.pick(fields);
            mutate_field(rng, &mut out, field);
        }
        return out;
    }
    if fields.is_empty() && rng.below(10) < 7 {
        if let Ok(s) = std::str::from_utf8(original) {
            return text::mutate(rng, s, ASCII_WORDS).into_bytes();
        }
    }
    bytes::mutate(rng, &mut out);
    out
}
