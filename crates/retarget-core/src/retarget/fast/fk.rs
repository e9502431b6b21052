//! Forward-kinematics shortcuts for the solves that place joints in the world (the root
//! motion, copied translations, followers): walking each one's root path on both sides
//! costs chains × depth, and the chains share their tops. These compute each joint's world
//! transform once a frame, with the same products in the same order as `chain_world`, so
//! the result is bit for bit the same.

use super::super::TranslationSolve;
use super::super::plan::FollowSolve;
use super::super::root::RootSolve;
use crate::pose::Pose;
use glam::Affine3A;

pub(in crate::retarget) fn local(pose: &Pose, j: usize) -> Affine3A {
    Affine3A::from_scale_rotation_translation(
        pose.scales[j],
        pose.rotations[j],
        pose.translations[j],
    )
}

/// Forward kinematics of `pose` under `container`, for the joints of `order` (parents
/// first, closed under parents: every chain from the root to a joint the solves read).
pub(in crate::retarget) fn place(
    container: Affine3A,
    parents: &[Option<usize>],
    order: &[usize],
    pose: &Pose,
    out: &mut [Affine3A],
) {
    for &j in order {
        out[j] = match parents[j] {
            Some(p) => out[p] * local(pose, j),
            None => container * local(pose, j),
        };
    }
}

/// [`place`]'s positions alone (the translations of `out`; the solves that read placed
/// source joints read nothing else), where no joint of `order` scales and the container
/// scales uniformly by `scale`: down the world rotations the frame already has
/// (`world_rotations`, the container's `turn` above the roots), a turn and an add a joint.
#[allow(clippy::too_many_arguments)]
pub(in crate::retarget) fn place_positions(
    (origin, turn, scale): (glam::Vec3A, glam::Quat, f32),
    parents: &[Option<usize>],
    order: &[usize],
    pose: &Pose,
    world_rotations: &[glam::Quat],
    out: &mut [Affine3A],
) {
    for &j in order {
        let (up, at) = match parents[j] {
            Some(p) => (world_rotations[p], out[p].translation),
            None => (turn, origin),
        };
        out[j].translation = at + glam::Vec3A::from(up * pose.translations[j]) * scale;
    }
}

/// The joints of `chains` (each from the root down), parents first.
pub(in crate::retarget) fn joints_of<'a>(
    joints: usize,
    chains: impl IntoIterator<Item = &'a [usize]>,
) -> Vec<usize> {
    let mut placed = vec![false; joints];
    for chain in chains {
        for &j in chain {
            placed[j] = true;
        }
    }
    (0..joints).filter(|&j| placed[j]).collect()
}

/// Target world transforms computed on first use in a frame. Exact only when no joint's
/// translation is written after its world was first read (`memo_is_exact`).
pub(in crate::retarget) struct TargetMemo<'a> {
    pub affine: &'a mut [Affine3A],
    pub known: &'a mut [bool],
}

impl TargetMemo<'_> {
    /// `chain_world(container, chain, pose)`, from what earlier chains already composed:
    /// from the deepest joint of `chain` already known, down.
    pub fn world(&mut self, container: Affine3A, chain: &[usize], pose: &Pose) -> Affine3A {
        let known = chain.iter().rposition(|&j| self.known[j]);
        let (mut acc, from) = match known {
            Some(k) => (self.affine[chain[k]], k + 1),
            None => (container, 0),
        };
        for &j in &chain[from..] {
            acc *= local(pose, j);
            self.affine[j] = acc;
            self.known[j] = true;
        }
        acc
    }
}

/// Whether the solves may share a [`TargetMemo`]: in the order they run (above-pelvis
/// translations, the pelvis of each root solve, the other translations, the followers),
/// every joint whose world a solve reads has had its last translation written before its
/// first read.
pub(in crate::retarget) fn memo_is_exact(
    translations: &[TranslationSolve],
    roots: &[RootSolve],
    follows: &[FollowSolve],
    n: usize,
) -> bool {
    let mut first_read = vec![usize::MAX; n];
    let mut last_write = vec![None; n];
    let mut step = 0;
    let mut run = |reads: &[&[usize]], write: usize| {
        for &j in reads.iter().copied().flatten() {
            first_read[j] = first_read[j].min(step);
        }
        last_write[write] = Some(step);
        step += 1;
    };
    for t in translations.iter().filter(|t| t.above_pelvis) {
        run(&[&t.target_chain], t.target);
    }
    for r in roots {
        run(&[r.target_chain()], r.pelvis());
    }
    for t in translations.iter().filter(|t| !t.above_pelvis) {
        run(&[&t.target_chain], t.target);
    }
    for f in follows {
        run(&[&f.anchor_chain, &f.parent_chain], f.target);
    }
    (0..n).all(|j| last_write[j].is_none_or(|w| w < first_read[j]))
}

#[cfg(test)]
mod tests {
    use crate::mapping::{BoneMap, TranslationMode};
    use crate::pose::Pose;
    use crate::reference::ReferencePose;
    use crate::retarget::Retargeter;
    use crate::skeleton::{JointDef, Skeleton};
    use crate::transform::Transform;
    use glam::{Mat4, Quat, Vec3};

    /// A six-joint chain with a branch, every joint copying the source's translation.
    fn copying() -> (Skeleton, Retargeter) {
        let t = |x: f32, y: f32| Transform::from_translation(Vec3::new(x, y, 0.0));
        let parents = [None, Some(0), Some(1), Some(2), Some(3), Some(1)];
        let defs = parents
            .iter()
            .enumerate()
            .map(|(j, p)| JointDef::new(format!("j{j}"), *p, t(0.1 * j as f32, 0.3)))
            .collect();
        let s = Skeleton::new("chain", Mat4::from_rotation_y(0.4), defs).unwrap();
        let reference = ReferencePose::new(&s, Pose::rest(&s), &Default::default(), &[]);
        let mut map = BoneMap::identity(s.len());
        for j in 0..s.len() {
            map.for_target_mut(j).unwrap().translation = TranslationMode::Copy;
        }
        let r = Retargeter::new(&s, &reference, &s, &reference, &map).unwrap();
        (s, r)
    }

    #[test]
    fn the_shortcuts_give_chain_world_s_pose_bit_for_bit() {
        let (s, fast) = copying();
        assert!(fast.plan.target_memo);
        let mut slow = fast.clone();
        slow.plan_mut().target_memo = false;
        let mut pose = Pose::rest(&s);
        for j in 0..s.len() {
            let k = j as f32;
            pose.rotations[j] = Quat::from_euler(glam::EulerRot::XYZ, 0.3 * k, -0.2, 0.1 * k);
            pose.translations[j] += Vec3::new(0.01 * k, -0.02, 0.03 * k);
        }
        let (mut a, mut b) = (Pose::rest(&s), Pose::rest(&s));
        crate::retarget::test_rigs::solve(&fast, &pose, &mut a);
        crate::retarget::test_rigs::solve(&slow, &pose, &mut b);
        assert_eq!(a, b);
        assert!(a.translations[4].distance(Pose::rest(&s).translations[4]) > 1e-3);
    }

    /// Placing the marked joints gives each the transform its root path composes, bit for
    /// bit, and leaves the unmarked ones alone.
    #[test]
    fn placing_marked_joints_is_chain_world() {
        let (s, _) = copying();
        let mut pose = Pose::rest(&s);
        for j in 0..s.len() {
            pose.rotations[j] = Quat::from_rotation_z(0.2 * j as f32);
        }
        let container = glam::Affine3A::from_rotation_y(0.4);
        let chain = crate::retarget::plan::chain_to_root(s.parents(), 4);
        let order = super::joints_of(s.len(), [&chain[..]]);
        let mut out = vec![glam::Affine3A::ZERO; s.len()];
        super::place(container, s.parents(), &order, &pose, &mut out);
        // Down quaternions, the same positions within float noise.
        let mut turns = vec![Quat::IDENTITY; s.len()];
        crate::reference::world_rotations_into(
            s.parents(),
            Quat::from_rotation_y(0.4),
            &pose.rotations,
            &mut turns,
        );
        let mut fast = vec![glam::Affine3A::ZERO; s.len()];
        let top = (glam::Vec3A::ZERO, Quat::from_rotation_y(0.4), 1.0);
        super::place_positions(top, s.parents(), &order, &pose, &turns, &mut fast);
        for j in 0..s.len() {
            let placed = order.contains(&j);
            if placed {
                assert!(fast[j].translation.abs_diff_eq(out[j].translation, 1e-6));
            }
            if placed {
                let path = crate::retarget::plan::chain_to_root(s.parents(), j);
                let walked = crate::retarget::root::chain_world(container, &path, &pose);
                assert_eq!(out[j], walked);
            } else {
                assert_eq!(out[j], glam::Affine3A::ZERO);
            }
        }
        assert_eq!(order, [0, 1, 2, 3, 4]);
    }
}
