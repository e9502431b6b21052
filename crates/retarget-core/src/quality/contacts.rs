//! Foot contacts of the source: the frames where the animator planted a foot. Ground and
//! skate are judged only there, because a foot in the air may go anywhere.

use super::motion::{Motion, xz_distance};
use serde::Serialize;

/// A foot is low when it is within this share of the figure's height of its lowest point.
pub const LOW: f64 = 0.04;
/// A foot is slow when it moves less than this share of the figure's height per second.
pub const SLOW: f64 = 0.10;
/// A contact is a run of at least this many planted frames; shorter runs are passing touches.
pub const MIN_RUN: usize = 3;

/// A run of planted frames, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Contact {
    pub start_frame: usize,
    pub end_frame: usize,
}

impl Contact {
    /// How many frames the contact lasts.
    pub fn frames(&self) -> usize {
        self.end_frame - self.start_frame + 1
    }
}

/// The frames (ascending) where `foot` is planted, by the judge's rule: at frame `i ≥ 1` the
/// foot is less than `LOW`·height(frame 0) above its own lowest height over the clip, and its
/// xz distance to frame `i − 1`, divided by the time step (at least 1 µs), is less than
/// `SLOW`·height per second. Frame 0 has no speed, so it is never planted.
///
/// An in-place clip, whose feet slide back under a still root, has no planted frames.
pub fn planted_frames(motion: &Motion, foot: usize) -> Vec<usize> {
    let height = motion.height(0);
    let floor = motion.min_y(foot);
    (1..motion.frames())
        .filter(|&i| {
            let (here, before) = (motion.at(i, foot), motion.at(i - 1, foot));
            let dt = f64::from(motion.times[i] - motion.times[i - 1]).max(1e-6);
            let speed = xz_distance(here, before) / dt;
            here.y - floor < LOW * height && speed < SLOW * height
        })
        .collect()
}

/// The runs of consecutive frames in `planted` (ascending) that last `min_frames` or more.
pub fn runs(planted: &[usize], min_frames: usize) -> Vec<Contact> {
    let mut out = Vec::new();
    let mut start = 0;
    for k in 1..=planted.len() {
        let ends = k == planted.len() || planted[k] != planted[k - 1] + 1;
        if ends {
            let contact = Contact {
                start_frame: planted[start],
                end_frame: planted[k - 1],
            };
            if contact.frames() >= min_frames {
                out.push(contact);
            }
            start = k;
        }
    }
    out
}

/// The contacts of `foot`: runs of at least `MIN_RUN` planted frames (see `planted_frames`).
pub fn contacts(motion: &Motion, foot: usize) -> Vec<Contact> {
    runs(&planted_frames(motion, foot), MIN_RUN)
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{L_FOOT, R_FOOT, Walk};
    use super::*;
    use glam::Vec3;

    #[test]
    fn the_walk_plants_each_foot_for_its_stance() {
        let a = Walk::default().motion();
        let left: Vec<usize> = (1..=17).chain(31..=47).collect();
        assert_eq!(planted_frames(&a, L_FOOT), left);
        let right: Vec<usize> = [1, 2].into_iter().chain(16..=32).chain([46, 47]).collect();
        assert_eq!(planted_frames(&a, R_FOOT), right);
        let c = |start_frame, end_frame| Contact {
            start_frame,
            end_frame,
        };
        assert_eq!(contacts(&a, L_FOOT), vec![c(1, 17), c(31, 47)]);
        // The two-frame touches at both ends of the clip are not contacts.
        assert_eq!(contacts(&a, R_FOOT), vec![c(16, 32)]);
    }

    #[test]
    fn an_in_place_walk_has_no_planted_frames() {
        let a = Walk {
            in_place: true,
            ..Walk::default()
        }
        .motion();
        assert!(planted_frames(&a, L_FOOT).is_empty());
        assert!(planted_frames(&a, R_FOOT).is_empty());
    }

    /// A foot under a 1.75 m head: low means < 70 mm up, slow means < 175 mm/s.
    fn foot_path(step_x: f32, lift: f32) -> Motion {
        let frames = 6;
        Motion {
            times: (0..frames).map(|i| i as f32 * 0.1).collect(),
            names: vec!["foot".into(), "head".into()],
            parents: vec![None, Some(0)],
            positions: (0..frames)
                .map(|i| {
                    let y = if i == 3 { lift } else { 0.0 };
                    vec![Vec3::new(step_x * i as f32, y, 0.0), Vec3::Y * 1.75]
                })
                .collect(),
        }
    }

    #[test]
    fn low_and_slow_are_shares_of_the_height() {
        assert_eq!(
            planted_frames(&foot_path(0.017, 0.0), 0),
            vec![1, 2, 3, 4, 5]
        );
        assert!(planted_frames(&foot_path(0.018, 0.0), 0).is_empty());
        assert_eq!(
            planted_frames(&foot_path(0.0, 0.069), 0),
            vec![1, 2, 3, 4, 5]
        );
        assert_eq!(planted_frames(&foot_path(0.0, 0.071), 0), vec![1, 2, 4, 5]);
    }

    #[test]
    fn runs_split_at_gaps_and_drop_short_ones() {
        let planted = [1, 2, 3, 5, 6, 8, 9, 10, 11];
        let got: Vec<(usize, usize)> = runs(&planted, 3)
            .iter()
            .map(|c| (c.start_frame, c.end_frame))
            .collect();
        assert_eq!(got, vec![(1, 3), (8, 11)]);
        assert_eq!(runs(&planted, 2).len(), 3);
        assert!(runs(&[], 3).is_empty());
    }
}
