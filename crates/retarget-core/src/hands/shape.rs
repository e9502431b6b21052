//! The palm frame and a finger's shape in it, by the judge's rule.

use glam::{Mat3, Vec3};
use std::f32::consts::PI;

/// The palm's own frame as columns (x, y, z): x from the hand to the middle finger's base,
/// z = x × (index base − outer base) (the palm's normal), y = z × x (across the palm).
/// `None` when the points are degenerate.
pub fn palm_frame(hand: Vec3, middle: Vec3, index: Vec3, outer: Vec3) -> Option<Mat3> {
    let x = (middle - hand).try_normalize()?;
    let z = x.cross(index - outer).try_normalize()?;
    Some(Mat3::from_cols(x, z.cross(x), z))
}

/// A finger in its palm's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FingerShape {
    /// The first segment's direction in the palm frame.
    pub direction: Vec3,
    /// The sum of the flexion angles between successive segments, the palm's x first,
    /// about the palm's lateral axis (y), radians; positive bends toward the palm's −z.
    pub curl: f32,
    /// The first segment's turn about the palm normal (z) away from x, radians.
    pub spread: f32,
}

/// The shape of the finger through `points` (world joint positions, base to tip) in the
/// palm `frame`; `None` with fewer than two points or a segment of no length.
pub fn finger_shape(frame: Mat3, points: &[Vec3]) -> Option<FingerShape> {
    let to_palm = frame.transpose();
    let segments: Vec<Vec3> = points
        .windows(2)
        .map(|w| (to_palm * (w[1] - w[0])).try_normalize())
        .collect::<Option<_>>()?;
    let first = *segments.first()?;
    // Flexion: each segment's pitch in the palm's x-z plane (about y), from the palm's x on,
    // each step wrapped to (−180°, 180°].
    let pitch = |v: Vec3| (-v.z).atan2(v.x);
    let wrap = |a: f32| (a + PI).rem_euclid(2.0 * PI) - PI;
    let curl = std::iter::once(Vec3::X)
        .chain(segments.iter().copied())
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| wrap(pitch(w[1]) - pitch(w[0])))
        .sum();
    Some(FingerShape {
        direction: first,
        curl,
        spread: first.y.atan2(first.x),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_PI_2;

    /// A hand laid out along +X with its index toward +Z and its little finger toward −Z.
    fn left_hand() -> (Vec3, Vec3, Vec3, Vec3) {
        (
            Vec3::ZERO,
            Vec3::new(0.1, 0.0, 0.0),
            Vec3::new(0.1, 0.0, 0.03),
            Vec3::new(0.09, 0.0, -0.03),
        )
    }

    #[test]
    fn the_palm_frame_follows_the_judges_rule() {
        let (h, m, i, o) = left_hand();
        let f = palm_frame(h, m, i, o).unwrap();
        assert!(f.x_axis.abs_diff_eq(Vec3::X, 1e-6));
        // z = x × (index − outer) = X × (0.01, 0, 0.06) → −Y; y = z × x = −Y × X = +Z.
        assert!(f.z_axis.abs_diff_eq(Vec3::NEG_Y, 1e-6), "{:?}", f.z_axis);
        assert!(f.y_axis.abs_diff_eq(Vec3::Z, 1e-6));
        assert!((f.determinant() - 1.0).abs() < 1e-6);
        assert!(palm_frame(h, h, i, o).is_none());
    }

    #[test]
    fn a_straight_finger_has_no_curl_and_a_bent_one_its_angles_summed() {
        let (h, m, i, o) = left_hand();
        let f = palm_frame(h, m, i, o).unwrap();
        let straight = [m, m + Vec3::X * 0.04, m + Vec3::X * 0.07];
        let s = finger_shape(f, &straight).unwrap();
        assert!(s.curl.abs() < 1e-6 && s.spread.abs() < 1e-6);
        assert!(s.direction.abs_diff_eq(Vec3::X, 1e-6));
        // Two joints each bend 45° toward the frame's −z (+Y here): the curl is their sum.
        let d1 = Vec3::new(1.0, 1.0, 0.0).normalize() * 0.03;
        let bent = [
            m,
            m + Vec3::X * 0.04,
            m + Vec3::X * 0.04 + d1,
            m + Vec3::X * 0.04 + d1 + Vec3::Y * 0.02,
        ];
        let s = finger_shape(f, &bent).unwrap();
        assert!((s.curl - FRAC_PI_2).abs() < 1e-5, "curl {}", s.curl);
        // Spread: a finger turned toward the index side within the palm.
        let spread = [m, m + Vec3::new(0.03, 0.0, 0.03)];
        let s = finger_shape(f, &spread).unwrap();
        assert!((s.spread - FRAC_PI_2 / 2.0).abs() < 1e-5 && s.curl.abs() < 1e-6);
        // One segment bent 30° off the palm: its curl counts from the palm's x.
        let one = [m, m + Vec3::new(0.03, 0.03 * 0.5774, 0.0)];
        let s = finger_shape(f, &one).unwrap();
        assert!((s.curl - FRAC_PI_2 / 3.0).abs() < 1e-4, "curl {}", s.curl);
    }
}
