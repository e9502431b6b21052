//! Forward-kinematics shortcuts for the translation solves: when many joints copy the
//! source's translation (one body on both sides: every joint), walking each one's root
//! path on both sides costs joints × depth. These compute each joint's world transform
//! once a frame, with the same products in the same order as `chain_world`, so the result
//! is bit for bit the same.

use super::TranslationSolve;
use super::root::RootSolve;
use crate::core::pose::Pose;
use glam::Affine3A;

fn local(pose: &Pose, j: usize) -> Affine3A {
    Affine3A::from_scale_rotation_translation(
        pose.scales[j],
        pose.rotations[j],
        pose.translations[j],
    )
}

/// Forward kinematics of `pose` under `container`.
pub(super) fn affines_into(
    container: Affine3A,
    parents: &[Option<usize>],
    pose: &Pose,
    out: &mut [Affine3A],
) {
    for (j, parent) in parents.iter().enumerate() {
        out[j] = match parent {
            Some(p) => out[*p] * local(pose, j),
            None => container * local(pose, j),
        };
    }
}

/// Target world transforms computed on first use in a frame. Exact only when no joint's
/// translation is written after its world was first read (`memo_is_exact`).
pub(super) struct TargetMemo<'a> {
    pub affine: &'a mut [Affine3A],
    pub known: &'a mut [bool],
}

impl TargetMemo<'_> {
    /// `chain_world(container, chain, pose)`, from what earlier chains already composed.
    pub fn world(&mut self, container: Affine3A, chain: &[usize], pose: &Pose) -> Affine3A {
        let mut acc = container;
        for &j in chain {
            if !self.known[j] {
                self.affine[j] = acc * local(pose, j);
                self.known[j] = true;
            }
            acc = self.affine[j];
        }
        acc
    }
}

/// Whether the translation solves may share a [`TargetMemo`]: in the order they run
/// (above-pelvis solves, the pelvis of each root solve, the rest), every joint whose world
/// a solve reads has had its last translation written before its first read; and whether
/// it pays (the chains walked exceed the joints).
pub(super) fn memo_is_exact(
    translations: &[TranslationSolve],
    roots: &[RootSolve],
    n: usize,
) -> bool {
    let walked: usize = translations.iter().map(|t| t.target_chain.len()).sum();
    if walked <= n {
        return false;
    }
    let mut first_read = vec![usize::MAX; n];
    let mut last_write = vec![None; n];
    let mut step = 0;
    let mut run = |reads: &[usize], write: usize| {
        for &j in reads {
            first_read[j] = first_read[j].min(step);
        }
        last_write[write] = Some(step);
        step += 1;
    };
    for t in translations.iter().filter(|t| t.above_pelvis) {
        run(&t.target_chain, t.target);
    }
    for r in roots {
        run(&[], r.pelvis());
    }
    for t in translations.iter().filter(|t| !t.above_pelvis) {
        run(&t.target_chain, t.target);
    }
    (0..n).all(|j| last_write[j].is_none_or(|w| w < first_read[j]))
}

#[cfg(test)]
mod tests {
    use crate::core::mapping::{BoneMap, TranslationMode};
    use crate::core::pose::Pose;
    use crate::core::reference::ReferencePose;
    use crate::core::retarget::Retargeter;
    use crate::core::skeleton::{JointDef, Skeleton};
    use crate::core::transform::Transform;
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
        let (s, mut fast) = copying();
        assert!(fast.source_fk_pays && fast.target_memo);
        let mut slow = fast.clone();
        slow.source_fk_pays = false;
        slow.target_memo = false;
        let mut pose = Pose::rest(&s);
        for j in 0..s.len() {
            let k = j as f32;
            pose.rotations[j] = Quat::from_euler(glam::EulerRot::XYZ, 0.3 * k, -0.2, 0.1 * k);
            pose.translations[j] += Vec3::new(0.01 * k, -0.02, 0.03 * k);
        }
        let (mut a, mut b) = (Pose::rest(&s), Pose::rest(&s));
        fast.retarget_pose(&pose, &mut a);
        slow.retarget_pose(&pose, &mut b);
        assert_eq!(a, b);
        assert!(a.translations[4].distance(Pose::rest(&s).translations[4]) > 1e-3);
    }
}
