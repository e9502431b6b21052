//! Meshes for the viewer: those skinned by a skeleton's skin, and rigid meshes that hang
//! from a joint (RobotExpressive's body parts), which become meshes weighted fully to it.

use super::hierarchy::Hierarchy;
use super::skeletons::BuiltSkeleton;
use crate::io::asset::{MeshPrimitive, SkinnedMesh};
use crate::io::error::Problem;
use glam::{Mat4, Vec3};
use std::collections::HashMap;

/// How a mesh node is bound to a skeleton.
pub(super) enum Binding {
    /// A glTF skin: its joint list (nodes) and inverse bind matrices.
    Skin {
        skeleton: usize,
        joints: Vec<usize>,
        inverse_binds: Vec<Mat4>,
    },
    /// A plain mesh under a joint, moved rigidly by it.
    Rigid { skeleton: usize, joint: usize },
}

pub(super) fn read_mesh(
    node: &gltf::Node,
    binding: &Binding,
    buffers: &[gltf::buffer::Data],
    h: &Hierarchy,
    skeletons: &[BuiltSkeleton],
    warnings: &mut Vec<String>,
) -> Result<Option<SkinnedMesh>, Problem> {
    let Some(mesh) = node.mesh() else {
        return Ok(None);
    };
    let (skeleton, remap, inverse_bind) = match binding {
        Binding::Skin {
            skeleton,
            joints,
            inverse_binds,
        } => {
            let built = &skeletons[*skeleton];
            let mut ibm = built
                .bind_worlds
                .iter()
                .map(|m| m.inverse())
                .collect::<Vec<_>>();
            let remap: Vec<u16> = joints
                .iter()
                .map(|n| built.joint_of_node[n] as u16)
                .collect();
            for (k, &j) in remap.iter().enumerate() {
                ibm[j as usize] = inverse_binds[k];
            }
            (*skeleton, Some(remap), ibm)
        }
        Binding::Rigid { skeleton, joint } => {
            let built = &skeletons[*skeleton];
            let mut ibm = vec![Mat4::IDENTITY; built.skeleton.len()];
            // joint_from_mesh = joint_from_world (rest) * world_from_mesh (rest).
            ibm[*joint] = h.worlds[built.nodes[*joint]].inverse() * h.worlds[node.index()];
            (*skeleton, None, ibm)
        }
    };
    let name = mesh
        .name()
        .or(node.name())
        .map(str::to_owned)
        .unwrap_or_else(|| format!("mesh_{}", mesh.index()));
    let mut primitives = Vec::new();
    for prim in mesh.primitives() {
        if prim.mode() != gltf::mesh::Mode::Triangles {
            warnings.push(format!(
                "mesh '{name}': a non-triangle primitive is not drawn"
            ));
            continue;
        }
        let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
        let Some(positions) = reader.read_positions() else {
            warnings.push(format!(
                "mesh '{name}': a primitive without positions is skipped"
            ));
            continue;
        };
        let positions: Vec<Vec3> = positions.map(Vec3::from).collect();
        let n = positions.len();
        let indices: Vec<u32> = match reader.read_indices() {
            Some(i) => i.into_u32().collect(),
            None => (0..n as u32).collect(),
        };
        if let Some(bad) = indices.iter().find(|&&i| i as usize >= n) {
            return Err(Problem::BadData {
                what: format!("mesh '{name}'"),
                reason: format!("index {bad} is past its {n} vertices"),
            });
        }
        let normals: Vec<Vec3> = match reader.read_normals() {
            Some(v) => v.map(Vec3::from).collect(),
            None => smooth_normals(&positions, &indices),
        };
        let (joints, weights) = match &remap {
            Some(remap) => {
                let (Some(j), Some(w)) = (reader.read_joints(0), reader.read_weights(0)) else {
                    warnings.push(format!(
                        "mesh '{name}': a skinned primitive without JOINTS_0/WEIGHTS_0 is skipped"
                    ));
                    continue;
                };
                let joints = j
                    .into_u16()
                    .map(|js| js.map(|k| remap.get(k as usize).copied().unwrap_or(u16::MAX)))
                    .collect::<Vec<_>>();
                if joints.iter().flatten().any(|&k| k == u16::MAX) {
                    return Err(Problem::BadData {
                        what: format!("mesh '{name}'"),
                        reason: "a JOINTS_0 value is past the end of the skin's joint list".into(),
                    });
                }
                (joints, w.into_f32().collect::<Vec<_>>())
            }
            None => {
                let Binding::Rigid { joint, .. } = binding else {
                    unreachable!()
                };
                (
                    vec![[*joint as u16, 0, 0, 0]; n],
                    vec![[1.0, 0.0, 0.0, 0.0]; n],
                )
            }
        };
        if normals.len() != n || joints.len() != n || weights.len() != n {
            return Err(Problem::BadData {
                what: format!("mesh '{name}'"),
                reason: "its attributes have different vertex counts".into(),
            });
        }
        primitives.push(MeshPrimitive {
            positions,
            normals,
            indices,
            joints,
            weights,
            base_color: prim.material().pbr_metallic_roughness().base_color_factor(),
        });
    }
    Ok(Some(SkinnedMesh {
        name,
        skeleton,
        inverse_bind,
        primitives,
    }))
}

fn smooth_normals(positions: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
    let mut normals = vec![Vec3::ZERO; positions.len()];
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let n = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
        for i in [a, b, c] {
            normals[i] += n;
        }
    }
    normals.iter().map(|n| n.normalize_or(Vec3::Y)).collect()
}

/// For each mesh node that is not skinned, the nearest ancestor that is a skeleton joint.
pub(super) fn rigid_bindings(
    doc: &gltf::Document,
    h: &Hierarchy,
    skeletons: &[BuiltSkeleton],
) -> HashMap<usize, Binding> {
    let mut out = HashMap::new();
    for node in doc.nodes() {
        if node.mesh().is_none() || node.skin().is_some() {
            continue;
        }
        let mut at = h.parents[node.index()];
        while let Some(p) = at {
            if let Some((s, j)) = skeletons
                .iter()
                .enumerate()
                .find_map(|(s, b)| b.joint_of_node.get(&p).map(|&j| (s, j)))
            {
                out.insert(
                    node.index(),
                    Binding::Rigid {
                        skeleton: s,
                        joint: j,
                    },
                );
                break;
            }
            at = h.parents[p];
        }
    }
    out
}
