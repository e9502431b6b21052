//! Where each viewport draws its floor: the height the character's soles stand at, so that
//! a retarget that floats or sinks shows it against the ground.
//!
//! The solver puts floors at ankle height (the source's lowest ankle over the clip, the
//! target's ankles in its own pose or, for a BVH, over its own clip: `Side::floor`); the
//! mesh's soles lie below the ankles by the depth the character's own pose shows. Worked out once per document
//! revision and clip, never per frame.

use super::viewport::skinning::skin_primitive_into;
use crate::core::retarget::Legs;
use crate::core::{BonePair, Clip, HumanBone, Pose, ReferencePose};
use crate::session::{Session, Side};
use glam::Mat4;

/// At most this many frames of the clip are sampled for the source's lowest ankle.
const FLOOR_SAMPLES: usize = 400;

/// What one viewport stands its character on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ground {
    /// Height of the soles when a foot is planted; `None` where the side has no clip or no
    /// joints to stand on (the grid then stays at the glTF ground).
    pub floor: Option<f32>,
    /// How high a planted ankle stands above the floor.
    pub ankle_height: f32,
    /// Each foot (ankle) joint, with its toes joint when mapped: what casts a contact shadow.
    pub feet: Vec<(usize, Option<usize>)>,
}

/// The grounds of the source (0) and target (1) viewports. The source's floor is the
/// lowest its body reaches over the clip (mocap floors drift; the figure must never go
/// through its own floor); the target's is where the solver stands its ankles.
pub fn grounds(session: &Session, clip: Option<&Clip>) -> [Ground; 2] {
    let (source, target) = (&session.source, &session.target);
    let source_feet = Legs::of_map(&session.map, |p| p.source).feet;
    let target_feet = Legs::of_map(&session.map, |p| p.target).feet;
    let (source_own, target_own) = (OwnPose::of(source), OwnPose::of(target));
    let depth = |own: &Option<OwnPose>, joints: &[usize]| own.as_ref().map(|o| o.depth(joints));
    let source_lowest = clip.and_then(|c| lowest_over_clip(source, c));
    let target_ankles = target.floor(&session.map, |p| p.target);
    [
        Ground {
            floor: source_lowest
                .zip(depth(&source_own, &[]))
                .map(|(low, d)| low - d),
            ankle_height: depth(&source_own, &source_feet).unwrap_or(0.0),
            feet: feet_with_toes(session, |p| p.source),
        },
        Ground {
            floor: target_ankles
                .zip(depth(&target_own, &target_feet))
                .map(|(a, d)| a - d),
            ankle_height: depth(&target_own, &target_feet).unwrap_or(0.0),
            feet: feet_with_toes(session, |p| p.target),
        },
    ]
}

/// The mapped feet of one side (`pick` chooses it from a pair), each with its toes.
fn feet_with_toes(session: &Session, pick: fn(&BonePair) -> usize) -> Vec<(usize, Option<usize>)> {
    let find = |b: HumanBone| {
        session
            .map
            .pairs()
            .iter()
            .find(|p| p.bone == Some(b))
            .map(pick)
    };
    [
        (HumanBone::LeftFoot, HumanBone::LeftToes),
        (HumanBone::RightFoot, HumanBone::RightToes),
    ]
    .into_iter()
    .filter_map(|(foot, toes)| Some((find(foot)?, find(toes))))
    .collect()
}

/// The lowest joint over `clip`, as the viewport poses the side: the clip sampled over the
/// rest pose, under the side's container.
fn lowest_over_clip(side: &Side, clip: &Clip) -> Option<f32> {
    let skeleton = side.skeleton();
    let rest = Pose::rest(skeleton);
    let mut pose = rest.clone();
    let mut world = vec![Mat4::IDENTITY; skeleton.len()];
    let frames = clip.frame_count().clamp(2, FLOOR_SAMPLES);
    let step = clip.duration_secs() / (frames - 1) as f32;
    let mut lowest = f32::INFINITY;
    for k in 0..frames {
        pose.copy_from(&rest);
        clip.sample(clip.start_secs() + k as f32 * step, &mut pose);
        pose.world_matrices_under(skeleton, side.reference.container, &mut world);
        lowest = lowest.min(lowest_of(&world, &[]));
    }
    lowest.is_finite().then_some(lowest)
}

/// A side in its own pose (its reference base, without the bone offsets that straighten
/// it): its joints, and the lowest point of its body (skinned vertices and joints).
struct OwnPose {
    world: Vec<Mat4>,
    lowest: f32,
}

impl OwnPose {
    fn of(side: &Side) -> Option<Self> {
        let skeleton = side.skeleton();
        let base = ReferencePose::base_pose(skeleton, &side.file.reference, &side.clips())?;
        let own = ReferencePose::new(skeleton, base, &side.file.container, &[]);
        let world = own.world_matrices(skeleton);
        let mut lowest = lowest_of(&world, &[]);
        let (mut positions, mut normals) = (Vec::new(), Vec::new());
        let meshes = side.asset.meshes.iter();
        for mesh in meshes.filter(|m| m.skeleton == side.skeleton_index) {
            for prim in &mesh.primitives {
                skin_primitive_into(
                    prim,
                    &mesh.inverse_bind,
                    &world,
                    &mesh.morph_weights,
                    &mut positions,
                    &mut normals,
                );
                lowest = positions.iter().map(|p| p.y).fold(lowest, f32::min);
            }
        }
        lowest.is_finite().then_some(Self { world, lowest })
    }

    /// How far the body reaches below the lowest of `joints` (of every joint, when empty):
    /// the soles' depth under the ankles, say.
    fn depth(&self, joints: &[usize]) -> f32 {
        let d = lowest_of(&self.world, joints) - self.lowest;
        if d.is_finite() { d.max(0.0) } else { 0.0 }
    }
}

/// The lowest height of `joints` in `world`, or of every joint when `joints` is empty.
fn lowest_of(world: &[Mat4], joints: &[usize]) -> f32 {
    let y = |m: &Mat4| m.w_axis.y;
    if joints.is_empty() {
        world.iter().map(y).fold(f32::INFINITY, f32::min)
    } else {
        let picked = joints.iter().filter_map(|&j| world.get(j));
        picked.map(y).fold(f32::INFINITY, f32::min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn lowest_of_named_joints_or_all() {
        let world = [
            Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0)),
            Mat4::from_translation(Vec3::new(0.0, 0.1, 0.0)),
            Mat4::from_translation(Vec3::new(0.0, -0.2, 0.0)),
        ];
        assert_eq!(lowest_of(&world, &[0, 1]), 0.1);
        assert_eq!(lowest_of(&world, &[]), -0.2);
        assert_eq!(lowest_of(&world, &[7]), f32::INFINITY);
    }
}
