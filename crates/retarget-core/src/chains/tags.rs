//! Limb tags from world positions (the paper: "determined based on the world position of
//! each limb relatively to each other"; legs are the limbs close to the ground).

use super::build::BuildFrame;
use super::{Depth, Height, Lateral, LimbType, Tags};
use glam::Vec3;

/// The frame limbs are tagged in: the pelvis, the character's axes, the floor and size.
pub(super) struct Tagger<'a> {
    positions: &'a [Vec3],
    names: &'a [String],
    pelvis: Vec3,
    forward: Vec3,
    left: Vec3,
    size: f32,
    floor: f32,
    /// Vertical extent: heights are judged against it (a robot's arm span is not its height).
    tall: f32,
    /// Midway between the front-most and back-most limb attachments.
    mid_depth: f32,
}

impl<'a> Tagger<'a> {
    /// `limbs`: (first joint, joint it hangs from) of every limb.
    pub fn new(frame: &BuildFrame<'a>, pelvis: usize, limbs: &[(usize, usize)]) -> Self {
        let pos = frame.positions;
        let forward = Vec3::new(frame.forward.x, 0.0, frame.forward.z)
            .try_normalize()
            .unwrap_or(Vec3::Z);
        let left = Vec3::Y.cross(forward);
        let (lo, hi) = pos.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let origin = pos[pelvis];
        let depths: Vec<f32> = limbs
            .iter()
            .map(|&(first, _)| (pos[first] - origin).dot(forward))
            .collect();
        let (dlo, dhi) = depths
            .iter()
            .fold((f32::MAX, f32::MIN), |(a, b), d| (a.min(*d), b.max(*d)));
        Self {
            positions: pos,
            names: frame.names,
            pelvis: origin,
            forward,
            left,
            size: (hi - lo).max_element().max(1e-6),
            floor: lo.y,
            tall: (hi.y - lo.y).max(1e-6),
            mid_depth: if depths.is_empty() {
                0.0
            } else {
                (dlo + dhi) * 0.5
            },
        }
    }
}

/// The tags of the limb `joints` with `effectors` extremities.
pub(super) fn tag_limb(t: &Tagger, joints: &[usize], effectors: usize) -> Tags {
    let pos = t.positions;
    let mean = joints.iter().map(|&j| pos[j]).sum::<Vec3>() / joints.len().max(1) as f32;
    let start = pos[joints[0]];
    let end = pos[*joints.last().expect("limbs have joints")];
    let side = (mean - t.pelvis).dot(t.left);
    let lateral = if let Some(named) = named_side(t.names, joints) {
        named
    } else if side > 0.025 * t.size {
        Lateral::Left
    } else if side < -0.025 * t.size {
        Lateral::Right
    } else {
        Lateral::Center
    };
    let along = (start - t.pelvis).dot(t.forward) - t.mid_depth;
    let depth = if along > 0.1 * t.size {
        Depth::Front
    } else if along < -0.1 * t.size {
        Depth::Back
    } else {
        Depth::Center
    };
    // Where the limb reaches: legs end well below the pelvis (a robot's leg may end at its
    // knee, its foot an IK target hung from the root), arms in the T-pose above it.
    let rise = end.y.min(mean.y) - t.pelvis.y;
    let lift = end.y.max(mean.y) - t.pelvis.y;
    let height = if rise < -0.15 * t.tall {
        Height::Bottom
    } else if lift > 0.1 * t.tall {
        Height::Up
    } else {
        Height::Center
    };
    // A leg comes in a left-right pair or stands on the floor; a drooping tail does neither.
    let grounded = end.y - t.floor < 0.1 * t.tall;
    let limb = if height == Height::Bottom && (lateral != Lateral::Center || grounded) {
        LimbType::Leg
    } else if effectors >= 2 || (lateral != Lateral::Center && height != Height::Bottom) {
        LimbType::Grasper
    } else {
        LimbType::Generic
    };
    Tags {
        depth,
        height,
        lateral,
        limb,
    }
}

/// The side every joint name of a limb that says one agrees on (`FrontLeg.L`, `LeftUpLeg`),
/// or `None` when none says or they disagree.
fn named_side(names: &[String], joints: &[usize]) -> Option<Lateral> {
    let mut said = joints
        .iter()
        .filter_map(|&j| names.get(j))
        .filter_map(|n| crate::profile::side_of_name(n));
    let first = said.next()?;
    said.all(|s| s == first)
        .then_some(if first { Lateral::Left } else { Lateral::Right })
}
