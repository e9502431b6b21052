//! What a case mutates: the formats, their seed files, and the mutation for each.

pub mod bytes;
pub mod fbx;
/// The e2e tests' GLB container reader and writer, shared rather than copied.
#[allow(dead_code)]
#[path = "../../e2e/common/file_variants/glb.rs"]
pub mod glb;
pub mod json;
pub mod ron;
pub mod text;

use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Glb,
    /// `.gltf` with its buffer in a data URI.
    Gltf,
    /// VRM 0.x and VRM Animation (GLB containers with humanoid tables).
    Vrm,
    Bvh,
    Fbx,
    /// The RON project file.
    Project,
}

impl Format {
    pub const ALL: [Format; 6] = [
        Format::Glb,
        Format::Gltf,
        Format::Vrm,
        Format::Bvh,
        Format::Fbx,
        Format::Project,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Glb => "glb",
            Format::Gltf => "gltf",
            Format::Vrm => "vrm",
            Format::Bvh => "bvh",
            Format::Fbx => "fbx",
            Format::Project => "project",
        }
    }

    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// A file mutants are made from, parsed once.
pub struct Seed {
    /// Its file name: mutants keep its extension.
    pub name: String,
    pub bytes: Vec<u8>,
    parsed: Parsed,
}

enum Parsed {
    Glb(glb::Glb),
    Json(serde_json::Value),
    FbxFields(Vec<fbx::Field>),
    Text(String),
}

impl Seed {
    pub fn new(format: Format, name: &str, bytes: Vec<u8>) -> Seed {
        let parsed = match format {
            Format::Glb | Format::Vrm => Parsed::Glb(glb::Glb::parse(&bytes)),
            Format::Gltf => Parsed::Json(
                serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: {e}")),
            ),
            Format::Fbx => Parsed::FbxFields(fbx::fields(&bytes)),
            Format::Bvh | Format::Project => {
                Parsed::Text(String::from_utf8(bytes.clone()).expect("text seed"))
            }
        };
        Seed {
            name: name.to_owned(),
            bytes,
            parsed,
        }
    }

    /// One mutant: usually one structured change, sometimes two, sometimes raw bytes.
    pub fn mutant(&self, rng: &mut Rng) -> Vec<u8> {
        match &self.parsed {
            Parsed::Glb(glb) => json::mutate_glb(rng, &self.bytes, glb),
            Parsed::Json(doc) => json::mutate_gltf(rng, &self.bytes, doc),
            Parsed::FbxFields(fields) => fbx::mutate(rng, &self.bytes, fields),
            Parsed::Text(t) if self.name.ends_with(".ron") => ron::mutate(rng, t),
            Parsed::Text(t) => {
                if rng.one_in(8) {
                    let mut out = self.bytes.clone();
                    bytes::mutate(rng, &mut out);
                    return out;
                }
                if rng.one_in(200) {
                    return deep_chain(rng, t).into_bytes();
                }
                let mut s = text::mutate(rng, t, BVH_WORDS);
                if rng.one_in(4) {
                    s = text::mutate(rng, &s, BVH_WORDS);
                }
                s.into_bytes()
            }
        }
    }
}

/// A chain of channel-less joints hung under the root, deep enough to find recursion and
/// quadratic work over the hierarchy.
fn deep_chain(rng: &mut Rng, text: &str) -> String {
    let Some(at) = text
        .find("CHANNELS")
        .and_then(|c| text[c..].find('\n').map(|n| c + n + 1))
    else {
        return text.to_owned();
    };
    let depth = *rng.pick(&[100, 1_000, 5_000]);
    let mut chain = String::new();
    for k in 0..depth {
        chain.push_str(&format!("JOINT deep{k}\n{{\nOFFSET 0 0.1 0\nCHANNELS 0\n"));
    }
    chain.push_str("End Site\n{\nOFFSET 0 0.1 0\n}\n");
    chain.push_str(&"}\n".repeat(depth));
    format!("{}{chain}{}", &text[..at], &text[at..])
}

const BVH_WORDS: &[&str] = &[
    "HIERARCHY",
    "ROOT",
    "JOINT",
    "End",
    "Site",
    "{",
    "}",
    "OFFSET",
    "CHANNELS",
    "Xposition",
    "Yposition",
    "Zposition",
    "Xrotation",
    "Yrotation",
    "Zrotation",
    "Wrotation",
    "MOTION",
    "Frames:",
    "Frame",
    "Time:",
];
