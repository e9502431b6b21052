//! A skinned mesh's vertex data moved from its node's space into world space, as Blender
//! writes skinned meshes: vertices and inverse bind matrices both in world space, so the mesh
//! node's own transform (which the spec ignores for skins) no longer matters.

use super::glb::Glb;
use glam::{Mat3, Mat4, Vec3};
use serde_json::json;
use std::collections::HashMap;

/// How an attribute follows a change of space `M`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// A point: `M·p` (with min/max, which POSITION needs).
    Point,
    /// A displacement (morph target POSITION): the linear part of `M`.
    Delta,
    /// A direction (normals, tangents and their deltas): turned only; unit ones stay unit.
    Direction { unit: bool },
}

/// Rewrites `mesh`'s POSITION, NORMAL and TANGENT (and those of its morph targets) through
/// `m`, each into a new accessor. Every primitive of the mesh is changed, so the mesh must be
/// used by nodes that share this `m`.
pub fn bake_into_world(g: &mut Glb, mesh: usize, m: Mat4) {
    let linear = Mat3::from_mat4(m);
    // Normals: the inverse transpose without its scale (a uniform scale times a rotation).
    let normal = linear.inverse().transpose() * linear.determinant().cbrt();
    let mut done: HashMap<(usize, Kind), usize> = HashMap::new();
    let primitives = g.json["meshes"][mesh]["primitives"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (p, prim) in primitives.iter().enumerate() {
        for (attr, kind) in [
            ("POSITION", Kind::Point),
            ("NORMAL", Kind::Direction { unit: true }),
            ("TANGENT", Kind::Direction { unit: true }),
        ] {
            if let Some(a) = prim["attributes"][attr].as_u64() {
                let new = rewrite(g, a as usize, kind, m, normal, &mut done);
                g.json["meshes"][mesh]["primitives"][p]["attributes"][attr] = json!(new);
            }
        }
        let targets = prim["targets"].as_array().cloned().unwrap_or_default();
        for (t, target) in targets.iter().enumerate() {
            for (attr, kind) in [
                ("POSITION", Kind::Delta),
                ("NORMAL", Kind::Direction { unit: false }),
                ("TANGENT", Kind::Direction { unit: false }),
            ] {
                if let Some(a) = target[attr].as_u64() {
                    let new = rewrite(g, a as usize, kind, m, normal, &mut done);
                    g.json["meshes"][mesh]["primitives"][p]["targets"][t][attr] = json!(new);
                }
            }
        }
    }
}

fn rewrite(
    g: &mut Glb,
    accessor: usize,
    kind: Kind,
    m: Mat4,
    normal: Mat3,
    done: &mut HashMap<(usize, Kind), usize>,
) -> usize {
    if let Some(&new) = done.get(&(accessor, kind)) {
        return new;
    }
    let old = g.read_floats(accessor);
    let out: Vec<Vec<f32>> = old
        .iter()
        .map(|v| {
            let x = Vec3::from_slice(v);
            let y = match kind {
                Kind::Point => m.transform_point3(x),
                Kind::Delta => m.transform_vector3(x),
                Kind::Direction { unit: true } => (normal * x).normalize_or_zero(),
                Kind::Direction { unit: false } => normal * x,
            };
            // A TANGENT keeps its handedness `w`.
            let mut e = y.to_array().to_vec();
            e.extend(v.get(3));
            e
        })
        .collect();
    let type_ = if out.first().is_some_and(|e| e.len() == 4) {
        "VEC4"
    } else {
        "VEC3"
    };
    let new = g.push_floats(type_, &out);
    let view = g.json["accessors"][new]["bufferView"].as_u64().unwrap() as usize;
    g.json["bufferViews"][view]["target"] = json!(34962); // ARRAY_BUFFER: vertex data
    if kind == Kind::Point {
        let lo = out
            .iter()
            .fold(Vec3::INFINITY, |a, e| a.min(Vec3::from_slice(e)));
        let hi = out
            .iter()
            .fold(Vec3::NEG_INFINITY, |a, e| a.max(Vec3::from_slice(e)));
        g.json["accessors"][new]["min"] = json!(lo.to_array());
        g.json["accessors"][new]["max"] = json!(hi.to_array());
    }
    done.insert((accessor, kind), new);
    new
}

/// The world matrix of the first node that uses each skin (identity for an unused skin).
pub fn skin_mesh_worlds(g: &Glb) -> Vec<Mat4> {
    let nodes = g.array("nodes");
    (0..g.array("skins").len())
        .map(|s| {
            (0..nodes.len())
                .find(|&n| nodes[n]["skin"].as_u64() == Some(s as u64))
                .map_or(Mat4::IDENTITY, |n| g.world(n))
        })
        .collect()
}

/// The mesh each skinned node shows.
pub fn mesh_of(g: &Glb, node: usize) -> Option<usize> {
    g.json["nodes"][node]["mesh"].as_u64().map(|m| m as usize)
}

/// The skin bound away from where the rig rests: every inverse bind matrix moved by
/// `fraction` of the figure's bind size (its largest extent, in the skin's own space) and the skinned vertices
/// with it, so the drawn mesh and the motion are unchanged and only the bind pose's place
/// differs from the rest. Blender's FBX of the robot binds its root 2.4 units below its rest.
pub fn bound_elsewhere(glb: &[u8], fraction: Vec3) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let mut lo = Vec3::INFINITY;
    let mut hi = Vec3::NEG_INFINITY;
    g.map_inverse_binds(|_, ibm| {
        let p = ibm.inverse().w_axis.truncate();
        (lo, hi) = (lo.min(p), hi.max(p));
        ibm
    });
    let shift = Mat4::from_translation(fraction * (hi - lo).max_element());
    g.map_inverse_binds(|_, ibm| ibm * shift.inverse());
    let mut meshes: Vec<usize> = g
        .skinned_mesh_nodes()
        .into_iter()
        .filter_map(|n| mesh_of(&g, n))
        .collect();
    meshes.sort_unstable();
    meshes.dedup();
    for mesh in meshes {
        bake_into_world(&mut g, mesh, shift);
    }
    g.to_bytes()
}
