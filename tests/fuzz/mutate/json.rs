//! glTF-aware mutations: one JSON value changed (a number, an index, an enum string, a count,
//! an offset), an array or object trimmed; the GLB container's lengths and BIN chunk; the
//! base64 payload of a `.gltf` data URI.

use super::bytes;
use super::glb::Glb;
use crate::rng::Rng;
use serde_json::Value;

/// Strings the glTF schema gives meaning to, plus ones it does not.
const ENUM_STRINGS: &[&str] = &[
    "LINEAR",
    "STEP",
    "CUBICSPLINE",
    "translation",
    "rotation",
    "scale",
    "weights",
    "SCALAR",
    "VEC2",
    "VEC3",
    "VEC4",
    "MAT2",
    "MAT3",
    "MAT4",
    "OPAQUE",
    "MASK",
    "BLEND",
    "2.0",
    "1.0",
    "3.0",
    "hips",
    "leftUpperLeg",
    "",
    "BOGUS",
    "data:application/octet-stream;base64,AAAA",
    "missing.bin",
    "%ZZ",
];

/// Numbers for JSON fields: indices one past, counts zero, offsets beyond the buffer,
/// component types, floats that are not f32s.
const NUMBERS: &[f64] = &[
    0.0,
    1.0,
    2.0,
    3.0,
    4.0,
    5.0,
    6.0,
    -1.0,
    0.5,
    1e39,
    -1e39,
    1e38,
    -3e38,
    1e-45,
    4294967295.0,
    4294967296.0,
    2147483647.0,
    65535.0,
    5120.0,
    5121.0,
    5122.0,
    5123.0,
    5125.0,
    5126.0,
    5127.0,
    16.0,
    64.0,
    1e15,
];

/// Where a value sits in the document: object keys and array indices.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                at.push(Step::Key(k.clone()));
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(Step::Index(i));
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'a>(mut v: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    for step in path {
        v = match step {
            Step::Key(k) => v.get_mut(k.as_str())?,
            Step::Index(i) => v.get_mut(*i)?,
        };
    }
    Some(v)
}

/// One change somewhere in `doc`.
pub fn mutate_value(rng: &mut Rng, doc: &mut Value) {
    let mut all = Vec::new();
    paths(doc, &mut Vec::new(), &mut all);
    let path = rng.pick(&all).clone();
    let Some(v) = get_mut(doc, &path) else {
        return;
    };
    match v {
        Value::Number(_) => *v = number(rng),
        Value::String(s) if s.starts_with("data:") && !rng.one_in(4) => {
            *s = mutate_data_uri(rng, s);
        }
        Value::String(_) => {
            *v = match rng.below(6) {
                0 => number(rng),
                _ => Value::from(*rng.pick(ENUM_STRINGS)),
            }
        }
        Value::Array(items) if !items.is_empty() => match rng.below(4) {
            0 => {
                items.remove(rng.below(items.len()));
            }
            1 => {
                let i = rng.below(items.len());
                items.insert(i, items[i].clone());
            }
            2 => items.clear(),
            _ => items.push(number(rng)),
        },
        Value::Object(map) if !map.is_empty() && !rng.one_in(4) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            map.remove(rng.pick(&keys));
        }
        Value::Bool(b) => *b = !*b,
        _ => *v = number(rng),
    }
}

fn number(rng: &mut Rng) -> Value {
    if rng.one_in(3) {
        return Value::from(rng.below(40) as u64);
    }
    let n = *rng.pick(NUMBERS);
    serde_json::Number::from_f64(n).map_or(Value::Null, |n| {
        if n.as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f.abs() < 1e16)
        {
            Value::from(n.as_f64().unwrap_or(0.0) as i64)
        } else {
            Value::Number(n)
        }
    })
}

/// A data URI whose decoded payload took a raw mutation (float, flip, cut), or whose
/// base64 text was broken.
fn mutate_data_uri(rng: &mut Rng, uri: &str) -> String {
    let Some((head, b64)) = uri.split_once(',') else {
        return uri.to_owned();
    };
    if rng.one_in(4) {
        let mut text = b64.as_bytes().to_vec();
        bytes::mutate(rng, &mut text);
        return format!("{head},{}", String::from_utf8_lossy(&text));
    }
    let mut data = base64::decode(b64);
    if rng.one_in(2) {
        bytes::write_float(rng, &mut data);
    } else {
        bytes::mutate(rng, &mut data);
    }
    format!("{head},{}", base64::encode(&data))
}

/// A mutant of a GLB (glTF binary, VRM, VRMA).
pub fn mutate_glb(rng: &mut Rng, original: &[u8], parsed: &Glb) -> Vec<u8> {
    match rng.below(10) {
        0..=5 => {
            let mut json = parsed.json.clone();
            for _ in 0..1 + rng.below(2) {
                mutate_value(rng, &mut json);
            }
            Glb {
                json,
                bin: parsed.bin.clone(),
            }
            .to_bytes()
        }
        6 => {
            let mut bin = parsed.bin.clone();
            bytes::write_float(rng, &mut bin);
            Glb {
                json: parsed.json.clone(),
                bin,
            }
            .to_bytes()
        }
        7 => {
            // A length field of the header or a chunk set to an edge value.
            let mut out = original.to_vec();
            let json_len = u32::from_le_bytes([out[12], out[13], out[14], out[15]]) as usize;
            let field = *rng.pick(&[4, 8, 12, 16, 20 + json_len, 24 + json_len]);
            let v = match rng.below(3) {
                0 => *rng.pick(bytes::INTERESTING_U32),
                _ => {
                    let old = out
                        .get(field..field + 4)
                        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                    old.wrapping_add([1, 4, u32::MAX, u32::MAX - 3][rng.below(4)])
                }
            };
            if let Some(slot) = out.get_mut(field..field + 4) {
                slot.copy_from_slice(&v.to_le_bytes());
            }
            out
        }
        _ => bytes::cut_or_flip(rng, original),
    }
}

/// A mutant of a `.gltf` JSON file (buffers in data URIs).
pub fn mutate_gltf(rng: &mut Rng, original: &[u8], parsed: &Value) -> Vec<u8> {
    match rng.below(10) {
        0..=7 => {
            let mut json = parsed.clone();
            for _ in 0..1 + rng.below(2) {
                mutate_value(rng, &mut json);
            }
            serde_json::to_vec(&json).unwrap_or_default()
        }
        _ => bytes::cut_or_flip(rng, original),
    }
}

/// Standard base64, enough for data URIs.
mod base64 {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    pub fn encode(data: &[u8]) -> String {
        let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
        for chunk in data.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for k in 0..4 {
                if k <= chunk.len() {
                    out.push(ALPHABET[(n >> (18 - 6 * k)) as usize & 63] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    /// Skips characters outside the alphabet (padding included).
    pub fn decode(text: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len() / 4 * 3);
        let (mut acc, mut bits) = (0u32, 0);
        for c in text.bytes() {
            let Some(v) = ALPHABET.iter().position(|&a| a == c) else {
                continue;
            };
            acc = (acc << 6) | v as u32;
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
            }
        }
        out
    }

    #[test]
    fn round_trip() {
        for data in [&b""[..], b"a", b"ab", b"abc", b"abcd\xff\x00"] {
            assert_eq!(decode(&encode(data)), data);
        }
        assert_eq!(encode(b"Man"), "TWFu");
    }
}
