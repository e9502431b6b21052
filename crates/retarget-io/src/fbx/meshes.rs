//! Meshes for the viewer: skinned meshes (their skin deformer's clusters weight them to the
//! skeleton's joints) and plain meshes hung under a joint, weighted fully to it. Faces are
//! triangulated and split by material; corners that share position, normal and UV share a
//! vertex.

use super::convert::{invert, mat4, vec2, vec3};
use super::skeleton::Built;
use super::textures::{Look, Textures};
use crate::asset::{CurveTarget, MeshPrimitive, MorphBind, MorphDelta, SkinnedMesh};
use glam::{Mat4, Vec3};
use std::collections::HashMap;

/// The most offsets (blend shapes times vertices) one mesh's morphs may hold.
const MAX_OFFSETS: usize = 1 << 26;

/// Whether every number the viewer and the exporter would use is finite.
fn is_finite(mesh: &SkinnedMesh) -> bool {
    mesh.inverse_bind.iter().all(Mat4::is_finite)
        && mesh.primitives.iter().all(|p| {
            p.positions.iter().chain(&p.normals).all(|v| v.is_finite())
                && p.weights.iter().flatten().all(|w| w.is_finite())
                && p.uvs.iter().flatten().all(|w| w.is_finite())
        })
}

/// How a mesh's vertices follow the skeleton.
enum Weighting<'a> {
    /// Per vertex, from the skin deformer; `cluster_joint` maps cluster index to joint.
    Skin {
        skin: &'a ufbx::SkinDeformer,
        cluster_joint: Vec<Option<u16>>,
    },
    Rigid(u16),
}

pub(super) fn read_meshes(
    scene: &ufbx::Scene,
    built: &Built,
    textures: &mut Textures,
    warnings: &mut Vec<String>,
) -> (Vec<SkinnedMesh>, Vec<Vec<String>>) {
    let mut out = Vec::new();
    let mut morph_names = Vec::new();
    for node in scene.nodes.iter() {
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        let name = if node.element.name.is_empty() {
            mesh.element.name.to_string()
        } else {
            node.element.name.to_string()
        };
        let Some((weighting, inverse_bind)) = binding(node, mesh, built) else {
            warnings.push(format!(
                "mesh '{name}' is neither skinned to the skeleton nor under one of its joints; \
                 not shown"
            ));
            continue;
        };
        let (mut primitives, sources): (Vec<MeshPrimitive>, Vec<Vec<u32>>) = mesh
            .material_parts
            .iter()
            .filter(|part| part.num_triangles > 0)
            .map(|part| {
                let look = textures.look(mesh.materials.get(part.index as usize), warnings);
                primitive(mesh, part, &weighting, look)
            })
            .unzip();
        let (names, morph_weights) = match blend_shapes(mesh, &mut primitives, &sources) {
            Ok(read) => read,
            Err(reason) => {
                warnings.push(format!(
                    "mesh '{name}': its blend shapes are not read: {reason}"
                ));
                primitives.iter_mut().for_each(|p| p.morphs.clear());
                (Vec::new(), Vec::new())
            }
        };
        let mesh = SkinnedMesh {
            name,
            skeleton: 0,
            inverse_bind,
            primitives,
            morph_weights,
        };
        if !is_finite(&mesh) {
            warnings.push(format!(
                "mesh '{}' has a NaN or infinite vertex, weight or bind matrix; not shown",
                mesh.name
            ));
            continue;
        }
        out.push(mesh);
        morph_names.push(names);
    }
    (out, morph_names)
}

/// The blend shapes of `mesh` as morph targets of its `primitives` (whose vertices came from
/// the FBX vertices `sources`), one per blend channel, at the channel's full-weight shape:
/// their names and default weights (0..1).
fn blend_shapes(
    mesh: &ufbx::Mesh,
    primitives: &mut [MeshPrimitive],
    sources: &[Vec<u32>],
) -> Result<(Vec<String>, Vec<f32>), String> {
    let channels: Vec<&ufbx::BlendChannel> = mesh
        .blend_deformers
        .iter()
        .flat_map(|d| d.channels.iter())
        .map(|c| &**c)
        .collect();
    if channels.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let n = mesh.num_vertices;
    if channels.len().saturating_mul(n) > MAX_OFFSETS {
        return Err(format!(
            "{} blend shapes of {n} vertices, more offsets than the {MAX_OFFSETS} read",
            channels.len()
        ));
    }
    let mut names = Vec::with_capacity(channels.len());
    let mut weights = Vec::with_capacity(channels.len());
    for channel in channels {
        let shape = channel
            .target_shape
            .as_ref()
            .or_else(|| channel.keyframes.iter().last().map(|k| &k.shape));
        // The shape's offsets over the FBX vertices.
        let mut positions = vec![Vec3::ZERO; n];
        let mut normals = Vec::new();
        if let Some(shape) = shape {
            let has_normals = shape.normal_offsets.len() == shape.offset_vertices.len();
            if has_normals {
                normals = vec![Vec3::ZERO; n];
            }
            for (k, &v) in shape.offset_vertices.iter().enumerate() {
                let v = v as usize;
                if v >= n {
                    return Err(format!(
                        "shape '{}' moves vertex {v} of {n}",
                        shape.element.name
                    ));
                }
                if let Some(&d) = shape.position_offsets.get(k) {
                    positions[v] = vec3(d);
                }
                if has_normals {
                    normals[v] = vec3(shape.normal_offsets[k]);
                }
            }
        }
        if !positions.iter().chain(&normals).all(|v| v.is_finite()) {
            return Err(format!(
                "channel '{}' has a NaN or infinite offset",
                channel.element.name
            ));
        }
        for (p, src) in primitives.iter_mut().zip(sources) {
            let pick = |all: &[Vec3]| -> Vec<Vec3> {
                src.iter()
                    .map(|&v| all.get(v as usize).copied().unwrap_or(Vec3::ZERO))
                    .collect()
            };
            p.morphs.push(MorphDelta {
                positions: pick(&positions),
                normals: if normals.is_empty() {
                    Vec::new()
                } else {
                    pick(&normals)
                },
            });
        }
        names.push(channel.element.name.to_string());
        let w = channel.weight as f32;
        weights.push(if w.is_finite() { w } else { 0.0 });
    }
    Ok((names, weights))
}

/// One curve target per blend channel name over every mesh (`names[i]`: those of mesh `i`).
pub(super) fn curve_targets(names: &[Vec<String>]) -> Vec<CurveTarget> {
    let mut out: Vec<CurveTarget> = Vec::new();
    for (mesh, list) in names.iter().enumerate() {
        for (morph, name) in list.iter().enumerate() {
            let bind = MorphBind {
                mesh,
                morph,
                node: None,
                weight: 1.0,
            };
            match out.iter_mut().find(|t| &t.name == name) {
                Some(t) => t.binds.push(bind),
                None => out.push(CurveTarget {
                    name: name.clone(),
                    expression: false,
                    binds: vec![bind],
                }),
            }
        }
    }
    out
}

/// The weighting of a mesh node and its `joint_from_mesh` matrices, or `None` when the mesh
/// does not follow the skeleton.
fn binding<'a>(
    node: &ufbx::Node,
    mesh: &'a ufbx::Mesh,
    built: &Built,
) -> Option<(Weighting<'a>, Vec<Mat4>)> {
    let geometry_to_world = mat4(&node.geometry_to_world);
    // Joints without a cluster keep the mesh where the bind pose has it.
    let mut ibm: Vec<Mat4> = built
        .bind_worlds
        .iter()
        .map(|w| invert(*w).unwrap_or(Mat4::IDENTITY) * geometry_to_world)
        .collect();
    if let Some(skin) = mesh.skin_deformers.iter().next() {
        let mut cluster_joint = Vec::with_capacity(skin.clusters.len());
        for cluster in skin.clusters.iter() {
            let joint = cluster
                .bone_node
                .as_ref()
                .and_then(|b| built.joint_of_node.get(&(b.element.typed_id as usize)))
                .map(|&j| j as u16);
            if let Some(j) = joint {
                ibm[j as usize] = mat4(&cluster.geometry_to_bone);
            }
            cluster_joint.push(joint);
        }
        if cluster_joint.iter().all(Option::is_none) {
            return None;
        }
        return Some((
            Weighting::Skin {
                skin,
                cluster_joint,
            },
            ibm,
        ));
    }
    let mut up = node.parent.as_ref();
    while let Some(p) = up {
        if let Some(&j) = built.joint_of_node.get(&(p.element.typed_id as usize)) {
            // joint_from_mesh at rest: the node's world is where the joint's rest puts it.
            let joint_world = mat4(&p.node_to_world);
            ibm[j] = invert(joint_world)? * geometry_to_world;
            return Some((Weighting::Rigid(j as u16), ibm));
        }
        up = p.parent.as_ref();
    }
    None
}

/// Output vertices by (position, normal, UV) index triple.
type Corners = HashMap<(u32, u32, u32), u32>;

/// One material's triangles, and the FBX vertex each of its vertices comes from (what blend
/// shape offsets are keyed by).
fn primitive(
    mesh: &ufbx::Mesh,
    part: &ufbx::MeshPart,
    weighting: &Weighting,
    look: Look,
) -> (MeshPrimitive, Vec<u32>) {
    let mut p = MeshPrimitive {
        positions: Vec::new(),
        normals: Vec::new(),
        indices: Vec::with_capacity(part.num_triangles * 3),
        joints: Vec::new(),
        weights: Vec::new(),
        base_color: look.base_color,
        uvs: Vec::new(),
        base_color_texture: None,
        alpha_mode: look.alpha_mode,
        morphs: Vec::new(),
    };
    let has_uv = mesh.vertex_uv.exists;
    let mut corners = Corners::new();
    let mut sources = Vec::new();
    let mut tri = vec![0u32; mesh.max_face_triangles * 3];
    for &f in part.face_indices.iter() {
        let Some(&face) = mesh.faces.get(f as usize) else {
            continue;
        };
        let n = ufbx::triangulate_face(&mut tri, mesh, face) as usize;
        for &corner in &tri[..n * 3] {
            let i = corner as usize;
            let key = (
                mesh.vertex_position.indices[i],
                index_or_zero(&mesh.vertex_normal.indices, i),
                if has_uv {
                    index_or_zero(&mesh.vertex_uv.indices, i)
                } else {
                    0
                },
            );
            let next = p.positions.len() as u32;
            let v = *corners.entry(key).or_insert(next);
            if v == next {
                push_vertex(&mut p, mesh, i, has_uv, weighting);
                sources.push(index_or_zero(&mesh.vertex_indices, i));
            }
            p.indices.push(v);
        }
    }
    if has_uv {
        p.base_color_texture = look.texture;
    } else {
        p.uvs.clear();
    }
    (p, sources)
}

fn index_or_zero(indices: &[u32], i: usize) -> u32 {
    indices.get(i).copied().unwrap_or(0)
}

fn push_vertex(p: &mut MeshPrimitive, mesh: &ufbx::Mesh, i: usize, has_uv: bool, w: &Weighting) {
    p.positions.push(vec3(mesh.vertex_position[i]));
    let normal = if mesh.vertex_normal.exists {
        vec3(mesh.vertex_normal[i]).normalize_or(Vec3::Y)
    } else {
        Vec3::Y
    };
    p.normals.push(normal);
    if has_uv {
        // FBX puts the UV origin at the image's bottom left, glTF at its top left.
        let uv = vec2(mesh.vertex_uv[i]);
        p.uvs.push([uv.x, 1.0 - uv.y]);
    }
    let (joints, weights) = match w {
        Weighting::Rigid(j) => ([*j, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
        Weighting::Skin {
            skin,
            cluster_joint,
        } => {
            let vertex = mesh.vertex_indices.get(i).copied().unwrap_or(0) as usize;
            strongest_four(skin, cluster_joint, vertex)
        }
    };
    p.joints.push(joints);
    p.weights.push(weights);
}

/// The four strongest of a vertex's influences (FBX allows any number; up to eight are
/// common), renormalised to sum to 1. Influences on bones outside the skeleton are dropped.
fn strongest_four(
    skin: &ufbx::SkinDeformer,
    cluster_joint: &[Option<u16>],
    vertex: usize,
) -> ([u16; 4], [f32; 4]) {
    let Some(sv) = skin.vertices.get(vertex) else {
        return ([0; 4], [0.0; 4]);
    };
    let begin = sv.weight_begin as usize;
    let end = begin + sv.num_weights as usize;
    let mut all: Vec<(u16, f32)> = skin
        .weights
        .get(begin..end)
        .unwrap_or(&[])
        .iter()
        .filter_map(|w| {
            let joint = cluster_joint
                .get(w.cluster_index as usize)
                .copied()
                .flatten()?;
            (w.weight > 0.0).then_some((joint, w.weight as f32))
        })
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1));
    all.truncate(4);
    let total: f32 = all.iter().map(|(_, w)| w).sum();
    let (mut joints, mut weights) = ([0u16; 4], [0.0f32; 4]);
    if total > 0.0 {
        for (k, (j, w)) in all.into_iter().enumerate() {
            joints[k] = j;
            weights[k] = w / total;
        }
    }
    (joints, weights)
}
