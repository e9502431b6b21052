//! A humanoid given a second pair of arms, the crowd paper's figure 8 target: each arm is
//! copied, from the shoulder (else the upper arm) down, under the spine joint below the one
//! the arm hangs from, a quarter of the shoulder's height above that joint lower.

use super::anim::Key;
use super::glb::{Glb, indices, push};
use super::labels::{human_bones, nodes_of};
use super::node_edit::{add_to_skin, copy_channels, ibms_of, node_name, subtree, worlds};
use glam::{Mat4, Vec3};
use retarget_studio::core::HumanBone;
use serde_json::{Value, json};
use std::collections::HashMap;

/// The suffix of a copied arm's node names.
pub const LOWER: &str = "_lower";

/// One arm copied: the original top (shoulder or upper arm), its copy, and every copied
/// node as (original, copy).
#[derive(Clone, Debug)]
pub struct ArmCopy {
    pub top: usize,
    pub copy: usize,
    pub host: usize,
    pub nodes: Vec<(usize, usize)>,
}

/// The arm tops of a humanoid: each side's shoulder, else its upper arm (the file's VRM
/// table or the bundled rigs' names, see `labels`).
pub fn arm_tops(g: &Glb) -> Vec<usize> {
    let bones = human_bones(g);
    let mut tops = Vec::new();
    for (shoulder, upper) in [
        (HumanBone::LeftShoulder, HumanBone::LeftUpperArm),
        (HumanBone::RightShoulder, HumanBone::RightUpperArm),
    ] {
        let top = nodes_of(&bones, &[shoulder])
            .first()
            .or(nodes_of(&bones, &[upper]).first())
            .copied();
        tops.push(top.expect("an arm by name"));
    }
    tops
}

/// `four_armed` and what it copied.
pub fn four_armed_with(glb: &[u8]) -> (Vec<u8>, Vec<ArmCopy>) {
    let mut g = Glb::parse(glb);
    let mut copies = Vec::new();
    for top in arm_tops(&g) {
        copies.push(copy_arm(&mut g, top));
    }
    (g.to_bytes(), copies)
}

/// Each arm (from the shoulder, else the upper arm, down) copied under the joint below the
/// one it hangs from (the spine below the chest), `0.25·h` lower in the world, `h` being the
/// shoulder's height above that joint. Copies are named `<name>_lower`, keep the arm's rest
/// world rotations and its local transforms below the top, carry the arm's channels (the top's
/// mapped into its new parent's frame), rigid meshes included, skinned meshes left out, and
/// join every skin the arm's joints are in (no weights; their bind pose is the arm's bind
/// pose lowered alike).
pub fn four_armed(glb: &[u8]) -> Vec<u8> {
    four_armed_with(glb).0
}

fn copy_arm(g: &mut Glb, top: usize) -> ArmCopy {
    let parents = g.parents();
    let chest = parents[top].expect("an arm hangs from a joint");
    let host = parents[chest].expect("a joint below the chest");
    let before = worlds(g);
    let h = before[top].w_axis.y - before[host].w_axis.y;
    let down = Mat4::from_translation(Vec3::Y * (-0.25 * h));
    // The copy's top: world = down · W_top, under `host`. From the chest's frame to the
    // host's: C, so local' = C · local (and each key of the top maps through C).
    let c = before[host].inverse() * down * before[chest];
    let (cs, cr, _) = c.to_scale_rotation_translation();
    assert!(
        (cs - Vec3::ONE).abs().max_element() < 1e-3,
        "the chest and the spine below it differ in scale"
    );
    let skinned = g.skinned_mesh_nodes();
    let nodes: Vec<usize> = subtree(g, top)
        .into_iter()
        .filter(|n| !skinned.contains(n))
        .collect();
    let mut copy_of = HashMap::new();
    for &n in &nodes {
        let mut node = g.json["nodes"][n].clone();
        let obj = node.as_object_mut().unwrap();
        obj.remove("children");
        obj.insert(
            "name".into(),
            Value::from(format!("{}{LOWER}", node_name(g, n))),
        );
        copy_of.insert(n, push(&mut g.json, "nodes", node));
    }
    for &n in &nodes {
        let kids: Vec<usize> = indices(&g.json["nodes"][n]["children"])
            .into_iter()
            .filter_map(|k| copy_of.get(&k).copied())
            .collect();
        if !kids.is_empty() {
            g.json["nodes"][copy_of[&n]]["children"] = json!(kids);
        }
    }
    give_weight(g, &nodes.iter().map(|n| copy_of[n]).collect::<Vec<_>>());
    let copy = copy_of[&top];
    let (t, r, s) = g.node_trs(top);
    let local = c * Mat4::from_scale_rotation_translation(s, r, t);
    let (_, lr, lt) = local.to_scale_rotation_translation();
    g.set_node_trs(copy, (lt, lr, s));
    let mut host_kids = indices(&g.json["nodes"][host]["children"]);
    host_kids.push(copy);
    g.json["nodes"][host]["children"] = json!(host_kids);
    let top_map = move |key: Key, tangent: bool| match key {
        Key::T(t) if tangent => Key::T(c.transform_vector3(t)),
        Key::T(t) => Key::T(c.transform_point3(t)),
        Key::R(q) => Key::R(cr * q),
        s => s,
    };
    for &n in &nodes {
        let map: Option<&dyn Fn(Key, bool) -> Key> = (n == top).then_some(&top_map);
        copy_channels(g, n, copy_of[&n], map);
    }
    for s in 0..g.array("skins").len() {
        let joints = indices(&g.json["skins"][s]["joints"]);
        let ibms = ibms_of(g, s);
        // The copy's bind pose is the arm's bind pose lowered alike: `down` taken into the
        // skin's space S, found from the host (bind = rest there): S = W_host·IBM_host.
        let Some(h) = joints.iter().position(|&j| j == host) else {
            continue;
        };
        let space = before[host] * ibms[h];
        let undo_down = space.inverse() * down.inverse() * space;
        let new: Vec<(usize, Mat4)> = joints
            .iter()
            .zip(&ibms)
            .filter_map(|(j, ibm)| Some((*copy_of.get(j)?, *ibm * undo_down)))
            .collect();
        if !new.is_empty() {
            add_to_skin(g, s, &new);
        }
    }
    let mut pairs: Vec<(usize, usize)> = copy_of.into_iter().collect();
    pairs.sort_unstable();
    ArmCopy {
        top,
        copy,
        host,
        nodes: pairs,
    }
}

/// The copies deform something, as a four-armed character's second arms do: each copied
/// joint carries a small rigid triangle (a skinned-only rig's copies would otherwise be
/// bones no vertex follows, which the map leaves where their parents take them).
pub fn give_weight(g: &mut Glb, copies: &[usize]) {
    let corners = vec![
        vec![0.0, 0.0, 0.0],
        vec![0.01, 0.0, 0.0],
        vec![0.0, 0.01, 0.0],
    ];
    let positions = g.push_floats("VEC3", &corners);
    g.json["accessors"][positions]["min"] = json!([0.0, 0.0, 0.0]);
    g.json["accessors"][positions]["max"] = json!([0.01, 0.01, 0.0]);
    let mesh = push(
        &mut g.json,
        "meshes",
        json!({"name": "sleeve", "primitives": [{"attributes": {"POSITION": positions}}]}),
    );
    for &c in copies {
        let has_mesh = indices(&g.json["nodes"][c]["children"])
            .iter()
            .any(|&k| g.json["nodes"][k].get("mesh").is_some());
        if has_mesh || g.json["nodes"][c].get("mesh").is_some() {
            continue;
        }
        let sleeve = push(
            &mut g.json,
            "nodes",
            json!({"name": "sleeve", "mesh": mesh}),
        );
        let mut kids = indices(&g.json["nodes"][c]["children"]);
        kids.push(sleeve);
        g.json["nodes"][c]["children"] = json!(kids);
    }
}
