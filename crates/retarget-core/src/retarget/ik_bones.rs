//! Unreal's IK bones on the target (`ik_hand_gun`, `ik_hand_l`, `ik_hand_r`, `ik_foot_l`,
//! `ik_foot_r`): unweighted joints under the root that every Unreal animation keeps on the
//! hands and feet, for engines to solve hand and foot IK on at runtime. Left unmapped they
//! would stay at rest under the root; each frame puts them on the target's own solved hands
//! and feet instead, keeping the turn they have against them in the reference.

use super::Retargeter;
use super::plan::{SideReference, chain_to_root};
use super::root::chain_world;
use crate::humanoid::HumanBone;
use crate::mapping::{BoneMap, TranslationMode};
use crate::pose::Pose;
use crate::skeleton::Skeleton;
use glam::{Affine3A, Quat};

/// One IK bone and the target joint it sits on.
#[derive(Clone, Debug)]
pub(super) struct IkBone {
    joint: usize,
    /// The root path of its parent (empty: it is a top joint).
    parent_chain: Vec<usize>,
    /// The root path of the hand or foot it sits on.
    anchor_chain: Vec<usize>,
    /// The hand's world rotation to the bone's, in the reference pose.
    turn: Quat,
}

/// The humanoid joint an IK bone called `name` sits on (case and any `ns:` or `a|` prefix
/// aside): `ik_hand_gun` and `ik_hand_r` on the right hand, and so on.
pub fn ik_bone_anchor(name: &str) -> Option<HumanBone> {
    let base = name.rsplit([':', '|']).next().unwrap_or(name);
    match base.to_ascii_lowercase().as_str() {
        "ik_hand_gun" | "ik_hand_r" => Some(HumanBone::RightHand),
        "ik_hand_l" => Some(HumanBone::LeftHand),
        "ik_foot_r" => Some(HumanBone::RightFoot),
        "ik_foot_l" => Some(HumanBone::LeftFoot),
        _ => None,
    }
}

/// The target's IK bones that are no humanoid joint of `map` and whose hand or foot it maps,
/// parents before children. One the map pairs with the source's IK bone of the same hand or
/// foot, taking its translation too (one body on both sides), is not among them: it takes
/// the source's motion, wherever the source's clip puts it. Paired without its translation
/// (another body), it follows the target's own hand, not the source's bone.
pub(super) fn ik_bones(
    source: &Skeleton,
    target: &Skeleton,
    map: &BoneMap,
    tgt_ref: &SideReference,
) -> Vec<IkBone> {
    let parents = target.parents();
    let from_source = |j: usize, name: &str| {
        map.for_target(j).is_some_and(|p| {
            p.translation != TranslationMode::None
                && ik_bone_anchor(&source.names()[p.source]) == ik_bone_anchor(name)
        })
    };
    let on_effector = placed_on_effector(target, map);
    (target.names().iter().enumerate())
        .filter(|&(j, _)| map.for_target(j).is_none_or(|p| p.bone.is_none()))
        .filter(|&(j, name)| !from_source(j, name))
        .filter_map(|(j, name)| {
            let bone = ik_bone_anchor(name).or(on_effector[j])?;
            let anchor = map.for_bone(bone)?.target;
            let turn = tgt_ref.rotations[anchor].inverse() * tgt_ref.rotations[j];
            Some(IkBone {
                joint: j,
                parent_chain: parents[j].map_or_else(Vec::new, |p| chain_to_root(parents, p)),
                anchor_chain: chain_to_root(parents, anchor),
                turn: turn.normalize(),
            })
        })
        .collect()
}

/// For each target joint, the mapped hand or foot it stands on when it is a top joint with
/// no children at that hand's or foot's place in the bind pose: an IK control under no bone
/// (the mech's `Foot.L` beside its leg's `FootBack.L`), which its rig's own clips keep there
/// and which, left unmapped or turned alone, would leave its skin behind.
fn placed_on_effector(target: &Skeleton, map: &BoneMap) -> Vec<Option<HumanBone>> {
    use HumanBone::{LeftFoot, LeftHand, RightFoot, RightHand};
    let parents = target.parents();
    let bind = Pose::bind(target).world_positions(target);
    let (low, high) = bind.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    let near = 1e-3 * (high - low).max(1e-6);
    let effectors: Vec<(HumanBone, usize)> = [LeftFoot, RightFoot, LeftHand, RightHand]
        .into_iter()
        .filter_map(|b| Some((b, map.for_bone(b)?.target)))
        .collect();
    (0..target.len())
        .map(|j| {
            let lone_top = parents[j].is_none() && !parents.contains(&Some(j));
            if !lone_top {
                return None;
            }
            effectors
                .iter()
                .find(|&&(_, e)| e != j && bind[e].distance(bind[j]) < near)
                .map(|&(b, _)| b)
        })
        .collect()
}

/// Puts each of `bones` on its hand or foot in `pose` (under `container`): at its place,
/// turned as in the reference. No allocation.
pub(super) fn follow(bones: &[IkBone], container: Affine3A, pose: &mut Pose) {
    for b in bones {
        let anchor = chain_world(container, &b.anchor_chain, pose);
        let parent = chain_world(container, &b.parent_chain, pose);
        let (_, hand, at) = anchor.to_scale_rotation_translation();
        let (_, above, _) = parent.to_scale_rotation_translation();
        pose.translations[b.joint] = parent.inverse().transform_point3(at);
        pose.rotations[b.joint] = (above.inverse() * hand * b.turn).normalize();
    }
}

impl Retargeter {
    /// Puts the target's IK bones on its hands and feet in every one of `poses` (after the
    /// clip's passes have moved them).
    pub(super) fn follow_ik_bones(&self, poses: &mut [Pose]) {
        if self.plan.ik_bones.is_empty() {
            return;
        }
        for pose in poses {
            follow(&self.plan.ik_bones, self.plan.target_container, pose);
        }
    }

    /// The target joints that are IK bones on its hands and feet.
    pub(super) fn ik_bone_joints(&self) -> impl Iterator<Item = usize> + '_ {
        self.plan.ik_bones.iter().map(|b| b.joint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ik_bones_are_told_by_name_in_any_case_and_namespace() {
        assert_eq!(ik_bone_anchor("ik_hand_gun"), Some(HumanBone::RightHand));
        assert_eq!(ik_bone_anchor("IK_Hand_L"), Some(HumanBone::LeftHand));
        assert_eq!(ik_bone_anchor("rig:ik_foot_r"), Some(HumanBone::RightFoot));
        assert_eq!(
            ik_bone_anchor("Armature|ik_foot_l"),
            Some(HumanBone::LeftFoot)
        );
        assert_eq!(ik_bone_anchor("ik_hand_root"), None);
        assert_eq!(ik_bone_anchor("hand_r"), None);
    }
}
