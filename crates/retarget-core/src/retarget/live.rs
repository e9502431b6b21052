//! What the runtime needs to solve one frame at a time from many threads: scratch the
//! caller owns, and the planted feet of a clip precomputed once.
//!
//! Planting needs the whole clip (a contact's plant is the solved foot averaged over the
//! contact, and the hips come down over neighbouring frames), so a player cannot find it
//! from one frame. [`Retargeter::plant_track`] runs the clip-level pass once per clip and
//! keeps, per output frame, each leg's foot goal and the pelvis drop; [`Retargeter::plant_at`]
//! then lowers the hips and solves the legs (the same IK, limits and floor) toward the goals
//! at any time, interpolated between frames. At the clip's frame times the result is
//! `retarget_clip`'s planted pose.

use super::{RetargetClipOptions, RetargetError, Retargeter};
use crate::clip::Clip;
use crate::pose::Pose;
use crate::sampler::TrackReader;
use crate::skeleton::Skeleton;
use glam::{Mat4, Quat, Vec3};

/// A thread's working memory for [`Retargeter::retarget_pose`].
#[derive(Clone, Debug, Default)]
pub struct PoseScratch {
    pub(super) source_world: Vec<Quat>,
    pub(super) target_world: Vec<Quat>,
    pub(super) source_affine: Vec<glam::Affine3A>,
    pub(super) target_affine: Vec<glam::Affine3A>,
    pub(super) target_known: Vec<bool>,
}

impl PoseScratch {
    pub fn new(retargeter: &Retargeter) -> Self {
        Self {
            source_world: vec![Quat::IDENTITY; retargeter.source_len()],
            target_world: vec![Quat::IDENTITY; retargeter.target_len()],
            source_affine: vec![glam::Affine3A::IDENTITY; retargeter.source_len()],
            target_affine: vec![glam::Affine3A::IDENTITY; retargeter.target_len()],
            target_known: vec![false; retargeter.target_len()],
        }
    }
}

/// A thread's working memory for planting one frame ([`Retargeter::plant_at`]).
#[derive(Clone, Debug, Default)]
pub struct PlantScratch {
    pub(super) world: Vec<Mat4>,
    pub(super) rotations: Vec<Quat>,
    pub(super) points: Vec<Vec3>,
}

impl PlantScratch {
    pub fn new(retargeter: &Retargeter) -> Self {
        let n = retargeter.target_len();
        let points = retargeter.plan.legs.iter().map(|l| l.reach_points()).max();
        Self {
            world: vec![Mat4::IDENTITY; n],
            rotations: vec![Quat::IDENTITY; n],
            points: vec![Vec3::ZERO; points.unwrap_or(3)],
        }
    }
}

/// One clip's planted feet, per output frame: each leg's goal and the pelvis drop.
#[derive(Clone, Debug, PartialEq)]
pub struct PlantTrack {
    start: f32,
    step: f32,
    frames: usize,
    legs: usize,
    /// Frame-major: `goals[frame * legs + leg]`.
    goals: Vec<Option<Vec3>>,
    /// Per frame; empty when the hips are not lowered.
    drops: Vec<f32>,
    hips: Option<(usize, Vec<usize>)>,
    /// The joints whose world transforms a leg's solve reads (the legs, the feet's
    /// parents, the pole joints, the pelvis) and every joint above them, parents first:
    /// planting one frame places these alone, not the whole skeleton.
    placed: Vec<usize>,
    /// Whether the retargeter has twist bones to turn again after the legs are planted.
    twists: bool,
}

impl PlantTrack {
    /// Output frames (the clip's keys at its own rate, as `retarget_clip` writes them).
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Frames where some foot has a goal.
    pub fn planted_frames(&self) -> usize {
        self.goals
            .chunks(self.legs.max(1))
            .filter(|g| g.iter().any(Option::is_some))
            .count()
    }

    pub fn heap_bytes(&self) -> usize {
        self.goals.capacity() * size_of::<Option<Vec3>>() + self.drops.capacity() * 4
    }

    /// The frame at or before `time` and the share of the way to the next (on a frame
    /// time within rounding, that frame exactly).
    fn frame_at(&self, time: f32) -> (usize, f32) {
        let last = self.frames.saturating_sub(1);
        if last == 0 || self.step <= 0.0 || !time.is_finite() {
            return (0, 0.0);
        }
        let mut x = ((time - self.start) / self.step).clamp(0.0, last as f32);
        if (x - x.round()).abs() < 1e-4 {
            x = x.round();
        }
        let f = (x as usize).min(last);
        (f, x - f as f32)
    }

    /// Leg `leg`'s goal at frame `f` and `s` of the way on: the two frames' blend when
    /// both have one, else the nearer frame's.
    fn goal(&self, f: usize, s: f32, leg: usize) -> Option<Vec3> {
        let a = self.goals[f * self.legs + leg];
        if s <= 0.0 || f + 1 >= self.frames {
            return a;
        }
        let b = self.goals[(f + 1) * self.legs + leg];
        match (a, b) {
            (Some(a), Some(b)) => Some(a.lerp(b, s)),
            _ if s < 0.5 => a,
            _ => b,
        }
    }

    fn drop(&self, f: usize, s: f32) -> f32 {
        let Some(&a) = self.drops.get(f) else {
            return 0.0;
        };
        let b = self.drops.get(f + 1).copied().unwrap_or(a);
        if s <= 0.0 { a } else { a + (b - a) * s }
    }
}

impl Retargeter {
    /// Precomputes the planted feet of `clip`, to which this retargeter is fitted
    /// ([`Self::fitted_to`], as `retarget_clip` fits its copy), at the output rate of
    /// `options`. `None` when nothing is planted: planting off in the solve settings, no
    /// legs, or one body on both sides.
    pub fn plant_track(
        &self,
        source: &Skeleton,
        clip: &Clip,
        target: &Skeleton,
        options: &RetargetClipOptions,
    ) -> Result<Option<PlantTrack>, RetargetError> {
        let (_, frames) = super::clip::output_frames(clip, options)?;
        let reader = TrackReader::new(clip);
        let times = clip.even_times(frames).collect();
        let solved = self.solve_frames(source, &reader, target, times);
        let mut report = Default::default();
        let (times, poses) = (&solved.times, &solved.poses);
        let Some(goals) = self.plant_goals(poses, times, &solved.feet, &mut report) else {
            return Ok(None);
        };
        let drops = if self.plan.solve.lower_hips {
            self.hip_drops(poses, &goals, self.blend_frames(times))
        } else {
            Vec::new()
        };
        let frames = times.len();
        let legs = goals.len();
        let mut flat = Vec::with_capacity(frames * legs);
        for f in 0..frames {
            flat.extend(goals.iter().map(|g| g[f]));
        }
        Ok(Some(PlantTrack {
            start: times[0],
            step: if frames > 1 { times[1] - times[0] } else { 0.0 },
            frames,
            legs,
            goals: flat,
            drops,
            hips: self.hips_chain(),
            placed: self.placed_for_legs(),
            twists: self.has_twists(),
        }))
    }

    /// Plants the legs of `pose` (solved by this retargeter at `time`) on `track`'s goals:
    /// the hips lowered, then each leg solved. Allocates nothing.
    pub fn plant_at(
        &self,
        target: &Skeleton,
        track: &PlantTrack,
        time: f32,
        pose: &mut Pose,
        scratch: &mut PlantScratch,
    ) {
        if track.frames == 0 || track.legs != self.plan.legs.len() {
            return;
        }
        let (f, s) = track.frame_at(time);
        if let Some(hips) = &track.hips {
            self.lower_hips_by(hips, pose, track.drop(f, s));
        }
        let goal = |leg| track.goal(f, s, leg);
        self.plant_frame(target, pose, goal, &track.placed, scratch);
        // The planted legs' twist bones follow them, as `retarget_clip`'s do.
        if track.twists {
            self.settle_pose_twists(target, pose, &mut scratch.rotations);
        }
        // The controls that carry followers go with them, as in `retarget_clip`.
        self.place_carried(pose);
    }
}
