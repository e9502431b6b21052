//! Format-blind mutations: byte flips, truncations, and copied, removed or repeated spans.

use crate::rng::Rng;

/// Numbers that break readers: zero, one past, the type limits, negative counts.
pub const INTERESTING_U32: &[u32] = &[
    0,
    1,
    2,
    3,
    4,
    7,
    0xFF,
    0x100,
    0x7FFF,
    0xFFFF,
    0x1_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
];

/// One raw mutation of `data`, chosen by `rng`.
pub fn mutate(rng: &mut Rng, data: &mut Vec<u8>) {
    if data.is_empty() {
        data.push(rng.next() as u8);
        return;
    }
    match rng.below(7) {
        0 => truncate(rng, data),
        6 => write_float(rng, data),
        1 => {
            // A few flipped bits.
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
        }
        2 => {
            let i = rng.below(data.len());
            data[i] = rng.next() as u8;
        }
        3 => {
            // An interesting little-endian u32 over four bytes.
            let i = rng.below(data.len());
            let v = rng.pick(INTERESTING_U32).to_le_bytes();
            for (k, b) in v.iter().enumerate() {
                if let Some(slot) = data.get_mut(i + k) {
                    *slot = *b;
                }
            }
        }
        4 => {
            // A span removed.
            let a = rng.below(data.len());
            let b = (a + 1 + rng.below(64)).min(data.len());
            data.drain(a..b);
        }
        _ => {
            // A span repeated in place.
            let a = rng.below(data.len());
            let b = (a + 1 + rng.below(64)).min(data.len());
            let span = data[a..b].to_vec();
            data.splice(b..b, span);
        }
    }
}

/// A copy of `original`, truncated one time in two, else raw-mutated.
pub fn cut_or_flip(rng: &mut Rng, original: &[u8]) -> Vec<u8> {
    let mut out = original.to_vec();
    if rng.one_in(2) {
        truncate(rng, &mut out);
    } else {
        mutate(rng, &mut out);
    }
    out
}

/// Cut short: often near the end or the start, where headers and last records live.
pub fn truncate(rng: &mut Rng, data: &mut Vec<u8>) {
    let len = data.len();
    let cut = match rng.below(3) {
        0 => rng.below(len.min(256) + 1),
        1 => len.saturating_sub(1 + rng.below(len.min(256))),
        _ => rng.below(len + 1),
    };
    data.truncate(cut);
}

/// Floats that break arithmetic: NaN, infinities, zero, huge and tiny.
pub const INTERESTING_F32: &[f32] = &[
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -0.0,
    1.0,
    -1.0,
    1e30,
    -1e30,
    f32::MAX,
    f32::MIN_POSITIVE,
    1e-40,
];

/// An interesting float over four aligned bytes (a vertex, key time or matrix entry).
pub fn write_float(rng: &mut Rng, data: &mut [u8]) {
    if data.len() < 4 {
        return;
    }
    let i = rng.below(data.len() / 4) * 4;
    data[i..i + 4].copy_from_slice(&rng.pick(INTERESTING_F32).to_le_bytes());
}
