//! Animation clips: per-joint translation/rotation/scale tracks, sampled as glTF defines
//! STEP, LINEAR (slerp for rotations) and CUBICSPLINE (Hermite, rotations re-normalised).

use super::pose::Pose;
use glam::{Quat, Vec3};

mod curves;
mod track;

pub use curves::Curve;

pub(crate) use track::ON_KEY;
pub use track::{ClipError, Interpolation, Keyframe, Track, normalised};

/// The tracks of one joint; a missing track leaves that property as the pose had it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointTracks {
    pub translation: Option<Track<Vec3>>,
    pub rotation: Option<Track<Quat>>,
    pub scale: Option<Track<Vec3>>,
}

impl JointTracks {
    pub fn is_empty(&self) -> bool {
        self.translation.is_none() && self.rotation.is_none() && self.scale.is_none()
    }

    fn key_counts(&self) -> impl Iterator<Item = usize> + '_ {
        let t = self.translation.as_ref().map(Track::key_count);
        let r = self.rotation.as_ref().map(Track::key_count);
        let s = self.scale.as_ref().map(Track::key_count);
        [t, r, s].into_iter().flatten()
    }

    fn time_ranges(&self) -> impl Iterator<Item = (f32, f32)> + '_ {
        fn range(times: &[f32]) -> (f32, f32) {
            (times[0], times[times.len() - 1])
        }
        let t = self.translation.as_ref().map(|k| range(k.times()));
        let r = self.rotation.as_ref().map(|k| range(k.times()));
        let s = self.scale.as_ref().map(|k| range(k.times()));
        [t, r, s].into_iter().flatten()
    }
}

/// An animation of one skeleton: one `JointTracks` per joint, in the skeleton's order.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    pub name: String,
    tracks: Vec<JointTracks>,
    /// Named weights (morph targets, expressions), in no particular order.
    curves: Vec<Curve>,
    start_secs: f32,
    end_secs: f32,
    /// The rate the clip was authored at (BVH frame time, evenly spaced glTF keys).
    fps: Option<f32>,
}

impl Clip {
    /// `tracks` holds one entry per skeleton joint. The native frame rate is taken from the
    /// longest track when its keys are evenly spaced, unless `fps` is given.
    pub fn new(name: impl Into<String>, tracks: Vec<JointTracks>, fps: Option<f32>) -> Self {
        let (start_secs, end_secs) = tracks
            .iter()
            .flat_map(JointTracks::time_ranges)
            .fold(None, |acc: Option<(f32, f32)>, (a, b)| match acc {
                None => Some((a, b)),
                Some((lo, hi)) => Some((lo.min(a), hi.max(b))),
            })
            .unwrap_or((0.0, 0.0));
        let mut clip = Self {
            name: name.into(),
            tracks,
            curves: Vec::new(),
            start_secs,
            end_secs,
            fps,
        };
        clip.fps = clip.fps.or_else(|| clip.even_key_rate()).map(snap_rate);
        clip
    }

    pub fn tracks(&self) -> &[JointTracks] {
        &self.tracks
    }

    pub fn curves(&self) -> &[Curve] {
        &self.curves
    }

    /// The clip with `curves` in place of its own; its span widens to hold them (a clip of
    /// only curves takes theirs).
    pub fn with_curves(mut self, curves: Vec<Curve>) -> Self {
        let joints = self.tracks.iter().any(|t| !t.is_empty());
        for (i, c) in curves.iter().enumerate() {
            let times = c.track.times();
            let (a, b) = (times[0], times[times.len() - 1]);
            if !joints && i == 0 {
                (self.start_secs, self.end_secs) = (a, b);
            } else {
                self.start_secs = self.start_secs.min(a);
                self.end_secs = self.end_secs.max(b);
            }
        }
        self.curves = curves;
        self
    }

    pub fn start_secs(&self) -> f32 {
        self.start_secs
    }

    pub fn end_secs(&self) -> f32 {
        self.end_secs
    }

    pub fn duration_secs(&self) -> f32 {
        self.end_secs - self.start_secs
    }

    pub fn fps(&self) -> Option<f32> {
        self.fps
    }

    /// `frames` times spread evenly over the clip's own span, first and last on its ends:
    /// at the clip's own rate they land on its keys (a BVH's 0.008333 s is not quite 1/120).
    pub fn even_times(&self, frames: usize) -> impl Iterator<Item = f32> + '_ {
        let step = self.duration_secs() / (frames.max(2) - 1) as f32;
        (0..frames).map(move |k| self.start_secs + k as f32 * step)
    }

    /// Every key time of every joint track, once, in order (times within 10 µs of the one
    /// before are one: an FBX's curves may sit a tick apart).
    pub fn key_times(&self) -> Vec<f32> {
        let mut times: Vec<f32> = (self.tracks.iter())
            .flat_map(|t| {
                let tr = t.translation.as_ref().map(|k| k.times());
                let r = t.rotation.as_ref().map(|k| k.times());
                let s = t.scale.as_ref().map(|k| k.times());
                [tr, r, s].into_iter().flatten().flatten().copied()
            })
            .collect();
        times.sort_by(f32::total_cmp);
        times.dedup_by(|b, a| *b - *a < 1e-5);
        times
    }

    /// Key count of the longest track.
    pub fn frame_count(&self) -> usize {
        self.tracks
            .iter()
            .flat_map(JointTracks::key_counts)
            .max()
            .unwrap_or(0)
    }

    pub fn animated_joint_count(&self) -> usize {
        self.tracks.iter().filter(|t| !t.is_empty()).count()
    }

    /// Writes every animated property at `time_secs` into `pose`; joints and properties
    /// without a track keep what `pose` holds (start from the rest pose).
    pub fn sample(&self, time_secs: f32, pose: &mut Pose) {
        debug_assert_eq!(pose.len(), self.tracks.len());
        for (i, tracks) in self.tracks.iter().enumerate() {
            if let Some(t) = &tracks.translation {
                pose.translations[i] = t.sample(time_secs);
            }
            if let Some(r) = &tracks.rotation {
                pose.rotations[i] = r.sample(time_secs);
            }
            if let Some(s) = &tracks.scale {
                pose.scales[i] = s.sample(time_secs);
            }
        }
    }

    fn even_key_rate(&self) -> Option<f32> {
        let longest = self
            .tracks
            .iter()
            .flat_map(|t| {
                let tt = t.translation.as_ref().map(|k| k.times());
                let rr = t.rotation.as_ref().map(|k| k.times());
                let ss = t.scale.as_ref().map(|k| k.times());
                [tt, rr, ss].into_iter().flatten()
            })
            .max_by_key(|times| times.len())?;
        if longest.len() < 2 {
            return None;
        }
        let step = (longest[longest.len() - 1] - longest[0]) / (longest.len() - 1) as f32;
        if step <= 0.0 {
            return None;
        }
        let even = longest
            .windows(2)
            .all(|w| ((w[1] - w[0]) - step).abs() <= step * 0.01);
        even.then_some(1.0 / step)
    }
}

/// Key times and BVH frame times are rounded fractions (1/120 s written as 0.008333):
/// a rate within 0.01% of a whole number is that number.
fn snap_rate(fps: f32) -> f32 {
    let rounded = fps.round();
    if (fps - rounded).abs() <= fps * 1e-4 {
        rounded
    } else {
        fps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn clip_reports_range_keys_and_even_rate() {
        let times: Vec<f32> = (0..25).map(|i| 0.5 + i as f32 / 24.0).collect();
        let rot = Track::new(
            times.clone(),
            vec![Quat::IDENTITY; 25],
            Interpolation::Linear,
        )
        .unwrap();
        let tr = Track::new(
            vec![0.5, 1.5],
            vec![Vec3::ZERO, Vec3::X],
            Interpolation::Linear,
        )
        .unwrap();
        let clip = Clip::new(
            "walk",
            vec![
                JointTracks {
                    translation: Some(tr),
                    ..Default::default()
                },
                JointTracks {
                    rotation: Some(rot),
                    ..Default::default()
                },
            ],
            None,
        );
        assert_eq!(clip.frame_count(), 25);
        assert_eq!(clip.fps(), Some(24.0));
        assert!((clip.duration_secs() - 1.0).abs() < 1e-6);
        let mut pose = Pose {
            translations: vec![Vec3::ZERO; 2],
            rotations: vec![Quat::IDENTITY; 2],
            scales: vec![Vec3::ONE; 2],
        };
        pose.scales[1] = Vec3::splat(7.0);
        clip.sample(1.0, &mut pose);
        assert!(pose.translations[0].abs_diff_eq(Vec3::new(0.5, 0.0, 0.0), 1e-6));
        assert_eq!(
            pose.scales[1],
            Vec3::splat(7.0),
            "untracked properties are left alone"
        );
    }

    #[test]
    fn uneven_keys_have_no_native_rate() {
        let tr = Track::new(
            vec![0.0, 0.1, 0.5],
            vec![Vec3::ZERO; 3],
            Interpolation::Linear,
        )
        .unwrap();
        let clip = Clip::new(
            "x",
            vec![JointTracks {
                translation: Some(tr),
                ..Default::default()
            }],
            None,
        );
        assert_eq!(clip.fps(), None);
    }
}
