//! A target in Unreal's convention with its IK bones: the joints renamed as the mannequin's
//! (`pelvis`, `hand_r`, …) and the unweighted `ik_hand_root` → `ik_hand_gun` → `ik_hand_l`,
//! `ik_hand_r` and `ik_foot_root` → `ik_foot_l`, `ik_foot_r` hung from the skin's top joint,
//! each at its hand's or foot's place in the rest pose (the roots at the top joint), as
//! Unreal's rigs carry them.

use super::controls::add_control;
use super::glb::Glb;
use super::gltf_variants::renamed;
use super::labels::{Convention, human_bones, nodes_of};
use super::node_edit::root_joints;
use retarget_studio::core::HumanBone;

/// The IK bones and the joint each sits on (`None`: the top joint).
pub const IK_BONES: [(&str, Option<HumanBone>); 7] = [
    ("ik_hand_root", None),
    ("ik_hand_gun", Some(HumanBone::RightHand)),
    ("ik_hand_l", Some(HumanBone::LeftHand)),
    ("ik_hand_r", Some(HumanBone::RightHand)),
    ("ik_foot_root", None),
    ("ik_foot_l", Some(HumanBone::LeftFoot)),
    ("ik_foot_r", Some(HumanBone::RightFoot)),
];

/// `glb` renamed to Unreal's names with the IK bones of [`IK_BONES`] added.
pub fn unreal_ik_bones(glb: &[u8]) -> Vec<u8> {
    // The humanoid joints by label before the names change.
    let labels = human_bones(&Glb::parse(glb));
    let mut g = Glb::parse(&renamed(glb, Convention::Unreal));
    let top = root_joints(&g)[0];
    let at = |g: &Glb, bone: Option<HumanBone>| {
        let node = bone.map_or(top, |b| nodes_of(&labels, &[b])[0]);
        g.world(node).w_axis.truncate()
    };
    let mut added: Vec<(&str, usize)> = Vec::new();
    for (name, bone) in IK_BONES {
        let parent = match name {
            "ik_hand_gun" => "ik_hand_root",
            "ik_hand_l" | "ik_hand_r" => "ik_hand_gun",
            "ik_foot_l" | "ik_foot_r" => "ik_foot_root",
            _ => "",
        };
        let parent = (added.iter().find(|(n, _)| *n == parent)).map_or(top, |&(_, node)| node);
        let place = at(&g, bone);
        let node = add_control(&mut g, name, parent, place);
        added.push((name, node));
    }
    g.to_bytes()
}
