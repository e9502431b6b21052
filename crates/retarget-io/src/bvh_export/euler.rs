//! The rotation math of the BVH writer, in f64: the rigid part of a scaled world matrix, and
//! Z-X-Y Euler angles that stay continuous from frame to frame (BVH has no quaternions, and
//! DCC tools interpolate Euler channels linearly, so a ±360° jump shows as a spin).

use glam::{DMat3, DQuat, Mat4};
use std::f64::consts::{FRAC_PI_2, PI, TAU};

/// Below this `cos(x)` the Z and Y angles turn about the same axis (gimbal lock) and only
/// their sum or difference is defined; the rotation error of treating the pose as locked is
/// at most this many radians.
const GIMBAL_COS: f64 = 1e-6;

/// The rotation nearest to the linear part of `world` (polar decomposition), so that scale,
/// non-uniform scale and shear do not leak into the rotation. A mirroring matrix (negative
/// determinant) has its X axis flipped first, since a BVH frame cannot mirror. `None` when
/// the matrix is singular (a zero scale) or not finite: it has no orientation.
pub(super) fn rotation_part(world: &Mat4) -> Option<DQuat> {
    let col = |v: glam::Vec4| v.truncate().as_dvec3();
    let mut a = DMat3::from_cols(col(world.x_axis), col(world.y_axis), col(world.z_axis));
    let size = a.x_axis.length() * a.y_axis.length() * a.z_axis.length();
    let det = a.determinant();
    if !a.is_finite() || size <= 0.0 || det.abs() <= size * 1e-9 {
        return None;
    }
    if det < 0.0 {
        a.x_axis = -a.x_axis;
    }
    // Newton's iteration for the orthogonal polar factor; starting at unit determinant it
    // converges in a handful of steps (one for a pure rotation).
    a *= 1.0 / det.abs().cbrt();
    for _ in 0..60 {
        let next = (a + a.inverse().transpose()) * 0.5;
        let change = (next - a)
            .to_cols_array()
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()));
        a = next;
        if change < 1e-13 {
            break;
        }
    }
    let q = DQuat::from_mat3(&a).normalize();
    q.is_finite().then_some(q)
}

/// Angles `[z, x, y]` in radians with `R = Rz(z) · Rx(x) · Ry(y)`, the order the file's
/// `Zrotation Xrotation Yrotation` channels declare. With `previous`, of the two angle
/// triples that give the same rotation (and their 360° turns) the one nearest to the
/// previous frame is chosen, so that no channel jumps by more than 180° between frames.
pub(super) fn euler_zxy(q: DQuat, previous: Option<[f64; 3]>) -> [f64; 3] {
    let m = DMat3::from_quat(q.normalize());
    // Row r, column c of R is `m.col(c)[r]`.
    let (r00, r10, r20) = (m.x_axis.x, m.x_axis.y, m.x_axis.z);
    let (r01, r11, r21) = (m.y_axis.x, m.y_axis.y, m.y_axis.z);
    let r22 = m.z_axis.z;
    let cos_x = r01.hypot(r11);
    let first = if cos_x > GIMBAL_COS {
        [(-r01).atan2(r11), r21.atan2(cos_x), (-r20).atan2(r22)]
    } else {
        // x = ±90°: R depends on z + y (x = +90°) or z − y (x = −90°) alone. Keep y where
        // it was and give the whole turn to z.
        let y = previous.map_or(0.0, |p| p[2]);
        let turn = r10.atan2(r00);
        if r21 > 0.0 {
            [turn - y, FRAC_PI_2, y]
        } else {
            [turn + y, -FRAC_PI_2, y]
        }
    };
    let Some(prev) = previous else {
        return first;
    };
    let second = [first[0] + PI, PI - first[1], first[2] + PI];
    let a = unwrap_near(first, prev);
    let b = unwrap_near(second, prev);
    if distance(b, prev) < distance(a, prev) {
        b
    } else {
        a
    }
}

/// Each angle moved by whole turns to lie within 180° of the previous frame's.
fn unwrap_near(angles: [f64; 3], prev: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| angles[i] - ((angles[i] - prev[i]) / TAU).round() * TAU)
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|i| (a[i] - b[i]).abs()).sum()
}

/// The rotation the angles stand for, as a reader of the file composes it.
#[cfg(test)]
pub(super) fn quat_from_zxy(angles: [f64; 3]) -> DQuat {
    DQuat::from_rotation_z(angles[0])
        * DQuat::from_rotation_x(angles[1])
        * DQuat::from_rotation_y(angles[2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    fn same_rotation(a: DQuat, b: DQuat) -> bool {
        a.dot(b).abs() > 1.0 - 1e-12
    }

    #[test]
    fn euler_round_trips_including_gimbal_lock() {
        let cases = [
            [0.3, -1.1, 2.0],
            [-3.0, 0.2, 3.1],
            [0.7, FRAC_PI_2, -0.4],
            [0.7, -FRAC_PI_2, -0.4],
            [0.0, FRAC_PI_2 - 1e-9, 1.0],
            [2.0, 3.0, 0.5],
        ];
        for angles in cases {
            let q = quat_from_zxy(angles);
            for prev in [None, Some([0.0; 3]), Some([10.0, -7.0, 4.0])] {
                let back = euler_zxy(q, prev);
                assert!(
                    same_rotation(quat_from_zxy(back), q),
                    "{angles:?} with {prev:?} gave {back:?}"
                );
            }
        }
    }

    #[test]
    fn a_steady_spin_never_jumps() {
        // Turning about Y through several full turns, with a tilt through the lock.
        let mut prev = None;
        for k in 0..2000 {
            let t = k as f64 * 0.01;
            let q = DQuat::from_rotation_y(t * 2.0) * DQuat::from_rotation_x((t * 0.7).sin() * 2.0);
            let e = euler_zxy(q, prev);
            assert!(same_rotation(quat_from_zxy(e), q), "frame {k}");
            if let Some(p) = prev {
                for i in 0..3 {
                    assert!(
                        (e[i] - p[i]).abs() <= PI + 1e-9,
                        "frame {k}: {p:?} -> {e:?}"
                    );
                }
            }
            prev = Some(e);
        }
    }

    #[test]
    fn rotation_part_ignores_scale_and_shear_free_stretch() {
        let r = Quat::from_euler(glam::EulerRot::XYZ, 0.4, -1.2, 2.5);
        let m = Mat4::from_scale_rotation_translation(Vec3::new(100.0, 3.0, 0.5), r, Vec3::X);
        let q = rotation_part(&m).unwrap();
        assert!(same_rotation_f32(q, r), "{q} vs {r}");
        let mirrored = Mat4::from_scale_rotation_translation(Vec3::new(-2.0, 2.0, 2.0), r, Vec3::Y);
        assert!(rotation_part(&mirrored).is_some());
        assert!(rotation_part(&Mat4::from_scale(Vec3::new(1.0, 0.0, 1.0))).is_none());
        assert!(rotation_part(&Mat4::from_scale(Vec3::splat(f32::NAN))).is_none());
    }

    fn same_rotation_f32(a: DQuat, b: Quat) -> bool {
        a.dot(b.as_dquat()).abs() > 1.0 - 1e-10
    }
}
