//! Closest points between two segments, and the contact of two capsules built on them.

use glam::Vec3;

/// The closest points of segments `p0–p1` and `q0–q1` (Ericson, "Real-Time Collision
/// Detection", 5.1.9), as the parameters `(s, t)` in [0, 1] along each.
pub fn closest_points(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> (f32, f32) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    const EPS: f32 = 1e-12;
    if a <= EPS && e <= EPS {
        return (0.0, 0.0);
    }
    if a <= EPS {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(r);
    if e <= EPS {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > EPS * a * e {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (s, t)
}

/// Where two capsules are closest: how deep the first goes into the second (the sum of
/// the radii less the distance of the axes; negative where they are apart) and the unit
/// direction that takes the first out of the second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    pub depth: f32,
    pub normal: Vec3,
    /// The closest point on the first capsule's axis.
    pub at: Vec3,
}

/// The contact of capsule `(a0, a1, ra)` with capsule `(b0, b1, rb)`.
pub fn contact(a: (Vec3, Vec3, f32), b: (Vec3, Vec3, f32)) -> Contact {
    let (s, t) = closest_points(a.0, a.1, b.0, b.1);
    let (pa, pb) = (a.0.lerp(a.1, s), b.0.lerp(b.1, t));
    let apart = pa - pb;
    let distance = apart.length();
    let normal = apart.try_normalize().unwrap_or_else(|| {
        // Axes that cross: out along any direction square to the second's axis.
        (b.1 - b.0)
            .try_normalize()
            .map_or(Vec3::X, |d| d.any_orthonormal_vector())
    });
    Contact {
        depth: a.2 + b.2 - distance,
        normal,
        at: pa,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: the smallest distance over a fine grid of both parameters.
    fn brute(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> f32 {
        let n = 400;
        let mut best = f32::MAX;
        for i in 0..=n {
            for k in 0..=n {
                let (s, t) = (i as f32 / n as f32, k as f32 / n as f32);
                best = best.min(p0.lerp(p1, s).distance(q0.lerp(q1, t)));
            }
        }
        best
    }

    #[test]
    fn crossing_parallel_and_end_to_end_segments_meet_the_brute_force_distance() {
        let cases = [
            // Crossing square to each other, 0.3 apart.
            (
                Vec3::new(-1.0, 0.0, 0.0),
                Vec3::X,
                Vec3::new(0.2, -1.0, 0.3),
                Vec3::new(0.2, 1.0, 0.3),
            ),
            // Parallel, overlapping.
            (
                Vec3::ZERO,
                Vec3::Y,
                Vec3::new(0.25, 0.5, 0.0),
                Vec3::new(0.25, 1.5, 0.0),
            ),
            // Past each other's ends.
            (
                Vec3::ZERO,
                Vec3::X,
                Vec3::new(2.0, 1.0, 0.0),
                Vec3::new(3.0, 2.0, 0.0),
            ),
            // A point against a segment.
            (
                Vec3::new(0.5, 0.4, 0.0),
                Vec3::new(0.5, 0.4, 0.0),
                Vec3::ZERO,
                Vec3::X,
            ),
        ];
        for (p0, p1, q0, q1) in cases {
            let (s, t) = closest_points(p0, p1, q0, q1);
            let got = p0.lerp(p1, s).distance(q0.lerp(q1, t));
            let want = brute(p0, p1, q0, q1);
            assert!(
                (got - want).abs() < 2e-3,
                "{p0} {p1} {q0} {q1}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn capsules_overlap_by_the_radii_less_the_axes_distance() {
        // A forearm 0.2 beside a torso axis, radii 0.15 and 0.1: 50 mm deep, out along +X.
        let torso = (Vec3::ZERO, Vec3::Y, 0.15);
        let arm = (Vec3::new(0.2, 0.2, 0.0), Vec3::new(0.2, 0.6, 0.1), 0.1);
        let c = contact(arm, torso);
        assert!((c.depth - 0.05).abs() < 1e-6, "{c:?}");
        assert!(c.normal.abs_diff_eq(Vec3::X, 1e-6));
        // Apart: a negative depth.
        let far = (Vec3::new(1.0, 0.2, 0.0), Vec3::new(1.0, 0.6, 0.0), 0.1);
        assert!((contact(far, torso).depth + 0.75).abs() < 1e-6);
    }
}
