//! `AnimationOnly`: the skeleton alone as nodes, a skin over them and the clips. The skin
//! carries inverse bind matrices from the skeleton's bind pose: Blender builds an armature
//! from a skin, and the importer here reads the same bind pose back. With meshes (a
//! `WithCharacter` export of a target read from FBX), the importer's meshes go in too.

use super::anim::{self, Written};
use super::bin::Extra;
use super::{Built, meshes, pack};
use crate::asset::Asset;
use crate::error::ExportProblem;
use glam::{Mat4, Quat, Vec3};
use gltf::json::accessor::Type;
use gltf::json::scene::UnitQuaternion;
use gltf::json::{self, Index, Root};
use retarget_core::{Clip, Pose, Skeleton, Transform};

/// `character`: the target and the meshes of it (indices into its `meshes`) drawn by
/// `skeleton` (their joint indices are its joints); `None` for a bare skeleton.
pub(super) fn build(
    skeleton: &Skeleton,
    character: Option<(&Asset, &[usize])>,
    clips: &[Clip],
) -> Result<Built, ExportProblem> {
    let mut notes = Vec::new();
    let mut root = Root::default();
    root.asset.generator = Some(format!("Retarget Studio {}", env!("CARGO_PKG_VERSION")));
    let mut extra = Extra::new(&mut root);

    let (container, written) = container_node(skeleton, &mut notes);
    let container = root.push(container);
    // Joint j is node j + 1.
    let nodes: Vec<u32> = (1..=skeleton.len() as u32).collect();
    for (j, name) in skeleton.names().iter().enumerate() {
        let mut node = trs_node(name, &skeleton.rest()[j]);
        let children: Vec<_> = skeleton.children(j).map(|c| Index::new(nodes[c])).collect();
        node.children = (!children.is_empty()).then_some(children);
        root.push(node);
    }
    let roots: Vec<_> = (0..skeleton.len())
        .filter(|&j| skeleton.parents()[j].is_none())
        .map(|j| Index::new(nodes[j]))
        .collect();
    root.nodes[container.value()].children = Some(roots);

    let inverse_binds = inverse_bind_matrices(skeleton, written)?;
    let ibm = extra.push_f32(&mut root, &inverse_binds, Type::Mat4, false, None);
    root.push(json::Skin {
        extensions: None,
        extras: Default::default(),
        inverse_bind_matrices: Some(ibm),
        joints: nodes.iter().map(|&n| Index::new(n)).collect(),
        name: Some(skeleton.name.clone()),
        skeleton: None,
    });
    let mut scene_nodes = vec![container];
    let mut morphs = Vec::new();
    if let Some((asset, indices)) = character {
        let mesh_nodes = meshes::push_meshes(&mut root, &mut extra, (asset, indices), &nodes);
        scene_nodes.extend(mesh_nodes.iter().flatten().copied());
        let node_of = |mesh: usize| {
            let k = indices.iter().position(|&i| i == mesh)?;
            mesh_nodes[k].map(|n| n.value())
        };
        morphs = clips
            .iter()
            .map(|c| super::weights::morph_channels_on(c, asset, node_of))
            .collect();
        notes.push(format!(
            "the target's {} mesh(es) were written from what the importer read (positions, \
             normals, UVs, four weights, morph targets, base colour and embedded texture); \
             other material properties are not carried over",
            indices.len()
        ));
    }
    let scene = root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: Some(skeleton.name.clone()),
        nodes: scene_nodes,
    });
    root.scene = Some(scene);

    let Written { clips, keys } = anim::push_clips(
        &mut root,
        &mut extra,
        &[anim::Driven {
            clips,
            nodes: &nodes,
            morphs: &morphs,
        }],
        &mut notes,
    )?;
    let bin = pack::pack(&mut root, &[&extra.data], true)?;
    Ok(Built {
        root,
        bin,
        clips,
        keys,
        repaired_vertices: 0,
        notes,
    })
}

/// The node above the joints holds the skeleton's container (armature transform, unit or
/// axis conversion). glTF nodes cannot hold shear, so a sheared container loses it.
/// The container's node, and the matrix it holds (the nearest translation, rotation and
/// scale where the container has shear).
fn container_node(skeleton: &Skeleton, notes: &mut Vec<String>) -> (json::Node, Mat4) {
    let m = skeleton.container();
    let t = Transform::from_mat4(m);
    let scale = m
        .abs()
        .to_cols_array()
        .iter()
        .fold(1.0f32, |a, v| a.max(*v));
    if !t.to_mat4().abs_diff_eq(m, 1e-5 * scale) {
        notes.push(format!(
            "the container of skeleton '{}' has shear, which a glTF node cannot hold; it \
             was written as the nearest translation, rotation and scale",
            skeleton.name
        ));
    }
    let name = if skeleton.name.is_empty() {
        "Armature"
    } else {
        &skeleton.name
    };
    (trs_node(name, &t), t.to_mat4())
}

/// A node with `t` as TRS, leaving out identity parts.
fn trs_node(name: &str, t: &Transform) -> json::Node {
    json::Node {
        name: Some(name.to_owned()),
        translation: (t.translation != Vec3::ZERO).then(|| t.translation.to_array()),
        rotation: (t.rotation != Quat::IDENTITY)
            .then(|| UnitQuaternion(t.rotation.normalize().to_array())),
        scale: (t.scale != Vec3::ONE).then(|| t.scale.to_array()),
        ..Default::default()
    }
}

/// `joint_from_world` in the bind pose, container included, flattened column-major. The
/// skin has no mesh node, so world space is the space its matrices live in.
/// The inverse bind matrices under the container as written (`container`): under the
/// skeleton's own, a container with shear written as its nearest TRS would move every bind
/// joint by the shear (a mutant's 65535 put the read-back bind beyond 1e9 units).
fn inverse_bind_matrices(skeleton: &Skeleton, container: Mat4) -> Result<Vec<f32>, ExportProblem> {
    let mut worlds = vec![Mat4::IDENTITY; skeleton.len()];
    Pose::bind(skeleton).world_matrices_under(skeleton, container, &mut worlds);
    let mut out = Vec::with_capacity(worlds.len() * 16);
    for (j, world) in worlds.iter().enumerate() {
        let inverse = invert(*world).ok_or_else(|| {
            ExportProblem::Invalid(format!(
                "joint '{}' has a bind pose that cannot be inverted (zero scale)",
                skeleton.names()[j]
            ))
        })?;
        let mut cols = inverse.to_cols_array();
        // Exactly affine: rounding must not leave a projective row the validator rejects.
        (cols[3], cols[7], cols[11], cols[15]) = (0.0, 0.0, 0.0, 1.0);
        out.extend_from_slice(&cols);
    }
    Ok(out)
}

fn invert(m: Mat4) -> Option<Mat4> {
    let det = m.determinant();
    (det.is_finite() && det.abs() > 1e-30).then(|| m.inverse())
}
