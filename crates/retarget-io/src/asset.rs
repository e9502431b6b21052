//! What an importer hands back: skeletons, their clips and skinned meshes, plus what it
//! worked out or could not use.

use glam::{Mat4, Vec3};
use retarget_core::{Axis, Clip, Skeleton, Unit};
use std::path::PathBuf;
use std::sync::Arc;

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
    /// FBX 6.1 to 7.7, binary or ASCII.
    Fbx,
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
            Format::Fbx => "fbx",
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
    /// The file's animation (glTF animation, FBX stack, the BVH motion) it was read from:
    /// an animation that drives several skeletons (copies of one rig) gives one clip per
    /// skeleton, all with the same index.
    pub animation: usize,
}

/// The codec an [`EncodedImage`] needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageMime {
    Png,
    Jpeg,
}

impl ImageMime {
    /// The codec from the image's first bytes (a declared mime type can be wrong); `None`
    /// for what we do not decode.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageMime::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(ImageMime::Jpeg)
        } else {
            None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ImageMime::Png => "image/png",
            ImageMime::Jpeg => "image/jpeg",
        }
    }
}

/// An image as the file stores it: PNG or JPEG bytes. `io` has no image codec; whoever draws
/// decodes it (the app, once per image). One `Arc` per glTF image, shared by every primitive
/// that uses it, so `Arc::ptr_eq` tells images apart.
#[derive(Clone, Debug, PartialEq)]
pub struct EncodedImage {
    /// For messages: "image 0" or "image 0 ('name')".
    pub label: String,
    pub mime: ImageMime,
    pub bytes: Vec<u8>,
}

/// How a texture is sampled outside [0, 1] (the glTF sampler's `wrapS`/`wrapT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureWrap {
    #[default]
    Repeat,
    ClampToEdge,
    MirroredRepeat,
}

/// A material's base colour texture: the image and its sampler's wrap modes. Filters are left
/// to the renderer (glTF makes them optional).
#[derive(Clone, Debug, PartialEq)]
pub struct BaseColorTexture {
    pub image: Arc<EncodedImage>,
    pub wrap_s: TextureWrap,
    pub wrap_t: TextureWrap,
}

/// The material's `alphaMode`: how the base colour's alpha (factor times texel) is used.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AlphaMode {
    /// Alpha is ignored.
    #[default]
    Opaque,
    /// Drawn where alpha >= `cutoff`, not at all elsewhere.
    Mask { cutoff: f32 },
    /// Blended over what is behind.
    Blend,
}

/// A material's colour factor as glTF allows it: each channel in [0, 1]. A channel a file left
/// non-finite (NaN, or a number past `f32`'s range) reads as 1, the factor's default; the
/// writer could not write it back.
pub(crate) fn color_factor(c: [f32; 4]) -> [f32; 4] {
    c.map(|v| {
        if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            1.0
        }
    })
}

/// A material's `alphaCutoff` as glTF allows it: not negative; 0.5 (the default) when not
/// finite.
pub(crate) fn alpha_cutoff(c: f32) -> f32 {
    if c.is_finite() { c.max(0.0) } else { 0.5 }
}

/// One drawable piece of a skinned mesh, with joint indices already in skeleton order.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshPrimitive {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub indices: Vec<u32>,
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[f32; 4]>,
    /// Linear RGBA: the material's `baseColorFactor` (white without a material).
    pub base_color: [f32; 4],
    /// Texture coordinates of the base colour texture, one per vertex, glTF's way round
    /// (origin at the image's top-left corner), `KHR_texture_transform` already applied:
    /// the set the texture names, else `TEXCOORD_0`; empty when the primitive has neither.
    pub uvs: Vec<[f32; 2]>,
    /// Multiplied by `base_color`; `None` without one, or when its image could not be read
    /// (then the asset carries a warning). Present only together with `uvs`.
    pub base_color_texture: Option<BaseColorTexture>,
    pub alpha_mode: AlphaMode,
    /// Morph targets (blend shapes): per target, a position offset per vertex (and a normal
    /// offset, empty when the file has none). Every primitive of a mesh has as many.
    pub morphs: Vec<MorphDelta>,
}

/// One morph target of a primitive: offsets added to the rest vertices at weight 1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphDelta {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
}

/// A weight the target can play, by name: one of its morph targets, or an expression (VRM)
/// that moves several at once.
#[derive(Clone, Debug, PartialEq)]
pub struct CurveTarget {
    pub name: String,
    /// A VRM expression (preset or custom, or a VRM 0 blend shape group), not a bare morph.
    pub expression: bool,
    /// The morphs it moves, each by `weight` at curve weight 1; empty for an expression that
    /// moves no morph (texture or material binds only).
    pub binds: Vec<MorphBind>,
}

/// One morph target moved by a [`CurveTarget`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MorphBind {
    /// Index into `Asset::meshes`.
    pub mesh: usize,
    /// Index into that mesh's primitives' `morphs`.
    pub morph: usize,
    /// The glTF node that draws the mesh (what a `weights` channel targets); `None` when
    /// the file is no glTF.
    pub node: Option<usize>,
    pub weight: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SkinnedMesh {
    pub name: String,
    pub skeleton: usize,
    /// `joint_from_mesh` per skeleton joint: skinning is `world_from_joint * this`.
    pub inverse_bind: Vec<Mat4>,
    pub primitives: Vec<MeshPrimitive>,
    /// The morphs' weights when nothing animates them (glTF `weights`); one per morph.
    pub morph_weights: Vec<f32>,
}

impl SkinnedMesh {
    pub fn vertex_count(&self) -> usize {
        self.primitives.iter().map(|p| p.positions.len()).sum()
    }

    pub fn triangle_count(&self) -> usize {
        self.primitives.iter().map(|p| p.indices.len() / 3).sum()
    }

    /// Its morph targets: as many as its primitive with the most has.
    pub fn morph_count(&self) -> usize {
        self.primitives
            .iter()
            .map(|p| p.morphs.len())
            .max()
            .unwrap_or(0)
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
    /// The weights it can play (morph targets, expressions), by name.
    pub curve_targets: Vec<CurveTarget>,
    /// Why the unit and up axis were read as they were, where the file did not say.
    pub readings: Readings,
}

/// A reading the file did not declare: the evidence, in words, and what came next.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    pub evidence: String,
    /// The reading that would have been taken next (a unit's or axis's name).
    pub runner_up: Option<String>,
}

/// The readings of a file whose format leaves them open (a BVH's unit and up axis), or
/// whose declaration its body overruled (an FBX person 1.6 cm tall).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Readings {
    pub unit: Option<Reading>,
    pub up: Option<Reading>,
    /// The unit the file declared where its numbers were read in another (`Asset::unit`):
    /// a file written for the character declares it again over the same numbers, so it
    /// reads as the original did.
    pub declared_unit: Option<Unit>,
}

impl Asset {
    /// The name of each morph of `meshes[mesh]`: the curve target that moves it alone (a
    /// morph target of the file), else `<mesh>.<k>`.
    pub fn morph_names(&self, mesh: usize) -> Vec<String> {
        let m = &self.meshes[mesh];
        (0..m.morph_count())
            .map(|k| {
                self.curve_targets
                    .iter()
                    .find(|t| {
                        !t.expression && t.binds.iter().any(|b| b.mesh == mesh && b.morph == k)
                    })
                    .map_or_else(|| format!("{}.{k}", m.name), |t| t.name.clone())
            })
            .collect()
    }

    pub fn clips_of(&self, skeleton: usize) -> impl Iterator<Item = &Clip> {
        self.clips
            .iter()
            .filter(move |c| c.skeleton == skeleton)
            .map(|c| &c.clip)
    }

    /// The vertex weight each joint of skeleton `skeleton` carries, summed over its meshes
    /// (rigid meshes count fully for their joint); `None` when no mesh is bound to it (a
    /// BVH, an animation-only file): what says which joints the skin deforms with.
    pub fn joint_weights(&self, skeleton: usize) -> Option<Vec<f32>> {
        let len = self.skeletons.get(skeleton)?.len();
        let mut sums = vec![0.0f32; len];
        let mut any = false;
        let prims = self
            .meshes
            .iter()
            .filter(|m| m.skeleton == skeleton)
            .flat_map(|m| &m.primitives);
        for p in prims {
            for (joints, weights) in p.joints.iter().zip(&p.weights) {
                for (&j, &w) in joints.iter().zip(weights) {
                    if let Some(s) = sums.get_mut(j as usize)
                        && w.is_finite()
                        && w > 0.0
                    {
                        *s += w;
                        any = true;
                    }
                }
            }
        }
        any.then_some(sums)
    }

    pub fn find_clip(&self, name: &str) -> Option<&AssetClip> {
        self.clips.iter().find(|c| c.clip.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_factors_a_file_left_out_of_range_read_as_glb_allows_them() {
        let c = color_factor([f32::NAN, f32::NEG_INFINITY, 1.5, -0.25]);
        assert_eq!(c, [1.0, 1.0, 1.0, 0.0]);
        assert_eq!(color_factor([0.25, 0.5, 0.75, 1.0]), [0.25, 0.5, 0.75, 1.0]);
        assert_eq!(alpha_cutoff(f32::INFINITY), 0.5);
        assert_eq!(alpha_cutoff(-1.0), 0.0);
        assert_eq!(alpha_cutoff(0.3), 0.3);
    }
}
