//! Copied translations solved in the parent's frame. One body on both sides copies every
//! joint's translation (`Session::copy_translations`), and placing each joint in the world
//! on both sides, then back under its target parent, cost most of a frame. Where a joint's
//! target parent is itself copied from the source joint's parent, the two world positions
//! differ by the source's local offset turned into the world, so the joint's local
//! translation follows from the two world rotations the solve already has:
//!
//! `t = Rp⁻¹ · ((Tj − Tp) − k (Sj − Ssp) + k · cs · Rsp · ts) / ct`
//!
//! (`T`, `S`: the reference world positions; `k`: the root motion's scale; `cs`, `ct`: the
//! containers' uniform scales; `Rp`, `Rsp`: the parents' world rotations; `ts`: the source
//! joint's local offset). It holds where no joint scale stretches either side ("rigid"):
//! the containers scale uniformly, the target's reference has unit scales, and the frame's
//! source pose too (checked per frame; else the world solve runs).

use super::TranslationSolve;
use crate::core::pose::Pose;
use glam::{Affine3A, Quat, Vec3};

/// A copied translation whose target parent is the copy of its source joint's parent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct LocalCopy {
    pub source_parent: usize,
    pub target_parent: usize,
    /// `Tj − Tp` and `Sj − Ssp` in the reference pose.
    target_offset: Vec3,
    source_offset: Vec3,
}

/// Per translation solve, its local form where one applies: its target parent is the
/// target of an earlier solve (same side of the pelvis, so solved before it) whose source
/// is the source joint's parent.
pub(super) fn local_copies(
    translations: &[TranslationSolve],
    target_parents: &[Option<usize>],
) -> Vec<Option<LocalCopy>> {
    translations
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let p = target_parents[t.target]?;
            let (&s, up) = t.source_chain.split_last()?;
            let sp = *up.last()?;
            let u = translations[..k]
                .iter()
                .find(|u| u.target == p && u.above_pelvis == t.above_pelvis)?;
            (u.source_chain.last() == Some(&sp) && s != sp).then(|| LocalCopy {
                source_parent: sp,
                target_parent: p,
                target_offset: t.target_reference - u.target_reference,
                source_offset: t.source_reference - u.source_reference,
            })
        })
        .collect()
}

/// The containers' uniform scales (source, target) when both sides are rigid as far as the
/// build can tell (the target's reference has unit scales); `None` otherwise.
pub(super) fn rigid_scales(
    source: Affine3A,
    target: Affine3A,
    target_reference: &Pose,
) -> Option<(f32, f32)> {
    let unit = target_reference.scales.iter().all(|s| *s == Vec3::ONE);
    let (cs, ct) = (uniform_scale(source)?, uniform_scale(target)?);
    unit.then_some((cs, ct))
}

/// The scale of a rotation and uniform scale (no shear, no mirror), else `None`.
pub(super) fn uniform_scale(a: Affine3A) -> Option<f32> {
    let m = a.matrix3;
    let c = m.x_axis.length();
    let orthogonal = [
        m.x_axis.dot(m.y_axis),
        m.y_axis.dot(m.z_axis),
        m.z_axis.dot(m.x_axis),
    ]
    .iter()
    .all(|d| d.abs() <= 1e-5 * c * c);
    let same = [m.y_axis.length(), m.z_axis.length()]
        .iter()
        .all(|l| (l - c).abs() <= 1e-5 * c);
    (c > 0.0 && orthogonal && same && m.determinant() > 0.0 && c.is_finite()).then_some(c)
}

/// Whether no joint of the frame's source pose scales (the local form's condition).
pub(super) fn source_is_rigid(source: &Pose) -> bool {
    source.scales.iter().all(|s| *s == Vec3::ONE)
}

impl LocalCopy {
    /// `Tj − Tp` and `Sj − Ssp`: the joint's reference offsets from its parent on each side.
    pub fn offsets(&self) -> (Vec3, Vec3) {
        (self.target_offset, self.source_offset)
    }

    /// The target joint's local translation (see the module's doc): `source_world` and
    /// `target_world` are the frame's world rotations, `k` the root motion's scale.
    #[inline]
    pub fn solve(
        &self,
        source_local: Vec3,
        source_world: &[Quat],
        target_world: &[Quat],
        k: f32,
        (cs, ct): (f32, f32),
    ) -> Vec3 {
        let turned = source_world[self.source_parent] * source_local;
        let world = self.target_offset + (turned * cs - self.source_offset) * k;
        (target_world[self.target_parent].inverse() * world) / ct
    }
}

#[cfg(test)]
mod tests {
    use crate::core::mapping::{BoneMap, TranslationMode};
    use crate::core::pose::Pose;
    use crate::core::reference::ReferencePose;
    use crate::core::retarget::Retargeter;
    use crate::core::skeleton::Skeleton;
    use glam::{Quat, Vec3};

    /// A branching chain under a turned, scaled container; `to` is the same body 1.5 times
    /// as large, with every joint copying the source's translation.
    fn rig(scale: f32) -> Skeleton {
        crate::core::retarget::test_rigs::branching(scale)
    }

    /// The local form gives the world solve's translations within float noise, on every
    /// joint of a posed frame, and is taken for every joint below the root.
    #[test]
    fn local_copies_match_the_world_solve() {
        let (from, to) = (rig(1.0), rig(1.5));
        let reference =
            |s: &Skeleton| ReferencePose::new(s, Pose::rest(s), &Default::default(), &[]);
        let mut map = BoneMap::identity(from.len());
        for j in 0..from.len() {
            map.for_target_mut(j).unwrap().translation = TranslationMode::Copy;
        }
        let mut local =
            Retargeter::new(&from, &reference(&from), &to, &reference(&to), &map).unwrap();
        assert!(local.rigid.is_some());
        let taken = local
            .translations
            .iter()
            .filter(|t| t.local.is_some())
            .count();
        assert_eq!(taken, from.len() - 1);
        let mut world = local.clone();
        world.rigid = None;
        let mut pose = Pose::rest(&from);
        for j in 0..from.len() {
            let k = j as f32;
            pose.rotations[j] = Quat::from_euler(glam::EulerRot::XYZ, 0.3 * k, -0.2, 0.1 * k);
            pose.translations[j] += Vec3::new(0.01 * k, -0.02, 0.03 * k);
        }
        let (mut a, mut b) = (Pose::rest(&to), Pose::rest(&to));
        local.retarget_pose(&pose, &mut a);
        world.retarget_pose(&pose, &mut b);
        for (x, y) in a.translations.iter().zip(&b.translations) {
            assert!(
                x.abs_diff_eq(*y, 1e-5 * (1.0 + y.length())),
                "{x} against {y}"
            );
        }
        assert_eq!(a.rotations, b.rotations);
        // A scaled source joint makes the frame take the world solve.
        pose.scales[3] = Vec3::new(1.0, 2.0, 1.0);
        local.retarget_pose(&pose, &mut a);
        world.retarget_pose(&pose, &mut b);
        assert_eq!(a, b);
    }
}
