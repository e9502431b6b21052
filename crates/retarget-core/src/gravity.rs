//! Which way is up for mocap whose file does not say: read from what the motion does (a body
//! that stands has its head over its feet; any figure's limbs hang towards the floor), not
//! from rest offsets, which research datasets lay along +X and creatures lay anyhow.

use super::characterize::is_standing;
use super::clip::Clip;
use super::humanoid::HumanBone;
use super::pose::Pose;
use super::skeleton::Skeleton;
use super::units::Axis;
use glam::Vec3;

/// Frames of the clip read for the evidence (evenly spaced).
const SAMPLES: usize = 32;

/// How up was found, with the evidence a user can check.
#[derive(Clone, Debug, PartialEq)]
pub enum UpEvidence {
    /// The rest pose stands (head over feet) and the motion agrees or says nothing.
    RestStands,
    /// The body stands in `standing` of `sampled` frames of the motion, head over feet.
    MotionStands { standing: usize, sampled: usize },
    /// The head is over the feet along the format's up (+Y) in `over` of `sampled` frames,
    /// though the body leans too far to count as standing (a walk bent forward): the
    /// convention holds.
    HeadOverFeet { over: usize, sampled: usize },
    /// No standing body: the figure's leaf joints hang towards `-up` over the motion, by
    /// `share` of their mean pull (1 when every leaf hangs straight down).
    LimbsHang { share: f32 },
    /// No standing body, and the leaves' hang points off the format's +Y; but `feet` leaf
    /// joints on average share the lowest level along +Y over the motion (feet on a floor),
    /// where the hang's axis has fewer: the convention holds.
    FeetOnFloor { feet: f32 },
}

/// Up, the pose to measure the figure in, and why.
#[derive(Clone, Debug)]
pub struct UpReading {
    pub up: Axis,
    pub evidence: UpEvidence,
    /// The pose the figure stands in: the rest when it stands, else a frame of the motion.
    pub stance: Pose,
    /// Whether `stance` is a frame of the motion.
    pub stance_from_motion: bool,
    /// The up the rest pose would give, where it differs from `up`.
    pub rest_says: Option<Axis>,
    /// The up that came next: the format's +Y where the evidence overruled it, else what
    /// the limbs' hang or the rest would say.
    pub runner_up: Option<Axis>,
}

impl UpReading {
    /// One line for the import notes.
    pub fn describe(&self) -> String {
        let up = self.up.name();
        let why = match &self.evidence {
            UpEvidence::RestStands => "the rest pose stands, head over feet".to_owned(),
            UpEvidence::MotionStands { standing, sampled } => {
                format!("the body stands head over feet in {standing} of {sampled} frames")
            }
            UpEvidence::HeadOverFeet { over, sampled } => {
                format!("the head is over the feet in {over} of {sampled} frames")
            }
            UpEvidence::FeetOnFloor { feet } => format!(
                "no standing body; {feet:.1} end joints share the lowest level over the motion, \
                 as feet on a floor"
            ),
            UpEvidence::LimbsHang { share } => format!(
                "no standing body; its end joints hang towards {} over the motion ({:.0} % of their pull)",
                opposite(self.up).name(),
                share * 100.0
            ),
        };
        match self.rest_says {
            Some(rest) => format!(
                "up is {up}, read from the motion ({why}); the rest pose would say {}",
                rest.name()
            ),
            None => format!("up is {up} ({why})"),
        }
    }
}

fn opposite(a: Axis) -> Axis {
    Axis::dominant(-a.vector())
}

/// Reads up from `clip` on `skeleton` (`labels` one per joint, where names tell hips, head
/// and feet). `None` when neither the rest pose nor the motion says anything: the caller
/// assumes its format's default.
pub fn read_up(
    skeleton: &Skeleton,
    labels: &[Option<HumanBone>],
    clip: Option<&Clip>,
) -> Option<UpReading> {
    let rest = Pose::rest(skeleton);
    let rest_positions = rest.world_positions(skeleton);
    let rest_up = (is_standing(labels, &rest_positions) == Some(true))
        .then(|| head_over_feet(labels, &rest_positions))
        .flatten();
    let frames = clip.map_or_else(Vec::new, |c| sampled_poses(skeleton, c));
    let positions: Vec<Vec<Vec3>> = frames.iter().map(|p| p.world_positions(skeleton)).collect();
    let standing: Vec<usize> = (0..frames.len())
        .filter(|&f| is_standing(labels, &positions[f]) == Some(true))
        .collect();
    // A body that stands in a quarter of the clip or more: its head is over its feet.
    if !standing.is_empty() && standing.len() * 4 >= frames.len() {
        let mean: Vec3 = standing
            .iter()
            .filter_map(|&f| head_over_feet(labels, &positions[f]))
            .map(Axis::vector)
            .sum();
        if mean.length_squared() > 0.0 {
            let up = Axis::dominant(mean);
            let (stance, stance_from_motion) = match rest_up {
                Some(_) => (rest, false),
                None => (frames[standing[0]].clone(), true),
            };
            return Some(UpReading {
                up,
                evidence: UpEvidence::MotionStands {
                    standing: standing.len(),
                    sampled: frames.len(),
                },
                stance,
                stance_from_motion,
                rest_says: rest_up.filter(|r| *r != up),
                runner_up: (up != Axis::PosY).then_some(Axis::PosY),
            });
        }
    }
    // The format's +Y holds while the head is over the feet along it in half the frames or
    // more, though the body leans (the leaves' hang says little of a person: hands and
    // head swing as much as they hang).
    let over = (positions.iter())
        .filter(|p| head_over_feet(labels, p) == Some(Axis::PosY))
        .count();
    if !positions.is_empty() && over * 2 >= positions.len() {
        let first = (positions.iter())
            .position(|p| head_over_feet(labels, p) == Some(Axis::PosY))
            .unwrap_or(0);
        let (stance, stance_from_motion) = match rest_up {
            Some(Axis::PosY) => (rest, false),
            _ => (frames[first].clone(), true),
        };
        let runner_up = limbs_hang(skeleton, &positions)
            .map(|h| opposite(h.0))
            .filter(|a| *a != Axis::PosY);
        return Some(UpReading {
            up: Axis::PosY,
            evidence: UpEvidence::HeadOverFeet {
                over,
                sampled: positions.len(),
            },
            stance,
            stance_from_motion,
            rest_says: rest_up.filter(|r| *r != Axis::PosY),
            runner_up,
        });
    }
    if let Some(up) = rest_up {
        return Some(UpReading {
            up,
            evidence: UpEvidence::RestStands,
            stance: rest,
            stance_from_motion: false,
            rest_says: None,
            runner_up: (up != Axis::PosY).then_some(Axis::PosY),
        });
    }
    let (down, share) = limbs_hang(skeleton, &positions)?;
    let up = opposite(down);
    // The leaves' pull is weak evidence on a creature (a trunk, a tail and eye stalks pull
    // sideways): it overrules the format's +Y only where the feet do not stand on a floor
    // across it.
    let on_floor = |axis: Axis| feet_on_floor(skeleton, &positions, axis);
    if up != Axis::PosY && on_floor(Axis::PosY) >= 2.0 && on_floor(Axis::PosY) > on_floor(up) {
        let (stance, stance_from_motion) = match frames.into_iter().next() {
            Some(first) => (first, true),
            None => (rest, false),
        };
        return Some(UpReading {
            up: Axis::PosY,
            evidence: UpEvidence::FeetOnFloor {
                feet: on_floor(Axis::PosY),
            },
            stance,
            stance_from_motion,
            rest_says: None,
            runner_up: Some(up),
        });
    }
    // A rest pose whose limbs do not hang as the motion's do (a creature laid along +X, or
    // every bone on one line) is read standing, at the motion's first frame.
    let rest_down = limbs_hang(skeleton, std::slice::from_ref(&rest_positions)).map(|h| h.0);
    let rest_says = rest_down
        .map(opposite)
        .or_else(|| head_over_feet(labels, &rest_positions))
        .filter(|r| *r != up);
    let (stance, stance_from_motion) = match frames.into_iter().next() {
        Some(first) if rest_down != Some(down) => (first, true),
        _ => (rest, false),
    };
    Some(UpReading {
        up,
        evidence: UpEvidence::LimbsHang { share },
        stance,
        stance_from_motion,
        rest_says,
        runner_up: (up != Axis::PosY).then_some(Axis::PosY).or(rest_says),
    })
}

/// The axis from the feet to the head in one pose (`None` without them or when they meet).
fn head_over_feet(labels: &[Option<HumanBone>], positions: &[Vec3]) -> Option<Axis> {
    use HumanBone::*;
    let find = |bones: &[HumanBone]| {
        bones
            .iter()
            .find_map(|b| labels.iter().position(|l| *l == Some(*b)))
    };
    let head = find(&[Head, Neck, UpperChest])?;
    let feet: Vec<Vec3> = [LeftFoot, RightFoot]
        .iter()
        .filter_map(|b| find(&[*b]))
        .map(|f| positions[f])
        .collect();
    if feet.is_empty() {
        return None;
    }
    let v = positions[head] - feet.iter().sum::<Vec3>() / feet.len() as f32;
    (v.length_squared() > 0.0).then(|| Axis::dominant(v))
}

/// How many leaf joints, on average over the frames, lie within 4 % of the figure's size of
/// its lowest point along `up`: feet standing on a floor share that level, where a trunk's
/// or a tail's tip along another axis stands alone.
fn feet_on_floor(skeleton: &Skeleton, frames: &[Vec<Vec3>], up: Axis) -> f32 {
    let leaves: Vec<usize> = (0..skeleton.len())
        .filter(|&j| skeleton.children(j).next().is_none())
        .collect();
    if leaves.is_empty() || frames.is_empty() {
        return 0.0;
    }
    let dir = up.vector();
    let mut total = 0usize;
    for positions in frames {
        // The leaves' lowest, not every joint's: a root may sit at the origin, below the feet.
        let (lo, hi) = (leaves.iter())
            .map(|&j| positions[j].dot(dir))
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), d| {
                (lo.min(d), hi.max(d))
            });
        let (min, max) = (positions.iter()).fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(a, b), p| (a.min(*p), b.max(*p)),
        );
        let size = (max - min).length().max(hi - lo);
        let low = (leaves.iter())
            .filter(|&&j| positions[j].dot(dir) - lo <= 0.04 * size)
            .count();
        // Every leaf on one level is a figure flat across `up`, not feet on a floor.
        if low * 4 <= leaves.len() * 3 {
            total += low;
        }
    }
    total as f32 / frames.len() as f32
}

/// Up to `SAMPLES` poses evenly spaced over the clip, its first frame included.
pub(crate) fn sampled_poses(skeleton: &Skeleton, clip: &Clip) -> Vec<Pose> {
    let n = clip.frame_count().clamp(1, SAMPLES);
    let rest = Pose::rest(skeleton);
    (0..n)
        .map(|k| {
            let t = clip.start_secs() + clip.duration_secs() * k as f32 / (n.max(2) - 1) as f32;
            let mut pose = rest.clone();
            clip.sample(t, &mut pose);
            pose
        })
        .collect()
}

/// Where the figure's leaf joints hang, from its centre, over the sampled frames: the axis
/// of their mean direction and how much of it lies along that axis. `None` when the pull has
/// no clear axis (under 0.6 of it along the best one) or there is nothing to read.
fn limbs_hang(skeleton: &Skeleton, frames: &[Vec<Vec3>]) -> Option<(Axis, f32)> {
    let leaves: Vec<usize> = (0..skeleton.len())
        .filter(|&j| skeleton.children(j).next().is_none())
        .collect();
    if leaves.is_empty() || frames.is_empty() {
        return None;
    }
    let mut pull = Vec3::ZERO;
    for positions in frames {
        let centre = positions.iter().sum::<Vec3>() / positions.len() as f32;
        pull += leaves
            .iter()
            .filter_map(|&j| (positions[j] - centre).try_normalize())
            .sum::<Vec3>();
    }
    let axis = Axis::dominant(pull);
    let share = pull.dot(axis.vector()) / pull.length().max(f32::MIN_POSITIVE);
    (share >= 0.6).then_some((axis, share))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Interpolation, JointDef, JointTracks, Track, Transform};
    use glam::Quat;

    /// A four-legged figure facing +X, Y up: a long body, legs hanging, a head in front and
    /// a tail behind. Every offset of its rest lies along +X (as some exporters write it),
    /// and one clip frame turns the legs, neck and tail into place.
    fn quadruped() -> (Skeleton, Clip) {
        let j = |name: &str, parent: Option<usize>, x: f32| {
            JointDef::new(name, parent, Transform::from_translation(Vec3::X * x))
        };
        let joints = vec![
            j("pelvis", None, 0.0),
            j("spine", Some(0), 0.6),
            j("chest", Some(1), 0.6),
            j("neck", Some(2), 0.2),
            j("head", Some(3), 0.4),
            j("head_end", Some(4), 0.3),
            j("tail", Some(0), 0.3),
            j("tail_end", Some(6), 0.5),
        ];
        let mut joints = joints;
        for (k, parent) in [(0, 0), (1, 0), (2, 2), (3, 2)] {
            let base = joints.len();
            joints.push(j(&format!("leg{k}"), Some(parent), 0.1));
            joints.push(j(&format!("shin{k}"), Some(base), 0.5));
            joints.push(j(&format!("foot{k}"), Some(base + 1), 0.5));
            joints.push(j(&format!("foot{k}_end"), Some(base + 2), 0.15));
        }
        let skeleton = Skeleton::new("quadruped", glam::Mat4::IDENTITY, joints).unwrap();
        let turn = |name: &str| -> Quat {
            match name {
                n if n.starts_with("leg") => Quat::from_rotation_z(-90f32.to_radians()),
                n if n.starts_with("foot") && !n.ends_with("_end") => {
                    Quat::from_rotation_z(90f32.to_radians())
                }
                "neck" => Quat::from_rotation_z(45f32.to_radians()),
                "head" => Quat::from_rotation_z(-45f32.to_radians()),
                "tail" => Quat::from_rotation_z(150f32.to_radians()),
                _ => Quat::IDENTITY,
            }
        };
        let times = vec![0.0, 1.0];
        let tracks = skeleton
            .names()
            .iter()
            .map(|n| JointTracks {
                rotation: Some(
                    Track::new(times.clone(), vec![turn(n); 2], Interpolation::Linear).unwrap(),
                ),
                ..Default::default()
            })
            .collect();
        (skeleton, Clip::new("walk", tracks, Some(1.0)))
    }

    #[test]
    fn a_quadruped_whose_rest_lies_along_x_is_read_as_y_up_from_its_motion() {
        let (skeleton, clip) = quadruped();
        let labels = vec![None; skeleton.len()];
        let reading = read_up(&skeleton, &labels, Some(&clip)).unwrap();
        assert_eq!(reading.up, Axis::PosY, "{}", reading.describe());
        assert!(matches!(reading.evidence, UpEvidence::LimbsHang { .. }));
        assert!(reading.stance_from_motion);
    }

    #[test]
    fn the_same_quadruped_turned_z_up_is_read_as_z_up() {
        let (skeleton, clip) = quadruped();
        let turn = Quat::from_rotation_x(90f32.to_radians());
        let mut tracks: Vec<JointTracks> = clip.tracks().to_vec();
        let root = tracks[0].rotation.as_ref().unwrap();
        let turned: Vec<Quat> = root.values().iter().map(|q| turn * *q).collect();
        tracks[0].rotation =
            Some(Track::new(root.times().to_vec(), turned, Interpolation::Linear).unwrap());
        let clip = Clip::new("walk", tracks, Some(1.0));
        let reading = read_up(&skeleton, &vec![None; skeleton.len()], Some(&clip)).unwrap();
        assert_eq!(reading.up, Axis::PosZ, "{}", reading.describe());
    }

    #[test]
    fn a_rest_with_nothing_to_read_and_no_motion_says_nothing() {
        let (skeleton, _) = quadruped();
        // Every leaf along +X: a clear pull, but only from the rest, which is not read
        // without a standing body. With no clip there is no motion to read either.
        assert!(read_up(&skeleton, &vec![None; skeleton.len()], None).is_none());
    }
}
