//! Per-leg solve options, kept by joint name in the project so they survive a re-map:
//! which way the knee bends (the pole), the leg's own contact thresholds, and contacts the
//! user drew by hand on one clip in place of the detected ones.

use crate::contacts::{ContactThresholds, FootContact};
use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Which way a leg's IK bends its knee.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Pole {
    /// In the plane the frame-by-frame solve left it in (the source's bend): no flips.
    #[default]
    Solved,
    /// Toward a target joint, e.g. the rig's own knee-pole helper.
    Joint(String),
    /// Along a direction in the pelvis's frame (e.g. forward for knees, back for hocks).
    Direction(Vec3),
}

/// The pole with its joint found: what the solver uses.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum PoleAt {
    #[default]
    Solved,
    Joint(usize),
    /// A direction in the pelvis's frame.
    Direction(Vec3),
}

/// One target leg's options, by its foot joint's name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LegOptions {
    pub foot: String,
    pub pole: Pole,
    /// Contact thresholds for this leg alone (`None`: the clip's).
    pub contacts: Option<ContactThresholds>,
}

impl LegOptions {
    pub fn new(foot: impl Into<String>) -> Self {
        Self {
            foot: foot.into(),
            ..Self::default()
        }
    }

    /// Options that change nothing need not be kept.
    pub fn is_default(&self) -> bool {
        self.pole == Pole::Solved && self.contacts.is_none()
    }
}

/// Contacts drawn by hand for one foot on one clip, in that clip's seconds, in place of the
/// detected ones (an empty list: the foot is never planted on that clip).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ContactSpans {
    pub clip: String,
    pub foot: String,
    /// `(start, end)` seconds, each a contact.
    pub spans: Vec<(f32, f32)>,
}

/// Spans in seconds as contacts over output frames at `times`: each covers the frames whose
/// time falls inside it (half a frame of slack at both ends, so a span drawn on frames
/// comes back as those frames). Spans with no frame inside, or not finite, are dropped; the
/// rest are sorted and overlapping ones merged.
pub fn spans_to_contacts(spans: &[(f32, f32)], times: &[f32]) -> Vec<FootContact> {
    let n = times.len();
    if n == 0 {
        return Vec::new();
    }
    let step = if n > 1 {
        (times[n - 1] - times[0]) / (n - 1) as f32
    } else {
        0.0
    };
    let slack = step * 0.5;
    let out: Vec<FootContact> = spans
        .iter()
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .filter_map(|&(a, b)| {
            let (a, b) = (a.min(b) - slack, a.max(b) + slack);
            let start = times.partition_point(|&t| t < a);
            let end = times.partition_point(|&t| t <= b).checked_sub(1)?;
            (start <= end && start < n).then_some(FootContact { start, end })
        })
        .collect();
    merged(out)
}

/// Contacts sorted, with overlapping or touching ones joined.
pub fn merged(mut contacts: Vec<FootContact>) -> Vec<FootContact> {
    contacts.sort_by_key(|c| c.start);
    let mut out: Vec<FootContact> = Vec::with_capacity(contacts.len());
    for c in contacts {
        match out.last_mut() {
            Some(last) if c.start <= last.end + 1 => last.end = last.end.max(c.end),
            _ => out.push(c),
        }
    }
    out
}

/// Contacts over frames at `times` as spans in seconds (the inverse of `spans_to_contacts`).
pub fn contacts_to_spans(contacts: &[FootContact], times: &[f32]) -> Vec<(f32, f32)> {
    let at = |k: usize| times[k.min(times.len().saturating_sub(1))];
    if times.is_empty() {
        return Vec::new();
    }
    contacts.iter().map(|c| (at(c.start), at(c.end))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(n: usize, fps: f32) -> Vec<f32> {
        (0..n).map(|k| 1.0 + k as f32 / fps).collect()
    }

    #[test]
    fn spans_and_frames_round_trip() {
        let t = times(61, 30.0);
        let contacts = vec![
            FootContact { start: 0, end: 5 },
            FootContact { start: 20, end: 33 },
            FootContact { start: 60, end: 60 },
        ];
        let spans = contacts_to_spans(&contacts, &t);
        assert_eq!(spans_to_contacts(&spans, &t), contacts);
    }

    #[test]
    fn spans_follow_their_seconds_at_another_frame_rate() {
        // Drawn at 30 fps, read at 60: the same seconds, twice the frames.
        let spans = contacts_to_spans(&[FootContact { start: 10, end: 20 }], &times(61, 30.0));
        let at60 = spans_to_contacts(&spans, &times(121, 60.0));
        assert_eq!(at60, vec![FootContact { start: 20, end: 40 }]);
    }

    #[test]
    fn overlaps_merge_and_bad_spans_drop() {
        let t = times(31, 30.0);
        let spans = [
            (1.5, 1.2),
            (1.1, 1.3),
            (f32::NAN, 1.0),
            (5.0, 6.0),
            (0.0, 0.5),
        ];
        let c = spans_to_contacts(&spans, &t);
        assert_eq!(c, vec![FootContact { start: 3, end: 15 }]);
    }
}
