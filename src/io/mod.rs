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
    let asset = load_any(path, options)?;
    check_clip_extent(&asset).map_err(|p| ImportError::new(path, p))?;
    Ok(asset)
}

/// Every clip, posed at each of its key times, keeps its joints finite and within
/// [`crate::core::skeleton::MAX_EXTENT`]: finite keys can still compose past the `f32`
/// range (a scale of 1e30 under another), and the viewer and the solver would get NaN.
fn check_clip_extent(asset: &Asset) -> Result<(), Problem> {
    use crate::core::skeleton::MAX_EXTENT;
    for c in &asset.clips {
        let Some(skeleton) = asset.skeletons.get(c.skeleton) else {
            continue;
        };
        let mut times: Vec<f32> = c.clip.tracks().iter().flat_map(key_times).collect();
        times.sort_by(f32::total_cmp);
        times.dedup();
        let rest = crate::core::Pose::rest(skeleton);
        let mut pose = rest.clone();
        let mut worlds = vec![glam::Mat4::IDENTITY; skeleton.len()];
        for t in times {
            pose.copy_from(&rest);
            c.clip.sample(t, &mut pose);
            pose.world_matrices_into(skeleton, &mut worlds);
            let within = |m: &glam::Mat4| m.to_cols_array().iter().all(|v| v.abs() <= MAX_EXTENT);
            if let Some(j) = worlds.iter().position(|m| !within(m)) {
                return Err(Problem::BadData {
                    what: format!("clip '{}' at {t} s", c.clip.name),
                    reason: format!(
                        "joint '{}' is carried beyond {MAX_EXTENT:e} units: the clip's numbers \
                         are too large",
                        skeleton.names()[j]
                    ),
                });
            }
        }
    }
    Ok(())
}

fn key_times(t: &crate::core::JointTracks) -> impl Iterator<Item = f32> + '_ {
    let tr = t.translation.iter().flat_map(|k| k.times());
    let ro = t.rotation.iter().flat_map(|k| k.times());
    let sc = t.scale.iter().flat_map(|k| k.times());
    tr.chain(ro).chain(sc).copied()
}

fn load_any(path: &Path, options: &ImportOptions) -> Result<Asset, ImportError> {
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
