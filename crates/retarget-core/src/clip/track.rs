//! Tracks: the keys of one property, sampled as glTF defines STEP, LINEAR (slerp for
//! rotations) and CUBICSPLINE (Hermite, rotations re-normalised).

use glam::{Quat, Vec3, Vec4};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Step,
    Linear,
    CubicSpline,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClipError {
    #[error("a track has no keys")]
    NoKeys,
    #[error("key time {index} is not finite")]
    NonFiniteTime { index: usize },
    #[error("key times go backwards at key {index} ({previous} s then {time} s)")]
    TimesNotSorted {
        index: usize,
        previous: f32,
        time: f32,
    },
    #[error("{times} key times but {values} values (expected {expected})")]
    CountMismatch {
        times: usize,
        values: usize,
        expected: usize,
    },
    #[error("value {index} is not finite")]
    NonFiniteValue { index: usize },
    #[error("rotation {index} has zero length and cannot be normalised")]
    ZeroRotation { index: usize },
}

/// A value that a track can hold.
pub trait Keyframe: Copy {
    fn is_finite_value(&self) -> bool;
    fn lerp_to(self, other: Self, s: f32) -> Self;
    /// glTF's cubic Hermite spline: `p0`, `m0` (scaled out-tangent), `p1`, `m1` (scaled in-tangent).
    fn hermite(p0: Self, m0: Self, p1: Self, m1: Self, s: f32) -> Self;
    /// Scales a tangent (component-wise; a quaternion tangent is a plain 4-vector).
    fn scaled(self, k: f32) -> Self;
    /// The key value made valid (unit length for rotations); `None` if it cannot be.
    fn normalized_key(self) -> Option<Self> {
        Some(self)
    }
    /// `a[k].lerp_to(b[k], s)` for every `k`, handed to `write(k, value)`; a type may do
    /// several at once (rotations: `slerp::slerp_rows`), bit for bit the same.
    #[inline]
    fn lerp_rows(a: &[Self], b: &[Self], s: f32, mut write: impl FnMut(usize, Self)) {
        for (k, (a, b)) in a.iter().zip(b).enumerate() {
            write(k, a.lerp_to(*b, s));
        }
    }
}

fn hermite_weights(s: f32) -> (f32, f32, f32, f32) {
    let s2 = s * s;
    let s3 = s2 * s;
    (
        2.0 * s3 - 3.0 * s2 + 1.0,
        s3 - 2.0 * s2 + s,
        -2.0 * s3 + 3.0 * s2,
        s3 - s2,
    )
}

impl Keyframe for Vec3 {
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
    fn lerp_to(self, other: Self, s: f32) -> Self {
        self.lerp(other, s)
    }
    fn hermite(p0: Self, m0: Self, p1: Self, m1: Self, s: f32) -> Self {
        let (a, b, c, d) = hermite_weights(s);
        p0 * a + m0 * b + p1 * c + m1 * d
    }
    fn scaled(self, k: f32) -> Self {
        self * k
    }
}

impl Keyframe for Quat {
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
    fn lerp_to(self, other: Self, s: f32) -> Self {
        crate::slerp::slerp(self, other, s)
    }
    #[inline]
    fn lerp_rows(a: &[Self], b: &[Self], s: f32, write: impl FnMut(usize, Self)) {
        crate::slerp::slerp_rows(a, b, s, write);
    }
    fn hermite(p0: Self, m0: Self, p1: Self, m1: Self, s: f32) -> Self {
        let (a, b, c, d) = hermite_weights(s);
        let v = Vec4::from(p0) * a + Vec4::from(m0) * b + Vec4::from(p1) * c + Vec4::from(m1) * d;
        Quat::from_vec4(v).normalize()
    }
    fn scaled(self, k: f32) -> Self {
        Quat::from_vec4(Vec4::from(self) * k)
    }
    fn normalized_key(self) -> Option<Self> {
        normalised(self)
    }
}

/// `q` at unit length, or `None` for a zero one. A component near `f32::MAX` squares past
/// the f32 range, so such a quaternion is measured in f64 (its f32 length is infinite and
/// the division would give a zero rotation).
pub fn normalised(q: Quat) -> Option<Quat> {
    let len = q.length();
    if len.is_finite() {
        return (len > 1e-6).then(|| q / len);
    }
    let q = q.as_dquat();
    let len = q.length();
    (len.is_finite() && len > 1e-6).then(|| (q / len).as_quat())
}

/// Keys of one property of one joint. For CUBICSPLINE, `values` holds three entries per key,
/// in glTF order: in-tangent, value, out-tangent.
#[derive(Clone, Debug, PartialEq)]
pub struct Track<T> {
    /// Shared by the tracks of a clip this crate solved: one array for all of them, and
    /// samplers see at once that they share their keys.
    times: Arc<[f32]>,
    values: Vec<T>,
    interpolation: Interpolation,
}

impl<T: Keyframe> Track<T> {
    /// `times`: a `Vec`, or an `Arc` the clip's other tracks share.
    pub fn new(
        times: impl Into<Arc<[f32]>>,
        values: Vec<T>,
        interpolation: Interpolation,
    ) -> Result<Self, ClipError> {
        let times: Arc<[f32]> = times.into();
        if times.is_empty() {
            return Err(ClipError::NoKeys);
        }
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        if values.len() != times.len() * per_key {
            return Err(ClipError::CountMismatch {
                times: times.len(),
                values: values.len(),
                expected: times.len() * per_key,
            });
        }
        for (index, t) in times.iter().enumerate() {
            if !t.is_finite() {
                return Err(ClipError::NonFiniteTime { index });
            }
            if index > 0 && *t < times[index - 1] {
                return Err(ClipError::TimesNotSorted {
                    index,
                    previous: times[index - 1],
                    time: *t,
                });
            }
        }
        if let Some(index) = values.iter().position(|v| !v.is_finite_value()) {
            return Err(ClipError::NonFiniteValue { index });
        }
        let mut values = values;
        let value_slots = (0..times.len()).map(|k| k * per_key + per_key / 2);
        for slot in value_slots {
            values[slot] = values[slot]
                .normalized_key()
                .ok_or(ClipError::ZeroRotation { index: slot })?;
        }
        Ok(Self {
            times,
            values,
            interpolation,
        })
    }

    /// A track of keys this crate solved and checked itself (sorted finite times, finite
    /// unit values, one value per key): no second pass over a whole clip's keys.
    pub(crate) fn solved(times: Arc<[f32]>, values: Vec<T>, interpolation: Interpolation) -> Self {
        debug_assert!(Self::new(times.to_vec(), values.clone(), interpolation).is_ok());
        Self {
            times,
            values,
            interpolation,
        }
    }

    pub fn times(&self) -> &[f32] {
        &self.times
    }

    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    pub fn key_count(&self) -> usize {
        self.times.len()
    }

    /// The stored values as a writer needs them: one per key, or for CUBICSPLINE three per
    /// key (in-tangent, value, out-tangent), so tangents survive a round trip through a file.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// The key's value (for cubic tracks, the value between its tangents).
    pub fn value(&self, key: usize) -> T {
        match self.interpolation {
            Interpolation::CubicSpline => self.values[key * 3 + 1],
            _ => self.values[key],
        }
    }

    /// Samples at `time_secs`, holding the first and last keys outside the keyed range.
    pub fn sample(&self, time_secs: f32) -> T {
        let n = self.times.len();
        let next = self.times.partition_point(|&k| k <= time_secs);
        if next == 0 {
            return self.value(0);
        }
        if next >= n {
            return self.value(n - 1);
        }
        let prev = next - 1;
        let dt = self.times[next] - self.times[prev];
        if dt <= 0.0 {
            return self.value(next);
        }
        let s = (time_secs - self.times[prev]) / dt;
        if s < ON_KEY {
            return self.value(prev);
        }
        if s > 1.0 - ON_KEY {
            return self.value(next);
        }
        self.between(prev, s, dt)
    }

    /// The value at `s` (0..1) of the way from key `prev` to the next, `dt` seconds apart.
    pub(crate) fn between(&self, prev: usize, s: f32, dt: f32) -> T {
        let next = prev + 1;
        match self.interpolation {
            Interpolation::Step => self.value(prev),
            Interpolation::Linear => self.values[prev].lerp_to(self.values[next], s),
            Interpolation::CubicSpline => {
                let p0 = self.values[prev * 3 + 1];
                let b0 = self.values[prev * 3 + 2];
                let a1 = self.values[next * 3];
                let p1 = self.values[next * 3 + 1];
                T::hermite(p0, b0.scaled(dt), p1, a1.scaled(dt), s)
            }
        }
    }
}

/// A time within this fraction of a key interval of a key samples that key. Resampling a
/// clip at its own rate lands on its keys only up to float rounding (a BVH's frame time
/// times frame 2,000 is a few ulps off), and blending in 1e-4 of the neighbour key adds
/// nothing but noise and time. At 120 fps the fraction is 8 µs.
pub(crate) const ON_KEY: f32 = 1e-3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_vec3_follows_lerp() {
        let t = Track::new(
            vec![1.0, 3.0],
            vec![Vec3::ZERO, Vec3::new(2.0, 4.0, -6.0)],
            Interpolation::Linear,
        )
        .unwrap();
        assert_eq!(t.sample(0.0), Vec3::ZERO);
        assert!(t.sample(1.5).abs_diff_eq(Vec3::new(0.5, 1.0, -1.5), 1e-6));
        assert_eq!(t.sample(9.0), Vec3::new(2.0, 4.0, -6.0));
    }

    #[test]
    fn linear_rotation_is_slerp() {
        let a = Quat::IDENTITY;
        let b = Quat::from_rotation_y(2.0);
        let t = Track::new(vec![0.0, 1.0], vec![a, b], Interpolation::Linear).unwrap();
        // Slerp keeps constant angular speed: at s=0.25 the angle is a quarter of 2 rad.
        let q = t.sample(0.25);
        assert!(q.abs_diff_eq(Quat::from_rotation_y(0.5), 1e-6), "{q}");
    }

    #[test]
    fn huge_rotation_keys_normalise_without_overflow() {
        // Squared in f32, 3e38 is infinite and the key would become zero.
        let q = Quat::from_xyzw(0.0, 0.0, 0.0, -3e38);
        let t = Track::new(vec![0.0], vec![q], Interpolation::Linear).unwrap();
        assert!(
            t.value(0)
                .abs_diff_eq(Quat::from_xyzw(0.0, 0.0, 0.0, -1.0), 1e-6)
        );
    }

    #[test]
    fn step_holds_previous_key() {
        let t = Track::new(vec![0.0, 1.0], vec![Vec3::X, Vec3::Y], Interpolation::Step).unwrap();
        assert_eq!(t.sample(0.99), Vec3::X);
        assert_eq!(t.sample(1.0), Vec3::Y);
    }

    #[test]
    fn cubic_spline_matches_gltf_hermite_formula() {
        // glTF Appendix C: p(t) = (2t³-3t²+1)v_k + td(t³-2t²+t)b_k + (-2t³+3t²)v_k+1 + td(t³-t²)a_k+1
        let (t0, t1) = (0.5f32, 2.5f32);
        let (v0, b0) = (Vec3::new(1.0, 0.0, 2.0), Vec3::new(0.5, -1.0, 0.0));
        let (a1, v1) = (Vec3::new(-2.0, 0.25, 1.0), Vec3::new(3.0, 1.0, -1.0));
        let values = vec![Vec3::ZERO, v0, b0, a1, v1, Vec3::ZERO];
        let track = Track::new(vec![t0, t1], values, Interpolation::CubicSpline).unwrap();
        for &time in &[0.5f32, 0.9, 1.5, 2.2, 2.5] {
            let td = t1 - t0;
            let s = (time - t0) / td;
            let expected = v0 * (2.0 * s.powi(3) - 3.0 * s.powi(2) + 1.0)
                + b0 * td * (s.powi(3) - 2.0 * s.powi(2) + s)
                + v1 * (-2.0 * s.powi(3) + 3.0 * s.powi(2))
                + a1 * td * (s.powi(3) - s.powi(2));
            let got = track.sample(time);
            assert!(
                got.abs_diff_eq(expected, 1e-5),
                "t={time}: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn cubic_spline_rotation_is_normalised_hermite() {
        let q0 = Quat::from_rotation_x(0.2);
        let q1 = Quat::from_rotation_z(1.0);
        let b0 = Quat::from_xyzw(0.1, 0.0, 0.2, 0.0);
        let a1 = Quat::from_xyzw(0.0, -0.3, 0.0, 0.1);
        let track = Track::new(
            vec![0.0, 2.0],
            vec![
                Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                q0,
                b0,
                a1,
                q1,
                Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            ],
            Interpolation::CubicSpline,
        );
        // Tangents are not unit quaternions; only the values must be finite.
        let track = track.unwrap();
        let s = 0.3f32;
        let td = 2.0;
        let v = Vec4::from(q0) * (2.0 * s.powi(3) - 3.0 * s.powi(2) + 1.0)
            + Vec4::from(b0) * td * (s.powi(3) - 2.0 * s.powi(2) + s)
            + Vec4::from(q1) * (-2.0 * s.powi(3) + 3.0 * s.powi(2))
            + Vec4::from(a1) * td * (s.powi(3) - s.powi(2));
        let expected = Quat::from_vec4(v.normalize());
        let got = track.sample(s * td);
        assert!(got.abs_diff_eq(expected, 1e-6), "{got} vs {expected}");
        assert!((got.length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn constructor_rejects_bad_keys() {
        let lin = Interpolation::Linear;
        assert_eq!(
            Track::<Vec3>::new(vec![], vec![], lin),
            Err(ClipError::NoKeys)
        );
        assert!(matches!(
            Track::new(vec![1.0, 0.5], vec![Vec3::X, Vec3::Y], lin),
            Err(ClipError::TimesNotSorted { index: 1, .. })
        ));
        assert!(matches!(
            Track::new(vec![0.0, f32::NAN], vec![Vec3::X, Vec3::Y], lin),
            Err(ClipError::NonFiniteTime { index: 1 })
        ));
        assert!(matches!(
            Track::new(vec![0.0], vec![Vec3::NAN], lin),
            Err(ClipError::NonFiniteValue { index: 0 })
        ));
        assert!(matches!(
            Track::new(vec![0.0, 1.0], vec![Vec3::X], lin),
            Err(ClipError::CountMismatch { .. })
        ));
        assert!(matches!(
            Track::new(vec![0.0], vec![Vec3::X], Interpolation::CubicSpline),
            Err(ClipError::CountMismatch { expected: 3, .. })
        ));
        assert!(matches!(
            Track::new(vec![0.0], vec![Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)], lin),
            Err(ClipError::ZeroRotation { index: 0 })
        ));
        let unnormalised =
            Track::new(vec![0.0], vec![Quat::from_xyzw(0.0, 0.0, 0.0, 2.0)], lin).unwrap();
        assert_eq!(unnormalised.value(0), Quat::IDENTITY);
    }
}
