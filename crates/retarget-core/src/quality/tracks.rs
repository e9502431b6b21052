//! Every measure's per-frame detail, computed once: the report's figures are summaries of it,
//! and the strip under the timeline is drawn from it.

use super::QualityError;
use super::body::{BoneTrack, bone_tracks};
use super::contacts::{Contact, MIN_RUN, planted_frames, runs};
use super::direction::direction_tracks;
use super::feet::{GroundSamples, SkateSamples, ground_samples, skate_samples};
use super::motion::{Motion, Spec};
use super::pelvis::pelvis_tracks;
use super::report::{FrameRow, Measure};
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
    /// the contact, over all its frames). Returns one row per measure judged here (clamped
    /// to 0..1), the worst of them per frame, and the frames above 1. A frame can break a
    /// limit that the clip's mean keeps: that is where to look.
    pub fn strip(&self, limits: &Thresholds, frames: usize) -> Strip {
        let mut rows: Vec<(Measure, Vec<f64>)> = Vec::new();
        fn row(
            rows: &mut Vec<(Measure, Vec<f64>)>,
            measure: Measure,
            frames: usize,
        ) -> &mut Vec<f64> {
            rows.push((measure, vec![0.0; frames]));
            &mut rows.last_mut().expect("just pushed").1
        }
        let bump = |row: &mut Vec<f64>, i: usize, measured: f64, limit: f64| {
            if let Some(w) = row.get_mut(i) {
                *w = w.max(Thresholds::severity(measured, limit));
            }
        };
        if !self.same_rig.is_empty() && self.same_rig.iter().any(|e| !e.is_empty()) {
            let r = row(&mut rows, Measure::SameRig, frames);
            for (i, errors) in self.same_rig.iter().enumerate() {
                let worst = errors.iter().copied().fold(0.0, f64::max);
                bump(r, i, worst, limits.same_rig);
            }
        }
        if !self.direction.is_empty() {
            let r = row(&mut rows, Measure::Direction, frames);
            let segments = self.direction.len() as f64;
            for i in 0..frames.min(self.direction[0].len()) {
                let mean = self.direction.iter().map(|s| s[i]).sum::<f64>() / segments;
                bump(r, i, mean, limits.direction_deg);
            }
        }
        let r = row(&mut rows, Measure::Body, frames);
        for (i, c) in self.bones.iter().flat_map(|b| b.changes.iter().enumerate()) {
            bump(r, i, *c, limits.body);
        }
        let r = row(&mut rows, Measure::Pelvis, frames);
        let pelvis = self.pelvis_source.iter().zip(&self.pelvis_target);
        for (i, (s, t)) in pelvis.enumerate() {
            bump(r, i, (t - s).abs(), limits.pelvis);
        }
        if self.runs.iter().any(|r| !r.is_empty()) || self.planted.iter().any(|p| !p.is_empty()) {
            let r = row(&mut rows, Measure::Ground, frames);
            let ground = self
                .ground_source
                .iter()
                .flatten()
                .zip(self.ground_target.iter().flatten());
            for (&(i, s), &(_, t)) in ground {
                bump(r, i, (t - s).abs(), limits.ground_mm);
            }
            let r = row(&mut rows, Measure::Skate, frames);
            let skate = self
                .skate_source
                .iter()
                .flatten()
                .zip(self.skate_target.iter().flatten());
            for (&(c, s), &(_, t)) in skate {
                (c.start_frame..=c.end_frame).for_each(|i| bump(r, i, t - s, limits.skate_mm));
            }
        }
        let worst: Vec<f64> = (0..frames)
            .map(|i| rows.iter().map(|(_, r)| r[i]).fold(0.0, f64::max))
            .collect();
        let clamp = |w: &f64| w.clamp(0.0, 1.0) as f32;
        Strip {
            badness: worst.iter().map(clamp).collect(),
            bad_frames: (0..frames).filter(|&i| worst[i] > 1.0).collect(),
            rows: rows
                .into_iter()
                .map(|(measure, r)| FrameRow {
                    measure,
                    badness: r.iter().map(clamp).collect(),
                })
                .collect(),
        }
    }
}

/// The per-frame detail the strip under the timeline draws.
pub(super) struct Strip {
    pub badness: Vec<f32>,
    pub bad_frames: Vec<usize>,
    pub rows: Vec<FrameRow>,
}
