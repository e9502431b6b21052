//! `WithCharacter` for a target that was not read from glTF (FBX): its skinned meshes as the
//! importer gave them (positions, normals, UVs, four weights, base colour and embedded
//! texture), written under the skeleton `rig` builds. Each mesh gets a skin of its own, since
//! its inverse bind matrices are its own (`joint_from_mesh`).

use super::bin::Extra;
use crate::asset::{AlphaMode, Asset, BaseColorTexture, MeshPrimitive, TextureWrap};
use gltf::json::accessor::Type;
use gltf::json::buffer::Target;
use gltf::json::image::MimeType;
use gltf::json::material::{AlphaCutoff, PbrBaseColorFactor};
use gltf::json::mesh::{Mode, Semantic};
use gltf::json::texture::{Info, Sampler, WrappingMode};
use gltf::json::validation::Checked;
use gltf::json::{self, Index, Root};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Adds each mesh `asset.meshes[i]` (`i` of `indices`) as a node at the scene's top, skinned
/// over `joint_nodes`, with its morph targets. Returns each mesh's node (`None`: it had no
/// triangles and was left out).
pub(super) fn push_meshes(
    root: &mut Root,
    extra: &mut Extra,
    (asset, indices): (&Asset, &[usize]),
    joint_nodes: &[u32],
) -> Vec<Option<Index<json::Node>>> {
    let mut images: Vec<(*const crate::EncodedImage, Index<json::Texture>)> = Vec::new();
    let mut nodes = Vec::new();
    for &i in indices {
        let mesh = &asset.meshes[i];
        let names = asset.morph_names(i);
        let primitives = mesh
            .primitives
            .iter()
            .filter(|p| !p.positions.is_empty() && !p.indices.is_empty())
            .map(|p| primitive(root, extra, p, names.len(), &mut images))
            .collect::<Vec<_>>();
        if primitives.is_empty() {
            nodes.push(None);
            continue;
        }
        let ibm: Vec<f32> = mesh
            .inverse_bind
            .iter()
            .flat_map(|m| {
                let mut c = m.to_cols_array();
                (c[3], c[7], c[11], c[15]) = (0.0, 0.0, 0.0, 1.0);
                c
            })
            .collect();
        let ibm = extra.push_f32(root, &ibm, Type::Mat4, false, None);
        let skin = root.push(json::Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: Some(ibm),
            joints: joint_nodes.iter().map(|&n| Index::new(n)).collect(),
            name: Some(mesh.name.clone()),
            skeleton: None,
        });
        let morphs = !names.is_empty();
        let weights = (0..names.len())
            .map(|k| mesh.morph_weights.get(k).copied().unwrap_or(0.0))
            .collect();
        let m = root.push(json::Mesh {
            extensions: None,
            extras: morphs
                .then(|| {
                    serde_json::value::to_raw_value(&serde_json::json!({ "targetNames": names }))
                        .ok()
                })
                .flatten(),
            name: Some(mesh.name.clone()),
            primitives,
            weights: morphs.then_some(weights),
        });
        nodes.push(Some(root.push(json::Node {
            name: Some(mesh.name.clone()),
            mesh: Some(m),
            skin: Some(skin),
            ..Default::default()
        })));
    }
    nodes
}

/// One primitive; `morphs` targets (its own, zero offsets past them: every primitive of a
/// glTF mesh has as many).
fn primitive(
    root: &mut Root,
    extra: &mut Extra,
    p: &MeshPrimitive,
    morphs: usize,
    images: &mut Vec<(*const crate::EncodedImage, Index<json::Texture>)>,
) -> json::mesh::Primitive {
    let flat3 = |v: &[glam::Vec3]| v.iter().flat_map(|p| p.to_array()).collect::<Vec<f32>>();
    let vertex = Some(Target::ArrayBuffer);
    let mut attributes = BTreeMap::new();
    let positions = extra.push_f32(root, &flat3(&p.positions), Type::Vec3, true, vertex);
    attributes.insert(Checked::Valid(Semantic::Positions), positions);
    if p.normals.len() == p.positions.len() {
        let normals = extra.push_f32(root, &flat3(&p.normals), Type::Vec3, false, vertex);
        attributes.insert(Checked::Valid(Semantic::Normals), normals);
    }
    let textured = p.uvs.len() == p.positions.len();
    if textured {
        let uvs: Vec<f32> = p.uvs.iter().flatten().copied().collect();
        let uvs = extra.push_f32(root, &uvs, Type::Vec2, false, vertex);
        attributes.insert(Checked::Valid(Semantic::TexCoords(0)), uvs);
    }
    let (joints, weights) = influences(p);
    let joints = extra.push_u16(root, &joints, Type::Vec4, vertex);
    attributes.insert(Checked::Valid(Semantic::Joints(0)), joints);
    let weights = extra.push_f32(root, &weights, Type::Vec4, false, vertex);
    attributes.insert(Checked::Valid(Semantic::Weights(0)), weights);
    let indices = extra.push_u32(root, &p.indices, Some(Target::ElementArrayBuffer));
    let texture = p
        .base_color_texture
        .as_ref()
        .filter(|_| textured)
        .map(|t| texture(root, extra, t, images));
    let material = root.push(material(p, texture));
    json::mesh::Primitive {
        attributes,
        extensions: None,
        extras: Default::default(),
        indices: Some(indices),
        material: Some(material),
        mode: Checked::Valid(Mode::Triangles),
        targets: (morphs > 0).then(|| morph_targets(root, extra, p, morphs)),
    }
}

/// The primitive's morph targets as POSITION (with the min and max glTF requires) and, when
/// it has them, NORMAL offsets; a morph it lacks is all zeros.
fn morph_targets(
    root: &mut Root,
    extra: &mut Extra,
    p: &MeshPrimitive,
    count: usize,
) -> Vec<json::mesh::MorphTarget> {
    let n = p.positions.len();
    let offsets = |v: &[glam::Vec3]| -> Vec<f32> {
        (0..n)
            .flat_map(|i| v.get(i).copied().unwrap_or_default().to_array())
            .collect()
    };
    (0..count)
        .map(|k| {
            let morph = p.morphs.get(k);
            let positions = morph.map_or_else(|| vec![0.0; n * 3], |m| offsets(&m.positions));
            let positions = extra.push_f32(root, &positions, Type::Vec3, true, None);
            let normals = morph
                .filter(|m| m.normals.len() == n && p.normals.len() == n)
                .map(|m| extra.push_f32(root, &offsets(&m.normals), Type::Vec3, false, None));
            json::mesh::MorphTarget {
                positions: Some(positions),
                normals,
                tangents: None,
            }
        })
        .collect()
}

/// Joint indices and weights, each vertex's weights summing to one as glTF requires (a
/// vertex without influence goes fully to joint 0, which the importer's renormalising skin
/// would leave at its bind place anyway).
fn influences(p: &MeshPrimitive) -> (Vec<u16>, Vec<f32>) {
    let mut joints = Vec::with_capacity(p.positions.len() * 4);
    let mut weights = Vec::with_capacity(p.positions.len() * 4);
    for v in 0..p.positions.len() {
        let j = p.joints.get(v).copied().unwrap_or([0; 4]);
        let w = p.weights.get(v).copied().unwrap_or([0.0; 4]);
        // In f64: four weights near f32's largest would sum to infinity.
        let total: f64 = w.iter().map(|&x| f64::from(x)).sum();
        if total > 0.0 && total.is_finite() {
            joints.extend(j);
            weights.extend(w.map(|x| (f64::from(x) / total) as f32));
        } else {
            joints.extend([0; 4]);
            weights.extend([1.0, 0.0, 0.0, 0.0]);
        }
    }
    (joints, weights)
}

fn material(p: &MeshPrimitive, texture: Option<Index<json::Texture>>) -> json::Material {
    let mut m = json::Material::default();
    m.pbr_metallic_roughness.base_color_factor = PbrBaseColorFactor(p.base_color);
    m.pbr_metallic_roughness.metallic_factor = json::material::StrengthFactor(0.0);
    m.pbr_metallic_roughness.base_color_texture = texture.map(|index| Info {
        index,
        tex_coord: 0,
        extensions: None,
        extras: Default::default(),
    });
    match p.alpha_mode {
        AlphaMode::Opaque => {}
        AlphaMode::Blend => m.alpha_mode = Checked::Valid(json::material::AlphaMode::Blend),
        AlphaMode::Mask { cutoff } => {
            m.alpha_mode = Checked::Valid(json::material::AlphaMode::Mask);
            m.alpha_cutoff = Some(AlphaCutoff(cutoff));
        }
    }
    m
}

/// One texture per image (shared by primitives that use the same `Arc`), with its wraps.
fn texture(
    root: &mut Root,
    extra: &mut Extra,
    t: &BaseColorTexture,
    images: &mut Vec<(*const crate::EncodedImage, Index<json::Texture>)>,
) -> Index<json::Texture> {
    let key = Arc::as_ptr(&t.image);
    if let Some((_, index)) = images.iter().find(|(k, _)| *k == key) {
        return *index;
    }
    let view = extra.push_view(root, &t.image.bytes, None);
    let image = root.push(json::Image {
        buffer_view: Some(view),
        mime_type: Some(MimeType(t.image.mime.as_str().to_owned())),
        name: Some(t.image.label.clone()),
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    let wrap = |w: TextureWrap| {
        Checked::Valid(match w {
            TextureWrap::Repeat => WrappingMode::Repeat,
            TextureWrap::ClampToEdge => WrappingMode::ClampToEdge,
            TextureWrap::MirroredRepeat => WrappingMode::MirroredRepeat,
        })
    };
    let sampler = root.push(Sampler {
        wrap_s: wrap(t.wrap_s),
        wrap_t: wrap(t.wrap_t),
        ..Default::default()
    });
    let index = root.push(json::Texture {
        name: None,
        sampler: Some(sampler),
        source: image,
        extensions: None,
        extras: Default::default(),
    });
    images.push((key, index));
    index
}
