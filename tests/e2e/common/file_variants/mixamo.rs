//! A Mixamo character as it reaches glTF after Blender: an `Armature` node with scale 0.01
//! and a ±90° turn about X above the joints and the skinned meshes, joints in centimetres,
//! world-space inverse bind matrices, a node rest pose that is not the bind pose, Mixamo
//! names and no VRM table.

use super::anim::{Key, add_constant_rotation, map_keys, rotated_nodes};
use super::glb::{Glb, indices, push};
use super::labels::{self, Convention, human_bones, nodes_of};
use super::mesh_space::{bake_into_world, mesh_of, skin_mesh_worlds};
use glam::{Mat4, Quat, Vec3};
use retarget_studio::core::HumanBone;
use serde_json::{Value, json};
use std::collections::HashSet;

/// How far the rest pose of the upper arms and legs is turned from the bind pose (degrees).
pub const REST_TURN_ARMS: f32 = 50.0;
pub const REST_TURN_LEGS: f32 = 35.0;

/// The Blender-through-Mixamo form of `glb`; `x_turn_degrees` is the armature's turn about X
/// (+90 as Blender writes a Y-up Mixamo FBX, −90 also seen).
///
/// With the armature `A = R·S(0.01)`, every node of the skeleton gets `t' = 100·t`, the top
/// ones `t' = 100·R⁻¹·t` and `r' = R⁻¹·r` (node and keys), so each joint's new global is its
/// old one times `S(0.01)`: positions are unchanged. Nodes hung from the skeleton that are not
/// part of it (end nodes, rigid meshes) also get `s' = 100·s`, so they and what hangs from
/// them stay as they were. As Blender writes skins, the skinned mesh nodes sit under the
/// armature with no transform, their vertices baked into world space (`v' = M·v`, `M` the mesh
/// node's old world), and the inverse bind matrices are in world space:
/// `IBM' = S(100)·IBM·M⁻¹ = inverse(new bind global)`, the bind global being read as
/// `M·IBM⁻¹` in the original (the mesh node's space). The skin deforms exactly as before.
/// Joints are always renamed to Mixamo names.
pub fn mixamo_through_blender(glb: &[u8], x_turn_degrees: f32) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let arm = Quat::from_rotation_x(x_turn_degrees.to_radians());
    let skel = SkeletonNodes::find(&g);
    let skin_worlds = skin_mesh_worlds(&g);
    let meshes = moved_meshes(&g, &skel);
    bake_meshes(&mut g, &meshes);
    insert_armature(&mut g, &skel, arm, &meshes);
    let roles: Vec<Role> = (0..g.node_count())
        .map(|n| {
            if skel.tops.contains(&n) {
                Role::Top
            } else if skel.region.contains(&n) {
                Role::Inner
            } else if !meshes.contains(&n) && skel.hung_from(n) {
                Role::Hung
            } else {
                Role::Other
            }
        })
        .collect();
    for (n, &role) in roles.iter().enumerate() {
        if role != Role::Other {
            let trs = g.node_trs(n);
            g.set_node_trs(n, role.trs(trs, arm));
        }
    }
    map_keys(&mut g, |n, key| roles[n].map(key, arm));
    let cm = Mat4::from_scale(Vec3::splat(100.0));
    g.map_skins(|s, _, ibms| {
        ibms.iter()
            .map(|m| cm * *m * skin_worlds[s].inverse())
            .collect()
    });
    turn_rest_of_limbs(&mut g);
    labels::rename_joints(&mut g, Convention::Mixamo);
    labels::strip_vrm(&mut g.json);
    g.to_bytes()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// A root of the skeleton, now under the armature.
    Top,
    /// Any other node of the skeleton.
    Inner,
    /// A node hung from the skeleton but not part of it.
    Hung,
    Other,
}

impl Role {
    fn map(self, key: Key, arm: Quat) -> Key {
        match (self, key) {
            (Role::Top, Key::T(t)) => Key::T(arm.inverse() * t * 100.0),
            (Role::Top, Key::R(r)) => Key::R(arm.inverse() * r),
            (Role::Inner | Role::Hung, Key::T(t)) => Key::T(t * 100.0),
            (Role::Hung, Key::S(s)) => Key::S(s * 100.0),
            (_, other) => other,
        }
    }

    fn trs(self, (t, r, s): (Vec3, Quat, Vec3), arm: Quat) -> (Vec3, Quat, Vec3) {
        let vec3 = |k| match k {
            Key::T(v) | Key::S(v) => v,
            Key::R(_) => unreachable!(),
        };
        let Key::R(r) = self.map(Key::R(r), arm) else {
            unreachable!()
        };
        (
            vec3(self.map(Key::T(t), arm)),
            r,
            vec3(self.map(Key::S(s), arm)),
        )
    }
}

/// The skeleton as the importer sees it: the joints and every node between them, its top
/// nodes, and the node above them (none when they are scene roots).
struct SkeletonNodes {
    region: HashSet<usize>,
    tops: Vec<usize>,
    above: Option<usize>,
    parents: Vec<Option<usize>>,
}

impl SkeletonNodes {
    /// Whether `n` (an original node) hangs from the skeleton without being part of it.
    fn hung_from(&self, n: usize) -> bool {
        let parent = self.parents.get(n).copied().flatten();
        !self.region.contains(&n) && parent.is_some_and(|p| self.region.contains(&p))
    }

    fn find(g: &Glb) -> Self {
        let parents = g.parents();
        let joints = g.skin_joints();
        let path = |n: usize| {
            let mut p = vec![n];
            while let Some(up) = parents[*p.last().unwrap()] {
                p.push(up);
            }
            p.reverse();
            p
        };
        let paths: Vec<Vec<usize>> = joints.iter().map(|&j| path(j)).collect();
        let common = paths
            .iter()
            .map(|p| p.iter().zip(&paths[0]).take_while(|(a, b)| a == b).count())
            .min()
            .unwrap_or(0);
        // The top is the common ancestor when it is a joint, else the nodes just below it.
        let first = match common.checked_sub(1).map(|i| paths[0][i]) {
            Some(a) if joints.contains(&a) => common - 1,
            _ => common,
        };
        let above = first.checked_sub(1).map(|i| paths[0][i]);
        let region: HashSet<usize> = paths.iter().flat_map(|p| p[first..].to_vec()).collect();
        let mut tops: Vec<usize> = paths.iter().map(|p| p[first]).collect();
        tops.sort_unstable();
        tops.dedup();
        SkeletonNodes {
            region,
            tops,
            above,
            parents,
        }
    }
}

/// The skinned mesh nodes, which go under the armature.
fn moved_meshes(g: &Glb, skel: &SkeletonNodes) -> Vec<usize> {
    g.skinned_mesh_nodes()
        .into_iter()
        .filter(|m| !skel.region.contains(m) && !is_ancestor_of_any(skel, *m, &skel.tops))
        .collect()
}

/// Each mesh node's vertex data baked into world space and its transform cleared.
fn bake_meshes(g: &mut Glb, meshes: &[usize]) {
    let mut baked = Vec::new();
    for &n in meshes {
        let world = g.world(n);
        if let Some(mesh) = mesh_of(g, n)
            && !baked.contains(&mesh)
            && !world.abs_diff_eq(Mat4::IDENTITY, 1e-6)
        {
            bake_into_world(g, mesh, world);
            baked.push(mesh);
        }
        g.set_node_trs(n, (Vec3::ZERO, Quat::IDENTITY, Vec3::ONE));
    }
}

/// Adds the `Armature` node in place of the skeleton's tops and moves the skinned mesh
/// nodes under it.
fn insert_armature(g: &mut Glb, skel: &SkeletonNodes, arm: Quat, meshes: &[usize]) {
    let moved: Vec<usize> = skel.tops.iter().chain(meshes).copied().collect();
    let scene = g.scene();
    for &n in &moved {
        let list = match skel.parents[n] {
            Some(p) => &mut g.json["nodes"][p]["children"],
            None => &mut g.json["scenes"][scene]["nodes"],
        };
        remove_index(list, n);
    }
    // The schema wants non-empty `children`.
    for node in g.json["nodes"].as_array_mut().unwrap() {
        if node["children"].as_array().is_some_and(Vec::is_empty) {
            node.as_object_mut().unwrap().remove("children");
        }
    }
    let armature = push(
        &mut g.json,
        "nodes",
        json!({
            "name": "Armature",
            "rotation": arm.to_array(),
            "scale": [0.01, 0.01, 0.01],
            "children": moved,
        }),
    );
    let list = match skel.above {
        Some(p) => &mut g.json["nodes"][p]["children"],
        None => &mut g.json["scenes"][scene]["nodes"],
    };
    if !list.is_array() {
        *list = json!([]);
    }
    list.as_array_mut().unwrap().push(json!(armature));
}

fn remove_index(list: &mut Value, n: usize) {
    if let Some(a) = list.as_array_mut() {
        a.retain(|x| x.as_u64() != Some(n as u64));
    }
}

fn is_ancestor_of_any(skel: &SkeletonNodes, a: usize, nodes: &[usize]) -> bool {
    nodes.iter().any(|&n| {
        let mut at = skel.parents[n];
        while let Some(p) = at {
            if p == a {
                return true;
            }
            at = skel.parents[p];
        }
        false
    })
}

/// The node rest of the upper arms and legs turned away from the bind pose (the inverse bind
/// matrices keep the bind), as in these files. Each animation that does not key such a joint's
/// rotation gets a constant channel with its old rest, so the motion is unchanged.
fn turn_rest_of_limbs(g: &mut Glb) {
    use HumanBone::*;
    let labels = human_bones(g);
    let arms = nodes_of(&labels, &[LeftUpperArm, RightUpperArm]);
    let legs = nodes_of(&labels, &[LeftUpperLeg, RightUpperLeg]);
    let turns = arms
        .iter()
        .map(|&n| (n, REST_TURN_ARMS))
        .chain(legs.iter().map(|&n| (n, REST_TURN_LEGS)));
    let animations = g.array("animations").len();
    for (n, degrees) in turns.collect::<Vec<_>>() {
        let (t, r, s) = g.node_trs(n);
        for a in 0..animations {
            if !rotated_nodes(g, a).contains(&n) {
                add_constant_rotation(g, a, n, r);
            }
        }
        let turn = Quat::from_axis_angle(Vec3::new(0.0, 0.6, 0.8), degrees.to_radians());
        g.set_node_trs(n, (t, r * turn, s));
    }
}

/// The nodes the armature's children list holds (for tests).
pub fn armature_children(g: &Glb) -> Vec<usize> {
    g.array("nodes")
        .iter()
        .find(|n| n["name"].as_str() == Some("Armature") && n["scale"][0].as_f64() == Some(0.01))
        .map(|n| indices(&n["children"]))
        .unwrap_or_default()
}
