//! The two moves that take a limb out of the body: the end moved by two-bone IK (the
//! wrist, the hand keeping its world rotation), or the middle joint swung about the line
//! from the top to the end (the knee, the foot staying where it is).

use crate::humanoid::HumanBone;
use crate::ik::two_bone;
use crate::pose::Pose;
use crate::reference::rotation_of;
use glam::{Mat4, Quat, Vec3};

/// A limb's three joints, each with its parent (the joints between stay as they are).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Limb {
    joints: [usize; 3],
    parents: [usize; 3],
}

impl Limb {
    /// The limb labelled `bones` (top, middle, end), each below the one before.
    pub fn find(
        parents: &[Option<usize>],
        labels: &[Option<HumanBone>],
        bones: [HumanBone; 3],
    ) -> Option<Self> {
        let at = |b: HumanBone| labels.iter().position(|l| *l == Some(b));
        let joints = [at(bones[0])?, at(bones[1])?, at(bones[2])?];
        let below = crate::skeleton::is_ancestor_in;
        if !below(parents, joints[0], joints[1]) || !below(parents, joints[1], joints[2]) {
            return None;
        }
        let parents = [
            parents[joints[0]]?,
            parents[joints[1]]?,
            parents[joints[2]]?,
        ];
        Some(Self { joints, parents })
    }

    fn positions(&self, world: &[Mat4]) -> [Vec3; 3] {
        self.joints.map(|j| world[j].w_axis.truncate())
    }

    /// How far the end moves when the limb turns at its top so that its point `at` moves
    /// by `push` (the turn at most 0.6 rad): a contact near the elbow needs the wrist to go
    /// further than one at the wrist.
    pub fn end_push(&self, world: &[Mat4], at: Vec3, push: Vec3) -> Vec3 {
        let [s, _, w] = self.positions(world);
        let turn = arc(at - s, at + push - s);
        let (axis, angle) = turn.to_axis_angle();
        let turn = Quat::from_axis_angle(axis, angle.min(0.6));
        turn * (w - s) - (w - s)
    }

    /// Moves the end by `push` with two-bone IK, the bend kept in its plane; the end joint
    /// keeps its world rotation. `world`: the pose's world transforms before the move.
    pub fn move_end(&self, pose: &mut Pose, world: &[Mat4], push: Vec3) {
        let [s, e, w] = self.positions(world);
        let (upper, lower) = (s.distance(e), e.distance(w));
        if upper <= 0.0 || lower <= 0.0 {
            return;
        }
        // The bend kept: the elbow's side of the shoulder–wrist line, turned as that line
        // turns (the straight-limb pole would flip it about).
        let line = (w - s).normalize_or_zero();
        let bend = (e - s) - line * line.dot(e - s);
        let (mid, end) =
            two_bone::solve(s, w + push, upper, lower, arc(w - s, w + push - s) * bend);
        let d1 = arc(e - s, mid - s);
        let d2 = arc(s + d1 * (w - s) - mid, end - mid);
        let rot = |j: usize| rotation_of(world[j]);
        let [top, middle, last] = self.joints;
        let [pt, pm, pl] = self.parents;
        pose.rotations[top] = (rot(pt).inverse() * d1 * rot(top)).normalize();
        pose.rotations[middle] = ((d1 * rot(pm)).inverse() * d2 * d1 * rot(middle)).normalize();
        pose.rotations[last] = ((d2 * d1 * rot(pl)).inverse() * rot(last)).normalize();
    }

    /// Swings the middle joint about the line from the top to the end so that it moves
    /// by `push` (as far as a turn about that line takes it, at most 0.5 rad); the end
    /// stays where it is with its world rotation. A limb straighter than 1 % of `height`
    /// is left: no turn about its own line moves its middle.
    pub fn swing_middle(&self, pose: &mut Pose, world: &[Mat4], push: Vec3, height: f32) {
        let [h, k, a] = self.positions(world);
        let Some(axis) = (a - h).try_normalize() else {
            return;
        };
        let off = (k - h) - axis * axis.dot(k - h);
        let r = off.length();
        if r < 0.01 * height {
            return;
        }
        let tangent = axis.cross(off) / r;
        let along = tangent.dot(push.normalize_or_zero());
        if along.abs() < 1e-3 {
            return;
        }
        let angle = (push.length() / (r * along.abs())).min(0.5) * along.signum();
        let d = Quat::from_axis_angle(axis, angle);
        let rot = |j: usize| rotation_of(world[j]);
        let [top, _, last] = self.joints;
        let [pt, _, pl] = self.parents;
        pose.rotations[top] = (rot(pt).inverse() * d * rot(top)).normalize();
        pose.rotations[last] = ((d * rot(pl)).inverse() * rot(last)).normalize();
    }
}

/// The shortest turn from `from` to `to` (the identity for a zero vector).
fn arc(from: Vec3, to: Vec3) -> Quat {
    match (from.try_normalize(), to.try_normalize()) {
        (Some(a), Some(b)) => Quat::from_rotation_arc(a, b),
        _ => Quat::IDENTITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::Skeleton;
    use crate::transform::Transform;

    /// Shoulder, upper arm, forearm, hand along -Y from (0.2, 1.5, 0), the hand turned.
    fn arm() -> (Skeleton, Limb) {
        let at = |x, y| Transform {
            translation: Vec3::new(x, y, 0.0),
            ..Transform::default()
        };
        let mut hand = at(0.0, -0.25);
        hand.rotation = Quat::from_rotation_x(0.7);
        let s = Skeleton::new(
            "arm",
            Mat4::IDENTITY,
            vec![
                crate::JointDef::new("chest", None, at(0.0, 1.5)),
                crate::JointDef::new("upper", Some(0), at(0.2, 0.0)),
                crate::JointDef::new("fore", Some(1), at(0.0, -0.3)),
                crate::JointDef::new("hand", Some(2), hand),
            ],
        )
        .unwrap();
        use HumanBone::*;
        let labels = [
            Some(Chest),
            Some(LeftUpperArm),
            Some(LeftLowerArm),
            Some(LeftHand),
        ];
        let limb = Limb::find(s.parents(), &labels, [LeftUpperArm, LeftLowerArm, LeftHand]);
        (s, limb.unwrap())
    }

    #[test]
    fn the_wrist_moves_by_the_push_and_the_hand_keeps_its_world_rotation() {
        let (s, limb) = arm();
        let mut pose = Pose::rest(&s);
        // Bend the elbow a little forward so the arm has a plane.
        pose.rotations[2] = Quat::from_rotation_x(-0.3);
        let before = pose.world_matrices(&s);
        let push = Vec3::new(0.04, 0.0, 0.01);
        limb.move_end(&mut pose, &before, push);
        let after = pose.world_matrices(&s);
        let wrist = |w: &[Mat4]| w[3].w_axis.truncate();
        assert!(wrist(&after).abs_diff_eq(wrist(&before) + push, 1e-5));
        assert!(rotation_of(after[3]).abs_diff_eq(rotation_of(before[3]), 1e-5));
        // Bones keep their lengths; the shoulder stays.
        let p = |w: &[Mat4], j: usize| w[j].w_axis.truncate();
        assert!(p(&after, 1).abs_diff_eq(p(&before, 1), 1e-6));
        assert!((p(&after, 1).distance(p(&after, 2)) - 0.3).abs() < 1e-5);
    }

    #[test]
    fn the_knee_swings_out_and_the_foot_stays() {
        let (s, limb) = arm();
        let mut pose = Pose::rest(&s);
        pose.rotations[2] = Quat::from_rotation_x(-0.8);
        let before = pose.world_matrices(&s);
        limb.swing_middle(&mut pose, &before, Vec3::new(0.02, 0.0, 0.0), 1.75);
        let after = pose.world_matrices(&s);
        let p = |w: &[Mat4], j: usize| w[j].w_axis.truncate();
        assert!(
            p(&after, 3).abs_diff_eq(p(&before, 3), 1e-5),
            "the end stays"
        );
        assert!(rotation_of(after[3]).abs_diff_eq(rotation_of(before[3]), 1e-5));
        let moved = p(&after, 2) - p(&before, 2);
        assert!(moved.x > 0.015, "{moved}");
    }
}
