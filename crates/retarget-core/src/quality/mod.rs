//! The animator's quality measures of a retarget: is the target on the floor, in one piece,
//! and moving like the source? Computed from world joint positions per frame, by exactly the
//! rules of the independent judge, so that our figures and its figures on the same pair can
//! be compared.
//!
//! Three motions go in: the source clip (A), the retarget output (B, the same frames as A) and
//! the target's own reference (T: its rest pose or its own clip, possibly a single frame).
//! `evaluate` gives a `Report`: every measure's figures, the source's own where the judge
//! compares against it, per-bone and per-frame detail, and flags for broken thresholds.
//!
//! `evaluate` checks its inputs and returns errors. The single measures (`ground`, `skate`,
//! `pelvis`, `integrity`, `direction`, `same_rig`, `contacts`) expect checked input (see
//! `Motion::validate` and `Spec::validate`) and panic on an index out of range.

mod body;
mod contacts;
mod direction;
mod evaluate;
mod feet;
mod fingers;
mod grip;
mod motion;
mod pelvis;
mod penetration;
mod report;
mod same_rig;
mod text;
mod thresholds;
mod tracks;

#[cfg(test)]
mod testkit;

pub use body::{BodyFigures, BoneChange, RIGID, free_joints, integrity};
pub use contacts::{Contact, LOW, MIN_RUN, SLOW, contacts, planted_frames, runs};
pub use direction::{DirectionFigures, SegmentError, direction, yaw};
pub use evaluate::evaluate;
pub use feet::{FootFigure, GroundFigures, SkateFigures, ground, skate};
pub use fingers::{FingerFigures, HandSpec, fingers, judge_fingers};
pub use grip::{GripContact, GripFigures, GripPair, grip, grip_contacts};
pub use motion::{FootPair, Motion, SegmentPair, Side, Spec};
pub use pelvis::{PelvisFigures, pelvis};
pub use penetration::{PenetrationFigures, penetration};
pub use report::{Flag, FootContacts, FrameRow, Measure, Pair, Report, Verdict};
pub use same_rig::{SameRigFigures, same_rig};
pub use text::NO_PLANTED_FOOT;
pub use thresholds::Thresholds;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QualityError {
    #[error("the {0} has no frames or no joints")]
    Empty(Side),
    #[error("the {side} has {times} times for {frames} frames")]
    Times {
        side: Side,
        times: usize,
        frames: usize,
    },
    #[error("the {0} has a parent list that does not match its joints")]
    Parents(Side),
    #[error("frame {frame} of the {side} does not have one position per joint")]
    FrameWidth { side: Side, frame: usize },
    #[error("the source has {a} frames and the output {b}; they must be the same frames")]
    FrameCount { a: usize, b: usize },
    #[error("joint {index} is out of range for the {side}, which has {joints} joints")]
    JointIndex {
        side: Side,
        index: usize,
        joints: usize,
    },
    #[error("the target's reference has no joint named '{0}'")]
    MissingInReference(String),
    #[error("the pelvis needs two foot pairs (left, right); the spec has {0}")]
    NeedTwoFeet(usize),
    #[error("the {0} is flat at frame 0: all joints at one height")]
    Flat(Side),
    #[error("the {0}'s legs have no length at frame 0")]
    NoLegs(Side),
}

/// A and B must be the same frames: the measures pair frame `i` with frame `i`.
fn same_frames(a: &Motion, b: &Motion) -> Result<(), QualityError> {
    if a.frames() == b.frames() {
        Ok(())
    } else {
        Err(QualityError::FrameCount {
            a: a.frames(),
            b: b.frames(),
        })
    }
}
