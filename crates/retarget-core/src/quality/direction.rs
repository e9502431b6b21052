//! Limb directions: each target segment should point where its source segment points, once
//! the overall facing (yaw) difference is removed, because characters may face differently.

use super::QualityError;
use super::motion::{Motion, Spec};
use super::same_frames;
use glam::DVec3;
use serde::Serialize;

/// One segment's direction error over the clip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SegmentError {
    pub segment: String,
    pub mean_deg: f64,
    pub max_deg: f64,
}

/// The direction measure over every frame and segment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DirectionFigures {
    pub mean_deg: f64,
    pub max_deg: f64,
    /// yaw(A) − yaw(B) at frame 0, the facing difference taken out.
    pub yaw_removed_deg: f64,
    /// Worst mean first.
    pub per_segment: Vec<SegmentError>,
}

/// The facing of the hip line at `frame`: `atan2(v.x, v.z)` with `v = left − right`, radians.
pub fn yaw(m: &Motion, frame: usize, hips: (usize, usize)) -> f64 {
    let v = m.at(frame, hips.0) - m.at(frame, hips.1);
    v.x.atan2(v.z)
}

/// `v` turned about +Y by `a` radians, as the judge's `rot_y`.
fn rot_y(v: DVec3, a: f64) -> DVec3 {
    let (s, c) = a.sin_cos();
    DVec3::new(c * v.x + s * v.z, v.y, -s * v.x + c * v.z)
}

/// The angle between two vectors in degrees; 180 when either has no length (a collapsed
/// segment is as wrong as can be).
fn angle(u: DVec3, v: DVec3) -> f64 {
    let (nu, nv) = (u.length(), v.length());
    if nu < 1e-9 || nv < 1e-9 {
        return 180.0;
    }
    (u.dot(v) / (nu * nv)).clamp(-1.0, 1.0).acos().to_degrees()
}

/// The yaw removed (radians) and the errors in degrees, `[segment][frame]`.
pub(super) fn direction_tracks(a: &Motion, b: &Motion, spec: &Spec) -> (f64, Vec<Vec<f64>>) {
    let dyaw = yaw(a, 0, spec.hips_a) - yaw(b, 0, spec.hips_b);
    let errors = spec.segments.iter().map(|s| {
        let error = |i: usize| {
            let u = a.at(i, s.a.1) - a.at(i, s.a.0);
            angle(u, rot_y(b.at(i, s.b.1) - b.at(i, s.b.0), dyaw))
        };
        (0..a.frames()).map(error).collect()
    });
    (dyaw, errors.collect())
}

/// The summary; `None` when there is no segment or no frame.
pub(super) fn direction_figures(
    spec: &Spec,
    dyaw: f64,
    errors: &[Vec<f64>],
) -> Option<DirectionFigures> {
    let count: usize = errors.iter().map(Vec::len).sum();
    if count == 0 {
        return None;
    }
    let all = errors.iter().flatten();
    let segment = |(s, e): (&super::motion::SegmentPair, &Vec<f64>)| SegmentError {
        segment: s.name.clone(),
        mean_deg: e.iter().sum::<f64>() / e.len() as f64,
        max_deg: e.iter().copied().fold(0.0, f64::max),
    };
    let mut per_segment: Vec<SegmentError> =
        spec.segments.iter().zip(errors).map(segment).collect();
    per_segment.sort_by(|x, y| y.mean_deg.total_cmp(&x.mean_deg));
    Some(DirectionFigures {
        mean_deg: all.clone().sum::<f64>() / count as f64,
        max_deg: all.copied().fold(0.0, f64::max),
        yaw_removed_deg: dyaw.to_degrees(),
        per_segment,
    })
}

/// Direction error of `b`'s segments against `a`'s, facing difference at frame 0 removed.
pub fn direction(
    a: &Motion,
    b: &Motion,
    spec: &Spec,
) -> Result<Option<DirectionFigures>, QualityError> {
    same_frames(a, b)?;
    let (dyaw, errors) = direction_tracks(a, b, spec);
    Ok(direction_figures(spec, dyaw, &errors))
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{L_ELBOW, L_HAND, L_HIP, R_ELBOW, R_HAND, R_HIP, Walk, edited};
    use super::super::testkit::{spec, turned};
    use super::*;
    use glam::Quat;

    fn close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-3, "got {got}, want {want}");
    }

    #[test]
    fn the_hip_line_faces_plus_z() {
        let a = Walk::default().motion();
        close(yaw(&a, 0, (L_HIP, R_HIP)).to_degrees(), 90.0);
    }

    #[test]
    fn a_copy_turned_90_degrees_points_every_limb_right() {
        let a = Walk::default().motion();
        let got = direction(&a, &turned(&a, 90.0), &spec()).unwrap().unwrap();
        close(got.yaw_removed_deg, -90.0);
        close(got.mean_deg, 0.0);
        close(got.max_deg, 0.0);
    }

    #[test]
    fn forearms_bent_30_degrees_are_off_by_7_5_on_average() {
        let a = Walk::default().motion();
        let bend = Quat::from_rotation_x(30f32.to_radians());
        let bent = edited(&a, |i, j, p| match j {
            L_HAND => a.positions[i][L_ELBOW] + bend * (p - a.positions[i][L_ELBOW]),
            R_HAND => a.positions[i][R_ELBOW] + bend * (p - a.positions[i][R_ELBOW]),
            _ => p,
        });
        let got = direction(&a, &turned(&bent, 90.0), &spec())
            .unwrap()
            .unwrap();
        close(got.mean_deg, 7.5);
        close(got.max_deg, 30.0);
        let worst: Vec<&str> = got.per_segment[..2]
            .iter()
            .map(|s| s.segment.as_str())
            .collect();
        assert!(worst.contains(&"lower_arm.L") && worst.contains(&"lower_arm.R"));
        close(got.per_segment[0].mean_deg, 30.0);
        close(got.per_segment[2].mean_deg, 0.0);
    }

    #[test]
    fn a_collapsed_segment_counts_as_180_degrees() {
        let a = Walk::default().motion();
        let b = edited(&a, |i, j, p| {
            if j == L_HAND {
                a.positions[i][L_ELBOW]
            } else {
                p
            }
        });
        let got = direction(&a, &b, &spec()).unwrap().unwrap();
        close(got.mean_deg, 180.0 / 8.0);
        close(got.max_deg, 180.0);
    }
}
