#![allow(dead_code)]

use retarget_studio::io::{Asset, ImportError, ImportOptions};
use std::path::PathBuf;

/// A bundled asset under `assets/` (copies of ../shared/assets, so a fresh clone tests alone).
pub fn asset_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

pub fn load(rel: &str) -> Asset {
    let path = asset_path(rel);
    retarget_studio::io::load(&path, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{rel} should load: {e}"))
}

pub fn load_err_bytes(name: &str, bytes: &[u8]) -> ImportError {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    match retarget_studio::io::load(&path, &ImportOptions::default()) {
        Ok(_) => panic!("{name} should not load"),
        Err(e) => e,
    }
}

pub const GLTF_ASSETS: &[&str] = &[
    "gltf/RobotExpressive.glb",
    "gltf/Fox.glb",
    "gltf/CesiumMan.glb",
    "vrm/cryptovoxels.vrm",
    "vrm/three-vrm_test.vrma",
];

pub mod creature_set;
pub mod editor;
pub mod file_variants;
pub mod matrix_export;
pub mod renames;
pub mod textured;
pub mod variants;

pub const BVH_ASSETS: &[&str] = &["bvh/01_01.bvh", "bvh/02_01.bvh", "bvh/05_06.bvh"];
