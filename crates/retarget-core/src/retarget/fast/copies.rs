//! Copied translations solved in the parent's frame. One body on both sides copies every
//! joint's translation (`Session::copy_translations`), and placing each joint in the world
//! on both sides, then back under its target parent, cost most of a frame.
//!
//! A copied joint whose target parent is driven by its source joint's parent keeps its own
//! reference offset from that parent, carried as the parent turns, and moves off it as far
//! as the source joint moves off its reference offset (scaled): a twist bone or a finger
//! stays where its parent holds it even when the two reference poses differ (a T-pose
//! source onto an A-pose copy of the same rig). Its local translation is
//!
//! `t = Lt + (k · cs / ct) · Rp⁻¹ · Rsp · (ts − Ls)`
//!
//! (`Lt`, `Ls`: the reference local offsets; `k`: the root motion's scale; `cs`, `ct`: the
//! containers' uniform scales; `Rp`, `Rsp`: the parents' world rotations; `ts`: the source
//! joint's local offset). It holds where no joint scale stretches either side ("rigid"):
//! the containers scale uniformly, the target's reference has unit scales, and the frame's
//! source pose too (checked per frame; else the same rule runs on world transforms).

use super::super::TranslationSolve;
use crate::pose::Pose;
use glam::{Affine3A, Quat, Vec3};

/// A copied translation whose target parent is the copy of its source joint's parent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::retarget) struct LocalCopy {
    pub source_parent: usize,
    pub target_parent: usize,
    /// `Lt` and `Ls`: the reference local offsets from the parents, in local units.
    target_rest: Vec3,
    source_rest: Vec3,
}

/// Per translation solve, its local form where one applies: its target parent is the
/// target of an earlier solve (same side of the pelvis, so solved before it) whose source
/// is the source joint's parent.
pub(in crate::retarget) fn local_copies(
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
            (u.source_chain.last() == Some(&sp) && s != sp).then_some(LocalCopy {
                source_parent: sp,
                target_parent: p,
                target_rest: t.target_rest,
                source_rest: t.source_rest,
            })
        })
        .collect()
}

/// The containers' uniform scales (source, target) when both sides are rigid as far as the
/// build can tell (the target's reference has unit scales); `None` otherwise.
pub(in crate::retarget) fn rigid_scales(
    source: Affine3A,
    target: Affine3A,
    target_reference: &Pose,
) -> Option<(f32, f32)> {
    let unit = target_reference.scales.iter().all(|s| *s == Vec3::ONE);
    let (cs, ct) = (uniform_scale(source)?, uniform_scale(target)?);
    unit.then_some((cs, ct))
}

/// The scale of a rotation and uniform scale (no shear, no mirror), else `None`.
pub(in crate::retarget) fn uniform_scale(a: Affine3A) -> Option<f32> {
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
pub(in crate::retarget) fn source_is_rigid(source: &Pose) -> bool {
    source.scales.iter().all(|s| *s == Vec3::ONE)
}

impl LocalCopy {
    /// `Lt` and `Ls`: the joint's reference local offsets on each side.
    pub fn rests(&self) -> (Vec3, Vec3) {
        (self.target_rest, self.source_rest)
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
        let moved = source_world[self.source_parent] * (source_local - self.source_rest);
        self.target_rest + target_world[self.target_parent].inverse() * moved * (k * cs / ct)
    }
}

#[cfg(test)]
mod tests {
    use crate::mapping::{BoneMap, TranslationMode};
    use crate::pose::Pose;
    use crate::reference::ReferencePose;
    use crate::retarget::Retargeter;
    use crate::skeleton::Skeleton;
    use glam::{Quat, Vec3};

    /// A branching chain under a turned, scaled container; `to` is the same body 1.5 times
    /// as large, with every joint copying the source's translation.
    fn rig(scale: f32) -> Skeleton {
        crate::retarget::test_rigs::branching(scale)
    }

    /// `s`'s reference: its rest, or (`bent`) with two joints turned 40° as an A-pose
    /// turns the arms.
    fn reference(s: &Skeleton, bent: bool) -> ReferencePose {
        let mut pose = Pose::rest(s);
        if bent {
            for j in [1, 5] {
                pose.rotations[j] *= Quat::from_rotation_z(40f32.to_radians());
            }
        }
        ReferencePose::new(s, pose, &Default::default(), &[])
    }

    /// The local form gives the world solve's translations within float noise, on every
    /// joint of a posed frame, and is taken for every joint below the root; also where the
    /// target's reference pose is not the source's.
    #[test]
    fn local_copies_match_the_world_solve() {
        for bent in [false, true] {
            local_copies_match_the_world_solve_with(bent);
        }
    }

    fn local_copies_match_the_world_solve_with(bent: bool) {
        let (from, to) = (rig(1.0), rig(1.5));
        let mut map = BoneMap::identity(from.len());
        for j in 0..from.len() {
            map.for_target_mut(j).unwrap().translation = TranslationMode::Copy;
        }
        let local = Retargeter::new(
            &from,
            &reference(&from, false),
            &to,
            &reference(&to, bent),
            &map,
        )
        .unwrap();
        assert!(local.plan.rigid.is_some());
        let taken = local
            .plan
            .translations
            .iter()
            .filter(|t| t.local.is_some())
            .count();
        assert_eq!(taken, from.len() - 1);
        let mut world = local.clone();
        world.plan_mut().rigid = None;
        let mut pose = Pose::rest(&from);
        for j in 0..from.len() {
            let k = j as f32;
            pose.rotations[j] = Quat::from_euler(glam::EulerRot::XYZ, 0.3 * k, -0.2, 0.1 * k);
            pose.translations[j] += Vec3::new(0.01 * k, -0.02, 0.03 * k);
        }
        let (mut a, mut b) = (Pose::rest(&to), Pose::rest(&to));
        crate::retarget::test_rigs::solve(&local, &pose, &mut a);
        crate::retarget::test_rigs::solve(&world, &pose, &mut b);
        for (x, y) in a.translations.iter().zip(&b.translations) {
            assert!(
                x.abs_diff_eq(*y, 1e-5 * (1.0 + y.length())),
                "{x} against {y}"
            );
        }
        assert_eq!(a.rotations, b.rotations);
        // A scaled source joint makes the frame take the world solve.
        pose.scales[3] = Vec3::new(1.0, 2.0, 1.0);
        crate::retarget::test_rigs::solve(&local, &pose, &mut a);
        crate::retarget::test_rigs::solve(&world, &pose, &mut b);
        assert_eq!(a, b);
    }

    /// One rig onto itself in another reference pose (T onto A): every copied joint keeps
    /// its offset from its parent while the source's keep theirs. Placing a joint at its
    /// reference world position moved by the source's world displacement put a joint below
    /// a turned parent off the bone (0.089 of the height on a twist bone).
    #[test]
    fn copies_keep_offsets_between_reference_poses() {
        let rig = rig(1.0);
        let mut map = BoneMap::identity(rig.len());
        for j in 0..rig.len() {
            map.for_target_mut(j).unwrap().translation = TranslationMode::Copy;
        }
        let (t_pose, a_pose) = (reference(&rig, false), reference(&rig, true));
        let mut r = Retargeter::new(&rig, &t_pose, &rig, &a_pose, &map).unwrap();
        let mut pose = Pose::rest(&rig);
        for j in 0..rig.len() {
            pose.rotations[j] = Quat::from_euler(glam::EulerRot::XYZ, 0.2, 0.3 * j as f32, -0.1);
        }
        for rigid in [true, false] {
            if !rigid {
                r.plan_mut().rigid = None;
            }
            let mut out = Pose::rest(&rig);
            crate::retarget::test_rigs::solve(&r, &pose, &mut out);
            for j in 1..rig.len() {
                let (got, want) = (out.translations[j], rig.bind()[j].translation);
                assert!(got.abs_diff_eq(want, 1e-5), "joint {j}: {got} for {want}");
            }
        }
    }
}
