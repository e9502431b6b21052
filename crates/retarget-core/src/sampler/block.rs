//! Tracks of one property that share key times and interpolation, stored key-major.

use super::cursor::Span;
use crate::clip::{Interpolation, Keyframe};

/// `values[(key * slots + slot) * joints.len() + track]`: `slots` is 3 for CUBICSPLINE
/// (in-tangent, value, out-tangent), else 1.
#[derive(Clone, Debug)]
pub(super) struct Block<T> {
    pub group: usize,
    pub interpolation: Interpolation,
    joints: Vec<u32>,
    values: Vec<T>,
}

impl<T: Keyframe> Block<T> {
    /// The block of `tracks` (their stored values, as [`crate::Track::values`] gives
    /// them), animating `joints`, laid out key-major in one allocation.
    pub fn build(
        group: usize,
        interpolation: Interpolation,
        keys: usize,
        joints: Vec<u32>,
        tracks: &[&[T]],
    ) -> Self {
        let slots = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let rows = keys * slots;
        let mut values = Vec::with_capacity(rows * tracks.len());
        for r in 0..rows {
            values.extend(tracks.iter().map(|t| t[r]));
        }
        Self {
            group,
            interpolation,
            joints,
            values,
        }
    }

    fn slots(&self) -> usize {
        if self.interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.joints.capacity() * 4 + self.values.capacity() * size_of::<T>()
    }

    fn row(&self, key: usize, slot: usize) -> &[T] {
        let m = self.joints.len();
        let start = (key * self.slots() + slot) * m;
        &self.values[start..start + m]
    }

    /// Writes every track's value at `span` into `out` (indexed by joint).
    pub fn sample(&self, span: Span, out: &mut [T]) {
        self.sample_where(span, out, |_| true);
    }

    /// Writes the value at `span` of the tracks whose joint `wanted` marks.
    pub fn sample_some(&self, span: Span, out: &mut [T], wanted: &[bool]) {
        self.sample_where(span, out, |j| wanted[j]);
    }

    #[inline(always)]
    fn sample_where(&self, span: Span, out: &mut [T], wanted: impl Fn(usize) -> bool) {
        let value = self.slots() / 2;
        let hold = |key: usize, out: &mut [T]| {
            for (&j, v) in self.joints.iter().zip(self.row(key, value)) {
                if wanted(j as usize) {
                    out[j as usize] = *v;
                }
            }
        };
        let Span::Between { prev, s, dt } = span else {
            let Span::Hold(key) = span else {
                unreachable!()
            };
            return hold(key, out);
        };
        let next = prev + 1;
        match self.interpolation {
            Interpolation::Step => hold(prev, out),
            Interpolation::Linear => {
                let (a, b) = (self.row(prev, 0), self.row(next, 0));
                T::lerp_rows(a, b, s, |k, v| {
                    let j = self.joints[k] as usize;
                    if wanted(j) {
                        out[j] = v;
                    }
                });
            }
            Interpolation::CubicSpline => {
                let (p0, b0) = (self.row(prev, 1), self.row(prev, 2));
                let (a1, p1) = (self.row(next, 0), self.row(next, 1));
                for (k, &j) in self.joints.iter().enumerate() {
                    if wanted(j as usize) {
                        out[j as usize] =
                            T::hermite(p0[k], b0[k].scaled(dt), p1[k], a1[k].scaled(dt), s);
                    }
                }
            }
        }
    }
}
