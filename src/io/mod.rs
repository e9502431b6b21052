//! Readers and writers. Depends on core, never on the app.

pub mod asset;
pub mod atomic;
pub mod bvh;
pub mod bvh_export;
pub mod error;
pub mod fbx;
pub mod gltf_export;
pub mod gltf_import;
pub mod project;
pub mod vrm;

pub use asset::{
    AlphaMode, Asset, AssetClip, BaseColorTexture, EncodedImage, Format, ImageMime, MeshPrimitive,
    Provenance, SkinnedMesh, TextureWrap,
};
pub use error::{ExportError, ExportProblem, ImportError, Problem};

use std::path::Path;

/// Options a caller can force on an import where the file leaves room to guess.
#[derive(Clone, Copy, Debug, Default)]
pub struct ImportOptions {
    /// BVH only: the length unit of the file.
    pub unit: Option<crate::core::Unit>,
    /// BVH only: which file axis points up.
    pub up: Option<crate::core::Axis>,
}

/// Loads any supported file, choosing the reader by extension (then by content).
pub fn load(path: &Path, options: &ImportOptions) -> Result<Asset, ImportError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "bvh" => bvh::import_bvh(path, options),
        "gltf" | "glb" | "vrm" | "vrma" => gltf_import::import_gltf(path),
        "fbx" => fbx::import_fbx(path),
        _ => {
            let bytes =
                std::fs::read(path).map_err(|e| ImportError::new(path, Problem::Read(e)))?;
            if bytes.starts_with(b"HIERARCHY") {
                bvh::import_bvh_bytes(path, &bytes, options)
            } else if bytes.starts_with(b"glTF") {
                gltf_import::import_gltf_bytes(path, &bytes)
            } else if fbx::looks_like_fbx(&bytes) {
                fbx::import_fbx_bytes(path, &bytes)
            } else {
                Err(ImportError::new(path, Problem::UnknownFormat))
            }
        }
    }
}
