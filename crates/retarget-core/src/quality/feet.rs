//! The feet while the source's foot is planted: how high the target's foot stands above its
//! own floor (ground) and how far it slides (skate). Millimetres at the scale of a 1.75 m
//! person, so a small and a tall character read alike.

use super::QualityError;
use super::contacts::{Contact, contacts, planted_frames};
use super::motion::{FootPair, Motion, xz_distance};
use super::same_frames;
use serde::Serialize;

/// The judge's reference person, in metres.
const PERSON: f64 = 1.75;

/// One foot's share of a figure: its mean, and how many frames (ground) or contacts (skate).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FootFigure {
    pub foot: String,
    pub mean_mm: f64,
    pub count: usize,
}

/// Foot height above the reference's lowest foot height, over the source's planted frames.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroundFigures {
    pub mean_mm: f64,
    /// The value of largest magnitude, with its sign (negative: below the floor).
    pub max_mm: f64,
    pub contact_frames: usize,
    pub per_foot: Vec<FootFigure>,
}

/// The foot's path length on the ground plane over each of the source's contacts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkateFigures {
    pub mean_mm: f64,
    pub max_mm: f64,
    pub contacts: usize,
    pub per_foot: Vec<FootFigure>,
}

/// Per foot, `(frame, mm)` at each planted frame of the source.
pub(super) type GroundSamples = Vec<Vec<(usize, f64)>>;
/// Per foot, `(contact, mm)` for each contact of the source.
pub(super) type SkateSamples = Vec<Vec<(Contact, f64)>>;

/// B's foot height above T's lowest height of that foot, at the given frames, mm at 1.75 m
/// scale by T's height. The judge (`ground`) takes every planted frame, not only contacts.
pub(super) fn ground_samples(
    b: &Motion,
    t: &Motion,
    feet_b: &[usize],
    planted: &[Vec<usize>],
) -> Result<GroundSamples, QualityError> {
    let scale = 1000.0 * PERSON / t.height(0);
    let per_foot = feet_b.iter().zip(planted).map(|(&foot, frames)| {
        let rest = t.min_y(t.counterpart(b, foot)?);
        let mm = |i: usize| (i, (b.at(i, foot).y - rest) * scale);
        Ok(frames.iter().map(|&i| mm(i)).collect())
    });
    per_foot.collect()
}

/// B's foot path on the xz plane over each contact: the steps into each of its frames (the
/// first included, from the frame before), mm at 1.75 m scale by B's height.
pub(super) fn skate_samples(b: &Motion, feet_b: &[usize], runs: &[Vec<Contact>]) -> SkateSamples {
    let scale = 1000.0 * PERSON / b.height(0);
    let path = |foot: usize, c: &Contact| -> f64 {
        let steps = c.start_frame..=c.end_frame;
        steps
            .map(|i| xz_distance(b.at(i, foot), b.at(i - 1, foot)))
            .sum()
    };
    let per_foot = feet_b.iter().zip(runs);
    per_foot
        .map(|(&foot, runs)| runs.iter().map(|c| (*c, path(foot, c) * scale)).collect())
        .collect()
}

fn per_foot(names: &[String], values: &[Vec<f64>]) -> Vec<FootFigure> {
    let figure = |(foot, v): (&String, &Vec<f64>)| FootFigure {
        foot: foot.clone(),
        mean_mm: if v.is_empty() { 0.0 } else { mean(v) },
        count: v.len(),
    };
    names.iter().zip(values).map(figure).collect()
}

/// Each foot's figures, and all of them in one list.
fn figures_of<T>(samples: &[Vec<(T, f64)>]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let values: Vec<Vec<f64>> = samples
        .iter()
        .map(|s| s.iter().map(|x| x.1).collect())
        .collect();
    let all = values.concat();
    (values, all)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The summary of ground samples; `None` when no frame was planted.
pub(super) fn ground_figures(names: &[String], samples: &GroundSamples) -> Option<GroundFigures> {
    let (values, all) = figures_of(samples);
    if all.is_empty() {
        return None;
    }
    // The first value of largest magnitude, as python's `max(vals, key=abs)`.
    let max_mm = all
        .iter()
        .fold(0.0, |m: f64, &v| if v.abs() > m.abs() { v } else { m });
    Some(GroundFigures {
        mean_mm: mean(&all),
        max_mm,
        contact_frames: all.len(),
        per_foot: per_foot(names, &values),
    })
}

/// The summary of skate samples; `None` when the source has no contact.
pub(super) fn skate_figures(names: &[String], samples: &SkateSamples) -> Option<SkateFigures> {
    let (values, all) = figures_of(samples);
    if all.is_empty() {
        return None;
    }
    Some(SkateFigures {
        mean_mm: mean(&all),
        max_mm: all.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        contacts: all.len(),
        per_foot: per_foot(names, &values),
    })
}

/// Ground of `b` against its reference `t` over `a`'s planted frames (see `planted_frames`).
/// The source's own figure is `ground(a, a, a, feet with b = a)`. `None`: no planted frame.
pub fn ground(
    a: &Motion,
    b: &Motion,
    t: &Motion,
    feet: &[FootPair],
) -> Result<Option<GroundFigures>, QualityError> {
    same_frames(a, b)?;
    let planted: Vec<Vec<usize>> = feet.iter().map(|f| planted_frames(a, f.a)).collect();
    let feet_b: Vec<usize> = feet.iter().map(|f| f.b).collect();
    let samples = ground_samples(b, t, &feet_b, &planted)?;
    let names: Vec<String> = feet_b.iter().map(|&f| b.names[f].clone()).collect();
    Ok(ground_figures(&names, &samples))
}

/// Skate of `b` over `a`'s contacts (see `contacts`). The source's own is `skate(a, a, ..)`.
/// `None`: the source has no contact.
pub fn skate(
    a: &Motion,
    b: &Motion,
    feet: &[FootPair],
) -> Result<Option<SkateFigures>, QualityError> {
    same_frames(a, b)?;
    let runs: Vec<Vec<Contact>> = feet.iter().map(|f| contacts(a, f.a)).collect();
    let feet_b: Vec<usize> = feet.iter().map(|f| f.b).collect();
    let names: Vec<String> = feet_b.iter().map(|&f| b.names[f].clone()).collect();
    Ok(skate_figures(&names, &skate_samples(b, &feet_b, &runs)))
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{L_FOOT, Walk, edited, lifted, rest, spec};
    use super::*;
    use glam::Vec3;

    fn close(got: f64, want: f64) {
        assert!((got - want).abs() < 1e-3, "got {got}, want {want}");
    }

    #[test]
    fn a_floating_copy_stands_41_mm_above_a_source_on_its_floor() {
        let a = Walk::default().motion();
        let b = lifted(&a, 0.041);
        let feet = spec().feet;
        let own = ground(&a, &a, &a, &feet).unwrap().unwrap();
        close(own.mean_mm, 0.0);
        let got = ground(&a, &b, &rest(&a), &feet).unwrap().unwrap();
        close(got.mean_mm, 41.0);
        close(got.max_mm, 41.0);
        // Every planted frame counts, the right foot's two-frame touches too: 34 + 21, not 51.
        assert_eq!(got.contact_frames, 55);
        assert_eq!((got.per_foot[0].count, got.per_foot[1].count), (34, 21));
        assert_eq!(got.per_foot[1].foot, "foot.R");
    }

    #[test]
    fn ground_is_measured_from_the_reference_floor_at_its_scale() {
        let a = Walk::default().motion();
        let b = lifted(&a, 0.041);
        // T stands 20 mm lower: B's feet are 61 mm above T's floor.
        let t = rest(&lifted(&a, -0.02));
        close(
            ground(&a, &b, &t, &spec().feet).unwrap().unwrap().mean_mm,
            61.0,
        );
        // A reference twice as tall halves the millimetres (its floor is then at 0.16 m).
        let tall = edited(&rest(&a), |_, _, p| p * 2.0);
        let want = (0.121 - 0.16) * 1000.0 * 1.75 / 3.5;
        close(
            ground(&a, &b, &tall, &spec().feet)
                .unwrap()
                .unwrap()
                .mean_mm,
            want,
        );
    }

    #[test]
    fn the_largest_value_keeps_its_sign() {
        let a = Walk::default().motion();
        let b = edited(&lifted(&a, 0.041), |i, j, p| {
            if i == 10 && j == L_FOOT {
                p - Vec3::Y * 0.141
            } else {
                p
            }
        });
        let got = ground(&a, &b, &rest(&a), &spec().feet).unwrap().unwrap();
        close(got.max_mm, -100.0);
        close(got.mean_mm, (41.0 * 54.0 - 100.0) / 55.0);
    }

    #[test]
    fn feet_sliding_3_cm_per_contact_skate_30_mm() {
        let a = Walk::default().motion();
        let b = Walk {
            slide: 0.03,
            ..Walk::default()
        }
        .motion();
        let feet = spec().feet;
        let own = skate(&a, &a, &feet).unwrap().unwrap();
        close(own.mean_mm, 0.0);
        let got = skate(&a, &b, &feet).unwrap().unwrap();
        close(got.mean_mm, 30.0);
        close(got.max_mm, 30.0);
        assert_eq!(got.contacts, 3);
        assert_eq!((got.per_foot[0].count, got.per_foot[1].count), (2, 1));
        // Twice the size slides twice as far, and reads the same at 1.75 m scale.
        let big = edited(&b, |_, _, p| p * 2.0);
        close(skate(&a, &big, &feet).unwrap().unwrap().mean_mm, 30.0);
    }

    #[test]
    fn an_in_place_source_judges_no_feet() {
        let a = Walk {
            in_place: true,
            ..Walk::default()
        }
        .motion();
        assert_eq!(ground(&a, &a, &a, &spec().feet), Ok(None));
        assert_eq!(skate(&a, &a, &spec().feet), Ok(None));
    }

    #[test]
    fn frames_must_match() {
        let a = Walk::default().motion();
        let b = Walk {
            frames: 40,
            ..Walk::default()
        }
        .motion();
        assert_eq!(
            skate(&a, &b, &spec().feet),
            Err(QualityError::FrameCount { a: 48, b: 40 })
        );
    }
}
