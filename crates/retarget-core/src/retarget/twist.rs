//! Twist bones take their share of a limb segment's roll. A joint on the line of an upper
//! arm, forearm, thigh or shin (UE's `lowerarm_twist_01_l` beside the hand, DAZ's and
//! Rigify's `forearm.twist` inside the chain) turns about the segment by its weight's share
//! between the roll the segment starts with (its parent's: the segment's own roll undone)
//! and the roll it ends with (the next joint's, about the segment), as Unity's and HumanIK's
//! twist settings do. It keeps its offset, and its swing is the segment's, so the chain does
//! not bend at it. The weight defaults to the joint's place along the segment.

use super::plan::{RotationSolve, SideReference};
use crate::humanoid::{along_segment, says_twist};
use crate::mapping::BoneMap;
use crate::pose::Pose;
use crate::skeleton::Skeleton;
use glam::{Quat, Vec3};

/// One mapped target joint a twist solve reads: its source and world delta
/// (`offset · Bt⁻¹`), which a clip's fit changes on a foot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Link {
    target: usize,
    source: usize,
    delta: Quat,
    reference_inverse: Quat,
}

impl Link {
    fn new(k: usize, solves: &[RotationSolve], tgt_ref: &SideReference) -> Option<Self> {
        let reference_inverse = tgt_ref.rotations[k].inverse();
        match solves[k] {
            RotationSolve::Mapped { source, offset } => Some(Self {
                target: k,
                source,
                delta: offset * reference_inverse,
                reference_inverse,
            }),
            _ => None,
        }
    }

    #[inline]
    fn world_delta(&self, source_world: &[Quat]) -> Quat {
        source_world[self.source] * self.delta
    }
}

/// A twist bone's solve: the segment, the joint it starts from and the one it ends at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Twist {
    pub segment: Link,
    pub start: Option<Link>,
    pub end: Link,
    /// The segment's direction in the reference pose, in the world.
    pub axis: Vec3,
    /// The share of the end's roll (the rest undoes the segment's own).
    pub weight: f32,
    pub reference_world: Quat,
}

impl Twist {
    /// The twist bone's world rotation from the frame's source world rotations.
    #[inline]
    pub fn world(&self, source_world: &[Quat]) -> Quat {
        self.world_from(|l| l.world_delta(source_world))
    }

    /// The world rotation from the links' world deltas.
    #[inline]
    fn world_from(&self, delta: impl Fn(&Link) -> Quat) -> Quat {
        let segment = delta(&self.segment);
        let end_roll = roll(segment.inverse() * delta(&self.end), self.axis);
        let start_roll =
            (self.start.as_ref()).map_or(0.0, |s| roll(delta(s).inverse() * segment, self.axis));
        let angle = self.weight * end_roll - (1.0 - self.weight) * start_roll;
        segment * Quat::from_axis_angle(self.axis, angle) * self.reference_world
    }

    /// The source joints the solve reads.
    pub fn sources(&self) -> impl Iterator<Item = usize> {
        [Some(self.segment), self.start, Some(self.end)]
            .into_iter()
            .flatten()
            .map(|l| l.source)
    }
}

impl super::Retargeter {
    /// The target's twist bones, each with its share of the next joint's roll.
    pub fn twist_bones(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
        (self.fit.rotations.iter().enumerate()).filter_map(|(j, r)| match r {
            RotationSolve::Twist(t) => Some((j, t.weight)),
            _ => None,
        })
    }

    /// Sets twist bone `joint`'s share of the next joint's roll (0: it keeps the roll the
    /// segment starts with, 1: it turns with the next joint), clamped to 0..=1. Other joints
    /// and non-finite weights are ignored.
    pub fn set_twist_weight(&mut self, joint: usize, weight: f32) {
        if let Some(RotationSolve::Twist(t)) = self.fit.rotations.get_mut(joint)
            && weight.is_finite()
        {
            t.weight = weight.clamp(0.0, 1.0);
        }
    }

    /// Turns each twist bone again from its limb as the clip-level passes left it: feet
    /// planting and reach move the legs and arms after the frame's solve, and a twist bone
    /// must follow the limb the viewer sees. Joints below a twist bone keep their world
    /// rotations.
    pub(super) fn settle_twists(&self, target: &Skeleton, poses: &mut [Pose]) {
        if !self.has_twists() {
            return;
        }
        let mut world = vec![Quat::IDENTITY; target.len()];
        for pose in poses {
            self.settle_pose_twists(target, pose, &mut world);
        }
    }

    pub(super) fn has_twists(&self) -> bool {
        (self.fit.rotations.iter()).any(|r| matches!(r, RotationSolve::Twist(_)))
    }

    /// [`Self::settle_twists`] on one pose, with `world` (one rotation per target joint) as
    /// its working memory: allocates nothing, for the runtime's planted frames.
    pub(super) fn settle_pose_twists(
        &self,
        target: &Skeleton,
        pose: &mut Pose,
        world: &mut [Quat],
    ) {
        let parents = target.parents();
        for j in 0..target.len() {
            let up = parents[j].map_or(self.plan.target_container_rotation, |p| world[p]);
            world[j] = up * pose.rotations[j];
        }
        for (j, r) in self.fit.rotations.iter().enumerate() {
            let RotationSolve::Twist(twist) = r else {
                continue;
            };
            let turned = twist.world_from(|l| world[l.target] * l.reference_inverse);
            let up = parents[j].map_or(self.plan.target_container_rotation, |p| world[p]);
            pose.rotations[j] = (up.inverse() * turned).normalize();
            for c in target.children(j) {
                pose.rotations[c] = (turned.inverse() * world[c]).normalize();
            }
            world[j] = turned;
        }
    }
}

/// Reads the mapped joints' offsets again (a clip's fit tilts the feet).
pub(super) fn refresh(solves: &mut [RotationSolve]) {
    for j in 0..solves.len() {
        let RotationSolve::Twist(mut twist) = solves[j] else {
            continue;
        };
        let fresh = |l: &mut Link| {
            if let RotationSolve::Mapped { source, offset } = solves[l.target] {
                l.source = source;
                l.delta = offset * l.reference_inverse;
            }
        };
        fresh(&mut twist.segment);
        if let Some(start) = &mut twist.start {
            fresh(start);
        }
        fresh(&mut twist.end);
        solves[j] = RotationSolve::Twist(twist);
    }
}

/// The signed angle `q` turns about `axis` (a unit vector), in radians: its twist part.
fn roll(q: Quat, axis: Vec3) -> f32 {
    crate::ik::limits::swing_twist_deg(q, axis).1.to_radians()
}

/// Turns each unmapped target joint that lies inside a mapped limb segment into a twist
/// solve: its parent is the segment (a labelled limb bone, or any mapped joint where the
/// name says twist), it sits on the line towards the segment's next mapped joint, strictly
/// between the two, and no other mapped joint hangs below it.
pub(super) fn twist_solves(
    target: &Skeleton,
    map: &BoneMap,
    tgt_ref: &SideReference,
    solves: &mut [RotationSolve],
) {
    for j in 0..target.len() {
        if matches!(solves[j], RotationSolve::Mapped { .. }) {
            continue;
        }
        if let Some(twist) = twist_of(target, map, tgt_ref, solves, j) {
            solves[j] = RotationSolve::Twist(twist);
        }
    }
}

fn twist_of(
    target: &Skeleton,
    map: &BoneMap,
    tgt_ref: &SideReference,
    solves: &[RotationSolve],
    j: usize,
) -> Option<Twist> {
    let parents = target.parents();
    let p = parents[j]?;
    let next_bone = map
        .for_target(p)
        .and_then(|pair| pair.bone)
        .and_then(|b| b.segment_end());
    if next_bone.is_none() && !says_twist(&target.names()[j]) {
        return None;
    }
    let mapped = |k: usize| Link::new(k, solves, tgt_ref);
    let segment = mapped(p)?;
    let pos = &tgt_ref.positions;
    let ends = mapped_below(target, solves, p);
    // No mapped joint below the twist bone but the segment's end (a hand inside the chain).
    let below_j: Vec<usize> = ends
        .iter()
        .copied()
        .filter(|&e| target.is_ancestor(j, e))
        .collect();
    if below_j.len() > 1 {
        return None;
    }
    let candidates = if below_j.is_empty() {
        // A foot that hangs elsewhere (an IK foot under the root) still ends the shin.
        let detached = (map.pairs().iter())
            .filter(|pair| pair.bone.is_some() && pair.bone == next_bone)
            .map(|pair| pair.target);
        ends.into_iter().chain(detached).collect()
    } else {
        below_j
    };
    let (end, fraction) = candidates
        .into_iter()
        .filter_map(|e| {
            let f = along_segment(pos[p], pos[e], pos[j])?;
            let off = pos[j].distance(pos[p].lerp(pos[e], f));
            // The labelled next joint first: a robot's three palms sit at one point.
            let labelled =
                next_bone.is_some() && map.for_target(e).and_then(|q| q.bone) == next_bone;
            Some((e, f, (!labelled, off)))
        })
        .min_by(|a, b| a.2.0.cmp(&b.2.0).then(a.2.1.total_cmp(&b.2.1)))
        .map(|(e, f, _)| (e, f))?;
    let start = parents[p].and_then(|pp| nearest_mapped(parents, solves, pp));
    Some(Twist {
        segment,
        start: start.and_then(mapped),
        end: mapped(end)?,
        axis: (pos[end] - pos[p]).normalize(),
        weight: fraction,
        reference_world: tgt_ref.rotations[j],
    })
}

/// The mapped joints below `joint` reached through unmapped joints only.
fn mapped_below(target: &Skeleton, solves: &[RotationSolve], joint: usize) -> Vec<usize> {
    let mut found = Vec::new();
    let mut stack: Vec<usize> = target.children(joint).collect();
    while let Some(c) = stack.pop() {
        if matches!(solves[c], RotationSolve::Mapped { .. }) {
            found.push(c);
        } else {
            stack.extend(target.children(c));
        }
    }
    found
}

fn nearest_mapped(
    parents: &[Option<usize>],
    solves: &[RotationSolve],
    mut at: usize,
) -> Option<usize> {
    loop {
        if matches!(solves[at], RotationSolve::Mapped { .. }) {
            return Some(at);
        }
        at = parents[at]?;
    }
}

/// `joints` (a path down a limb, top first) without the joints the plan solves as twist
/// bones: IK bending at one would break the limb where no knee or elbow is. The legs' and
/// the arms' IK both take their paths through it.
pub(super) fn twist_free(joints: Vec<usize>, solves: &[RotationSolve]) -> Vec<usize> {
    let inside = |j: usize| matches!(solves[j], RotationSolve::Twist(_));
    let last = joints.len().saturating_sub(1);
    (joints.iter().enumerate())
        .filter(|&(k, &j)| k == 0 || k == last || !inside(j))
        .map(|(_, &j)| j)
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::HumanBone::{self, *};
    use crate::mapping::{BoneMap, BonePair, TranslationMode};
    use crate::pose::Pose;
    use crate::reference::ReferencePose;
    use crate::retarget::Retargeter;
    use crate::skeleton::{JointDef, Skeleton};
    use crate::transform::Transform;
    use glam::{Quat, Vec3};

    /// Where a rig hangs its twist bone.
    #[derive(Clone, Copy, PartialEq)]
    enum Layout {
        None,
        /// UE: `lowerarm_twist_01` beside the hand, 3/4 down the forearm.
        Beside,
        /// DAZ, Rigify: `forearm.twist` between the forearm and the hand, halfway.
        Inside,
    }

    /// A left arm along +X from a chest: chest, upper arm, forearm (0.3 long), hand,
    /// finger; the twist bone where `layout` puts it. The labelled joints and their bones.
    fn arm(layout: Layout) -> (Skeleton, Vec<(usize, HumanBone)>) {
        let t = |x: f32| Transform::from_translation(Vec3::new(x, 0.0, 0.0));
        let mut defs = vec![
            JointDef::new("chest", None, Transform::from_translation(Vec3::Y)),
            JointDef::new("upperarm", Some(0), t(0.2)),
            JointDef::new("forearm", Some(1), t(0.3)),
        ];
        let hand_parent = match layout {
            Layout::Inside => {
                defs.push(JointDef::new("forearm.twist", Some(2), t(0.15)));
                defs.push(JointDef::new("hand", Some(3), t(0.15)));
                3
            }
            _ => {
                defs.push(JointDef::new("hand", Some(2), t(0.3)));
                2
            }
        };
        let hand = hand_parent + 1;
        defs.push(JointDef::new("finger", Some(hand), t(0.1)));
        if layout == Layout::Beside {
            defs.push(JointDef::new("lowerarm_twist_01", Some(2), t(0.225)));
        }
        let labels = vec![
            (0, Chest),
            (1, LeftUpperArm),
            (2, LeftLowerArm),
            (hand, LeftHand),
            (hand + 1, LeftIndexProximal),
        ];
        (
            Skeleton::new("arm", glam::Mat4::IDENTITY, defs).unwrap(),
            labels,
        )
    }

    fn retargeter(
        source: &Skeleton,
        target: &Skeleton,
        labels: &[(usize, HumanBone)],
    ) -> Retargeter {
        let src_labels = arm(Layout::None).1;
        let pairs = labels
            .iter()
            .map(|&(t, bone)| {
                let s = src_labels.iter().find(|l| l.1 == bone).unwrap().0;
                BonePair {
                    bone: Some(bone),
                    translation: if bone == Chest {
                        TranslationMode::Copy
                    } else {
                        TranslationMode::None
                    },
                    ..BonePair::new(s, t)
                }
            })
            .collect();
        let reference =
            |s: &Skeleton| ReferencePose::new(s, Pose::rest(s), &Default::default(), &[]);
        Retargeter::new(
            source,
            &reference(source),
            target,
            &reference(target),
            &BoneMap::new(pairs),
        )
        .unwrap()
    }

    /// The source arm with its forearm bent 30° at the elbow, the wrist bent 40° and
    /// rolled `roll` about the forearm.
    fn posed(source: &Skeleton, roll: f32) -> Pose {
        let mut pose = Pose::rest(source);
        pose.rotations[2] = Quat::from_rotation_z(30f32.to_radians());
        pose.rotations[3] =
            Quat::from_rotation_x(roll.to_radians()) * Quat::from_rotation_y(40f32.to_radians());
        pose
    }

    /// The twist angle of `twist`'s world rotation from `forearm`'s, about the forearm.
    fn roll_between(forearm: Quat, twist: Quat, axis: Vec3) -> f32 {
        let (_, deg) = crate::ik::limits::swing_twist_deg(forearm.inverse() * twist, axis);
        deg
    }

    /// Beside the hand or inside the chain, the twist bone turns about the forearm by its
    /// share of the hand's roll (its place along the forearm), swings with the forearm, and
    /// stays on it; the hand stays at the forearm's end.
    #[test]
    fn twist_bones_take_their_share_of_the_roll_and_stay_on_the_limb() {
        let (source, _) = arm(Layout::None);
        for (layout, twist_joint, share) in [(Layout::Beside, 5, 0.75), (Layout::Inside, 3, 0.5)] {
            let (target, labels) = arm(layout);
            let r = retargeter(&source, &target, &labels);
            let pose = posed(&source, 80.0);
            let mut out = Pose::rest(&target);
            crate::retarget::test_rigs::solve(&r, &pose, &mut out);
            let worlds = out.world_matrices(&target);
            let rot = |j: usize| crate::reference::rotation_of(worlds[j]);
            let at = |j: usize| worlds[j].w_axis.truncate();
            let axis = Vec3::X;
            let roll = roll_between(rot(2), rot(twist_joint), axis);
            assert!(
                (roll - 80.0 * share).abs() < 1.0,
                "twist rolls {roll}°, share {share}"
            );
            let along = (at(twist_joint) - at(2)).normalize();
            let forearm = rot(2) * axis;
            assert!(
                along.dot(forearm) > 0.9999,
                "the twist bone left the forearm"
            );
            let hand = labels.iter().find(|l| l.1 == LeftHand).unwrap().0;
            let to_hand = (at(hand) - at(2)).normalize();
            assert!(
                to_hand.dot(forearm) > 0.9999,
                "the chain bends at the twist bone: {to_hand} against {forearm}"
            );
        }
    }

    /// A weight set by hand replaces the place along the limb: 0 keeps the forearm's roll,
    /// 1 turns with the hand; out-of-range weights are clamped.
    #[test]
    fn a_twist_weight_set_by_hand_is_its_share() {
        let (source, _) = arm(Layout::None);
        let (target, labels) = arm(Layout::Beside);
        let mut r = retargeter(&source, &target, &labels);
        let found: Vec<(usize, f32)> = r.twist_bones().collect();
        assert!(
            found.len() == 1 && found[0].0 == 5 && (found[0].1 - 0.75).abs() < 1e-5,
            "{found:?}"
        );
        for (weight, share) in [(0.0, 0.0), (1.0, 1.0), (3.0, 1.0), (0.25, 0.25)] {
            r.set_twist_weight(5, weight);
            let mut out = Pose::rest(&target);
            crate::retarget::test_rigs::solve(&r, &posed(&source, 80.0), &mut out);
            let worlds = out.world_matrices(&target);
            let rot = |j: usize| crate::reference::rotation_of(worlds[j]);
            let roll = roll_between(rot(2), rot(5), Vec3::X);
            assert!(
                (roll - 80.0 * share).abs() < 1.0,
                "weight {weight}: {roll}°"
            );
        }
    }

    /// An upper arm's twist bone undoes its share of the upper arm's own roll: a roll of the
    /// whole arm about itself leaves a twist bone near the shoulder nearly unrolled.
    #[test]
    fn a_twist_bone_near_the_start_keeps_the_parents_roll() {
        let (source, _) = arm(Layout::None);
        let t = |x: f32| Transform::from_translation(Vec3::new(x, 0.0, 0.0));
        let (base, labels) = arm(Layout::None);
        let mut defs: Vec<JointDef> = (0..base.len())
            .map(|j| JointDef::new(base.names()[j].clone(), base.parents()[j], base.bind()[j]))
            .collect();
        defs.push(JointDef::new("upperarm_twist_01", Some(1), t(0.06)));
        let target = Skeleton::new("arm", glam::Mat4::IDENTITY, defs).unwrap();
        let r = retargeter(&source, &target, &labels);
        let mut pose = Pose::rest(&source);
        pose.rotations[1] = Quat::from_rotation_x(60f32.to_radians());
        let mut out = Pose::rest(&target);
        crate::retarget::test_rigs::solve(&r, &pose, &mut out);
        let worlds = out.world_matrices(&target);
        let rot = |j: usize| crate::reference::rotation_of(worlds[j]);
        let roll = roll_between(rot(0), rot(5), Vec3::X);
        assert!(
            (roll - 60.0 * 0.2).abs() < 1.0,
            "rolls {roll}° from the chest"
        );
    }
}
