//! Twist bones split from a humanoid's limbs, as rigs carry them: UE's
//! `upperarm_twist_01_l` beside the next joint (a weighted leaf), DAZ's and Rigify's
//! `forearm.twist` inside the chain (the limb bone split in two). Every original joint keeps
//! its world transform in the rest and in every frame; the twist bones have no keys.
//! Also the rig's arms lowered into an A-pose (rest ≠ bind), as UE's mannequin stands.

use super::creatures::split_bone;
use super::four_armed::give_weight;
use super::glb::Glb;
use super::labels::{human_bones, nodes_of};
use super::node_edit::node_name;
use crate::common::file_variants::controls::add_control;
use glam::{Quat, Vec3};
use retarget_studio::core::HumanBone::{self, *};
use serde_json::json;

/// Where a rig hangs its twist bones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TwistLayout {
    /// A weighted leaf under the limb bone, on its line: `<bone>_twist_01`, halfway down an
    /// upper limb and three quarters down a lower one.
    Beside,
    /// The limb bone split at its middle: `<bone>.twist` between it and the next joint.
    Inside,
}

/// The limb segments twist bones sit in: (segment, the joint it ends at, where along).
const SEGMENTS: [(HumanBone, HumanBone, f32); 8] = [
    (LeftUpperArm, LeftLowerArm, 0.5),
    (LeftLowerArm, LeftHand, 0.75),
    (RightUpperArm, RightLowerArm, 0.5),
    (RightLowerArm, RightHand, 0.75),
    (LeftUpperLeg, LeftLowerLeg, 0.5),
    (LeftLowerLeg, LeftFoot, 0.75),
    (RightUpperLeg, RightLowerLeg, 0.5),
    (RightLowerLeg, RightFoot, 0.75),
];

/// `glb` with a twist bone in each limb segment the file's labels find (`Inside`: where the
/// next joint is the segment's only child). Returns the file and each twist bone's
/// (name, segment's name, next joint's name, place along the segment).
pub fn twist_bones(glb: &[u8], layout: TwistLayout) -> (Vec<u8>, Vec<TwistBone>) {
    let mut bytes = glb.to_vec();
    let mut added = Vec::new();
    let g = Glb::parse(glb);
    let labels = human_bones(&g);
    for (bone, next, along) in SEGMENTS {
        let (Some(&seg), Some(&end)) = (
            nodes_of(&labels, &[bone]).first(),
            nodes_of(&labels, &[next]).first(),
        ) else {
            continue;
        };
        let mut g = Glb::parse(&bytes);
        let (seg_name, end_name) = (node_name(&g, seg), node_name(&g, end));
        let at = |n: usize| g.world(n).w_axis.truncate();
        let (name, along) = match layout {
            TwistLayout::Beside => {
                let name = format!("{seg_name}_twist_01");
                let point = at(seg).lerp(at(end), along);
                let n = add_control(&mut g, &name, seg, point);
                give_weight(&mut g, &[n]);
                bytes = g.to_bytes();
                (name, along)
            }
            TwistLayout::Inside => {
                // A limb bone whose only child is the next joint (a twist bone sits on the
                // line to the hand, not among a robot's palms and thumb).
                let joints = g.skin_joints();
                let children: Vec<usize> = super::glb::indices(&g.json["nodes"][seg]["children"])
                    .into_iter()
                    .filter(|c| joints.contains(c))
                    .collect();
                if children != [end] {
                    continue;
                }
                let split = split_bone(&bytes, seg, 2);
                let mut g = Glb::parse(&split);
                let name = format!("{seg_name}.twist");
                let n = (0..g.node_count())
                    .find(|&n| node_name(&g, n) == format!("{seg_name}_split1"))
                    .expect("split_bone adds `<name>_split1`");
                g.json["nodes"][n]["name"] = json!(name);
                bytes = g.to_bytes();
                (name, 0.5)
            }
        };
        added.push(TwistBone {
            name,
            segment: seg_name,
            end: end_name,
            along,
        });
    }
    (bytes, added)
}

/// One twist bone a variant added.
#[derive(Clone, Debug)]
pub struct TwistBone {
    pub name: String,
    pub segment: String,
    pub end: String,
    pub along: f32,
}

/// `glb` with each upper arm's rest turned `degrees` further down about the body's front
/// (its rest now differs from its bind, as an A-posed export's does). Keys are untouched.
pub fn arms_lowered(glb: &[u8], degrees: f32) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let labels = human_bones(&g);
    for (upper, lower) in [(LeftUpperArm, LeftLowerArm), (RightUpperArm, RightLowerArm)] {
        let (Some(&u), Some(&l)) = (
            nodes_of(&labels, &[upper]).first(),
            nodes_of(&labels, &[lower]).first(),
        ) else {
            continue;
        };
        let at = |n: usize| g.world(n).w_axis.truncate();
        let along = (at(l) - at(u)).normalize();
        let axis = along.cross(Vec3::NEG_Y).normalize();
        let turn = Quat::from_axis_angle(axis, degrees.to_radians());
        let parent = g.parents()[u].map_or(glam::Mat4::IDENTITY, |p| g.world(p));
        let (_, parent_turn, _) = parent.to_scale_rotation_translation();
        let (t, r, s) = g.node_trs(u);
        let r = (parent_turn.inverse() * turn * parent_turn * r).normalize();
        g.set_node_trs(u, (t, r, s));
    }
    g.to_bytes()
}

/// `glb` (the robot, whose `Foot.L/R` are IK feet under its root joint `Bone`) with UE's IK
/// bones: `ik_foot_root` at the root joint's origin and `ik_foot_l/r` under it where the
/// feet rest, unweighted; with `keyed`, each keyed as its foot is (the same channels, in
/// the same frame), as a UE export keys them to follow the feet.
pub fn ue_ik_bones(glb: &[u8], keyed: bool) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let find = |g: &Glb, name: &str| {
        (0..g.node_count())
            .find(|&n| node_name(g, n) == name)
            .unwrap_or_else(|| panic!("{name} in the file"))
    };
    let (bone, feet) = (find(&g, "Bone"), [find(&g, "Foot.L"), find(&g, "Foot.R")]);
    let origin = g.world(bone).w_axis.truncate();
    let root = add_control(&mut g, "ik_foot_root", bone, origin);
    for (foot, name) in feet.into_iter().zip(["ik_foot_l", "ik_foot_r"]) {
        let at = g.world(foot).w_axis.truncate();
        let n = add_control(&mut g, name, root, at);
        if keyed {
            super::node_edit::copy_channels(&mut g, foot, n, None);
        }
    }
    g.to_bytes()
}
