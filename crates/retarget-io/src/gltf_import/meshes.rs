//! Meshes for the viewer: those skinned by a skeleton's skin, and rigid meshes that hang
//! from a joint (RobotExpressive's body parts), which become meshes weighted fully to it.

use super::hierarchy::Hierarchy;
use super::morphs;
use super::skeletons::BuiltSkeleton;
use super::textures::{Images, read_look};
use crate::asset::{MeshPrimitive, SkinnedMesh};
use crate::error::Problem;
use glam::{Mat4, Vec3};
use std::collections::{HashMap, HashSet};

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
    ctx: &mut MeshContext,
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
            let built = &ctx.skeletons[*skeleton];
            let mut ibm = built
                .bind_worlds
                .iter()
                .map(|m| m.inverse())
                .collect::<Vec<_>>();
            let remap: Vec<u16> = joints
                .iter()
                .map(|n| built.joint_of_node[n] as u16)
                .collect();
            // A skin may list fewer matrices than joints (a broken file): those keep the
            // skeleton's bind.
            for (&j, m) in remap.iter().zip(inverse_binds) {
                ibm[j as usize] = *m;
            }
            (*skeleton, Some(remap), ibm)
        }
        Binding::Rigid { skeleton, joint } => {
            let built = &ctx.skeletons[*skeleton];
            let mut ibm = vec![Mat4::IDENTITY; built.skeleton.len()];
            // joint_from_mesh = joint_from_world (rest) * world_from_mesh (rest).
            let worlds = &ctx.h.worlds;
            ibm[*joint] = worlds[built.nodes[*joint]].inverse() * worlds[node.index()];
            (*skeleton, None, ibm)
        }
    };
    let name = mesh
        .name()
        .or(node.name())
        .map(str::to_owned)
        .unwrap_or_else(|| format!("mesh_{}", mesh.index()));
    let weighting = match (&remap, binding) {
        (Some(remap), _) => Weighting::Skin(remap),
        (None, Binding::Rigid { joint, .. }) => Weighting::Rigid(*joint as u16),
        (None, Binding::Skin { .. }) => return Ok(None),
    };
    if inverse_bind.iter().any(|m| !m.is_finite()) {
        return Err(Problem::BadData {
            what: format!("mesh '{name}'"),
            reason: "a bind matrix is NaN or infinite, or its joint has zero scale".into(),
        });
    }
    let mut primitives = Vec::new();
    let draco = ctx.draco_morphs.contains(&mesh.index());
    if draco {
        warnings.push(format!(
            "mesh '{name}': the morph targets of its Draco-compressed primitives are not read"
        ));
    }
    let mut morph_problem = None;
    for prim in mesh.primitives() {
        let morphs = (!draco).then_some(&mut morph_problem);
        if let Some(p) = read_primitive(&prim, &name, &weighting, morphs, ctx, warnings)? {
            primitives.push(p);
        }
    }
    if let Some(reason) = morph_problem {
        warnings.push(format!(
            "mesh '{name}': its morph targets are not read: {reason}"
        ));
        primitives.iter_mut().for_each(|p| p.morphs.clear());
    }
    let mut lists: Vec<_> = primitives
        .iter_mut()
        .map(|p| std::mem::take(&mut p.morphs))
        .collect();
    if lists.windows(2).any(|w| w[0].len() != w[1].len()) {
        warnings.push(format!(
            "mesh '{name}': its primitives have different numbers of morph targets; the \
             missing ones move nothing"
        ));
    }
    let counts: Vec<usize> = primitives.iter().map(|p| p.positions.len()).collect();
    let k = morphs::even_out(&mut lists, &counts);
    for (p, list) in primitives.iter_mut().zip(lists) {
        p.morphs = list;
    }
    let morph_weights = morphs::default_weights(node, &mesh, k, &name, warnings);
    Ok(Some(SkinnedMesh {
        name,
        skeleton,
        inverse_bind,
        primitives,
        morph_weights,
    }))
}

/// What the importer shares across meshes: buffers, node worlds, skeletons and images.
pub(super) struct MeshContext<'a> {
    pub buffers: &'a [gltf::buffer::Data],
    pub h: &'a Hierarchy,
    pub skeletons: &'a [BuiltSkeleton],
    pub images: Images<'a>,
    /// glTF meshes with a Draco-compressed primitive that has morph targets: Draco reorders
    /// the vertices, the targets' offsets (not compressed with them) no longer follow.
    pub draco_morphs: &'a HashSet<usize>,
}

/// Where a primitive's joint influences come from.
enum Weighting<'r> {
    /// JOINTS_0/WEIGHTS_0, with skin joint indices turned into skeleton joint indices.
    Skin(&'r [u16]),
    /// Every vertex fully on this skeleton joint.
    Rigid(u16),
}

/// One triangle primitive, or `None` (with a warning) for one that cannot be drawn. Its
/// morph targets are read when `morphs` is given, which keeps why they could not be.
fn read_primitive(
    prim: &gltf::Primitive,
    name: &str,
    weighting: &Weighting,
    morphs: Option<&mut Option<String>>,
    ctx: &mut MeshContext,
    warnings: &mut Vec<String>,
) -> Result<Option<MeshPrimitive>, Problem> {
    if prim.mode() != gltf::mesh::Mode::Triangles {
        warnings.push(format!(
            "mesh '{name}': a non-triangle primitive is not drawn"
        ));
        return Ok(None);
    }
    check_attribute_types(prim, name)?;
    let buffers = ctx.buffers;
    let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let Some(positions) = reader.read_positions() else {
        warnings.push(format!(
            "mesh '{name}': a primitive without positions is skipped"
        ));
        return Ok(None);
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
    let (joints, weights) = match weighting {
        Weighting::Skin(remap) => {
            let (Some(j), Some(w)) = (reader.read_joints(0), reader.read_weights(0)) else {
                warnings.push(format!(
                    "mesh '{name}': a skinned primitive without JOINTS_0/WEIGHTS_0 is skipped"
                ));
                return Ok(None);
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
        Weighting::Rigid(joint) => (vec![[*joint, 0, 0, 0]; n], vec![[1.0, 0.0, 0.0, 0.0]; n]),
    };
    if normals.len() != n || joints.len() != n || weights.len() != n {
        return Err(Problem::BadData {
            what: format!("mesh '{name}'"),
            reason: "its attributes have different vertex counts".into(),
        });
    }
    let look = read_look(prim, buffers, n, name, &mut ctx.images, warnings)?;
    let finite = positions.iter().chain(&normals).all(|v| v.is_finite())
        && weights.iter().flatten().all(|w| w.is_finite())
        && look.uvs.iter().flatten().all(|w| w.is_finite());
    if !finite {
        return Err(Problem::BadData {
            what: format!("mesh '{name}'"),
            reason: "a vertex position, normal, weight or texture coordinate is NaN or infinite"
                .into(),
        });
    }
    let mut deltas = Vec::new();
    if let Some(problem) = morphs
        && problem.is_none()
    {
        match morphs::read_targets(prim, &reader, n) {
            Ok(d) => deltas = d,
            Err(reason) => *problem = Some(reason),
        }
    }
    Ok(Some(MeshPrimitive {
        positions,
        normals,
        indices,
        joints,
        weights,
        base_color: look.base_color,
        uvs: look.uvs,
        base_color_texture: look.texture,
        alpha_mode: look.alpha_mode,
        morphs: deltas,
    }))
}

/// Every attribute this reader uses has a type the `gltf` crate's readers handle: they assume
/// it, and hit `unreachable!` or a debug assertion (a panic) on anything else.
fn check_attribute_types(prim: &gltf::Primitive, name: &str) -> Result<(), Problem> {
    use gltf::Semantic;
    use gltf::accessor::{DataType as T, Dimensions as D};
    let floats_or_normalized = [T::F32, T::U8, T::U16];
    for (semantic, accessor) in prim.attributes() {
        let (dims, types): (D, &[T]) = match &semantic {
            Semantic::Positions | Semantic::Normals => (D::Vec3, &[T::F32]),
            Semantic::TexCoords(_) => (D::Vec2, &floats_or_normalized),
            Semantic::Joints(_) => (D::Vec4, &[T::U8, T::U16]),
            Semantic::Weights(_) => (D::Vec4, &floats_or_normalized),
            _ => continue,
        };
        check_type(&accessor, dims, types, || {
            format!("mesh '{name}', attribute {}", semantic.to_string())
        })?;
    }
    if let Some(indices) = prim.indices() {
        check_type(&indices, D::Scalar, &[T::U8, T::U16, T::U32], || {
            format!("mesh '{name}', indices")
        })?;
    }
    Ok(())
}

fn check_type(
    accessor: &gltf::Accessor,
    dims: gltf::accessor::Dimensions,
    types: &[gltf::accessor::DataType],
    what: impl Fn() -> String,
) -> Result<(), Problem> {
    if accessor.dimensions() == dims && types.contains(&accessor.data_type()) {
        return Ok(());
    }
    let names: Vec<String> = types.iter().map(|t| format!("{t:?}")).collect();
    Err(Problem::BadData {
        what: what(),
        reason: format!(
            "accessor {} is {:?} of {:?}; glTF needs {dims:?} of {}",
            accessor.index(),
            accessor.dimensions(),
            accessor.data_type(),
            names.join(" or ")
        ),
    })
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
