//! Tracks of one property that share key times and interpolation, stored key-major.

use super::cursor::Span;
use crate::core::clip::{Interpolation, Keyframe};

/// `values[(key * slots + slot) * joints.len() + track]`: `slots` is 3 for CUBICSPLINE
/// (in-tangent, value, out-tangent), else 1.
#[derive(Clone, Debug)]
pub(super) struct Block<T> {
    pub group: usize,
    pub interpolation: Interpolation,
    keys: usize,
    joints: Vec<u32>,
    /// Track-major while building; made key-major by `seal`.
    values: Vec<T>,
}

impl<T: Keyframe> Block<T> {
    pub fn new(group: usize, interpolation: Interpolation, keys: usize) -> Self {
        Self {
            group,
            interpolation,
            keys,
            joints: Vec::new(),
            values: Vec::new(),
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

    /// Adds a track (its stored values, as [`crate::core::Track::values`] gives them).
    pub fn push(&mut self, joint: usize, track_values: &[T]) {
        debug_assert_eq!(track_values.len(), self.keys * self.slots());
        self.values.extend_from_slice(track_values);
        self.joints.push(joint as u32);
    }

    /// Reorders the values from track-major (as pushed) to key-major (as sampled).
    pub fn seal(&mut self) {
        let (m, rows) = (self.joints.len(), self.keys * self.slots());
        let mut values = Vec::with_capacity(rows * m);
        for r in 0..rows {
            values.extend((0..m).map(|t| self.values[t * rows + r]));
        }
        self.values = values;
    }

    fn row(&self, key: usize, slot: usize) -> &[T] {
        let m = self.joints.len();
        let start = (key * self.slots() + slot) * m;
        &self.values[start..start + m]
    }

    /// Writes every track's value at `span` into `out` (indexed by joint).
    pub fn sample(&self, span: Span, out: &mut [T]) {
        let value = self.slots() / 2;
        let hold = |key: usize, out: &mut [T]| {
            for (&j, v) in self.joints.iter().zip(self.row(key, value)) {
                out[j as usize] = *v;
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
                for ((&j, a), b) in self.joints.iter().zip(a).zip(b) {
                    out[j as usize] = a.lerp_to(*b, s);
                }
            }
            Interpolation::CubicSpline => {
                let (p0, b0) = (self.row(prev, 1), self.row(prev, 2));
                let (a1, p1) = (self.row(next, 0), self.row(next, 1));
                for (k, &j) in self.joints.iter().enumerate() {
                    out[j as usize] =
                        T::hermite(p0[k], b0[k].scaled(dt), p1[k], a1[k].scaled(dt), s);
                }
            }
        }
    }
}
