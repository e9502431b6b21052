//! Spherical interpolation of rotations, cheap where keys are close.
//!
//! glam 0.34's `Quat::slerp` takes the trigonometric path (an `acos` and three `sin`) for
//! all but identical keys. Mocap keys at 120 fps lie a degree or two apart, where the
//! normalised linear blend (nlerp) is the same rotation to within a few microradians
//! (bounded and tested below): sampling a clip spends most of its time here, so close keys
//! take nlerp and only keys further apart pay for the exact slerp.

use super::quat_lanes::{lanes, quats};
use glam::{Quat, Vec4};

/// Keys whose dot product is above this (less than 3.6° apart) are blended linearly.
/// The angle nlerp then misses by is below 2e-6 rad (`nlerp_error_is_bounded`).
const CLOSE: f32 = 0.9995;

/// Slerp from `a` to `b` (both unit length) by `s`, the short way round.
#[inline]
pub fn slerp(a: Quat, b: Quat, s: f32) -> Quat {
    let dot = a.dot(b);
    let b = if dot < 0.0 { -b } else { b };
    if dot.abs() > CLOSE {
        (a * (1.0 - s) + b * s).normalize()
    } else {
        a.slerp(b, s)
    }
}

/// [`slerp`] of `a[k]` to `b[k]` for every `k`, handed to `write(k, value)`: four pairs at
/// a time in SIMD lanes (x, y, z, w of four quaternions in four registers) where all four
/// are close, with the same operations in the same order as `slerp`'s glam code (the dot
/// as `(x·x' + z·z') + (y·y' + w·w')`, the length's square root and the division), so the
/// result is bit for bit `slerp`'s; one pair at a time otherwise.
pub fn slerp_rows(a: &[Quat], b: &[Quat], s: f32, mut write: impl FnMut(usize, Quat)) {
    let n = a.len().min(b.len());
    let whole = n - n % 4;
    let (t, u) = (Vec4::splat(1.0 - s), Vec4::splat(s));
    for k in (0..whole).step_by(4) {
        let [ax, ay, az, aw] = lanes(std::array::from_fn(|i| a[k + i]));
        let [bx, by, bz, bw] = lanes(std::array::from_fn(|i| b[k + i]));
        let dot = (ax * bx + az * bz) + (ay * by + aw * bw);
        if !dot.abs().cmpgt(Vec4::splat(CLOSE)).all() {
            for i in k..k + 4 {
                write(i, slerp(a[i], b[i], s));
            }
            continue;
        }
        // `-b` where the dot is negative (never -0: the dot is past `CLOSE`).
        let side = Vec4::ONE.copysign(dot) * u;
        let (x, y, z, w) = (
            ax * t + bx * side,
            ay * t + by * side,
            az * t + bz * side,
            aw * t + bw * side,
        );
        let length = ((x * x + z * z) + (y * y + w * w)).sqrt();
        let blended = quats([x / length, y / length, z / length, w / length]);
        for (i, q) in blended.into_iter().enumerate() {
            write(k + i, q);
        }
    }
    for i in whole..n {
        write(i, slerp(a[i], b[i], s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    /// The exact slerp in f64, for reference.
    fn exact(a: Quat, b: Quat, s: f64) -> DQuat {
        let (a, mut b) = (a.as_dquat().normalize(), b.as_dquat().normalize());
        if a.dot(b) < 0.0 {
            b = -b;
        }
        // The angle between them, well conditioned near zero (unlike `acos` of the dot).
        let theta = 2.0 * (a - b).length().atan2((a + b).length());
        if theta < 1e-12 {
            return a;
        }
        ((a * ((1.0 - s) * theta).sin() + b * (s * theta).sin()) / theta.sin()).normalize()
    }

    /// The rotation angle from `r` to `q`, well conditioned near zero.
    fn angle_between(q: Quat, r: DQuat) -> f64 {
        let d = r.normalize().conjugate() * q.as_dquat().normalize();
        2.0 * d.xyz().length().atan2(d.w.abs())
    }

    /// Over every axis and key spacing up to the threshold (and either sign of the second
    /// key), the blend is within 2e-6 rad of the true slerp; beyond it, within float noise.
    #[test]
    fn nlerp_error_is_bounded() {
        let mut worst_close = 0.0f64;
        let mut worst_far = 0.0f64;
        for k in 0..200 {
            let axis = DVec3::new((k as f64 * 0.37).sin(), (k as f64 * 0.91).cos(), 0.3)
                .normalize()
                .as_vec3();
            let start = Quat::from_euler(glam::EulerRot::YXZ, k as f32 * 0.1, 0.4, -0.2);
            for step in [0.001f32, 0.01, 0.03, 0.0625, 0.3, 1.5, 3.0] {
                let end = Quat::from_axis_angle(axis, step) * start;
                let end = if k % 2 == 0 { end } else { -end };
                for i in 0..=20 {
                    let s = i as f32 / 20.0;
                    let err = angle_between(slerp(start, end, s), exact(start, end, s as f64));
                    if start.dot(end).abs() > CLOSE {
                        worst_close = worst_close.max(err);
                    } else {
                        worst_far = worst_far.max(err);
                    }
                }
            }
        }
        assert!(worst_close < 2e-6, "close keys miss by {worst_close} rad");
        assert!(worst_far < 1e-4, "far keys miss by {worst_far} rad");
    }

    #[test]
    fn ends_are_the_keys_and_the_result_is_unit() {
        let a = Quat::from_rotation_y(0.3);
        let b = Quat::from_rotation_x(0.01) * a;
        assert!(slerp(a, b, 0.0).abs_diff_eq(a, 1e-6));
        assert!(slerp(a, b, 1.0).abs_diff_eq(b, 1e-6));
        assert!(slerp(a, -b, 1.0).abs_diff_eq(b, 1e-6));
        assert!((slerp(a, b, 0.37).length() - 1.0).abs() < 1e-6);
    }

    /// Rows of pairs (close, far, flipped, a partial batch) give `slerp`'s bits exactly.
    #[test]
    fn rows_are_slerp_bit_for_bit() {
        let q = |k: usize, spread: f32| {
            let k = k as f32;
            Quat::from_euler(
                glam::EulerRot::XYZ,
                0.7 * k,
                -0.4 + 0.1 * k,
                0.3 * k * spread,
            )
        };
        // `spread` 1: one pair in five far apart (its batch takes `slerp` one at a time).
        for spread in [0.0, 0.01, 1.0] {
            let a: Vec<Quat> = (0..11).map(|k| q(k, 0.0)).collect();
            let b: Vec<Quat> = (0..11)
                .map(|k| {
                    let angle = if k % 5 == 2 {
                        2.0 * spread
                    } else {
                        0.02 * spread
                    };
                    let near = a[k] * Quat::from_rotation_y(angle + 0.001);
                    if k % 3 == 1 { -near } else { near }
                })
                .collect();
            for s in [0.0, 0.25, 0.7, 1.0] {
                let mut got = vec![Quat::NAN; a.len()];
                slerp_rows(&a, &b, s, |k, v| got[k] = v);
                for k in 0..a.len() {
                    let want = slerp(a[k], b[k], s);
                    let bits = |q: Quat| q.to_array().map(f32::to_bits);
                    assert_eq!(bits(got[k]), bits(want), "pair {k}, s {s}, spread {spread}");
                }
            }
        }
    }
}
