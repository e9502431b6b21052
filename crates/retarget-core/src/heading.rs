//! Which way a figure faces when nothing in it says: mocap writes its facing nowhere, a
//! creature has no hips and shoulders to read it from, and rest offsets lie along any axis.
//! Forward is where the body travels over the clip, else where its head end lies from its
//! tail end. Up is read first (`gravity`): both are horizontal in a world with +Y up.

use super::chains::{ChainKind, ChainSkeleton};
use super::clip::Clip;
use super::gravity::sampled_poses;
use super::humanoid::HumanBone;
use super::pose::Pose;
use super::skeleton::{Skeleton, is_ancestor_in};
use super::units::Axis;
use glam::{Mat4, Quat, Vec3};

/// Travel under this share of the figure's length says nothing (a step on the spot, a sway).
const MIN_TRAVEL: f32 = 0.5;
/// Travel whose net distance is under this share of its path wanders: it has no heading.
const MIN_STRAIGHT: f32 = 0.8;
/// A body line leaning less than this from upright is a standing figure's: no facing.
const MIN_LEAN_DEG: f32 = 30.0;
/// A facing this close to an axis is that axis: files are authored on axes, and a creature
/// that drifts a few degrees over its walk must not turn the world its path lies in.
const SNAP_DEG: f32 = 10.0;

/// How forward was found, with the evidence a user can check.
#[derive(Clone, Debug, PartialEq)]
pub enum ForwardEvidence {
    /// The body's centre travels `lengths` of its own length over the clip, in a straight line.
    Travel { lengths: f32 },
    /// No travel to go on: the head end of the body (`head`) lies ahead of its tail end
    /// (`tail`) in the pose it stands in (`frames` is `None`), else over `frames` sampled
    /// frames of its clip.
    BodyLine {
        head: String,
        tail: String,
        frames: Option<usize>,
    },
}

/// Forward in the world the figure was read in, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ForwardReading {
    /// Horizontal and of unit length.
    pub forward: Vec3,
    pub evidence: ForwardEvidence,
    /// Where the body line points, when the travel says otherwise by more than 45° (a figure
    /// that walks backwards or sideways).
    pub body_says: Option<Axis>,
}

impl ForwardReading {
    /// Degrees about +Y from +Z to `forward` (+90 at +X), snapped to the axis within 10°.
    pub fn yaw_deg(&self) -> f32 {
        let yaw = self.forward.x.atan2(self.forward.z).to_degrees();
        let axis = (yaw / 90.0).round() * 90.0;
        if (yaw - axis).abs() < SNAP_DEG {
            axis
        } else {
            yaw
        }
    }

    /// The turn about +Y that makes the figure face +Z.
    pub fn turn(&self) -> Quat {
        Quat::from_rotation_y(-self.yaw_deg().to_radians())
    }

    /// One line for the import notes.
    pub fn describe(&self) -> String {
        let yaw = self.yaw_deg();
        let facing = if yaw % 90.0 == 0.0 {
            Axis::dominant(self.forward).name().to_owned()
        } else {
            let towards = if yaw > 0.0 { "+X" } else { "-X" };
            format!("{:.0}° from +Z towards {towards}", yaw.abs())
        };
        let why = match &self.evidence {
            ForwardEvidence::Travel { lengths } => {
                format!("the body travels {lengths:.1} of its lengths that way over the clip")
            }
            ForwardEvidence::BodyLine { head, tail, frames } => {
                let when = match frames {
                    None => "in the pose it stands in".to_owned(),
                    Some(n) => format!("over {n} frames"),
                };
                format!(
                    "no travel to go on; its head end {head} lies ahead of its tail end {tail} {when}"
                )
            }
        };
        let from = match &self.evidence {
            ForwardEvidence::BodyLine { frames: None, .. } => "its pose",
            _ => "the motion",
        };
        match self.body_says {
            Some(axis) => format!(
                "forward is {facing}, read from {from} ({why}); its body line would say {}",
                axis.name()
            ),
            None => format!("forward is {facing}, read from {from} ({why})"),
        }
    }
}

/// Reads forward from `clip` on `skeleton` under `container` (its world must have +Y up),
/// `stance` the pose it stands in; `line` is the (head end, tail end) joint pair of its body
/// (`body_line`). `None` when it neither travels nor lies along a body line.
pub fn read_forward(
    skeleton: &Skeleton,
    container: Mat4,
    stance: &Pose,
    clip: Option<&Clip>,
    line: Option<(usize, usize)>,
) -> Option<ForwardReading> {
    let world = |pose: &Pose| -> Vec<Vec3> {
        let mut out = vec![Mat4::IDENTITY; pose.len()];
        pose.world_matrices_under(skeleton, container, &mut out);
        out.iter().map(|m| m.w_axis.truncate()).collect()
    };
    let rest = world(stance);
    let frames: Vec<Vec<Vec3>> = clip
        .map(|c| sampled_poses(skeleton, c).iter().map(world).collect())
        .unwrap_or_default();
    // The pose it stands in is authored; a clip may roll, fall or turn (a horse's death):
    // the body line over the clip counts only where the stance lies upright.
    let stance_line = line.and_then(|l| body_direction(l, std::slice::from_ref(&rest)));
    let body = stance_line.map(|b| (b, None)).or_else(|| {
        line.filter(|_| !frames.is_empty())
            .and_then(|l| body_direction(l, &frames))
            .map(|b| (b, Some(frames.len())))
    });
    let names = skeleton.names();
    if let Some((forward, lengths)) = travel(&frames, horizontal_length(&rest)) {
        return Some(ForwardReading {
            forward,
            evidence: ForwardEvidence::Travel { lengths },
            body_says: body
                .map(|(b, _)| b)
                .filter(|b| b.angle_between(forward) > 45f32.to_radians())
                .map(Axis::dominant),
        });
    }
    let (head, tail) = line?;
    let (forward, frames) = body?;
    Some(ForwardReading {
        forward,
        evidence: ForwardEvidence::BodyLine {
            head: names[head].clone(),
            tail: names[tail].clone(),
            frames,
        },
        body_says: None,
    })
}

fn flat(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

/// The diagonal of the figure's footprint: its length, whichever way it lies.
fn horizontal_length(positions: &[Vec3]) -> f32 {
    let (lo, hi) = positions
        .iter()
        .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    flat(hi - lo).length()
}

/// The direction of the body's centre's travel and how far it goes in lengths, when it goes
/// at least `MIN_TRAVEL` lengths in a near-straight line.
fn travel(frames: &[Vec<Vec3>], length: f32) -> Option<(Vec3, f32)> {
    let centres: Vec<Vec3> = frames
        .iter()
        .map(|f| flat(f.iter().sum::<Vec3>() / f.len().max(1) as f32))
        .collect();
    let (first, last) = (centres.first()?, centres.last()?);
    let net = *last - *first;
    let path: f32 = centres.windows(2).map(|w| w[0].distance(w[1])).sum();
    let lengths = net.length() / length.max(f32::MIN_POSITIVE);
    (lengths >= MIN_TRAVEL && net.length() >= MIN_STRAIGHT * path)
        .then(|| (net.normalize(), lengths))
}

/// The mean horizontal direction from the tail end to the head end, when the body lies
/// leans more than `MIN_LEAN_DEG` from upright (a standing biped's spine says nothing of its
/// facing; a horse's head stands high above its belly, 42° from upright, and ahead of it).
fn body_direction((head, tail): (usize, usize), frames: &[Vec<Vec3>]) -> Option<Vec3> {
    let v: Vec3 = frames.iter().map(|f| f[head] - f[tail]).sum();
    let level = flat(v);
    let lean = level.length().atan2(v.y.abs()).to_degrees();
    (lean > MIN_LEAN_DEG).then(|| level.try_normalize())?
}

/// The joints a body line runs between: its head (a joint labelled or named head, else
/// neck, else the far end of the spine) and its tail end, the pelvis. `labels` are the ones
/// to trust (names, a file's table), one per joint.
pub fn body_line(
    chains: &ChainSkeleton,
    parents: &[Option<usize>],
    names: &[String],
    labels: &[Option<HumanBone>],
) -> Option<(usize, usize)> {
    let pelvis = chains.pelvis()?;
    let below = |j: &usize| *j != pelvis && is_ancestor_in(parents, pelvis, *j);
    let labelled = |bone: HumanBone| (0..labels.len()).find(|j| labels[*j] == Some(bone));
    let named = |word: &str| (0..names.len()).find(|j| names[*j].to_lowercase().contains(word));
    let depth = |mut j: usize| {
        let mut d = 0;
        while let Some(p) = parents[j] {
            (j, d) = (p, d + 1);
        }
        d
    };
    let spine_end = chains
        .chains
        .iter()
        .filter(|c| c.kind == ChainKind::Spine)
        .map(|c| c.end())
        .max_by_key(|&j| depth(j));
    let head = [
        labelled(HumanBone::Head),
        named("head"),
        labelled(HumanBone::Neck),
        named("neck"),
        spine_end,
    ]
    .into_iter()
    .flatten()
    .find(below)?;
    Some((head, pelvis))
}

#[cfg(test)]
mod tests;
