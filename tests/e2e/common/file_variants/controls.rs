//! Rigs exported with their controls: joints in the skin that no vertex follows, beside the
//! deforming skeleton. A Rigify-style copy (deform joints renamed `DEF-…`, controls named
//! `hips`, `chest`, `neck`, `head` hung from the root away from those body parts, `ORG-`
//! copies inside the limbs), a game character's IK controls (`l-LEGCONTROL` at the foot,
//! `l-ARMORIENT` beside the shoulder, names with `l-`/`r-` prefixes) and feet hung from the
//! root as IK joints, the leg ending in an unweighted leaf. Body joints keep their weights,
//! rest and motion; the new joints carry no weight.

use super::glb::{Glb, indices, push};
use super::joint_names::{Side, split_side};
use super::labels::{human_bones, nodes_of};
use super::node_edit::{add_to_skin, ibms_of, node_name, root_joints};
use glam::{Mat4, Vec3};
use retarget_studio::core::HumanBone;
use serde_json::json;

/// Adds an unweighted joint `name` under `parent` (a skin joint) at world position `at` in
/// the rest pose, with no turn of its own, to every skin holding `parent`. Returns its node.
pub fn add_control(g: &mut Glb, name: &str, parent: usize, at: Vec3) -> usize {
    let local = g.world(parent).inverse().transform_point3(at);
    let n = push(
        &mut g.json,
        "nodes",
        json!({"name": name, "translation": local.to_array()}),
    );
    let mut children = indices(&g.json["nodes"][parent]["children"]);
    children.push(n);
    g.json["nodes"][parent]["children"] = json!(children);
    for s in 0..g.array("skins").len() {
        let joints = indices(&g.json["skins"][s]["joints"]);
        if let Some(slot) = joints.iter().position(|&j| j == parent) {
            let ibm = Mat4::from_translation(-local) * ibms_of(g, s)[slot];
            add_to_skin(g, s, &[(n, ibm)]);
        }
    }
    n
}

/// Height of the rest pose's joints (world Y extent).
fn rest_height(g: &Glb) -> f32 {
    let ys: Vec<f32> = g
        .skin_joints()
        .iter()
        .map(|&j| g.world(j).w_axis.y)
        .collect();
    let lo = ys.iter().copied().fold(f32::MAX, f32::min);
    let hi = ys.iter().copied().fold(f32::MIN, f32::max);
    hi - lo
}

fn node_of(g: &Glb, bone: HumanBone) -> Option<usize> {
    nodes_of(&human_bones(g), &[bone]).first().copied()
}

fn position(g: &Glb, n: usize) -> Vec3 {
    g.world(n).w_axis.truncate()
}

/// The Rigify-style copy: every skin joint `X` renamed `DEF-X`, an unweighted `ORG-X` leaf
/// inside each limb joint, and controls `hips`, `chest`, `neck`, `head` (lower-case, as a
/// Rigify rig names them) hung from the skin's root joint, each 0.4 of the height in front
/// of and 0.2 below the body part of its name.
pub fn rigify_controls(glb: &[u8]) -> Vec<u8> {
    use HumanBone::*;
    let mut g = Glb::parse(glb);
    let h = rest_height(&g);
    let root = root_joints(&g)[0];
    let controls: Vec<(&str, Option<usize>)> = [
        ("hips", Hips),
        ("chest", Chest),
        ("neck", Neck),
        ("head", Head),
    ]
    .iter()
    .map(|&(name, bone)| (name, node_of(&g, bone).or(node_of(&g, Spine))))
    .collect();
    let limbs: Vec<usize> = nodes_of(
        &human_bones(&g),
        &[
            LeftUpperArm,
            RightUpperArm,
            LeftLowerArm,
            RightLowerArm,
            LeftUpperLeg,
            RightUpperLeg,
            LeftLowerLeg,
            RightLowerLeg,
        ],
    );
    for j in g.skin_joints() {
        let name = format!("DEF-{}", node_name(&g, j));
        g.json["nodes"][j]["name"] = json!(name);
    }
    for (name, part) in controls {
        let Some(part) = part else { continue };
        let at = position(&g, part) + Vec3::new(0.0, -0.2 * h, 0.4 * h);
        add_control(&mut g, name, root, at);
    }
    for j in limbs {
        let name = node_name(&g, j).replacen("DEF-", "ORG-", 1);
        let at = position(&g, j);
        add_control(&mut g, &name, j, at);
    }
    g.to_bytes()
}

/// A game character's IK controls: every sided skin joint renamed with an `l-`/`r-` prefix
/// (`leg_joint_L_1` → `l-leg_joint_1`), and per side an `l-LEGCONTROL` hung from the root
/// at the foot, an `l-ARMORIENT` hung from the arm's parent 0.15 of the height behind the
/// upper arm, and an `l-KNEECONTROL` hung from the root 0.3 in front of the knee.
pub fn ik_controls(glb: &[u8]) -> Vec<u8> {
    use HumanBone::*;
    let mut g = Glb::parse(glb);
    let h = rest_height(&g);
    let root = root_joints(&g)[0];
    let parents = g.parents();
    let mut adds: Vec<(String, usize, Vec3)> = Vec::new();
    for (prefix, foot, knee, upper) in [
        ("l-", LeftFoot, LeftLowerLeg, LeftUpperArm),
        ("r-", RightFoot, RightLowerLeg, RightUpperArm),
    ] {
        let foot = node_of(&g, foot).expect("a foot");
        let knee = node_of(&g, knee).expect("a knee");
        let upper = node_of(&g, upper).expect("an upper arm");
        adds.push((format!("{prefix}LEGCONTROL"), root, position(&g, foot)));
        let behind = position(&g, upper) - Vec3::Z * 0.15 * h;
        let arm_parent = parents[upper].expect("the arm hangs from the body");
        adds.push((format!("{prefix}ARMORIENT"), arm_parent, behind));
        let ahead = position(&g, knee) + Vec3::Z * 0.3 * h;
        adds.push((format!("{prefix}KNEECONTROL"), root, ahead));
    }
    for j in g.skin_joints() {
        let name = node_name(&g, j);
        if let Some((side, base)) = split_side(&name) {
            let prefix = if side == Side::Left { "l-" } else { "r-" };
            g.json["nodes"][j]["name"] = json!(format!("{prefix}{base}"));
        }
    }
    for (name, parent, at) in adds {
        add_control(&mut g, &name, parent, at);
    }
    g.to_bytes()
}

/// Each foot hung beside the body as an IK joint, from the node above the skin's root joint
/// (the armature; a scene root without one), its rest world transform and weights kept and
/// its channels dropped (the variant is a target), and an unweighted leaf `<lower leg>.001`
/// at the foot's place ending the leg, as Blender exports a bone's tail.
pub fn ik_feet_from_root(glb: &[u8]) -> Vec<u8> {
    use HumanBone::*;
    let mut g = Glb::parse(glb);
    let parents = g.parents();
    let root = parents[root_joints(&g)[0]];
    for (foot, lower) in [(LeftFoot, LeftLowerLeg), (RightFoot, RightLowerLeg)] {
        let foot = node_of(&g, foot).expect("a foot");
        let lower = node_of(&g, lower).expect("a lower leg");
        let at = position(&g, foot);
        let world = g.world(foot);
        let old_parent = parents[foot].expect("the foot hangs from the leg");
        let kids: Vec<usize> = indices(&g.json["nodes"][old_parent]["children"])
            .into_iter()
            .filter(|&c| c != foot)
            .collect();
        g.json["nodes"][old_parent]["children"] = json!(kids);
        let holder = match root {
            Some(r) => &mut g.json["nodes"][r]["children"],
            None => {
                let scene = g.scene();
                &mut g.json["scenes"][scene]["nodes"]
            }
        };
        let mut kids = indices(holder);
        kids.push(foot);
        *holder = json!(kids);
        let above = root.map_or(Mat4::IDENTITY, |r| g.world(r));
        let local = above.inverse() * world;
        let (s, r, t) = local.to_scale_rotation_translation();
        g.set_node_trs(foot, (t, r, s));
        drop_channels(&mut g, foot);
        let name = format!("{}.001", node_name(&g, lower));
        add_control(&mut g, &name, lower, at);
    }
    g.to_bytes()
}

/// Removes every animation channel on `node` (samplers stay, unused).
fn drop_channels(g: &mut Glb, node: usize) {
    for a in 0..g.array("animations").len() {
        let channels: Vec<serde_json::Value> = g.json["animations"][a]["channels"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|c| c["target"]["node"].as_u64() != Some(node as u64))
            .collect();
        g.json["animations"][a]["channels"] = json!(channels);
    }
}
