//! Named scalar curves beside the joints' tracks: a morph target's or an expression's weight
//! over time (glTF `weights` channels, VRMA expressions, FBX blend-shape channels), carried
//! from source to target by name.

use super::track::{Keyframe, Track};

impl Keyframe for f32 {
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
    fn lerp_to(self, other: Self, s: f32) -> Self {
        self + (other - self) * s
    }
    fn hermite(p0: Self, m0: Self, p1: Self, m1: Self, s: f32) -> Self {
        let s2 = s * s;
        let s3 = s2 * s;
        p0 * (2.0 * s3 - 3.0 * s2 + 1.0)
            + m0 * (s3 - 2.0 * s2 + s)
            + p1 * (-2.0 * s3 + 3.0 * s2)
            + m1 * (s3 - s2)
    }
    fn scaled(self, k: f32) -> Self {
        self * k
    }
}

/// One named weight over time: `happy`, `aa`, `jawOpen`, a morph target's name.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub name: String,
    pub track: Track<f32>,
}

impl Curve {
    pub fn new(name: impl Into<String>, track: Track<f32>) -> Self {
        Self {
            name: name.into(),
            track,
        }
    }

    /// The weight at `time_secs` (held before the first key and after the last).
    pub fn sample(&self, time_secs: f32) -> f32 {
        self.track.sample(time_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::{Clip, Interpolation};

    #[test]
    fn curves_sample_and_widen_the_clips_span() {
        let track = Track::new(vec![0.5, 1.5], vec![0.0, 1.0], Interpolation::Linear).unwrap();
        let clip =
            Clip::new("face", Vec::new(), None).with_curves(vec![Curve::new("happy", track)]);
        assert_eq!(clip.curves().len(), 1);
        assert!((clip.curves()[0].sample(1.0) - 0.5).abs() < 1e-6);
        assert_eq!(clip.curves()[0].sample(9.0), 1.0, "held after the last key");
        assert_eq!((clip.start_secs(), clip.end_secs()), (0.5, 1.5));
    }
}
