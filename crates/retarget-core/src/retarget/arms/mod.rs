//! The arms that keep the source's hand contacts on the target: each arm's path from the
//! upper arm to the hand (solved by two-bone IK), the source hands whose paths show the
//! contacts, and the body joints a hand may rest on, paired across the two rigs so an offset
//! in the source body's frame turns into the target body's (`hold` does the keeping).

pub(super) mod hold;

use super::plan::{RotationSolve, SideReference, chain_to_root};
use crate::contacts::{BodyPoint, Touch};
use crate::humanoid::HumanBone;
use crate::mapping::BoneMap;
use crate::skeleton::Skeleton;
use glam::Quat;

/// One target arm: its joints from the upper arm down to the hand (twist bones left out, as
/// the legs leave them), and the world lengths between them.
#[derive(Clone, Debug)]
pub(in crate::retarget) struct ArmIk {
    pub joints: Vec<usize>,
    pub lengths: Vec<f32>,
}

/// A body point on both rigs: the source joint's root path (its track costs no full forward
/// kinematics), the target joint, and the turn that takes the source joint's world offset
/// from its reference to the target's (`Bt⁻¹ · Bs`).
#[derive(Clone, Debug)]
pub(in crate::retarget) struct BodyJoint {
    pub point: BodyPoint,
    pub source_chain: Vec<usize>,
    pub target: usize,
    pub reference_turn: Quat,
}

/// Both arms and the body points of a humanoid map with both arms mapped.
#[derive(Clone, Debug)]
pub(in crate::retarget) struct Arms {
    /// Left, then right.
    pub arms: [ArmIk; 2],
    /// The source hands' root paths, left then right.
    pub source_hands: [Vec<usize>; 2],
    pub body: Vec<BodyJoint>,
    /// The source's upper arms' root paths, left then right (two hands on one prop are
    /// told from the body's frame they span).
    pub source_shoulders: [Vec<usize>; 2],
    /// The source's forearms' root paths (the elbows), left then right: an arm hanging
    /// straight holds no hand on the body.
    pub source_elbows: [Vec<usize>; 2],
    /// Per touch, contacts drawn by hand (seconds of the clips retargeted next) in place of
    /// the detected ones (`Retargeter::set_hand_spans`).
    pub drawn: Vec<(Touch, Vec<(f32, f32)>)>,
}

impl Arms {
    /// The arms of `map`, or `None` unless both arms (upper arm, forearm, hand) are mapped
    /// on a target whose hands hang below their upper arms.
    pub fn new(
        map: &BoneMap,
        (source, src_ref): (&Skeleton, &SideReference),
        (target, tgt_ref): (&Skeleton, &SideReference),
        solves: &[RotationSolve],
    ) -> Option<Self> {
        use HumanBone::*;
        let pair = |bone: HumanBone| map.for_bone(bone);
        let arm = |upper: HumanBone, lower: HumanBone, hand: HumanBone| {
            let (u, l, h) = (pair(upper)?, pair(lower)?, pair(hand)?);
            let path = path(target.parents(), u.target, h.target)?;
            if !path.contains(&l.target) {
                return None;
            }
            let joints = super::twist::twist_free(path, solves);
            let lengths: Vec<f32> = (joints.windows(2))
                .map(|w| tgt_ref.positions[w[0]].distance(tgt_ref.positions[w[1]]))
                .collect();
            if lengths.iter().any(|&l| l <= 1e-9) {
                return None;
            }
            Some((ArmIk { joints, lengths }, h.source, u.source, l.source))
        };
        let (left, ls, lu, le) = arm(LeftUpperArm, LeftLowerArm, LeftHand)?;
        let (right, rs, ru, re) = arm(RightUpperArm, RightLowerArm, RightHand)?;
        let body_bones: [(BodyPoint, &[HumanBone]); 3] = [
            (BodyPoint::Hips, &[Hips]),
            (BodyPoint::Chest, &[UpperChest, Chest, Spine]),
            (BodyPoint::Head, &[Head]),
        ];
        let body = body_bones
            .into_iter()
            .filter_map(|(point, bones)| {
                let p = bones.iter().find_map(|&b| pair(b))?;
                let (bs, bt) = (src_ref.rotations[p.source], tgt_ref.rotations[p.target]);
                Some(BodyJoint {
                    point,
                    source_chain: chain_to_root(source.parents(), p.source),
                    target: p.target,
                    reference_turn: (bt.inverse() * bs).normalize(),
                })
            })
            .collect();
        Some(Self {
            arms: [left, right],
            source_hands: [
                chain_to_root(source.parents(), ls),
                chain_to_root(source.parents(), rs),
            ],
            body,
            source_shoulders: [
                chain_to_root(source.parents(), lu),
                chain_to_root(source.parents(), ru),
            ],
            source_elbows: [
                chain_to_root(source.parents(), le),
                chain_to_root(source.parents(), re),
            ],
            drawn: Vec::new(),
        })
    }

    /// The source joints a clip's pass tracks, in order: the hands, the body points, the
    /// upper arms, then the forearms.
    pub fn source_chains(&self) -> impl Iterator<Item = &[usize]> {
        (self.source_hands.iter().map(|c| &c[..]))
            .chain(self.body.iter().map(|b| &b.source_chain[..]))
            .chain(self.source_shoulders.iter().map(|c| &c[..]))
            .chain(self.source_elbows.iter().map(|c| &c[..]))
    }

    /// The body joint that gives the two hands' offset its frame: the chest, else the hips.
    pub fn hands_frame(&self) -> Option<usize> {
        let find = |p: BodyPoint| self.body.iter().position(|b| b.point == p);
        find(BodyPoint::Chest).or_else(|| find(BodyPoint::Hips))
    }
}

/// The path from `top` down to `end`, top first; `None` unless `top` is above `end`.
fn path(parents: &[Option<usize>], top: usize, end: usize) -> Option<Vec<usize>> {
    let chain = chain_to_root(parents, end);
    let from = chain.iter().position(|&j| j == top)?;
    (chain.len() - from >= 3).then(|| chain[from..].to_vec())
}

#[cfg(test)]
mod tests;
