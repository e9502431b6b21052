//! The grip measure: over each of the source's hand contacts (two hands together, a hand on
//! the body: `contacts::hands`), the distance between the two joints over the height, the
//! target's against the source's, frame by frame, in mm at 1.75 m: judge's `grip` rule
//! (`|dA / hA − dB / hT|`, hA the source's height at frame 0, hT the target's own), so a
//! spec listing the same pairs over the same frames gives judge's figures.

use super::motion::Motion;
use super::report::{Measure, Report};
use super::thresholds::Thresholds;
use crate::contacts::{BodyPoint, HandContact, HandThresholds, HandTracks, Touch, detect_hands};
use glam::Vec3;
use serde::Serialize;

/// Millimetres at the scale of a 1.75 m person, as judge reports them.
const MM_AT_1_75: f64 = 1750.0;

/// One contact to measure: its joints in the source (A) and the output (B), and its frames.
#[derive(Debug, Clone, PartialEq)]
pub struct GripPair {
    pub touch: Touch,
    pub a: (usize, usize),
    pub b: (usize, usize),
    pub start: usize,
    pub end: usize,
}

/// One contact's figures: the two joints' mean distance on each side and how far the
/// target's strays from the source's (mean and worst frame), all mm at 1.75 m.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GripContact {
    pub touch: String,
    /// The joints on each side: (source pair, target pair).
    pub joints: ((String, String), (String, String)),
    pub start: usize,
    pub end: usize,
    pub source_mm: f64,
    pub target_mm: f64,
    pub diff_mean_mm: f64,
    pub diff_max_mm: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GripFigures {
    pub contacts: Vec<GripContact>,
    /// Over every frame of every contact, as judge's `grip_diff_mean` and its worst.
    pub mean_mm: f64,
    pub max_mm: f64,
    /// Per frame, the worst difference of the contacts holding there (0 elsewhere).
    #[serde(skip)]
    pub per_frame_mm: Vec<f64>,
}

/// The hand contacts of source `a`, whose hands are joints `hands` (left, right), upper
/// arms and forearms `arms` (two hands on one prop need the upper arms; a hand on the body,
/// both) and body points `body`, on its height at frame 0 (the measure's, and judge's).
pub fn grip_contacts(
    a: &Motion,
    hands: [usize; 2],
    arms: Option<([usize; 2], Option<[usize; 2]>)>,
    body: &[(BodyPoint, usize)],
    limits: &HandThresholds,
) -> Vec<HandContact> {
    if a.frames() == 0 {
        return Vec::new();
    }
    let track = |j: usize| a.track(j).collect::<Vec<Vec3>>();
    let (left, right) = (track(hands[0]), track(hands[1]));
    let shoulders = arms.map(|(s, _)| s.map(track));
    let elbows = arms.and_then(|(_, e)| e).map(|e| e.map(track));
    let points: Vec<(BodyPoint, Vec<Vec3>)> = body.iter().map(|&(p, j)| (p, track(j))).collect();
    let body: Vec<(BodyPoint, &[Vec3])> = points.iter().map(|(p, t)| (*p, &t[..])).collect();
    let tracks = HandTracks {
        hands: [&left, &right],
        shoulders: shoulders.as_ref().map(|[l, r]| [&l[..], &r[..]]),
        elbows: elbows.as_ref().map(|[l, r]| [&l[..], &r[..]]),
        body: &body,
    };
    detect_hands(tracks, &a.times, a.height(0) as f32, limits)
}

/// Measures `pairs` on source `a`, output `b` (the same frames) and the target's own `t`;
/// `None` without a pair (the source has no hand contact: not judged).
pub fn grip(a: &Motion, b: &Motion, t: &Motion, pairs: &[GripPair]) -> Option<GripFigures> {
    let frames = a.frames().min(b.frames());
    let (ha, ht) = (a.height(0), t.height(0));
    let usable = |h: f64| h.is_finite() && h > 0.0;
    if pairs.is_empty() || frames == 0 || !usable(ha) || !usable(ht) {
        return None;
    }
    let mut per_frame = vec![0.0f64; a.frames()];
    let (mut sum, mut count, mut max) = (0.0, 0usize, 0.0f64);
    let mut contacts = Vec::new();
    for p in pairs.iter().filter(|p| p.start <= p.end && p.end < frames) {
        let (mut s_sum, mut t_sum, mut d_sum, mut d_max) = (0.0, 0.0, 0.0, 0.0f64);
        for (f, worst) in per_frame
            .iter_mut()
            .enumerate()
            .take(p.end + 1)
            .skip(p.start)
        {
            let da = a.at(f, p.a.0).distance(a.at(f, p.a.1)) / ha;
            let db = b.at(f, p.b.0).distance(b.at(f, p.b.1)) / ht;
            let d = (da - db).abs() * MM_AT_1_75;
            (s_sum, t_sum, d_sum) = (s_sum + da * MM_AT_1_75, t_sum + db * MM_AT_1_75, d_sum + d);
            d_max = d_max.max(d);
            *worst = worst.max(d);
        }
        let n = (p.end + 1 - p.start) as f64;
        (sum, count, max) = (sum + d_sum, count + n as usize, max.max(d_max));
        let name = |m: &Motion, (x, y): (usize, usize)| (m.names[x].clone(), m.names[y].clone());
        contacts.push(GripContact {
            touch: p.touch.label(),
            joints: (name(a, p.a), name(b, p.b)),
            start: p.start,
            end: p.end,
            source_mm: s_sum / n,
            target_mm: t_sum / n,
            diff_mean_mm: d_sum / n,
            diff_max_mm: d_max,
        });
    }
    (count > 0).then(|| GripFigures {
        contacts,
        mean_mm: sum / count as f64,
        max_mm: max,
        per_frame_mm: per_frame,
    })
}

impl Report {
    /// Judges `grip` (if the source has hand contacts): its verdict on the worst frame of
    /// any contact against `thresholds.grip_mm`, its flag, its per-frame row.
    pub fn add_grip(&mut self, grip: Option<GripFigures>) {
        let Some(g) = grip else { return };
        let limit = self.thresholds.grip_mm;
        self.set_verdict(Measure::Grip, g.max_mm, limit, || {
            let worst = (g.contacts.iter())
                .max_by(|x, y| x.diff_max_mm.total_cmp(&y.diff_max_mm))
                .map_or_else(String::new, |c| {
                    format!(
                        " ({}, frames {}–{}: source {:.0} mm, target {:.0} mm)",
                        c.touch, c.start, c.end, c.source_mm, c.target_mm
                    )
                });
            format!(
                "grip: a hand contact strays {:.0} mm from the source's{worst} (limit {limit} mm)",
                g.max_mm
            )
        });
        let rows: Vec<f64> = (g.per_frame_mm.iter())
            .map(|&d| Thresholds::severity(d, limit))
            .collect();
        self.add_frame_row(Measure::Grip, &rows);
        self.grip = Some(g);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1.75 m figure of three joints: hips, two hands `gap(frame)` apart.
    fn figure(gap: impl Fn(usize) -> f32, scale: f32) -> Motion {
        let frames = 20;
        Motion {
            times: (0..frames).map(|i| i as f32 / 30.0).collect(),
            names: vec![
                "hips".into(),
                "hand.L".into(),
                "hand.R".into(),
                "head".into(),
            ],
            parents: vec![None, Some(0), Some(0), Some(0)],
            positions: (0..frames)
                .map(|i| {
                    let g = gap(i) / 2.0;
                    [
                        Vec3::new(0.0, 0.0, 0.0),
                        Vec3::new(g, 1.2, 0.3),
                        Vec3::new(-g, 1.2, 0.3),
                        Vec3::new(0.0, 1.75, 0.0),
                    ]
                    .map(|p| p * scale)
                    .to_vec()
                })
                .collect(),
        }
    }

    #[test]
    fn the_hands_gap_is_judged_against_the_sources_in_mm_at_1_75() {
        let together = |i: usize| if (5..15).contains(&i) { 0.06 } else { 0.5 };
        let a = figure(together, 1.0);
        let contacts = grip_contacts(&a, [1, 2], None, &[], &HandThresholds::default());
        assert_eq!(contacts.len(), 1, "{contacts:?}");
        assert_eq!((contacts[0].start, contacts[0].end), (5, 14));
        // A target twice as tall whose hands stay 0.1 apart (0.05 at 1.75 m): 10 mm off.
        let b = figure(|i| if (5..15).contains(&i) { 0.05 } else { 0.5 }, 2.0);
        let t = figure(|_| 0.5, 2.0);
        let pairs = [GripPair {
            touch: Touch::Hands,
            a: (1, 2),
            b: (1, 2),
            start: 5,
            end: 14,
        }];
        let g = grip(&a, &b, &t, &pairs).unwrap();
        assert!(
            (g.max_mm - 10.0).abs() < 1e-3 && (g.mean_mm - 10.0).abs() < 1e-3,
            "{g:?}"
        );
        let c = &g.contacts[0];
        assert!((c.source_mm - 60.0).abs() < 1e-3 && (c.target_mm - 50.0).abs() < 1e-3);
        assert_eq!(g.per_frame_mm[4], 0.0);
        assert!(grip(&a, &b, &t, &[]).is_none(), "no contact, not judged");
    }
}
