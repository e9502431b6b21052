//! Variants of a skinned GLB/VRM that keep the character and its motion but change a
//! convention: names, scale, local joint axes, proportions. Each works on the file's bytes so
//! that the whole import path (and Blender) sees the convention.

use super::anim::{Key, map_keys, non_uniform_scale_nodes};
use super::glb::{Glb, push};
use super::labels::{self, Convention, human_bones, nodes_of};
use crate::common::variants::Lcg;
use glam::{Mat4, Quat};
use retarget_studio::core::HumanBone;
use serde_json::json;

/// Joints renamed to `convention` (humanoid joints by bone, the rest kept or prefixed) and
/// every VRM extension removed, so only the names tell what each joint is.
pub fn renamed(glb: &[u8], convention: Convention) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    labels::rename_joints(&mut g, convention);
    labels::strip_vrm(&mut g.json);
    g.to_bytes()
}

/// The old and new name of every joint `renamed` would write (for `pose-compare --map`).
pub fn rename_map(glb: &[u8], convention: Convention) -> Vec<(String, String)> {
    labels::rename_joints(&mut Glb::parse(glb), convention)
}

/// The same character under a new top node `Rescaled` of uniform scale `k`, every root of the
/// default scene below it: joints, meshes and motion all `k` times larger.
pub fn rescaled(glb: &[u8], k: f32) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let scene = g.scene();
    let roots = g.json["scenes"][scene]["nodes"].clone();
    let top = push(
        &mut g.json,
        "nodes",
        json!({"name": "Rescaled", "scale": [k, k, k], "children": roots}),
    );
    g.json["scenes"][scene]["nodes"] = json!([top]);
    g.to_bytes()
}

/// Each joint's local axes turned by a random rotation `Q_j` (seeded), compensated so the
/// world motion and the skinned mesh are unchanged: for every node and key
/// `t' = Q_parent⁻¹·t`, `r' = Q_parent⁻¹·r·Q_j`, and `IBM'_j = R(Q_j)⁻¹·IBM_j`. Joints with
/// a non-uniform scale (static or keyed) keep `Q_j = 1`: a turn would shear them.
pub fn reoriented(glb: &[u8], seed: u64) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let q = random_turns(&g, seed);
    let parents = g.parents();
    let qp = |n: usize| parents[n].map_or(Quat::IDENTITY, |p| q[p]);
    for (n, &qn) in q.iter().enumerate() {
        if qp(n) == Quat::IDENTITY && qn == Quat::IDENTITY {
            continue; // untouched, even a `matrix`
        }
        let (t, r, s) = g.node_trs(n);
        let qi = qp(n).inverse();
        g.set_node_trs(n, (qi * t, qi * r * qn, s));
    }
    map_keys(&mut g, |n, key| match key {
        Key::T(t) => Key::T(qp(n).inverse() * t),
        Key::R(r) => Key::R(qp(n).inverse() * r * q[n]),
        s => s,
    });
    g.map_inverse_binds(|j, m| Mat4::from_quat(q[j].inverse()) * m);
    g.to_bytes()
}

/// One turn per node: random on skin joints (drawn for every joint, so the sequence does
/// not depend on which are skipped), identity elsewhere.
fn random_turns(g: &Glb, seed: u64) -> Vec<Quat> {
    let mut rng = Lcg(seed);
    let uneven = non_uniform_scale_nodes(g);
    let mut q = vec![Quat::IDENTITY; g.node_count()];
    for j in g.skin_joints() {
        let turn = rng.rotation();
        if !uneven.contains(&j) {
            q[j] = turn;
        }
    }
    q
}

/// Every node below the upper legs (the file's VRM table or the bundled rigs' names) moved
/// `factor` times further from its parent, in node TRS and translation keys; the inverse
/// bind matrices are recomputed from the lengthened bind pose so bind and rest agree.
pub fn longer_legs(glb: &[u8], factor: f32) -> Vec<u8> {
    longer_below(
        glb,
        &[HumanBone::LeftUpperLeg, HumanBone::RightUpperLeg],
        factor,
    )
}

/// The same below the upper arms: arms (forearms, hands, fingers) `factor` times as long.
pub fn longer_arms(glb: &[u8], factor: f32) -> Vec<u8> {
    longer_below(
        glb,
        &[HumanBone::LeftUpperArm, HumanBone::RightUpperArm],
        factor,
    )
}

/// Every node below `bones` moved `factor` times further from its parent (`longer_legs`).
fn longer_below(glb: &[u8], bones: &[HumanBone], factor: f32) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let legs = nodes_of(&human_bones(&g), bones);
    assert!(!legs.is_empty(), "no {bones:?} found by name");
    let below = below_any(&g, &legs);
    for (n, &is_below) in below.iter().enumerate() {
        if is_below && g.json["nodes"][n].get("skin").is_none() {
            let (t, r, s) = g.node_trs(n);
            g.set_node_trs(n, (t * factor, r, s));
        }
    }
    map_keys(&mut g, |n, key| match key {
        Key::T(t) if below[n] => Key::T(t * factor),
        other => other,
    });
    let parents = g.parents();
    g.map_skins(|_, joints, ibms| longer_binds(joints, ibms, &parents, &below, factor));
    g.to_bytes()
}

/// Whether each node lies strictly below one of `tops`.
pub fn below_any(g: &Glb, tops: &[usize]) -> Vec<bool> {
    let parents = g.parents();
    (0..g.node_count())
        .map(|mut n| {
            while let Some(p) = parents[n] {
                if tops.contains(&p) {
                    return true;
                }
                n = p;
            }
            false
        })
        .collect()
}

/// The skin's bind globals (`IBM⁻¹`, in the matrices' own space) with the translation of
/// every joint below the legs, relative to its nearest joint ancestor, times `factor`.
fn longer_binds(
    joints: &[usize],
    ibms: &[Mat4],
    parents: &[Option<usize>],
    below: &[bool],
    factor: f32,
) -> Vec<Mat4> {
    let scale = |j: usize| if below[j] { factor } else { 1.0 };
    super::node_edit::rebound(joints, ibms, parents, scale, |_| Mat4::IDENTITY)
}
