//! The fingers measure, by the judge's `fingers` rule: each paired finger segment's
//! direction in its hand's own frame (x from the hand to the middle finger's base, z across
//! index base − outer base), target against source, in degrees, so an arm error does not
//! count against the fingers.

use super::motion::Motion;
use super::report::{Measure, Report};
use super::thresholds::Thresholds;
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// One hand on both sides, as indices into A and B: the palm frame's joints (hand, middle
/// base, index base, outer base) and the finger segments ((from, to) in A, (from, to) in B).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandSpec {
    pub a: [usize; 4],
    pub b: [usize; 4],
    pub segments: Vec<((usize, usize), (usize, usize))>,
}

/// The fingers' figures over every frame, hand and segment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FingerFigures {
    pub mean_deg: f64,
    pub max_deg: f64,
    /// Segment samples measured (frames × segments).
    pub samples: usize,
    /// Per frame, the mean over its segments.
    pub per_frame: Vec<f64>,
}

/// The judge's unit vector: a zero vector stays zero.
fn unit(v: DVec3) -> DVec3 {
    let n = v.length();
    if n > 0.0 { v / n } else { v }
}

/// The judge's angle: 180° when either vector has no length.
fn angle(u: DVec3, v: DVec3) -> f64 {
    let (nu, nv) = (u.length(), v.length());
    if nu < 1e-9 || nv < 1e-9 {
        return 180.0;
    }
    (u.dot(v) / (nu * nv)).clamp(-1.0, 1.0).acos().to_degrees()
}

/// `v` in the palm frame of joints `k` of `m` at frame `i`.
fn in_palm(m: &Motion, k: [usize; 4], i: usize, v: DVec3) -> DVec3 {
    let x = unit(m.at(i, k[1]) - m.at(i, k[0]));
    let z = unit(x.cross(m.at(i, k[2]) - m.at(i, k[3])));
    let y = z.cross(x);
    DVec3::new(v.dot(x), v.dot(y), v.dot(z))
}

/// The fingers measure of `b` against `a` (the same frames); `None` without a segment.
pub fn fingers(a: &Motion, b: &Motion, hands: &[HandSpec]) -> Option<FingerFigures> {
    let mut per_frame = Vec::with_capacity(a.frames());
    let (mut sum, mut max, mut samples) = (0.0, 0.0f64, 0);
    for i in 0..a.frames().min(b.frames()) {
        let (mut frame_sum, mut n) = (0.0, 0);
        for hand in hands {
            for &((a0, a1), (b0, b1)) in &hand.segments {
                let da = in_palm(a, hand.a, i, a.at(i, a1) - a.at(i, a0));
                let db = in_palm(b, hand.b, i, b.at(i, b1) - b.at(i, b0));
                let e = angle(da, db);
                frame_sum += e;
                max = max.max(e);
                n += 1;
            }
        }
        if n > 0 {
            per_frame.push(frame_sum / n as f64);
            sum += frame_sum;
            samples += n;
        }
    }
    (samples > 0).then(|| FingerFigures {
        mean_deg: sum / samples as f64,
        max_deg: max,
        samples,
        per_frame,
    })
}

/// Adds the fingers' verdict (mean against `limits.fingers_deg`), its flag and its
/// per-frame row to `report`.
pub fn judge_fingers(report: &mut Report, figures: FingerFigures) {
    let limit = report.thresholds.fingers_deg;
    report.set_verdict(Measure::Fingers, figures.mean_deg, limit, || {
        format!(
            "fingers: finger segments point {:.1}° off the source in the hand's frame on average, {:.1}° at worst (limit {limit}°)",
            figures.mean_deg, figures.max_deg
        )
    });
    let rows: Vec<f64> = figures
        .per_frame
        .iter()
        .map(|&e| Thresholds::severity(e, limit))
        .collect();
    report.fingers = Some(figures);
    report.add_frame_row(Measure::Fingers, &rows);
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    /// One hand (joints: hand, middle, index, little, middle tip) over two frames.
    fn hand(tip: Vec3, turn: Quat) -> Motion {
        let points = [
            Vec3::ZERO,
            Vec3::new(0.1, 0.0, 0.0),
            Vec3::new(0.1, 0.0, 0.03),
            Vec3::new(0.09, 0.0, -0.03),
            Vec3::new(0.1, 0.0, 0.0) + tip,
        ];
        let frame: Vec<Vec3> = points.iter().map(|&p| turn * p).collect();
        Motion {
            times: vec![0.0, 0.1],
            names: (0..5).map(|j| format!("j{j}")).collect(),
            parents: vec![None, Some(0), Some(0), Some(0), Some(1)],
            positions: vec![frame.clone(), frame],
        }
    }

    fn spec() -> Vec<HandSpec> {
        vec![HandSpec {
            a: [0, 1, 2, 3],
            b: [0, 1, 2, 3],
            segments: vec![((1, 4), (1, 4))],
        }]
    }

    #[test]
    fn a_turned_arm_does_not_count_and_a_bent_finger_does() {
        let a = hand(Vec3::X * 0.04, Quat::IDENTITY);
        // The whole hand turned 70°: the finger is where it was in the hand's frame.
        let turned = hand(Vec3::X * 0.04, Quat::from_rotation_y(1.2));
        let f = fingers(&a, &turned, &spec()).unwrap();
        assert!(f.max_deg < 1e-4, "{f:?}");
        // The finger bent 30° toward the palm.
        let bent = hand(
            Quat::from_rotation_z(-std::f32::consts::FRAC_PI_6) * Vec3::X * 0.04,
            Quat::IDENTITY,
        );
        let f = fingers(&a, &bent, &spec()).unwrap();
        assert!((f.mean_deg - 30.0).abs() < 1e-3 && f.samples == 2, "{f:?}");
        assert!(fingers(&a, &bent, &[]).is_none());
    }
}
