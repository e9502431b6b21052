//! Hand contacts of a source clip: runs of frames where the two hands meet (a clap, two hands
//! on one sword) or a hand rests on the body (a hip, the chest, the head), found with
//! hysteresis and a shortest run as the feet's are, so the solver can keep them on a target
//! whose arms have other proportions (`retarget::arms`) and `check` can measure them
//! (`quality::grip`). Read from world positions alone, so the source clip and a pose dump
//! give the same contacts.

use super::detect::fix;
use super::prop::{PropThresholds, detect_prop};
use glam::Vec3;
use serde::{Deserialize, Serialize};

/// Shares of the figure's height (speeds per second).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HandThresholds {
    /// The hands meet closer than this, and part only beyond `hands_exit`.
    pub hands_enter: f32,
    pub hands_exit: f32,
    /// A hand touches a body point closer than this, and leaves it beyond `body_exit`.
    pub body_enter: f32,
    pub body_exit: f32,
    /// A hand rests on the body moving slower than this against the body point, and
    /// leaves it faster than `body_exit_speed` (an arm swinging past the hip is no touch).
    pub body_speed: f32,
    pub body_exit_speed: f32,
    /// Shorter runs are passing touches, not contacts.
    pub min_frames: usize,
    /// Two hands on one prop held apart (`contacts::prop`).
    pub prop: PropThresholds,
}

impl Default for HandThresholds {
    fn default() -> Self {
        Self {
            hands_enter: 0.08,
            hands_exit: 0.10,
            body_enter: 0.11,
            body_exit: 0.13,
            body_speed: 0.25,
            body_exit_speed: 0.5,
            min_frames: 3,
            prop: PropThresholds::default(),
        }
    }
}

impl HandThresholds {
    /// Every number finite and in range, exits no tighter than entries.
    pub fn sanitized(mut self) -> Self {
        let d = Self::default();
        self.hands_enter = fix(self.hands_enter, 0.0, 1.0, d.hands_enter);
        self.hands_exit = fix(self.hands_exit, self.hands_enter, 1.0, d.hands_exit);
        self.body_enter = fix(self.body_enter, 0.0, 1.0, d.body_enter);
        self.body_exit = fix(self.body_exit, self.body_enter, 1.0, d.body_exit);
        self.body_speed = fix(self.body_speed, 0.0, 10.0, d.body_speed);
        self.body_exit_speed = fix(
            self.body_exit_speed,
            self.body_speed,
            10.0,
            d.body_exit_speed,
        );
        self.min_frames = self.min_frames.clamp(1, 10_000);
        self.prop = self.prop.sanitized();
        self
    }
}

/// Which hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hand {
    Left,
    Right,
}

impl Hand {
    pub fn index(self) -> usize {
        match self {
            Hand::Left => 0,
            Hand::Right => 1,
        }
    }
}

/// A point of the body a hand may rest on: the pelvis, the chest (or upper spine), the head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyPoint {
    Hips,
    Chest,
    Head,
}

impl BodyPoint {
    pub const ALL: [BodyPoint; 3] = [BodyPoint::Hips, BodyPoint::Chest, BodyPoint::Head];

    pub fn name(self) -> &'static str {
        match self {
            BodyPoint::Hips => "hips",
            BodyPoint::Chest => "chest",
            BodyPoint::Head => "head",
        }
    }
}

/// What touches what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Touch {
    /// The two hands together.
    Hands,
    /// The two hands on one prop held apart (a rifle, a box, a staff).
    Prop,
    /// One hand on a body point.
    Body { hand: Hand, body: BodyPoint },
}

impl Touch {
    /// In words: "hands", "left hand on hips".
    pub fn label(self) -> String {
        match self {
            Touch::Hands => "hands together".to_owned(),
            Touch::Prop => "hands on one prop".to_owned(),
            Touch::Body { hand, body } => {
                let side = if hand == Hand::Left { "left" } else { "right" };
                format!("{side} hand on {}", body.name())
            }
        }
    }

    /// Whether `hand` takes part.
    pub fn moves(self, which: Hand) -> bool {
        match self {
            Touch::Hands | Touch::Prop => true,
            Touch::Body { hand, .. } => hand == which,
        }
    }

    /// Whether the two hands hold each other (together, or on one prop).
    pub fn both_hands(self) -> bool {
        matches!(self, Touch::Hands | Touch::Prop)
    }
}

/// Frames `start..=end` where `touch` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandContact {
    pub touch: Touch,
    pub start: usize,
    pub end: usize,
}

impl HandContact {
    pub fn contains(&self, frame: usize) -> bool {
        (self.start..=self.end).contains(&frame)
    }

    pub fn frames(&self) -> usize {
        self.end + 1 - self.start
    }
}

/// The source's world paths a detection reads: the left and right hands, the body
/// points it has and the shoulders (upper arms; two hands on one prop need them), each one
/// position per frame.
#[derive(Clone, Copy, Debug)]
pub struct HandTracks<'a> {
    pub hands: [&'a [Vec3]; 2],
    pub shoulders: Option<[&'a [Vec3]; 2]>,
    /// The elbows (forearms' tops), to tell an arm bent to rest its hand on the body from
    /// one hanging straight beside it.
    pub elbows: Option<[&'a [Vec3]; 2]>,
    pub body: &'a [(BodyPoint, &'a [Vec3])],
}

/// The hand contacts of a clip at `times` on a figure `height` tall: hands together first,
/// then on one prop, then each hand on each body point, each kind in frame order.
pub fn detect_hands(
    tracks: HandTracks,
    times: &[f32],
    height: f32,
    limits: &HandThresholds,
) -> Vec<HandContact> {
    let [left, right] = tracks.hands;
    let n = left.len().min(right.len()).min(times.len());
    if n < 2 || height.is_nan() || height <= 0.0 {
        return Vec::new();
    }
    let apart = |i: usize| left[i].distance(right[i]) / height;
    let mut out: Vec<HandContact> = runs(
        n,
        |i| apart(i) < limits.hands_enter,
        |i| apart(i) < limits.hands_exit,
        limits.min_frames,
    )
    .map(|(start, end)| HandContact {
        touch: Touch::Hands,
        start,
        end,
    })
    .collect();
    let prop = detect_prop(tracks, times, height, limits.hands_exit, &limits.prop);
    out.extend(prop.into_iter().map(|(start, end)| HandContact {
        touch: Touch::Prop,
        start,
        end,
    }));
    for (h, (hand, path)) in [(Hand::Left, left), (Hand::Right, right)]
        .into_iter()
        .enumerate()
    {
        let arm = tracks
            .shoulders
            .zip(tracks.elbows)
            .map(|(s, e)| (s[h], e[h]));
        let bent = bent_arm(arm, path, n);
        for &(body, point) in tracks.body {
            if point.len() < n {
                continue;
            }
            let near = |i: usize| {
                if bent(i) {
                    path[i].distance(point[i]) / height
                } else {
                    f32::INFINITY
                }
            };
            // The hand's speed against the body point (share of the height per second).
            let speed = |i: usize| {
                let (a, b) = if i == 0 { (0, 1) } else { (i - 1, i) };
                let moved = (path[b] - point[b]) - (path[a] - point[a]);
                moved.length() / (times[b] - times[a]).max(1e-6) / height
            };
            let enters = |i| near(i) < limits.body_enter && speed(i) < limits.body_speed;
            let stays = |i| near(i) < limits.body_exit && speed(i) < limits.body_exit_speed;
            let touch = Touch::Body { hand, body };
            out.extend(
                runs(n, enters, stays, limits.min_frames).map(|(start, end)| HandContact {
                    touch,
                    start,
                    end,
                }),
            );
        }
    }
    out
}

/// A hand held closer to its shoulder than this share of the arm's length (upper arm and
/// forearm) has its elbow bent by about 50° or more, as a hand resting on the hip, the chest
/// or the head has. A straighter arm hangs or reaches: its hand beside the hip is where its
/// own weight puts it, no touch to keep.
const BENT_REACH: f32 = 0.9;

/// Per frame of `path` (`n` frames), whether the arm (the shoulder's and elbow's paths) is
/// bent enough for its hand to rest on the body (`BENT_REACH`); always, without them.
fn bent_arm<'a>(
    arm: Option<(&'a [Vec3], &'a [Vec3])>,
    path: &'a [Vec3],
    n: usize,
) -> impl Fn(usize) -> bool + 'a {
    let arm = arm.filter(|(s, e)| s.len() >= n && e.len() >= n);
    move |i| {
        arm.is_none_or(|(s, e)| {
            let length = s[i].distance(e[i]) + e[i].distance(path[i]);
            s[i].distance(path[i]) < BENT_REACH * length
        })
    }
}

/// Runs of `n` frames entered where `enters` holds and left where `stays` no longer does,
/// of `min_frames` or more.
fn runs(
    n: usize,
    enters: impl Fn(usize) -> bool,
    stays: impl Fn(usize) -> bool,
    min_frames: usize,
) -> impl Iterator<Item = (usize, usize)> {
    let mut found = Vec::new();
    let mut start: Option<usize> = None;
    for i in 0..n {
        match start {
            None if enters(i) => start = Some(i),
            Some(s) if !stays(i) => {
                found.push((s, i - 1));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        found.push((s, n - 1));
    }
    let min = min_frames.max(1);
    found.into_iter().filter(move |(s, e)| e + 1 - s >= min)
}

/// How much each frame holds `contacts` (any of them), 0 to 1, eased in and out over
/// `blend` frames as foot plants are (`contacts::weights`); contacts that follow on from
/// each other (a grip's run split where its distance drifted) hold through.
pub fn hand_weights(contacts: &[&HandContact], frames: usize, blend: usize) -> Vec<f32> {
    let mut spans: Vec<super::FootContact> = Vec::new();
    let mut sorted: Vec<_> = contacts.iter().map(|c| (c.start, c.end)).collect();
    sorted.sort_unstable();
    for (start, end) in sorted {
        match spans.last_mut() {
            Some(last) if start <= last.end + 1 => last.end = last.end.max(end),
            _ => spans.push(super::FootContact { start, end }),
        }
    }
    super::weights(&spans, frames, blend)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(n: usize) -> Vec<f32> {
        (0..n).map(|i| i as f32 / 30.0).collect()
    }

    /// Hands `gap(i)` metres apart along x, in front of a still body.
    fn hands(n: usize, gap: impl Fn(usize) -> f32) -> (Vec<Vec3>, Vec<Vec3>) {
        let at = Vec3::new(0.0, 1.2, 0.3);
        let left = (0..n).map(|i| at + Vec3::X * gap(i) / 2.0).collect();
        let right = (0..n).map(|i| at - Vec3::X * gap(i) / 2.0).collect();
        (left, right)
    }

    #[test]
    fn a_clap_is_one_contact_through_a_wobble_under_the_exit() {
        // 1 m tall: apart 0.4, together 0.05 for frames 10..=19 with one frame at 0.09
        // (above the entry, under the exit), apart again.
        let gap = |i: usize| match i {
            10..=19 if i == 14 => 0.09,
            10..=19 => 0.05,
            _ => 0.4,
        };
        let (l, r) = hands(30, gap);
        let tracks = HandTracks {
            hands: [&l, &r],
            shoulders: None,
            elbows: None,
            body: &[],
        };
        let c = detect_hands(tracks, &times(30), 1.0, &HandThresholds::default());
        assert_eq!(
            c,
            vec![HandContact {
                touch: Touch::Hands,
                start: 10,
                end: 19
            }]
        );
    }

    #[test]
    fn a_touch_shorter_than_the_minimum_run_is_no_contact() {
        let (l, r) = hands(30, |i| if (10..12).contains(&i) { 0.05 } else { 0.4 });
        let tracks = HandTracks {
            hands: [&l, &r],
            shoulders: None,
            elbows: None,
            body: &[],
        };
        let limits = HandThresholds::default();
        assert!(detect_hands(tracks, &times(30), 1.0, &limits).is_empty());
        let two = HandThresholds {
            min_frames: 2,
            ..limits
        };
        assert_eq!(detect_hands(tracks, &times(30), 1.0, &two).len(), 1);
        // Nothing to read: no contacts, no panic.
        let none = HandTracks {
            hands: [&[], &[]],
            shoulders: None,
            elbows: None,
            body: &[],
        };
        assert!(detect_hands(none, &[], 1.0, &limits).is_empty());
    }

    /// A hand resting on the hip while the body walks on is a contact; the other hand
    /// swinging past the hip as fast is not.
    #[test]
    fn a_hand_on_the_hip_moves_with_the_body_and_a_swinging_one_does_not() {
        let n = 40;
        let hips: Vec<Vec3> = (0..n)
            .map(|i| Vec3::new(0.0, 0.9, 0.04 * i as f32))
            .collect();
        let left: Vec<Vec3> = hips
            .iter()
            .map(|h| *h + Vec3::new(0.15, 0.05, 0.0))
            .collect();
        let right: Vec<Vec3> = (0..n)
            .map(|i| hips[i] + Vec3::new(-0.14, -0.02, 0.1 * (i as f32 * 0.5).sin()))
            .collect();
        let body = [(BodyPoint::Hips, &hips[..])];
        let tracks = HandTracks {
            hands: [&left, &right],
            shoulders: None,
            elbows: None,
            body: &body,
        };
        let c = detect_hands(tracks, &times(n), 1.75, &HandThresholds::default());
        let touch = Touch::Body {
            hand: Hand::Left,
            body: BodyPoint::Hips,
        };
        assert_eq!(
            c,
            vec![HandContact {
                touch,
                start: 0,
                end: n - 1
            }]
        );
        assert_eq!(touch.label(), "left hand on hips");
    }

    /// Both hands 16 cm beside a still pelvis of a 1.75 m figure, as a hand on the hip and
    /// as one hanging there: the left arm bent (elbow out, the hand at the hip), the right
    /// hanging straight from its shoulder (the neutral stance of a motion-capture take).
    /// Only the bent arm's hand is on the hip; without the elbows both read as touching.
    #[test]
    fn an_arm_hanging_straight_beside_the_hip_is_no_hand_on_it() {
        let n = 20;
        let still = |p: Vec3| vec![p; n];
        let hips = still(Vec3::new(0.0, 0.95, 0.0));
        let hands = [
            still(Vec3::new(0.16, 1.0, 0.03)),
            still(Vec3::new(-0.16, 0.92, 0.03)),
        ];
        let shoulders = [
            still(Vec3::new(0.18, 1.45, 0.0)),
            still(Vec3::new(-0.18, 1.45, 0.0)),
        ];
        // Left: the elbow out to the side and back, bent about 100°; right: straight.
        let elbows = [
            still(Vec3::new(0.38, 1.25, -0.08)),
            still(Vec3::new(-0.17, 1.18, 0.015)),
        ];
        let body = [(BodyPoint::Hips, &hips[..])];
        let blind = HandTracks {
            hands: [&hands[0], &hands[1]],
            shoulders: Some([&shoulders[0], &shoulders[1]]),
            elbows: None,
            body: &body,
        };
        let seen = HandTracks {
            elbows: Some([&elbows[0], &elbows[1]]),
            ..blind
        };
        let limits = HandThresholds::default();
        let on_hip = |hand| Touch::Body {
            hand,
            body: BodyPoint::Hips,
        };
        let touches = |t| {
            let c = detect_hands(t, &times(n), 1.75, &limits);
            c.iter().map(|c| c.touch).collect::<Vec<_>>()
        };
        assert_eq!(touches(seen), vec![on_hip(Hand::Left)]);
        assert_eq!(
            touches(blind),
            vec![on_hip(Hand::Left), on_hip(Hand::Right)]
        );
    }
}
