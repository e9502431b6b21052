//! Key reduction: drop the keys that linear interpolation between their neighbours already
//! reproduces within a tolerance (degrees for rotations, length for translations and
//! scales). The first and last keys always stay.

use super::clip::{Clip, Interpolation, JointTracks, Keyframe, Track};
use glam::{Quat, Vec3};

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tolerance {
    pub degrees: f32,
    /// In the joints' local length units (the skeleton's file units).
    pub length: f32,
}

/// How far `value` is from `expected`, in the tolerance's terms.
trait Error: Keyframe {
    fn error(self, expected: Self) -> f32;
}

impl Error for Quat {
    fn error(self, expected: Self) -> f32 {
        self.angle_between(expected).to_degrees()
    }
}

impl Error for Vec3 {
    fn error(self, expected: Self) -> f32 {
        self.distance(expected)
    }
}

/// Indices of the keys to keep: greedy, each kept key reaches as far as it can while every
/// key it skips stays within `limit` of the line (slerp) between the two it keeps.
fn keep<T: Error>(track: &Track<T>, limit: f32) -> Vec<usize> {
    let times = track.times();
    let n = times.len();
    if n <= 2 || track.interpolation() != Interpolation::Linear {
        return (0..n).collect();
    }
    let mut kept = vec![0];
    let mut anchor = 0;
    let mut end = 2;
    while end < n {
        let (a, b) = (track.value(anchor), track.value(end));
        let span = times[end] - times[anchor];
        let fits = (anchor + 1..end).all(|k| {
            let s = if span > 0.0 {
                (times[k] - times[anchor]) / span
            } else {
                0.0
            };
            track.value(k).error(a.lerp_to(b, s)) <= limit
        });
        if fits {
            end += 1;
        } else {
            kept.push(end - 1);
            anchor = end - 1;
            end = anchor + 2;
        }
    }
    kept.push(n - 1);
    kept
}

/// The keys of a vector track that linear interpolation cannot drop: the same rule as
/// `reduce_keys`, for curves a writer builds itself (an FBX file's Euler angles, which
/// interpolate per angle, not by slerp).
pub fn kept_vector_keys(track: &Track<Vec3>, limit: f32) -> Vec<usize> {
    keep(track, limit)
}

fn reduced<T: Error>(track: &Track<T>, limit: f32) -> Track<T> {
    let kept = keep(track, limit);
    if kept.len() == track.key_count() {
        return track.clone();
    }
    let times: Vec<f32> = kept.iter().map(|&k| track.times()[k]).collect();
    let values = kept.iter().map(|&k| track.value(k)).collect();
    Track::new(times, values, Interpolation::Linear)
        .unwrap_or_else(|e| unreachable!("a subset of valid keys is valid: {e}"))
}

/// The clip with redundant keys dropped; returns it with the key counts before and after.
pub fn reduce_keys(clip: &Clip, tolerance: Tolerance) -> (Clip, usize, usize) {
    let count = |c: &Clip| -> usize {
        c.tracks()
            .iter()
            .map(|t| {
                t.translation.as_ref().map_or(0, Track::key_count)
                    + t.rotation.as_ref().map_or(0, Track::key_count)
                    + t.scale.as_ref().map_or(0, Track::key_count)
            })
            .sum()
    };
    let tracks = clip
        .tracks()
        .iter()
        .map(|t| JointTracks {
            translation: t.translation.as_ref().map(|k| reduced(k, tolerance.length)),
            rotation: t.rotation.as_ref().map(|k| reduced(k, tolerance.degrees)),
            scale: t.scale.as_ref().map(|k| reduced(k, tolerance.length)),
        })
        .collect();
    let out = Clip::new(clip.name.clone(), tracks, clip.fps()).with_curves(clip.curves().to_vec());
    let (before, after) = (count(clip), count(&out));
    (out, before, after)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rotation_track(angles: &[f32]) -> Track<Quat> {
        let times: Vec<f32> = (0..angles.len()).map(|i| i as f32 / 30.0).collect();
        let values = angles
            .iter()
            .map(|a| Quat::from_rotation_y(a.to_radians()))
            .collect();
        Track::new(times, values, Interpolation::Linear).unwrap()
    }

    #[test]
    fn a_steady_turn_keeps_only_its_ends_and_a_kink_survives() {
        let steady: Vec<f32> = (0..30).map(|i| i as f32 * 2.0).collect();
        assert_eq!(keep(&rotation_track(&steady), 0.1), vec![0, 29]);
        let mut kinked = steady.clone();
        for a in kinked.iter_mut().skip(15) {
            *a = 30.0;
        }
        let kept = keep(&rotation_track(&kinked), 0.1);
        assert!(kept.contains(&14) || kept.contains(&15), "{kept:?}");
    }

    #[test]
    fn every_dropped_key_stays_within_the_tolerance() {
        let wobble: Vec<f32> = (0..120).map(|i| (i as f32 * 0.3).sin() * 40.0).collect();
        let track = rotation_track(&wobble);
        let small = reduced(&track, 0.5);
        assert!(small.key_count() < track.key_count());
        for (k, &t) in track.times().iter().enumerate() {
            let err = track.value(k).angle_between(small.sample(t)).to_degrees();
            assert!(err <= 0.5 + 1e-3, "key {k}: {err}°");
        }
    }
}
