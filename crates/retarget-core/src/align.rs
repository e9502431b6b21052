//! Lining up the two reference poses: which way a character faces, turning its container
//! so it faces +Z with +Y up, and auto-align (the target's limbs turned to point where the
//! source's point: an A-pose onto a T-pose).

use super::humanoid::HumanBone;
use super::mapping::BoneMap;
use super::reference::{ReferencePose, rotation_of};
use super::skeleton::Skeleton;
use glam::{Mat3, Quat, Vec3};

/// A character's own axes in world space, from its labelled joints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Facing {
    pub up: Vec3,
    pub forward: Vec3,
    /// The character's own left.
    pub left: Vec3,
}

impl Facing {
    /// The rotation that turns this character to face +Z with +Y up (its left at +X).
    pub fn correction(&self) -> Quat {
        let from = Mat3::from_cols(self.left, self.up, self.forward);
        Quat::from_mat3(&from.transpose()).normalize()
    }
}

fn labelled(labels: &[Option<HumanBone>], bones: &[HumanBone]) -> Option<usize> {
    bones
        .iter()
        .find_map(|b| labels.iter().position(|l| *l == Some(*b)))
}

/// Works out up (hips → head), left (right → left upper leg, or arm) and forward
/// (`left × up`) in the reference pose, from the humanoid `labels` (one per joint). `None`
/// without the labels to go on.
pub fn detect_facing(
    skeleton: &Skeleton,
    labels: &[Option<HumanBone>],
    reference: &ReferencePose,
) -> Option<Facing> {
    use HumanBone::*;
    let world = reference.world_matrices(skeleton);
    let pos = |j: usize| world[j].w_axis.truncate();
    let hips = labelled(labels, &[Hips])?;
    let top = labelled(labels, &[Head, Neck, UpperChest, Chest])?;
    let (l, r) = [
        (LeftUpperLeg, RightUpperLeg),
        (LeftUpperArm, RightUpperArm),
        (LeftShoulder, RightShoulder),
    ]
    .into_iter()
    .find_map(|(l, r)| Some((labelled(labels, &[l])?, labelled(labels, &[r])?)))?;
    let up = (pos(top) - pos(hips)).try_normalize()?;
    let across = pos(l) - pos(r);
    let left = (across - up * across.dot(up)).try_normalize()?;
    Some(Facing {
        up,
        forward: left.cross(up),
        left,
    })
}

/// The turn of a side's container that makes the character face +Z with +Y up, in whole
/// 90° steps: files are authored on axes, and a mocap actor who starts 22° off (or leans)
/// must not turn or tilt the world his path lies in. What is left over is the characterize
/// step's to straighten (`core::characterize` turns the hips and chest square).
pub fn facing_fix(facing: &Facing) -> Quat {
    let q = facing.correction();
    snap_to_right_angles(q, 46f32.to_radians())
}

fn snap_to_right_angles(q: Quat, tolerance: f32) -> Quat {
    let m = Mat3::from_quat(q);
    let snap_axis = |v: Vec3| {
        let a = crate::units::Axis::dominant(v).vector();
        if v.angle_between(a) < tolerance { a } else { v }
    };
    let (x, y) = (snap_axis(m.x_axis), snap_axis(m.y_axis));
    if x.dot(y).abs() > 1e-4 {
        return q;
    }
    Quat::from_mat3(&Mat3::from_cols(x, y, x.cross(y))).normalize()
}

/// The limbs auto-align turns: shoulders, arms and legs, not hands, feet or the spine
/// (their shapes are a rig's style, not its pose).
fn is_limb(bone: HumanBone) -> bool {
    use HumanBone::*;
    matches!(
        bone,
        LeftShoulder
            | RightShoulder
            | LeftUpperArm
            | RightUpperArm
            | LeftLowerArm
            | RightLowerArm
            | LeftUpperLeg
            | RightUpperLeg
            | LeftLowerLeg
            | RightLowerLeg
    )
}

/// For each mapped target joint, the mapped joint below it that continues its chain, and
/// that joint's source: the pair of points that give the bone's direction on both sides.
/// The hips and the spine look up the spine (not down a leg), a hand along its middle
/// finger; otherwise the nearest mapped joint below.
pub fn mapped_child(skeleton: &Skeleton, map: &BoneMap, joint: usize) -> Option<(usize, usize)> {
    let own = map.for_target(joint).and_then(|p| p.bone);
    let rank = |c: usize| -> (u8, usize) {
        let bone = map.for_target(c).and_then(|p| p.bone);
        let preferred = match (own, bone) {
            (Some(o), Some(b)) if o.twin() == o => b.twin() == b,
            (Some(HumanBone::LeftHand), Some(b)) => b == HumanBone::LeftMiddleProximal,
            (Some(HumanBone::RightHand), Some(b)) => b == HumanBone::RightMiddleProximal,
            _ => false,
        };
        (u8::from(!preferred), c)
    };
    let mut stack: Vec<usize> = skeleton.children(joint).collect();
    let mut found: Option<(usize, usize)> = None;
    while let Some(c) = stack.pop() {
        match map.for_target(c) {
            Some(p) if found.is_none_or(|(f, _)| rank(c) < rank(f)) => found = Some((c, p.source)),
            Some(_) => {}
            None => stack.extend(skeleton.children(c)),
        }
    }
    found
}

/// Turns the target's mapped limbs so each points where its source bone points in the
/// source's reference pose. Returns per-joint rotation offsets (in the parent's space) to
/// feed `ReferencePose::new`, and updates `target_ref` in place.
pub fn auto_align(
    source: &Skeleton,
    source_ref: &ReferencePose,
    target: &Skeleton,
    target_ref: &mut ReferencePose,
    map: &BoneMap,
) -> Vec<(usize, Quat)> {
    let src_world = source_ref.world_matrices(source);
    let mut offsets = Vec::new();
    for t in 0..target.len() {
        let Some(pair) = map.for_target(t) else {
            continue;
        };
        if !pair.bone.is_some_and(is_limb) {
            continue;
        }
        let Some((child, source_child)) = mapped_child(target, map, t) else {
            continue;
        };
        let tgt_world = target_ref.world_matrices(target);
        let p = |m: &[glam::Mat4], j: usize| m[j].w_axis.truncate();
        let dir_t = p(&tgt_world, child) - p(&tgt_world, t);
        let dir_s = p(&src_world, source_child) - p(&src_world, pair.source);
        let (Some(dir_t), Some(dir_s)) = (dir_t.try_normalize(), dir_s.try_normalize()) else {
            continue;
        };
        let turn = Quat::from_rotation_arc(dir_t, dir_s);
        let parent_world = target.parents()[t].map_or(rotation_of(target_ref.container), |pj| {
            rotation_of(tgt_world[pj])
        });
        let world = rotation_of(tgt_world[t]);
        let new_local = (parent_world.inverse() * turn * world).normalize();
        let old_local = target_ref.locals.rotations[t];
        target_ref.locals.rotations[t] = new_local;
        offsets.push((t, (new_local * old_local.inverse()).normalize()));
    }
    offsets
}

/// Turns the source's mapped bones so each points where its target bone points in the
/// target's reference pose, for the target joints `keep` allows: a source whose reference is
/// a frame of its motion (a creature whose zero pose says nothing, caught mid-stride) is laid
/// into the target's own pose, so what carries over is the motion's change from it. Returns
/// per-joint rotation offsets (in the parent's space) and updates `source_ref` in place.
pub fn align_source_to_target(
    source: &Skeleton,
    source_ref: &mut ReferencePose,
    target: &Skeleton,
    target_ref: &ReferencePose,
    map: &BoneMap,
    keep: impl Fn(usize) -> bool,
) -> Vec<(usize, Quat)> {
    let tgt_world = target_ref.world_matrices(target);
    let p = |m: &[glam::Mat4], j: usize| m[j].w_axis.truncate();
    let mut offsets = Vec::new();
    for s in 0..source.len() {
        let found = map.pairs().iter().find_map(|pair| {
            let (child, source_child) = mapped_child(target, map, pair.target)?;
            (pair.source == s && keep(pair.target) && source.is_ancestor(s, source_child))
                .then_some((pair.target, child, source_child))
        });
        let Some((t, child, source_child)) = found else {
            continue;
        };
        let src_world = source_ref.world_matrices(source);
        let dir_s = p(&src_world, source_child) - p(&src_world, s);
        let dir_t = p(&tgt_world, child) - p(&tgt_world, t);
        let (Some(dir_s), Some(dir_t)) = (dir_s.try_normalize(), dir_t.try_normalize()) else {
            continue;
        };
        let turn = Quat::from_rotation_arc(dir_s, dir_t);
        let parent_world = source.parents()[s].map_or(rotation_of(source_ref.container), |pj| {
            rotation_of(src_world[pj])
        });
        let new_local = (parent_world.inverse() * turn * rotation_of(src_world[s])).normalize();
        let old_local = source_ref.locals.rotations[s];
        source_ref.locals.rotations[s] = new_local;
        offsets.push((s, (new_local * old_local.inverse()).normalize()));
    }
    offsets
}

/// Angle in degrees between each mapped target bone and its source bone, in two world
/// poses (reference poses, or any frame): the readout of how well the two agree.
pub fn bone_direction_errors(
    source_world: &[Vec3],
    target: &Skeleton,
    target_world: &[Vec3],
    map: &BoneMap,
) -> Vec<(usize, f32)> {
    map.pairs()
        .iter()
        .filter_map(|pair| {
            let (child, source_child) = mapped_child(target, map, pair.target)?;
            let dt = target_world[child] - target_world[pair.target];
            let ds = source_world[source_child] - source_world[pair.source];
            if dt.length_squared() < 1e-12 || ds.length_squared() < 1e-12 {
                return None;
            }
            Some((pair.target, dt.angle_between(ds).to_degrees()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correction_turns_a_character_facing_minus_z_around() {
        // VRM 0.x: faces -Z, its left at -X.
        let f = Facing {
            up: Vec3::Y,
            forward: Vec3::NEG_Z,
            left: Vec3::NEG_X,
        };
        let q = f.correction();
        assert!((q * Vec3::NEG_Z).abs_diff_eq(Vec3::Z, 1e-6));
        assert!((q * Vec3::NEG_X).abs_diff_eq(Vec3::X, 1e-6));
        assert!((q * Vec3::Y).abs_diff_eq(Vec3::Y, 1e-6));
    }

    #[test]
    fn correction_stands_a_z_up_character_up() {
        let f = Facing {
            up: Vec3::Z,
            forward: Vec3::NEG_Y,
            left: Vec3::X,
        };
        let q = facing_fix(&f);
        assert!((q * Vec3::Z).abs_diff_eq(Vec3::Y, 1e-6));
        assert!((q * Vec3::NEG_Y).abs_diff_eq(Vec3::Z, 1e-6));
    }

    #[test]
    fn small_tilts_snap_to_the_axis() {
        let tilted = Quat::from_rotation_x(0.05) * Quat::from_rotation_y(std::f32::consts::PI);
        let snapped = snap_to_right_angles(tilted, 10f32.to_radians());
        assert!((snapped * Vec3::Z).abs_diff_eq(Vec3::NEG_Z, 1e-5));
    }
}
