//! Project (RON) mutations: a field's value (numbers, enum variants, paths, names), a field
//! or list entry dropped, brackets broken.

use super::{bytes, text};
use crate::rng::Rng;

/// Words a project uses: enum variants, field names, `Some`/`None`, joint-ish names.
const WORDS: &[&str] = &[
    "Some",
    "None",
    "Bind",
    "Rest",
    "Frame",
    "Copy",
    "HipsScaled",
    "InPlace",
    "Hips",
    "LeftUpperArm",
    "Spine",
    "Metre",
    "Centimetre",
    "PosY",
    "NegZ",
    "version",
    "source",
    "target",
    "path",
    "clip",
    "map",
    "chains",
    "joints",
    "kind",
    "(",
    ")",
    "[",
    "]",
    "\"\"",
    "\"missing.glb\"",
    "\"/\"",
    "true",
    "false",
];

pub fn mutate(rng: &mut Rng, original: &str) -> Vec<u8> {
    match rng.below(12) {
        0 | 1 => bytes::cut_or_flip(rng, original.as_bytes()),
        2 => nest(rng, original),
        _ => {
            let mut s = text::mutate(rng, original, WORDS);
            if rng.one_in(3) {
                s = text::mutate(rng, &s, WORDS);
            }
            s.into_bytes()
        }
    }
}

/// Brackets opened deep at some point: a parser that recurses without a limit overflows
/// its stack, which no `catch_unwind` survives.
fn nest(rng: &mut Rng, original: &str) -> Vec<u8> {
    let mut at = rng.below(original.len() + 1);
    while !original.is_char_boundary(at) {
        at -= 1;
    }
    let open = *rng.pick(&["(", "[", "Some("]);
    let depth = *rng.pick(&[200, 5_000, 100_000]);
    format!(
        "{}{}{}",
        &original[..at],
        open.repeat(depth),
        &original[at..]
    )
    .into_bytes()
}
