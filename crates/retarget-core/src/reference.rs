//! Reference poses: the pose in which source and target must look alike in world space.
//! It starts as bind, rest or a clip frame and is then edited (container, per-bone offsets).

use super::clip::Clip;
use super::pose::Pose;
use super::skeleton::Skeleton;
use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

/// Where a side's reference pose starts from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub enum PoseSource {
    /// From the skin's inverse bind matrices.
    #[default]
    Bind,
    /// The nodes' own transforms.
    Rest,
    /// A frame of one of the side's clips, at `frame / fps` seconds past the clip start.
    Frame { clip: String, frame: usize },
}

/// A whole-skeleton edit applied above the skeleton's own container:
/// `world = translation * rotation * scale * container`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContainerEdit {
    pub rotation: Quat,
    pub scale: f32,
    pub translation: Vec3,
}

impl Default for ContainerEdit {
    fn default() -> Self {
        Self {
            rotation: Quat::IDENTITY,
            scale: 1.0,
            translation: Vec3::ZERO,
        }
    }
}

impl ContainerEdit {
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(
            Vec3::splat(self.scale),
            self.rotation,
            self.translation,
        )
    }
}

/// How much taller than the pose it was laid from a reference may stand and still give the
/// figure's height. The canonical T-pose stands every humanoid of the corpus 0-12 % taller
/// than its bind (legs and spine straightened); Quaternius' mech George 59 % and
/// Mesh2Motion's kaiju 116 %: figures not built like one.
const LAID_TALLER: f32 = 1.3;

/// A reference pose made concrete: local transforms per joint and the container above them.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferencePose {
    pub locals: Pose,
    /// `world_from_skeleton`: the skeleton's own container with the side's edit applied.
    pub container: Mat4,
    /// The vertical extent of the file's own pose (bind or rest) the reference was laid
    /// from, under `container`: the figure as its file stands it ([`Self::standing_in`]).
    /// `None` where only the reference itself is known.
    pub stance_height: Option<f32>,
}

impl ReferencePose {
    /// The base pose of `source` with `edit` above the container and `bone_offsets`
    /// (joint, rotation in the parent's space) applied to the local rotations.
    pub fn new(
        skeleton: &Skeleton,
        base: Pose,
        edit: &ContainerEdit,
        bone_offsets: &[(usize, Quat)],
    ) -> Self {
        let mut locals = base;
        for &(joint, offset) in bone_offsets {
            if joint < locals.len() {
                locals.rotations[joint] = (offset * locals.rotations[joint]).normalize();
            }
        }
        Self {
            locals,
            container: edit.matrix() * skeleton.container(),
            stance_height: None,
        }
    }

    /// `self`, knowing that `stance` (its base: the file's bind or rest) stands the figure as
    /// the file does. Not a frame of the motion: a dog's lie-and-jump starts lying down.
    pub fn standing_in(mut self, skeleton: &Skeleton, stance: &Pose) -> Self {
        let world = world_matrices_with(skeleton, stance, self.container);
        self.stance_height = Some(vertical_extent(&world));
        self
    }

    /// The figure's height, for sizes that are a share of it (contact bands, the lift of a
    /// foot): the vertical extent of the reference, whose `world` this is; or of the stance
    /// it was laid from where the reference stands it more than [`LAID_TALLER`] as tall.
    /// The canonical T-pose stands the kaiju's body up from its 35° lean and unbends its
    /// digitigrade legs, and its tail, hung from the hips, swings 2 m under the floor:
    /// 4.33 m against the 2.0 m of its bind and of every frame of its clips.
    pub fn height(&self, world: &[Mat4]) -> f32 {
        let own = vertical_extent(world);
        match self.stance_height {
            Some(stance) if stance > 0.0 && own > LAID_TALLER * stance => stance,
            _ => own,
        }
    }

    /// The base pose named by `source`; `None` when the clip is missing.
    pub fn base_pose(skeleton: &Skeleton, source: &PoseSource, clips: &[&Clip]) -> Option<Pose> {
        match source {
            PoseSource::Bind => Some(crate::rig_lengths::bind_pose(skeleton, clips)),
            PoseSource::Rest => Some(Pose::rest(skeleton)),
            PoseSource::Frame { clip, frame } => {
                let c = clips.iter().find(|c| c.name == *clip)?;
                let fps = c.fps().unwrap_or(30.0);
                let mut pose = Pose::rest(skeleton);
                c.sample(c.start_secs() + *frame as f32 / fps, &mut pose);
                Some(pose)
            }
        }
    }

    /// World matrices of every joint (container included).
    pub fn world_matrices(&self, skeleton: &Skeleton) -> Vec<Mat4> {
        world_matrices_with(skeleton, &self.locals, self.container)
    }
}

/// The largest minus the smallest height of the joints' origins (0 for no joints).
fn vertical_extent(world: &[Mat4]) -> f32 {
    let (lo, hi) = world.iter().fold((f32::MAX, f32::MIN), |(lo, hi), m| {
        (lo.min(m.w_axis.y), hi.max(m.w_axis.y))
    });
    (hi - lo).max(0.0)
}

/// Forward kinematics of `pose` under an explicit container.
pub fn world_matrices_with(skeleton: &Skeleton, pose: &Pose, container: Mat4) -> Vec<Mat4> {
    let mut out = vec![Mat4::IDENTITY; pose.len()];
    pose.world_matrices_under(skeleton, container, &mut out);
    out
}

/// World rotations only (no scale), composed from local rotations. Exact when scales are
/// uniform, which the retarget requires of the joints it turns.
pub fn world_rotations_into(
    parents: &[Option<usize>],
    container_rotation: Quat,
    local_rotations: &[Quat],
    out: &mut [Quat],
) {
    for (i, parent) in parents.iter().enumerate() {
        let parent_world = match parent {
            Some(p) => out[*p],
            None => container_rotation,
        };
        out[i] = parent_world * local_rotations[i];
    }
}

/// The rotation part of a matrix that may hold a uniform (or any positive) scale.
pub fn rotation_of(m: Mat4) -> Quat {
    let (_, r, _) = m.to_scale_rotation_translation();
    r.normalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::JointDef;
    use crate::transform::Transform;

    /// A leaning creature: hips 1 up, a head 1 above them, a tail 3 long straight back.
    fn leaning() -> Skeleton {
        let at = |v: Vec3| Transform::from_translation(v);
        Skeleton::new(
            "creature",
            Mat4::IDENTITY,
            vec![
                JointDef::new("hips", None, at(Vec3::Y)),
                JointDef::new("head", Some(0), at(Vec3::Y)),
                JointDef::new("tail", Some(0), at(Vec3::new(0.0, 0.0, -3.0))),
            ],
        )
        .unwrap()
    }

    fn height(reference: &ReferencePose, s: &Skeleton) -> f32 {
        reference.height(&reference.world_matrices(s))
    }

    #[test]
    fn a_reference_laid_much_taller_than_the_figure_stands_measures_the_stance() {
        let s = leaning();
        let bind = Pose::bind(&s);
        // Standing the body up 60° swings the tail down 2.6 under the hips: 3.1 tall, not 1.
        let tilt = [(0, Quat::from_rotation_x(-60f32.to_radians()))];
        let laid = ReferencePose::new(&s, bind.clone(), &Default::default(), &tilt);
        let tall = height(&laid, &s);
        assert!((tall - 3.098).abs() < 1e-3, "{tall}");
        let standing = laid.clone().standing_in(&s, &bind);
        assert!((height(&standing, &s) - 1.0).abs() < 1e-6);
        // 5° (1.26 tall): within what a T-pose adds to a humanoid, the reference's own.
        let nudge = [(0, Quat::from_rotation_x(-5f32.to_radians()))];
        let near = ReferencePose::new(&s, bind.clone(), &Default::default(), &nudge);
        let own = height(&near, &s);
        assert_eq!(height(&near.standing_in(&s, &bind), &s), own);
    }
}
