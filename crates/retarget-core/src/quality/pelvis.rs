//! Pelvis height over the clip in leg lengths, target against source. It catches a floating,
//! sinking or thrown-away root even in an in-place clip, which has no contacts.

use super::QualityError;
use super::motion::{Motion, Side, Spec};
use serde::Serialize;

/// Mean pelvis height above the floor over the clip, in leg lengths.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PelvisFigures {
    pub source: f64,
    pub target: f64,
    /// `target − source`: positive when the target's pelvis rides higher.
    pub difference: f64,
    /// The target's largest |ratio| over its frames.
    pub target_max: f64,
}

/// The lowest point any of `feet` reaches over `m`: the floor the pelvis stands on.
fn floor(m: &Motion, feet: &[usize]) -> f64 {
    feet.iter()
        .map(|&f| m.min_y(f))
        .fold(f64::INFINITY, f64::min)
}

/// Per frame, (mid-hip height − `floor`) / leg length, where the leg length is the mean of
/// the straight left hip → first foot and right hip → second foot distances at frame 0.
fn ratios(
    m: &Motion,
    hips: (usize, usize),
    feet: &[usize],
    floor: f64,
    side: Side,
) -> Result<Vec<f64>, QualityError> {
    let (l, r) = hips;
    let leg = (m.at(0, l).distance(m.at(0, feet[0])) + m.at(0, r).distance(m.at(0, feet[1]))) / 2.0;
    if leg <= 0.0 {
        return Err(QualityError::NoLegs(side));
    }
    let height = |i: usize| ((m.at(i, l).y + m.at(i, r).y) / 2.0 - floor) / leg;
    Ok((0..m.frames()).map(height).collect())
}

/// The per-frame ratios of the source (floor: its own feet) and of the target (floor: the
/// feet of its own reference `t`, found by the output's joint names).
pub(super) fn pelvis_tracks(
    a: &Motion,
    b: &Motion,
    t: &Motion,
    spec: &Spec,
) -> Result<(Vec<f64>, Vec<f64>), QualityError> {
    if spec.feet.len() < 2 {
        return Err(QualityError::NeedTwoFeet(spec.feet.len()));
    }
    let feet_a: Vec<usize> = spec.feet.iter().map(|f| f.a).collect();
    let feet_b: Vec<usize> = spec.feet.iter().map(|f| f.b).collect();
    let feet_t = feet_b.iter().map(|&f| t.counterpart(b, f));
    let feet_t = feet_t.collect::<Result<Vec<usize>, QualityError>>()?;
    let source = ratios(a, spec.hips_a, &feet_a, floor(a, &feet_a), Side::Source)?;
    let target = ratios(b, spec.hips_b, &feet_b, floor(t, &feet_t), Side::Output)?;
    Ok((source, target))
}

pub(super) fn pelvis_figures(source: &[f64], target: &[f64]) -> PelvisFigures {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (source, target_max) = (
        mean(source),
        target.iter().fold(0.0, |m: f64, r| m.max(r.abs())),
    );
    let target = mean(target);
    PelvisFigures {
        source,
        target,
        difference: target - source,
        target_max,
    }
}

/// The pelvis measure of `b` (with its reference `t`) against `a`.
pub fn pelvis(
    a: &Motion,
    b: &Motion,
    t: &Motion,
    spec: &Spec,
) -> Result<PelvisFigures, QualityError> {
    let (source, target) = pelvis_tracks(a, b, t, spec)?;
    Ok(pelvis_figures(&source, &target))
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{Walk, edited, legs_at_frame_0, lifted, rest, spec};
    use super::*;

    fn close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-5, "got {got}, want {want}");
    }

    fn leg() -> f64 {
        let (l, r) = legs_at_frame_0();
        (l + r) / 2.0
    }

    #[test]
    fn a_floating_copy_rides_41_mm_of_leg_higher() {
        let a = Walk::default().motion();
        let b = lifted(&a, 0.041);
        let got = pelvis(&a, &b, &rest(&a), &spec()).unwrap();
        close(got.source, 0.82 / leg());
        close(got.target, 0.861 / leg());
        close(got.difference, 0.041 / leg());
        close(got.target_max, 0.861 / leg());
    }

    #[test]
    fn the_floor_is_the_targets_own_so_a_lifted_rest_is_not_blamed() {
        let a = Walk::default().motion();
        let b = lifted(&a, 0.041);
        close(pelvis(&a, &b, &rest(&b), &spec()).unwrap().difference, 0.0);
        // Leg lengths make the size irrelevant.
        let big = edited(&a, |_, _, p| p * 2.0);
        close(
            pelvis(&a, &big, &rest(&big), &spec()).unwrap().difference,
            0.0,
        );
    }

    #[test]
    fn an_in_place_copy_sinking_10_cm_is_caught_without_contacts() {
        let a = Walk {
            in_place: true,
            ..Walk::default()
        }
        .motion();
        let b = lifted(&a, -0.1);
        close(
            pelvis(&a, &b, &rest(&a), &spec()).unwrap().difference,
            -0.1 / leg(),
        );
    }

    #[test]
    fn one_foot_is_not_enough() {
        let a = Walk::default().motion();
        let mut one = spec();
        one.feet.pop();
        assert_eq!(pelvis(&a, &a, &a, &one), Err(QualityError::NeedTwoFeet(1)));
    }
}
