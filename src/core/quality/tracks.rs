//! Every measure's per-frame detail, computed once: the report's figures are summaries of it,
//! and the strip under the timeline is drawn from it.

use super::QualityError;
use super::body::{BoneTrack, bone_tracks};
use super::contacts::{Contact, MIN_RUN, planted_frames, runs};
use super::direction::direction_tracks;
use super::feet::{GroundSamples, SkateSamples, ground_samples, skate_samples};
use super::motion::{Motion, Spec};
use super::pelvis::pelvis_tracks;
use super::same_rig::same_rig_errors;
use super::thresholds::Thresholds;

pub(super) struct Tracks {
    /// `[frame][pair]`, source heights.
    pub same_rig: Vec<Vec<f64>>,
    /// The yaw removed (radians) and `[segment][frame]` degrees.
    pub dyaw: f64,
    pub direction: Vec<Vec<f64>>,
    pub bones: Vec<BoneTrack>,
    /// Per frame, leg lengths.
    pub pelvis_source: Vec<f64>,
    pub pelvis_target: Vec<f64>,
    /// Per foot pair, from the source.
    pub planted: Vec<Vec<usize>>,
    pub runs: Vec<Vec<Contact>>,
    /// The source's own (B = T = A) and the target's, over the same frames and contacts.
    pub ground_source: GroundSamples,
    pub ground_target: GroundSamples,
    pub skate_source: SkateSamples,
    pub skate_target: SkateSamples,
}

impl Tracks {
    /// Measures everything; the inputs are already validated.
    pub fn measure(a: &Motion, b: &Motion, t: &Motion, spec: &Spec) -> Result<Self, QualityError> {
        let (dyaw, direction) = direction_tracks(a, b, spec);
        let (pelvis_source, pelvis_target) = pelvis_tracks(a, b, t, spec)?;
        let planted: Vec<Vec<usize>> = spec.feet.iter().map(|f| planted_frames(a, f.a)).collect();
        let runs: Vec<Vec<Contact>> = planted.iter().map(|p| runs(p, MIN_RUN)).collect();
        let feet_a: Vec<usize> = spec.feet.iter().map(|f| f.a).collect();
        let feet_b: Vec<usize> = spec.feet.iter().map(|f| f.b).collect();
        Ok(Self {
            same_rig: same_rig_errors(a, b, &spec.same_rig),
            dyaw,
            direction,
            bones: bone_tracks(t, b, &spec.free),
            pelvis_source,
            pelvis_target,
            ground_source: ground_samples(a, a, &feet_a, &planted)?,
            ground_target: ground_samples(b, t, &feet_b, &planted)?,
            skate_source: skate_samples(a, &feet_a, &runs),
            skate_target: skate_samples(b, &feet_b, &runs),
            planted,
            runs,
        })
    }

    /// Per frame, the worst share of its limit any measure reaches there: same rig (worst
    /// joint), direction (mean over segments), body (worst bone), pelvis (|target − source|),
    /// ground (|target − source's own| per planted foot) and skate (target − source's own of
    /// the contact, over all its frames). Returns the badness clamped to 0..1 and the frames
    /// above 1. A frame can break a limit that the clip's mean keeps: that is where to look.
    pub fn strip(&self, limits: &Thresholds, frames: usize) -> (Vec<f32>, Vec<usize>) {
        let mut worst = vec![0.0f64; frames];
        let mut bump = |i: usize, measured: f64, limit: f64| {
            worst[i] = worst[i].max(Thresholds::severity(measured, limit));
        };
        for (i, errors) in self.same_rig.iter().enumerate() {
            bump(
                i,
                errors.iter().copied().fold(0.0, f64::max),
                limits.same_rig,
            );
        }
        let segments = self.direction.len() as f64;
        for i in 0..frames.min(self.direction.first().map_or(0, Vec::len)) {
            let mean = self.direction.iter().map(|s| s[i]).sum::<f64>() / segments;
            bump(i, mean, limits.direction_deg);
        }
        for (i, c) in self.bones.iter().flat_map(|b| b.changes.iter().enumerate()) {
            bump(i, *c, limits.body);
        }
        for (i, (s, t)) in self
            .pelvis_source
            .iter()
            .zip(&self.pelvis_target)
            .enumerate()
        {
            bump(i, (t - s).abs(), limits.pelvis);
        }
        let ground = self
            .ground_source
            .iter()
            .flatten()
            .zip(self.ground_target.iter().flatten());
        for (&(i, s), &(_, t)) in ground {
            bump(i, (t - s).abs(), limits.ground_mm);
        }
        let skate = self
            .skate_source
            .iter()
            .flatten()
            .zip(self.skate_target.iter().flatten());
        for (&(c, s), &(_, t)) in skate {
            (c.start_frame..=c.end_frame).for_each(|i| bump(i, t - s, limits.skate_mm));
        }
        let badness = worst.iter().map(|&w| w.clamp(0.0, 1.0) as f32).collect();
        let bad = (0..frames).filter(|&i| worst[i] > 1.0).collect();
        (badness, bad)
    }
}
