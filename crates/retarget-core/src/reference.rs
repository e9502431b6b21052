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

/// A reference pose made concrete: local transforms per joint and the container above them.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferencePose {
    pub locals: Pose,
    /// `world_from_skeleton`: the skeleton's own container with the side's edit applied.
    pub container: Mat4,
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
