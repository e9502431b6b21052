//! What an importer hands back: skeletons, their clips and skinned meshes, plus what it
//! worked out or could not use.

use crate::core::{Axis, Clip, Skeleton, Unit};
use glam::{Mat4, Vec3};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Gltf,
    Glb,
    /// VRM 0.x (`extensions.VRM`).
    Vrm0,
    /// VRM 1.0 (`extensions.VRMC_vrm`).
    Vrm1,
    /// VRM Animation (`extensions.VRMC_vrm_animation`).
    Vrma,
    Bvh,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Gltf => "gltf",
            Format::Glb => "glb",
            Format::Vrm0 => "vrm0",
            Format::Vrm1 => "vrm1",
            Format::Vrma => "vrma",
            Format::Bvh => "bvh",
        }
    }
}

/// Where a length unit or an up axis came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// The format fixes it (glTF: metres, +Y up).
    Declared,
    /// Worked out from the figure's rest pose.
    Detected,
    /// Given by the caller.
    Override,
    /// Nothing to go on; the format's usual value.
    Assumed,
}

impl Provenance {
    pub fn name(self) -> &'static str {
        match self {
            Provenance::Declared => "declared",
            Provenance::Detected => "detected",
            Provenance::Override => "override",
            Provenance::Assumed => "assumed",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AssetClip {
    /// Index into `Asset::skeletons`.
    pub skeleton: usize,
    pub clip: Clip,
}

/// One drawable piece of a skinned mesh, with joint indices already in skeleton order.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshPrimitive {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub indices: Vec<u32>,
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[f32; 4]>,
    pub base_color: [f32; 4],
}

#[derive(Clone, Debug, PartialEq)]
pub struct SkinnedMesh {
    pub name: String,
    pub skeleton: usize,
    /// `joint_from_mesh` per skeleton joint: skinning is `world_from_joint * this`.
    pub inverse_bind: Vec<Mat4>,
    pub primitives: Vec<MeshPrimitive>,
}

impl SkinnedMesh {
    pub fn vertex_count(&self) -> usize {
        self.primitives.iter().map(|p| p.positions.len()).sum()
    }

    pub fn triangle_count(&self) -> usize {
        self.primitives.iter().map(|p| p.indices.len() / 3).sum()
    }
}

#[derive(Clone, Debug)]
pub struct Asset {
    pub path: PathBuf,
    pub format: Format,
    pub skeletons: Vec<Skeleton>,
    pub clips: Vec<AssetClip>,
    pub meshes: Vec<SkinnedMesh>,
    /// glTF node index of every joint, per skeleton (empty for BVH): what an exporter needs
    /// to animate the file's own nodes.
    pub joint_nodes: Vec<Vec<usize>>,
    pub unit: Unit,
    pub unit_source: Provenance,
    pub up: Axis,
    pub up_source: Provenance,
    /// Things in the file that were not imported, or were repaired, in words for the user.
    pub warnings: Vec<String>,
}

impl Asset {
    pub fn clips_of(&self, skeleton: usize) -> impl Iterator<Item = &Clip> {
        self.clips
            .iter()
            .filter(move |c| c.skeleton == skeleton)
            .map(|c| &c.clip)
    }

    pub fn find_clip(&self, name: &str) -> Option<&AssetClip> {
        self.clips.iter().find(|c| c.clip.name == name)
    }
}
