//! The measures' input: world joint positions per frame, as the checker's pose dumps hold
//! them, and the spec that pairs joints across the two characters. Working on positions, not
//! on the retargeter's own poses, is what lets our figures be compared with `judge.py`'s.

use super::QualityError;
use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which of the three motions an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// A: the source clip.
    Source,
    /// B: the retarget output.
    Output,
    /// T: the target's own reference (rest pose or own clip).
    Reference,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Source => "source (A)",
            Side::Output => "output (B)",
            Side::Reference => "target's reference (T)",
        })
    }
}

/// World joint positions per frame: metres, Y up, +Z forward (glTF), like a pose dump.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Motion {
    /// Seconds, one per frame.
    pub times: Vec<f32>,
    pub names: Vec<String>,
    /// Parent per joint; `None` at the top of the hierarchy.
    pub parents: Vec<Option<usize>>,
    /// `[frame][joint]`.
    pub positions: Vec<Vec<Vec3>>,
}

impl Motion {
    pub fn frames(&self) -> usize {
        self.positions.len()
    }

    pub fn joints(&self) -> usize {
        self.names.len()
    }

    /// The joint called `name`, if any.
    pub fn joint(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// One joint's position at one frame, in f64: the sums run over thousands of samples and
    /// the judge computes in double precision.
    pub fn at(&self, frame: usize, joint: usize) -> DVec3 {
        self.positions[frame][joint].as_dvec3()
    }

    /// The figure's height at `frame`: highest minus lowest joint. The judge scales every
    /// figure by the height at frame 0, so characters of any size compare.
    pub fn height(&self, frame: usize) -> f64 {
        let ys = self.positions[frame].iter().map(|p| f64::from(p.y));
        let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
        hi - lo
    }

    /// One joint's path over the clip.
    pub fn track(&self, joint: usize) -> impl Iterator<Item = Vec3> + '_ {
        self.positions.iter().map(move |frame| frame[joint])
    }

    /// The lowest height one joint reaches over the clip.
    pub fn min_y(&self, joint: usize) -> f64 {
        self.track(joint)
            .map(|p| f64::from(p.y))
            .fold(f64::INFINITY, f64::min)
    }

    /// Checks that the arrays agree with each other and that there is a frame to measure.
    pub fn validate(&self, side: Side) -> Result<(), QualityError> {
        let joints = self.joints();
        if self.frames() == 0 || joints == 0 {
            return Err(QualityError::Empty(side));
        }
        if self.times.len() != self.frames() {
            return Err(QualityError::Times {
                side,
                times: self.times.len(),
                frames: self.frames(),
            });
        }
        if self.parents.len() != joints || self.parents.iter().flatten().any(|&p| p >= joints) {
            return Err(QualityError::Parents(side));
        }
        if let Some(frame) = self.positions.iter().position(|f| f.len() != joints) {
            return Err(QualityError::FrameWidth { side, frame });
        }
        Ok(())
    }

    /// The index in `self` of joint `joint` of `other`, by name: the output and the target's
    /// reference are one character, but their dumps need not list the joints in one order.
    pub(super) fn counterpart(&self, other: &Motion, joint: usize) -> Result<usize, QualityError> {
        let name = &other.names[joint];
        if self.names.get(joint) == Some(name) {
            return Ok(joint);
        }
        self.joint(name)
            .ok_or_else(|| QualityError::MissingInReference(name.clone()))
    }
}

/// A foot on each side: `a` in the source, `b` in the output (and, by name, in the reference).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FootPair {
    pub a: usize,
    pub b: usize,
}

/// A limb segment on each side, from joint `.0` to joint `.1`; `name` is for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentPair {
    pub name: String,
    pub a: (usize, usize),
    pub b: (usize, usize),
}

/// The joints the measures look at, as indices into A and B (T is found by B's names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spec {
    /// A's (left, right) upper-leg joints: the hip line gives facing and pelvis.
    pub hips_a: (usize, usize),
    pub hips_b: (usize, usize),
    /// Left foot first, then right: the pelvis pairs the first with the left hip, as the judge.
    pub feet: Vec<FootPair>,
    /// Upper arms, forearms, thighs, shins: the direction measure's segments.
    pub segments: Vec<SegmentPair>,
    /// (A joint, B joint) pairs, only when both sides are one character.
    pub same_rig: Vec<(usize, usize)>,
    /// B joints the root motion moves (a fox's hip under its armature's root): their bone
    /// to the parent may stretch, as the judge lets joints hung from the top move.
    pub free: Vec<usize>,
}

impl Spec {
    /// Checks every index against the two motions; the pelvis needs two feet.
    pub fn validate(&self, a: &Motion, b: &Motion) -> Result<(), QualityError> {
        if self.feet.len() < 2 {
            return Err(QualityError::NeedTwoFeet(self.feet.len()));
        }
        let mut on_a = vec![self.hips_a.0, self.hips_a.1];
        let mut on_b = vec![self.hips_b.0, self.hips_b.1];
        on_a.extend(self.feet.iter().map(|f| f.a));
        on_b.extend(self.feet.iter().map(|f| f.b));
        for s in &self.segments {
            on_a.extend([s.a.0, s.a.1]);
            on_b.extend([s.b.0, s.b.1]);
        }
        on_a.extend(self.same_rig.iter().map(|p| p.0));
        on_b.extend(self.same_rig.iter().map(|p| p.1));
        in_range(&on_a, a, Side::Source)?;
        in_range(&on_b, b, Side::Output)
    }
}

fn in_range(indices: &[usize], motion: &Motion, side: Side) -> Result<(), QualityError> {
    match indices.iter().find(|&&j| j >= motion.joints()) {
        Some(&index) => Err(QualityError::JointIndex {
            side,
            index,
            joints: motion.joints(),
        }),
        None => Ok(()),
    }
}

/// Distance on the ground (xz) plane: skating and foot speed ignore height.
pub(super) fn xz_distance(p: DVec3, q: DVec3) -> f64 {
    (p.x - q.x).hypot(p.z - q.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_joints() -> Motion {
        Motion {
            times: vec![0.0, 0.1],
            names: vec!["hips".into(), "head".into()],
            parents: vec![None, Some(0)],
            positions: vec![
                vec![Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 1.75, 0.0)],
                vec![Vec3::new(0.0, 0.25, 0.0), Vec3::new(3.0, 1.75, 4.0)],
            ],
        }
    }

    #[test]
    fn height_is_the_vertical_extent_at_that_frame() {
        let m = two_joints();
        assert!((m.height(0) - 0.75).abs() < 1e-6);
        assert!((m.height(1) - 1.5).abs() < 1e-6);
        assert!((m.min_y(0) - 0.25).abs() < 1e-6);
        assert_eq!(m.track(1).last(), Some(Vec3::new(3.0, 1.75, 4.0)));
        assert!((xz_distance(m.at(0, 1), m.at(1, 1)) - 5.0).abs() < 1e-9);
    }

    #[test]
    fn validation_names_the_broken_array() {
        let mut m = two_joints();
        assert_eq!(m.validate(Side::Source), Ok(()));
        m.positions[1].pop();
        assert_eq!(
            m.validate(Side::Output),
            Err(QualityError::FrameWidth {
                side: Side::Output,
                frame: 1
            })
        );
        m.positions.clear();
        assert_eq!(
            m.validate(Side::Reference),
            Err(QualityError::Empty(Side::Reference))
        );
    }

    #[test]
    fn counterparts_are_found_by_name_in_any_order() {
        let b = two_joints();
        let mut t = two_joints();
        t.names.reverse();
        assert_eq!(t.counterpart(&b, 0), Ok(1));
        t.names[0] = "neck".into();
        assert_eq!(
            t.counterpart(&b, 1),
            Err(QualityError::MissingInReference("head".into()))
        );
    }
}
