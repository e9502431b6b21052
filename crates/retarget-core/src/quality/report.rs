//! The report: every measure's figures, judged against the thresholds, with per-bone and
//! per-frame detail and flags, worst first. Serializable, so the CLI can print it as JSON.

use super::body::BodyFigures;
use super::contacts::Contact;
use super::direction::DirectionFigures;
use super::feet::{GroundFigures, SkateFigures};
use super::pelvis::PelvisFigures;
use super::same_rig::SameRigFigures;
use super::thresholds::Thresholds;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    SameRig,
    Direction,
    Body,
    Pelvis,
    Ground,
    Skate,
    /// A chain in absolute mode short of its source's end (per frame only, not judged).
    Reach,
    /// The source's hand contacts kept (judged only when the source has one).
    Grip,
    /// Finger directions in the hand's frame (judged when both sides have hands with fingers).
    Fingers,
    /// Forearms and hands into the torso, a thigh into the other (`quality::penetration`).
    Penetration,
}

impl Measure {
    pub fn label(self) -> &'static str {
        match self {
            Measure::SameRig => "same rig",
            Measure::Direction => "direction",
            Measure::Body => "body",
            Measure::Pelvis => "pelvis",
            Measure::Ground => "ground",
            Measure::Skate => "skate",
            Measure::Reach => "reach",
            Measure::Grip => "grip",
            Measure::Fingers => "fingers",
            Measure::Penetration => "penetration",
        }
    }
}

/// The source's own figure beside the target's: ground and skate are judged against the
/// source's own, which is not zero (the ankle rolls, mocap feet drift).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair<T> {
    pub source: T,
    pub target: T,
}

/// One measure against its limit. `value` is the judged figure (signed for pelvis and ground,
/// whose limits hold both ways); `severity` its share of the limit, above 1 failing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub measure: Measure,
    pub value: f64,
    pub limit: f64,
    pub severity: f64,
    pub passed: bool,
}

/// A broken threshold, in words an animator reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flag {
    pub measure: Measure,
    pub severity: f64,
    pub message: String,
}

/// One source foot's planted frames and its contacts (runs of `MIN_RUN` frames or more).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FootContacts {
    pub foot: String,
    pub planted: Vec<usize>,
    pub contacts: Vec<Contact>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Every judged measure keeps its limit (the same as `passed()`).
    pub passed: bool,
    pub frames: usize,
    pub thresholds: Thresholds,
    /// `None` unless the spec pairs joints of one character.
    pub same_rig: Option<SameRigFigures>,
    /// `None` when the spec names no segment.
    pub direction: Option<DirectionFigures>,
    pub body: BodyFigures,
    pub pelvis: PelvisFigures,
    /// `None`: the source has no planted frame; not judged.
    pub ground: Option<Pair<GroundFigures>>,
    /// `None`: the source has no contact; not judged.
    pub skate: Option<Pair<SkateFigures>>,
    pub contacts: Vec<FootContacts>,
    /// `None`: the source has no hand contact; not judged.
    pub grip: Option<super::grip::GripFigures>,
    /// `None` unless both sides have hands with paired finger segments.
    pub fingers: Option<super::fingers::FingerFigures>,
    /// `None` until the body's capsules are given (`add_penetration`).
    pub penetration: Option<Pair<super::penetration::PenetrationFigures>>,
    /// The judged measures, in a fixed order.
    pub verdicts: Vec<Verdict>,
    /// Per frame, 0 (fine) to 1 (breaks a limit there), for the strip under the timeline.
    pub frame_badness: Vec<f32>,
    /// The same per measure: what breaks where (skate, ground, reach...).
    pub frame_rows: Vec<FrameRow>,
    pub bad_frames: Vec<usize>,
    /// The failing verdicts, worst first.
    pub flags: Vec<Flag>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.passed
    }

    /// The per-frame row of `measure`, if it was measured.
    pub fn frame_row(&self, measure: Measure) -> Option<&[f32]> {
        let row = self.frame_rows.iter().find(|r| r.measure == measure);
        row.map(|r| r.badness.as_slice())
    }

    /// Sets `measure`'s verdict (`value` against `limit`, larger is worse) in place of any it
    /// had (where it stood among the verdicts), with a flag in `message`'s words when it
    /// fails; `passed` follows every verdict. Returns its severity.
    pub fn set_verdict(
        &mut self,
        measure: Measure,
        value: f64,
        limit: f64,
        message: impl FnOnce() -> String,
    ) -> f64 {
        let severity = Thresholds::severity(value, limit);
        let verdict = Verdict {
            measure,
            value,
            limit,
            severity,
            passed: severity <= 1.0,
        };
        match self.verdicts.iter_mut().find(|v| v.measure == measure) {
            Some(v) => *v = verdict,
            None => self.verdicts.push(verdict),
        }
        self.flags.retain(|f| f.measure != measure);
        if severity > 1.0 {
            self.flags.push(Flag {
                measure,
                severity,
                message: message(),
            });
            self.flags.sort_by(|x, y| y.severity.total_cmp(&x.severity));
        }
        self.passed = self.verdicts.iter().all(|v| v.passed);
        severity
    }

    /// Adds a measure's per-frame row (a share of its limit per frame; above 1 breaks it),
    /// folding it into the worst per frame.
    pub fn add_frame_row(&mut self, measure: Measure, severity: &[f64]) {
        let clamp = |w: f64| {
            if w.is_finite() {
                w.clamp(0.0, 1.0) as f32
            } else {
                1.0
            }
        };
        for (i, &w) in severity.iter().enumerate().take(self.frame_badness.len()) {
            self.frame_badness[i] = self.frame_badness[i].max(clamp(w));
            if w > 1.0 && !self.bad_frames.contains(&i) {
                self.bad_frames.push(i);
            }
        }
        self.bad_frames.sort_unstable();
        self.frame_rows.retain(|r| r.measure != measure);
        self.frame_rows.push(FrameRow {
            measure,
            badness: severity.iter().map(|&w| clamp(w)).collect(),
        });
    }
}

/// One measure's share of its limit per frame, 0 (fine) to 1 (broken there).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameRow {
    pub measure: Measure,
    pub badness: Vec<f32>,
}
