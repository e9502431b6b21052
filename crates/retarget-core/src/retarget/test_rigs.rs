//! Rigs the retargeter's unit tests share.

use crate::skeleton::{JointDef, Skeleton};
use crate::transform::Transform;
use glam::{Mat4, Quat, Vec3};

/// One frame's solve in a scratch of its own: what a test needs of
/// [`Retargeter::retarget_pose`](super::Retargeter::retarget_pose).
pub fn solve(r: &super::Retargeter, source: &crate::pose::Pose, target: &mut crate::pose::Pose) {
    r.retarget_pose(source, target, &mut super::PoseScratch::new(r));
}

/// A retargeter between two skeletons in their rest poses, unedited.
pub fn at_rest(
    source: &Skeleton,
    target: &Skeleton,
    map: &crate::mapping::BoneMap,
) -> super::Retargeter {
    let reference = |s: &Skeleton| {
        crate::reference::ReferencePose::new(
            s,
            crate::pose::Pose::rest(s),
            &crate::reference::ContainerEdit::default(),
            &[],
        )
    };
    super::Retargeter::new(source, &reference(source), target, &reference(target), map).unwrap()
}

/// A container that turns Z up to Y up and scales by 0.01, off the origin: what the solves
/// must see through.
pub fn container() -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::splat(0.01),
        Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
        Vec3::new(0.2, 0.0, 0.0),
    )
}

/// A branching chain of seven joints under [`container`], its offsets times `scale`.
pub fn branching(scale: f32) -> Skeleton {
    let t = |x: f32| Transform::from_translation(Vec3::new(x, 0.3, 0.1) * scale);
    let parents = [None, Some(0), Some(1), Some(2), Some(3), Some(1), Some(5)];
    let defs = parents
        .iter()
        .enumerate()
        .map(|(j, p)| JointDef::new(format!("j{j}"), *p, t(0.1 * j as f32)))
        .collect();
    Skeleton::new("rig", container(), defs).unwrap()
}

/// A chain of joints 1 unit apart on X under a container, for the extent check.
pub fn chain(n: usize, container: glam::Mat4) -> Skeleton {
    use crate::skeleton::JointDef;
    use crate::transform::Transform;
    let defs = (0..n)
        .map(|j| {
            let rest = Transform::from_translation(Vec3::X);
            JointDef::new(format!("j{j}"), j.checked_sub(1), rest)
        })
        .collect();
    Skeleton::new("chain", container, defs).unwrap()
}
