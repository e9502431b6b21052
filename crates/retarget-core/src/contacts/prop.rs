//! Two hands on one prop held apart (a rifle, a box, a staff): runs where the hands' distance
//! stays nearly constant while the pair moves against the body, so the arms can keep the
//! prop's length on a target with other arms. Hands hanging still (an idle) or swinging in
//! opposition (a walk) are no grip: the first do not move against the chest, the second do
//! not keep their distance. Read from world positions alone, as the other hand contacts.

use super::detect::fix;
use super::hands::{BodyPoint, HandTracks};
use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

/// Shares of the figure's height, and seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PropThresholds {
    /// A run starts where, over `min_seconds`, the hands' distance stays within this of
    /// its mean, and goes on while each frame's stays within `band_exit` of the run's
    /// running mean.
    pub band_enter: f32,
    pub band_exit: f32,
    /// Over the run, the hands' midpoint moves against the chest (else the hips) by more
    /// than this (the diagonal of the box its offset sweeps).
    pub travel: f32,
    /// Over the run, the hands lie apart across the shoulders' line by less than this share
    /// of the shoulders' own span on average: two arms swinging side by side (each hand
    /// before its own shoulder) keep their distance too, but hold nothing.
    pub across: f32,
    /// Shorter runs are no grip.
    pub min_seconds: f32,
}

impl Default for PropThresholds {
    fn default() -> Self {
        Self {
            band_enter: 0.02,
            band_exit: 0.03,
            travel: 0.1,
            across: 0.8,
            min_seconds: 0.3,
        }
    }
}

impl PropThresholds {
    /// Every number finite and in range, the exit band no tighter than the entry's.
    pub fn sanitized(mut self) -> Self {
        let d = Self::default();
        self.band_enter = fix(self.band_enter, 0.0, 1.0, d.band_enter);
        self.band_exit = fix(self.band_exit, self.band_enter, 1.0, d.band_exit);
        self.travel = fix(self.travel, 0.0, 10.0, d.travel);
        self.across = fix(self.across, 0.0, 100.0, d.across);
        self.min_seconds = fix(self.min_seconds, 0.0, 3600.0, d.min_seconds);
        self
    }
}

/// Runs `(start, end)` of frames where the two hands of `tracks` hold one prop, on a figure
/// `height` tall (`tracks.shoulders` needed); frames where the hands are closer than
/// `together` (a share of the height: hands together, `Touch::Hands`) break a run. None
/// without a chest or hips track.
pub fn detect_prop(
    tracks: HandTracks,
    times: &[f32],
    height: f32,
    together: f32,
    limits: &PropThresholds,
) -> Vec<(usize, usize)> {
    let [left, right] = tracks.hands;
    let n = left.len().min(right.len()).min(times.len());
    let find = |p: BodyPoint| tracks.body.iter().find(|(b, t)| *b == p && t.len() >= n);
    let Some(&(_, body)) = find(BodyPoint::Chest).or_else(|| find(BodyPoint::Hips)) else {
        return Vec::new();
    };
    let Some([ls, rs]) = tracks
        .shoulders
        .filter(|s| s[0].len() >= n && s[1].len() >= n)
    else {
        return Vec::new();
    };
    if n < 2 || height.is_nan() || height <= 0.0 {
        return Vec::new();
    }
    let apart: Vec<f32> = (0..n)
        .map(|i| left[i].distance(right[i]) / height)
        .collect();
    // The midpoint in the body's frame (across the shoulders, up from the chest), so the
    // body turning or falling with the hands still against it moves nothing.
    let offset = |i: usize| {
        let top = (ls[i] + rs[i]) / 2.0;
        let frame = body_frame(ls[i] - rs[i], top - body[i]);
        frame.inverse() * (((left[i] + right[i]) / 2.0 - top) / height)
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let Some(w) = entry(&apart, times, i, together, limits) else {
            i += 1;
            continue;
        };
        let end = grow(&apart, i, w, together, limits.band_exit);
        let (lo, hi) = (i..=end)
            .map(offset)
            .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), o| (lo.min(o), hi.max(o)));
        // How far apart across the shoulders' line the hands are, for the shoulders' span.
        let across: f32 = (i..=end)
            .map(|f| {
                let line = ls[f] - rs[f];
                let span = line.length().max(1e-6);
                (left[f] - right[f]).dot(line / span).abs() / span
            })
            .sum::<f32>()
            / (end + 1 - i) as f32;
        if hi.distance(lo) > limits.travel && across < limits.across {
            out.push((i, end));
        }
        i = end + 1;
    }
    out
}

/// The body's turn from the shoulders' line (left − right) and its up (hips to shoulders):
/// x across, y up, z forward.
fn body_frame(across: Vec3, up: Vec3) -> Quat {
    let x = across.normalize_or(Vec3::X);
    let y = (up - x * up.dot(x)).normalize_or(Vec3::Y);
    let z = x.cross(y);
    Quat::from_mat3(&glam::Mat3::from_cols(x, y, z)).normalize()
}

/// The last frame of a window from `start` spanning `min_seconds` (at least two frames)
/// over which the distances stay within `band_enter` of their mean and apart by `together`
/// or more; `None` if they do not (or the clip ends first).
fn entry(
    apart: &[f32],
    times: &[f32],
    start: usize,
    together: f32,
    limits: &PropThresholds,
) -> Option<usize> {
    let span = limits.min_seconds;
    let last = (start + 1..apart.len()).find(|&j| times[j] - times[start] >= span - 1e-4)?;
    let window = &apart[start..=last];
    let mean = window.iter().sum::<f32>() / window.len() as f32;
    let steady = window
        .iter()
        .all(|&d| d >= together && (d - mean).abs() <= limits.band_enter);
    steady.then_some(last)
}

/// The last frame of the run entered at `start` whose window ends at `from`: frames go on
/// while their distance stays within `band` of the run's running mean and apart by
/// `together` or more.
fn grow(apart: &[f32], start: usize, from: usize, together: f32, band: f32) -> usize {
    let mut sum: f32 = apart[start..=from].iter().sum();
    let mut end = from;
    for (j, &d) in apart.iter().enumerate().skip(from + 1) {
        let mean = sum / (j - start) as f32;
        if d < together || (d - mean).abs() > band {
            break;
        }
        sum += d;
        end = j;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(n: usize) -> Vec<f32> {
        (0..n).map(|i| i as f32 / 30.0).collect()
    }

    /// A 1 m figure walking along z, its chest at 0.7 m, its shoulders 0.2 apart: the hands
    /// `gap(i)` apart one before the other (z, a rifle), their midpoint at `mid(i)` against
    /// the chest.
    fn figure(n: usize, gap: impl Fn(usize) -> f32, mid: impl Fn(usize) -> Vec3) -> Figure {
        figure_along(Vec3::Z, n, gap, mid)
    }

    fn figure_along(
        axis: Vec3,
        n: usize,
        gap: impl Fn(usize) -> f32,
        mid: impl Fn(usize) -> Vec3,
    ) -> Figure {
        let chest: Vec<Vec3> = (0..n)
            .map(|i| Vec3::new(0.0, 0.7, 0.02 * i as f32))
            .collect();
        let at = |i: usize, s: f32| chest[i] + mid(i) + axis * s * gap(i) / 2.0;
        let shoulder = |s: f32| chest.iter().map(move |c| *c + Vec3::new(0.1 * s, 0.1, 0.0));
        Figure {
            hands: [
                (0..n).map(|i| at(i, 1.0)).collect(),
                (0..n).map(|i| at(i, -1.0)).collect(),
            ],
            shoulders: [shoulder(1.0).collect(), shoulder(-1.0).collect()],
            chest,
        }
    }

    struct Figure {
        hands: [Vec<Vec3>; 2],
        shoulders: [Vec<Vec3>; 2],
        chest: Vec<Vec3>,
    }

    fn detect(f: &Figure) -> Vec<(usize, usize)> {
        let body = [(BodyPoint::Chest, &f.chest[..])];
        let tracks = HandTracks {
            hands: [&f.hands[0], &f.hands[1]],
            shoulders: Some([&f.shoulders[0], &f.shoulders[1]]),
            elbows: None,
            body: &body,
        };
        let n = f.chest.len();
        detect_prop(tracks, &times(n), 1.0, 0.1, &PropThresholds::default())
    }

    /// A rifle raised and lowered for frames 10..=39: the hands 0.3 apart (±1 %), their
    /// midpoint swinging 0.2 up and forward against the chest; before and after, the hands
    /// part and meet as they swing.
    #[test]
    fn a_prop_raised_against_the_chest_is_one_grip() {
        let gap = |i: usize| match i {
            10..=39 => 0.3 + 0.01 * (i as f32).sin(),
            _ => 0.3 + 0.2 * (i as f32 * 0.7).sin(),
        };
        let mid = |i: usize| {
            let t = ((i as f32 - 10.0) / 29.0).clamp(0.0, 1.0);
            Vec3::new(0.0, -0.3, 0.2) + Vec3::new(0.0, 0.2, 0.1) * (t * std::f32::consts::PI).sin()
        };
        let found = detect(&figure(50, gap, mid));
        assert_eq!(found.len(), 1, "{found:?}");
        let (s, e) = found[0];
        assert!((9..=11).contains(&s) && (38..=41).contains(&e), "{found:?}");
    }

    /// Hands hanging still at a fixed distance while the body walks on are no grip, nor are
    /// hands swinging in opposition, nor two arms swinging side by side (each hand before
    /// its shoulder), nor two hands together (a clap is `Touch::Hands`).
    #[test]
    fn still_hands_swinging_hands_and_a_clap_are_no_grip() {
        let hanging = |_| Vec3::new(0.0, -0.35, 0.0);
        assert!(detect(&figure(60, |_| 0.4, hanging)).is_empty());
        let swing = |i: usize| 0.4 + 0.15 * (i as f32 * 0.3).sin();
        assert!(detect(&figure(60, swing, hanging)).is_empty());
        let raised = |i: usize| Vec3::new(0.0, -0.3 + 0.01 * i as f32, 0.2);
        assert!(detect(&figure(60, |_| 0.05, raised)).is_empty());
        assert_eq!(detect(&figure(60, |_| 0.3, raised)), vec![(0, 59)]);
        let side_by_side = figure_along(Vec3::X, 60, |_| 0.22, raised);
        assert!(detect(&side_by_side).is_empty());
    }

    #[test]
    fn a_run_shorter_than_the_minimum_is_no_grip_and_bad_input_none() {
        let raised = |i: usize| Vec3::new(0.0, -0.3 + 0.03 * i as f32, 0.2);
        assert!(detect(&figure(8, |_| 0.3, raised)).is_empty());
        let f = figure(30, |_| 0.3, raised);
        let none = HandTracks {
            hands: [&f.hands[0], &f.hands[1]],
            shoulders: Some([&f.shoulders[0], &f.shoulders[1]]),
            elbows: None,
            body: &[],
        };
        let limits = PropThresholds::default();
        assert!(detect_prop(none, &times(30), 1.0, 0.1, &limits).is_empty());
        let body = [(BodyPoint::Hips, &f.chest[..])];
        let hips = HandTracks {
            body: &body,
            ..none
        };
        let blind = HandTracks {
            shoulders: None,
            ..hips
        };
        assert!(detect_prop(blind, &times(30), 1.0, 0.1, &limits).is_empty());
        assert!(detect_prop(hips, &times(30), f32::NAN, 0.1, &limits).is_empty());
        assert_eq!(detect_prop(hips, &times(30), 1.0, 0.1, &limits).len(), 1);
    }
}
