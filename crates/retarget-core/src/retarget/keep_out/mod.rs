//! Limbs kept out of the body: after the legs are planted, where the target's forearm or
//! hand goes into its torso (or a thigh into the other) deeper than the source's own did at
//! that frame, the wrist moves out along the contact's normal by two-bone IK, the hand
//! keeping its world rotation (or the knee swings out about the hip–ankle line, the foot
//! staying where it is planted), eased over the neighbouring frames so nothing pops.

mod limbs;
mod smooth;

use super::Retargeter;
use crate::body::{BodyCapsules, PAIRS};
use crate::humanoid::HumanBone;
use crate::pose::Pose;
use crate::sampler::TrackReader;
use crate::skeleton::Skeleton;
use glam::{Mat4, Vec3};
use limbs::Limb;

/// Each figure's capsules in the retarget's world, and the limbs the push moves.
#[derive(Clone, Debug)]
pub(super) struct KeepOut {
    source: BodyCapsules,
    target: BodyCapsules,
    /// Each pair's depth in the figure's bind pose (where its skin does not cut itself).
    source_base: [Option<f32>; PAIRS.len()],
    target_base: [Option<f32>; PAIRS.len()],
    /// Left and right arm (upper arm, forearm, hand) and leg (thigh, shin, foot).
    arms: [Option<Limb>; 2],
    legs: [Option<Limb>; 2],
}

/// How much deeper than the source's own a limb is left, as a share of the height (5 mm
/// at 1.75 m, half the measure's limit): skin gives that much, and each millimetre pushed
/// turns the arm away from the source's direction.
const SLACK: f32 = 5.0 / 1750.0;
/// Passes over the clip: each pushes what the one before left inside.
const PASSES: usize = 12;

/// Each pair's depth at `positions`, over the bind pose's overlap (0 where apart).
fn overs(
    body: &BodyCapsules,
    base: &[Option<f32>; PAIRS.len()],
    positions: &[Vec3],
) -> [Option<(f32, crate::body::Contact)>; PAIRS.len()] {
    let mut k = 0;
    PAIRS.map(|(limb, other)| {
        let b = base[k].unwrap_or(0.0).max(0.0);
        k += 1;
        body.deepest(limb, other, positions, 1.0)
            .map(|(c, _, _)| ((c.depth - b).max(0.0), c))
    })
}

fn bind_positions(skeleton: &Skeleton, container: Mat4) -> Vec<Vec3> {
    let mut world = vec![Mat4::IDENTITY; skeleton.len()];
    Pose::bind(skeleton).world_matrices_under(skeleton, container, &mut world);
    world.iter().map(|m| m.w_axis.truncate()).collect()
}

impl Retargeter {
    /// The body capsules of both figures (in the worlds of their reference poses'
    /// containers) and the target's humanoid labels, for the keep-out pass
    /// (`SolveSettings::keep_out`). Capsules of other joint counts are ignored.
    pub fn set_body(
        &mut self,
        (source, source_body): (&Skeleton, BodyCapsules),
        (target, target_body): (&Skeleton, BodyCapsules),
        target_labels: &[Option<HumanBone>],
    ) {
        let fits = source.len() == self.source_len()
            && target.len() == self.target_len()
            && source_body.len() == source.len()
            && target_body.len() == target.len()
            && target_labels.len() == target.len();
        if !fits || target_body.is_empty() {
            self.plan_mut().keep_out = None;
            return;
        }
        let sb = bind_positions(source, Mat4::from(self.plan.source_container));
        let tb = bind_positions(target, Mat4::from(self.plan.target_container));
        let base = |body: &BodyCapsules, at: &[Vec3]| {
            PAIRS.map(|(l, o)| body.deepest(l, o, at, 1.0).map(|(c, _, _)| c.depth))
        };
        use HumanBone::*;
        let limb = |a, b, c| Limb::find(target.parents(), target_labels, [a, b, c]);
        let keep = KeepOut {
            source_base: base(&source_body, &sb),
            target_base: base(&target_body, &tb),
            source: source_body,
            target: target_body,
            arms: [
                limb(LeftUpperArm, LeftLowerArm, LeftHand),
                limb(RightUpperArm, RightLowerArm, RightHand),
            ],
            legs: [
                limb(LeftUpperLeg, LeftLowerLeg, LeftFoot),
                limb(RightUpperLeg, RightLowerLeg, RightFoot),
            ],
        };
        self.plan_mut().keep_out = Some(keep);
    }

    /// Whether the keep-out pass runs on a clip (on, capsules given, two bodies).
    pub(super) fn keeps_out(&self) -> bool {
        self.plan.solve.keep_out && self.plan.keep_out.is_some() && !self.plan.same_rig
    }

    /// Per frame, how much the two hands hold each other (0 to 1, eased in and out like a
    /// plant) in `contacts`: the keep-out pass moves such hands out together.
    pub(super) fn joined_hands(
        &self,
        contacts: &[crate::contacts::HandContact],
        frames: usize,
        times: &[f32],
    ) -> Vec<f32> {
        let together: Vec<_> = contacts.iter().filter(|c| c.touch.both_hands()).collect();
        if together.is_empty() {
            return Vec::new();
        }
        crate::contacts::hand_weights(&together, frames, self.blend_frames(times))
    }

    /// The keep-out pass over the solved `poses` of `clip` (at `times`); `joined`: per frame,
    /// how much the hands hold each other (`joined_hands`; empty: never).
    pub(super) fn keep_out(
        &self,
        source: &Skeleton,
        reader: &TrackReader,
        target: &Skeleton,
        poses: &mut [Pose],
        times: &[f32],
        joined: &[f32],
    ) {
        let Some(keep) = self.plan.keep_out.as_ref().filter(|_| self.keeps_out()) else {
            return;
        };
        // The source's own depth per frame and pair, in target units.
        let ratio = keep.target.height / keep.source.height.max(1e-9);
        let mut source_pose = Pose::rest(source);
        let mut cursor = reader.cursor();
        let mut world = vec![Mat4::IDENTITY; source.len()];
        let mut at = vec![Vec3::ZERO; source.len()];
        let container = Mat4::from(self.plan.source_container);
        let allowed: Vec<[f32; PAIRS.len()]> = times
            .iter()
            .map(|&t| {
                reader.sample(t, &mut cursor, &mut source_pose);
                source_pose.world_matrices_under(source, container, &mut world);
                for (p, m) in at.iter_mut().zip(&world) {
                    *p = m.w_axis.truncate();
                }
                overs(&keep.source, &keep.source_base, &at).map(|o| o.map_or(0.0, |o| o.0) * ratio)
            })
            .collect();
        let window = (self.blend_frames(times) / 2).max(1);
        let slack = SLACK * keep.target.height;
        for _ in 0..PASSES {
            let mut pushes = keep.pushes(self, target, poses, &allowed, slack);
            if pushes.iter().all(|p| p.iter().all(|v| *v == Vec3::ZERO)) {
                break;
            }
            join_hands(&mut pushes, joined);
            let pushes = pushes.map(|p| smooth::eased(&p, window));
            keep.apply(self, target, poses, &pushes);
        }
    }
}

/// Where the hands hold each other (`joined`, per frame), both arms take the longer of
/// their two pushes, so the hands leave the body together and keep their grip.
fn join_hands(pushes: &mut [Vec<Vec3>; 4], joined: &[f32]) {
    let [left, right, ..] = pushes;
    for ((l, r), &w) in left.iter_mut().zip(right.iter_mut()).zip(joined) {
        if w <= 0.0 {
            continue;
        }
        let shared = if l.length_squared() >= r.length_squared() {
            *l
        } else {
            *r
        };
        *l = l.lerp(shared, w);
        *r = r.lerp(shared, w);
    }
}

impl KeepOut {
    /// Per limb (left arm, right arm, left leg, right leg) and frame, how far and which way
    /// it must move to be no deeper than `allowed` (plus `slack`).
    fn pushes(
        &self,
        solver: &Retargeter,
        target: &Skeleton,
        poses: &[Pose],
        allowed: &[[f32; PAIRS.len()]],
        slack: f32,
    ) -> [Vec<Vec3>; 4] {
        let container = Mat4::from(solver.plan.target_container);
        let mut world = vec![Mat4::IDENTITY; target.len()];
        let mut at = vec![Vec3::ZERO; target.len()];
        let mut out: [Vec<Vec3>; 4] = std::array::from_fn(|_| vec![Vec3::ZERO; poses.len()]);
        for (f, pose) in poses.iter().enumerate() {
            pose.world_matrices_under(target, container, &mut world);
            for (p, m) in at.iter_mut().zip(&world) {
                *p = m.w_axis.truncate();
            }
            for (k, o) in overs(&self.target, &self.target_base, &at)
                .iter()
                .enumerate()
            {
                let Some((over, c)) = o else { continue };
                let need = over - allowed[f][k] - slack;
                if need <= 0.0 {
                    continue;
                }
                let push = c.normal * need;
                // Pairs 0, 1: the left arm; 2, 3: the right (the wrist moved so that the
                // arm turned at the shoulder takes the contact out); 4: the thighs, half each.
                let wrist = |arm: &Option<Limb>| {
                    arm.as_ref()
                        .map_or(Vec3::ZERO, |a| a.end_push(&world, c.at, push))
                };
                let limbs: &[(usize, Vec3)] = match k {
                    0 | 1 => &[(0, wrist(&self.arms[0]))],
                    2 | 3 => &[(1, wrist(&self.arms[1]))],
                    _ => &[(2, push * 0.5), (3, -push * 0.5)],
                };
                for &(l, v) in limbs {
                    if v.length_squared() > out[l][f].length_squared() {
                        out[l][f] = v;
                    }
                }
            }
        }
        out
    }

    /// Moves each limb of each frame by its push.
    fn apply(
        &self,
        solver: &Retargeter,
        target: &Skeleton,
        poses: &mut [Pose],
        pushes: &[Vec<Vec3>; 4],
    ) {
        let container = Mat4::from(solver.plan.target_container);
        let mut world = vec![Mat4::IDENTITY; target.len()];
        let height = self.target.height;
        for (f, pose) in poses.iter_mut().enumerate() {
            if pushes.iter().all(|p| p[f] == Vec3::ZERO) {
                continue;
            }
            pose.world_matrices_under(target, container, &mut world);
            for (side, arm) in self.arms.iter().enumerate() {
                if let Some(arm) = arm.as_ref().filter(|_| pushes[side][f] != Vec3::ZERO) {
                    arm.move_end(pose, &world, pushes[side][f]);
                }
            }
            for (side, leg) in self.legs.iter().enumerate() {
                if let Some(leg) = leg.as_ref().filter(|_| pushes[2 + side][f] != Vec3::ZERO) {
                    leg.swing_middle(pose, &world, pushes[2 + side][f], height);
                }
            }
        }
    }
}
