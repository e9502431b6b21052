//! Same rig: when both sides are one character, the retarget should give back the source's
//! joint positions; any difference is the retargeter's own error.

use super::QualityError;
use super::motion::Motion;
use super::same_frames;
use serde::Serialize;

/// Joint position error in source heights (frame 0).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SameRigFigures {
    pub mean: f64,
    pub max: f64,
    /// The source joint and frame of the largest error.
    pub joint: String,
    pub frame: usize,
}

/// `|A[a] − B[b]| / height(A)`, `[frame][pair]`.
pub(super) fn same_rig_errors(a: &Motion, b: &Motion, pairs: &[(usize, usize)]) -> Vec<Vec<f64>> {
    let height = a.height(0);
    let frame = |i: usize| {
        let error = |&(ja, jb): &(usize, usize)| a.at(i, ja).distance(b.at(i, jb)) / height;
        pairs.iter().map(error).collect()
    };
    (0..a.frames()).map(frame).collect()
}

/// The summary; `None` when there is nothing to compare.
pub(super) fn same_rig_figures(
    a: &Motion,
    pairs: &[(usize, usize)],
    errors: &[Vec<f64>],
) -> Option<SameRigFigures> {
    let count: usize = errors.iter().map(Vec::len).sum();
    if count == 0 {
        return None;
    }
    let mut worst = (0.0, 0, 0);
    for (i, frame) in errors.iter().enumerate() {
        for (k, &e) in frame.iter().enumerate() {
            if e > worst.0 {
                worst = (e, i, k);
            }
        }
    }
    Some(SameRigFigures {
        mean: errors.iter().flatten().sum::<f64>() / count as f64,
        max: worst.0,
        joint: a.names[pairs[worst.2].0].clone(),
        frame: worst.1,
    })
}

/// Position error of `b` against `a` over the joint pairs `(A joint, B joint)`.
pub fn same_rig(
    a: &Motion,
    b: &Motion,
    pairs: &[(usize, usize)],
) -> Result<Option<SameRigFigures>, QualityError> {
    same_frames(a, b)?;
    Ok(same_rig_figures(a, pairs, &same_rig_errors(a, b, pairs)))
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{R_HAND, Walk, edited};
    use super::*;
    use glam::Vec3;

    #[test]
    fn one_hand_1_cm_off_on_one_frame() {
        let a = Walk::default().motion();
        let b = edited(&a, |i, j, p| {
            if i == 7 && j == R_HAND {
                p + Vec3::X * 0.01
            } else {
                p
            }
        });
        let pairs: Vec<(usize, usize)> = (0..a.joints()).map(|j| (j, j)).collect();
        let got = same_rig(&a, &b, &pairs).unwrap().unwrap();
        assert!((got.max - 0.01 / 1.75).abs() < 1e-6, "{}", got.max);
        assert!(
            (got.mean - 0.01 / 1.75 / (48.0 * 15.0)).abs() < 1e-8,
            "{}",
            got.mean
        );
        assert_eq!((got.joint.as_str(), got.frame), ("hand.R", 7));
        assert_eq!(same_rig(&a, &b, &[]), Ok(None));
    }
}
