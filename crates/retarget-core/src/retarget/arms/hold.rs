//! Keeping the hand contacts: after the legs are planted, each frame of a source contact puts
//! the target's hands where the source's are against each other (both hands about their
//! midpoint, their offset the source's in the body's frame) or against the body (the hand at
//! the source's point in the body joint's frame), scaled by the heights and eased in and out
//! as foot plants are; then each arm is solved by two-bone IK (FABRIK for a longer path), the
//! hand keeping its world rotation. Without it the target's other arm lengths part two hands
//! on one sword and push a hand on the hip into the body.

use super::super::{Retargeter, spans_to_contacts};
use super::{ArmIk, Arms};
use crate::contacts::{BodyPoint, HandContact, HandTracks, Touch, detect_hands, hand_weights};
use crate::ik::{fabrik, lay_along, two_bone};
use crate::pose::Pose;
use crate::reference::{rotation_of, world_rotations_into};
use crate::skeleton::Skeleton;
use glam::{Affine3A, Mat4, Quat, Vec3};

/// The source's tracked joints per frame, in `Arms::source_chains` order: the hands, the
/// body points, the upper arms, then the forearms.
pub(in crate::retarget) type SourceTracks = Vec<Vec<Affine3A>>;

/// One touch's contacts, eased in and out: how much each frame holds it.
struct Weighted {
    touch: Touch,
    weights: Vec<f32>,
}

impl Retargeter {
    /// Whether a whole clip's pass keeps hand contacts (on, and both arms mapped).
    pub(in crate::retarget) fn holds_hands(&self) -> bool {
        self.plan.solve.hand_contacts && self.plan.arms.is_some()
    }

    /// Contacts drawn by hand for `touch`, in the seconds of the clips retargeted next, in
    /// place of the detected ones (`None`: detected; an empty list: never held). A drawn
    /// hands-together span keeps the source's hand offset over its frames, read from the
    /// source's tracks whatever the detection says.
    pub fn set_hand_spans(&mut self, touch: Touch, spans: Option<Vec<(f32, f32)>>) {
        let Some(arms) = self.plan_mut().arms.as_mut() else {
            return;
        };
        arms.drawn.retain(|(t, _)| *t != touch);
        if let Some(spans) = spans {
            arms.drawn.push((touch, spans));
        }
    }

    /// The source's hand contacts on frames at `times`: detected from its tracked joints,
    /// or, for a touch drawn by hand, the drawn spans over those frames.
    fn hand_contacts_of(&self, tracks: &SourceTracks, times: &[f32]) -> Vec<HandContact> {
        let Some(arms) = &self.plan.arms else {
            return Vec::new();
        };
        let at = |t: &Vec<Affine3A>| t.iter().map(|a| Vec3::from(a.translation)).collect();
        let positions: Vec<Vec<Vec3>> = tracks.iter().map(at).collect();
        let shoulders = 2 + arms.body.len();
        let elbows = shoulders + 2;
        if positions.len() < elbows + 2 {
            return Vec::new();
        }
        let body: Vec<(BodyPoint, &[Vec3])> = (arms.body.iter().zip(&positions[2..shoulders]))
            .map(|(b, p)| (b.point, p.as_slice()))
            .collect();
        let tracks = HandTracks {
            hands: [&positions[0], &positions[1]],
            shoulders: Some([&positions[shoulders], &positions[shoulders + 1]]),
            elbows: Some([&positions[elbows], &positions[elbows + 1]]),
            body: &body,
        };
        let limits = &self.plan.solve.hand_thresholds;
        let mut found = detect_hands(tracks, times, self.plan.source_height, limits);
        found.retain(|c| !arms.drawn.iter().any(|(t, _)| *t == c.touch));
        for (touch, spans) in &arms.drawn {
            let drawn = spans_to_contacts(spans, times).into_iter();
            found.extend(drawn.map(|c| HandContact {
                touch: *touch,
                start: c.start,
                end: c.end,
            }));
        }
        found
    }

    /// Keeps the source's hand contacts on the solved `poses` (one per entry of `times`),
    /// given the source's `tracks`; returns the contacts found. One body on both sides is
    /// left as it is (its contacts are still returned).
    pub(in crate::retarget) fn hold_hands(
        &self,
        target: &Skeleton,
        poses: &mut [Pose],
        times: &[f32],
        tracks: &SourceTracks,
    ) -> Vec<HandContact> {
        let contacts = self.hand_contacts_of(tracks, times);
        let Some(arms) = self.plan.arms.as_ref() else {
            return contacts;
        };
        if self.plan.same_rig || contacts.is_empty() || poses.len() < 2 {
            return contacts;
        }
        let weighted = weighted(&contacts, poses.len(), self.blend_frames(times));
        let container = Mat4::from(self.plan.target_container);
        let mut world = vec![Mat4::IDENTITY; target.len()];
        let mut rotations = vec![Quat::IDENTITY; target.len()];
        let mut points = Vec::new();
        for (f, pose) in poses.iter_mut().enumerate() {
            if weighted.iter().all(|w| w.weights[f] <= 0.0) {
                continue;
            }
            pose.world_matrices_under(target, container, &mut world);
            let goals = self.hand_goals(arms, &weighted, f, tracks, &world);
            let turn = self.plan.target_container_rotation;
            world_rotations_into(target.parents(), turn, &pose.rotations, &mut rotations);
            for (arm, goal) in arms.arms.iter().zip(goals) {
                if let Some(goal) = goal {
                    self.reach_hand(target, arm, goal, pose, (&world, &rotations), &mut points);
                }
            }
        }
        contacts
    }

    /// Where each hand goes at frame `f` (`None`: where the solve put it).
    fn hand_goals(
        &self,
        arms: &Arms,
        weighted: &[Weighted],
        f: usize,
        tracks: &SourceTracks,
        world: &[Mat4],
    ) -> [Option<Vec3>; 2] {
        let scale = self.plan.target_height / self.plan.source_height;
        let at = |j: usize| world[j].w_axis.truncate();
        let hands = [at(arms.arms[0].hand()), at(arms.arms[1].hand())];
        let source = |t: usize| Vec3::from(tracks[t][f].translation);
        // The turn from the source's world to the target's about body point `b` this frame:
        // an offset in the source body's frame lands in the target body's.
        let turn = |b: usize| {
            let rs = rotation_of(Mat4::from(tracks[2 + b][f]));
            let rt = rotation_of(world[arms.body[b].target]);
            rt * arms.body[b].reference_turn * rs.inverse()
        };
        let mut goals = [None; 2];
        // Hands together or on one prop: the hands keep the source's offset either way.
        let together = (weighted.iter().filter(|w| w.touch.both_hands()))
            .fold(0.0f32, |most, w| most.max(w.weights[f]));
        if together > 0.0 {
            let frame = arms.hands_frame().map_or(Quat::IDENTITY, turn);
            let apart = frame * (source(1) - source(0)) * scale;
            let mid = arms.within_reach((hands[0] + hands[1]) / 2.0, apart, &at);
            goals[0] = Some(hands[0].lerp(mid - apart / 2.0, together));
            goals[1] = Some(hands[1].lerp(mid + apart / 2.0, together));
        }
        for w in weighted {
            let Touch::Body { hand, body } = w.touch else {
                continue;
            };
            // Two hands together go first: a hand on both the chest and the other hand
            // keeps the other hand.
            let share = w.weights[f] * (1.0 - together);
            let Some(b) = arms.body.iter().position(|x| x.point == body) else {
                continue;
            };
            if share <= 0.0 {
                continue;
            }
            let h = hand.index();
            let offset = turn(b) * (source(h) - source(2 + b)) * scale;
            let want = at(arms.body[b].target) + offset;
            goals[h] = Some(goals[h].unwrap_or(hands[h]).lerp(want, share));
        }
        goals
    }

    /// Solves `arm` of `pose` so its hand reaches `goal`; `placed` holds the pose's world
    /// transforms and world rotations before this arm moved.
    fn reach_hand(
        &self,
        target: &Skeleton,
        arm: &ArmIk,
        goal: Vec3,
        pose: &mut Pose,
        (world, rotations): (&[Mat4], &[Quat]),
        points: &mut Vec<Vec3>,
    ) {
        points.clear();
        points.extend(arm.joints.iter().map(|&j| world[j].w_axis.truncate()));
        let n = points.len();
        if points[n - 1].distance(goal) <= 1e-6 * self.plan.target_height {
            return;
        }
        if n == 3 {
            // The elbow stays in the half-plane it was solved in (no flips).
            let pole = points[1] - points[0];
            let (elbow, end) =
                two_bone::solve(points[0], goal, arm.lengths[0], arm.lengths[1], pole);
            points[1] = elbow;
            points[2] = end;
        } else {
            fabrik::solve(points, &arm.lengths, goal);
        }
        let parents = target.parents();
        let above =
            parents[arm.joints[0]].map_or(self.plan.target_container_rotation, |p| rotations[p]);
        lay_along(pose, parents, &arm.joints, points, rotations, above);
    }
}

impl ArmIk {
    /// The hand joint the arm reaches with.
    pub(in crate::retarget) fn hand(&self) -> usize {
        self.joints[self.joints.len() - 1]
    }

    /// Length from the shoulder to the hand with the arm straight.
    fn reach(&self) -> f32 {
        self.lengths.iter().sum()
    }
}

impl Arms {
    /// `mid`, or where it must come toward the shoulders for both hands to reach it with
    /// the hands `apart` (right − left) about it: shorter arms hold a clap nearer the chest
    /// rather than each hand stopping short on its own.
    fn within_reach(&self, mid: Vec3, apart: Vec3, at: &impl Fn(usize) -> Vec3) -> Vec3 {
        let [left, right] = &self.arms;
        let (ls, rs) = (at(left.joints[0]), at(right.joints[0]));
        let fits = |m: Vec3| {
            ls.distance(m - apart / 2.0) <= left.reach() * 0.995
                && rs.distance(m + apart / 2.0) <= right.reach() * 0.995
        };
        let shoulders = (ls + rs) / 2.0;
        if fits(mid) || !fits(shoulders) {
            return mid;
        }
        // Bisect along mid → shoulders for the nearest point that fits.
        let (mut lo, mut hi) = (0.0f32, 1.0f32);
        for _ in 0..20 {
            let t = (lo + hi) / 2.0;
            if fits(mid.lerp(shoulders, t)) {
                hi = t;
            } else {
                lo = t;
            }
        }
        mid.lerp(shoulders, hi)
    }
}

/// Per touch of `contacts`, its eased weights over `frames` frames.
fn weighted(contacts: &[HandContact], frames: usize, blend: usize) -> Vec<Weighted> {
    let mut touches: Vec<Touch> = Vec::new();
    for c in contacts {
        if !touches.contains(&c.touch) {
            touches.push(c.touch);
        }
    }
    (touches.into_iter())
        .map(|touch| {
            let of: Vec<&HandContact> = contacts.iter().filter(|c| c.touch == touch).collect();
            Weighted {
                touch,
                weights: hand_weights(&of, frames, blend),
            }
        })
        .collect()
}
