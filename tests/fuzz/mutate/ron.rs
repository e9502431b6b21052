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
        _ => {
            let mut s = text::mutate(rng, original, WORDS);
            if rng.one_in(3) {
                s = text::mutate(rng, &s, WORDS);
            }
            s.into_bytes()
        }
    }
}
