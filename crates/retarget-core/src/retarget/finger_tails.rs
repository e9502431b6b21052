//! A finger's curl past its last paired joint, spread by share: where the two fingers have
//! other joint counts, the target's joints from its last mapped one to the tip share the
//! turn the source's joints make from the matching one to its tip, so the target's last
//! segment points where the source's does and a fist closes as far (the segments both
//! sides pair keep the source's directions exactly).

use crate::hands::is_digit_bone;
use crate::mapping::BoneMap;
use crate::pose::Pose;
use crate::reference::rotation_of;
use crate::skeleton::Skeleton;
use glam::{Mat4, Quat};

/// One finger's tail: the target's last mapped joint `t_L` and the joints below it to the
/// tip, the source's joints below `t_L`'s source to its tip, and the constant turns between.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct FingerTail {
    /// `t_L` first, then the target joints past it, each with its reference local
    /// rotation and the prefix `Bt_L ⋯ Bt_{k-1}` (identity for `t_L`); a last joint with no
    /// child (a tip) turns nothing and keeps its reference.
    target: Vec<(usize, Quat, Quat)>,
    /// How many of `target` take a share (those with a child; a lone `t_L` always).
    shares: usize,
    /// The source joints past `t_L`'s source, to its tip.
    source: Vec<usize>,
    /// `(Bs_{L+1} ⋯ Bs_n)⁻¹`, the source tail's reference product inverted.
    source_reference_inverse: Quat,
    /// `K = Wt_L⁰⁻¹ · Ws_L⁰` (the two reference worlds).
    between: Quat,
}

/// The fingers whose tails differ: each target joint mapped with a finger's label whose line
/// of single children below maps nothing else, and where that line or the source's below
/// its source has joints (with neither, the solve already turns it exactly).
pub(super) fn finger_tails(
    source: &Skeleton,
    source_world: &[Mat4],
    target: &Skeleton,
    target_world: &[Mat4],
    map: &BoneMap,
    reference: &Pose,
) -> Vec<FingerTail> {
    let mut out = Vec::new();
    for pair in map.pairs() {
        if !pair.bone.is_some_and(is_digit_bone) {
            continue;
        }
        let (s, t) = (pair.source, pair.target);
        let below_t = single_line(target, t);
        let others = below_t
            .iter()
            .any(|&j| map.for_target(j).is_some_and(|p| p.source != s));
        let below_s = single_line(source, s);
        if others || (below_t.is_empty() && below_s.is_empty()) {
            continue;
        }
        let mut prefix = Quat::IDENTITY;
        let mut joints = Vec::with_capacity(below_t.len() + 1);
        for j in std::iter::once(t).chain(below_t) {
            joints.push((j, reference.rotations[j], prefix));
            prefix = (prefix * reference.rotations[j]).normalize();
        }
        let source_reference = below_s.iter().fold(Quat::IDENTITY, |q, &j| {
            q * rotation_of(source_world[source.parents()[j].unwrap_or(j)]).inverse()
                * rotation_of(source_world[j])
        });
        let shares = (joints.len() - 1).max(1);
        out.push(FingerTail {
            target: joints,
            shares,
            source: below_s,
            source_reference_inverse: source_reference.normalize().inverse(),
            between: (rotation_of(target_world[t]).inverse() * rotation_of(source_world[s]))
                .normalize(),
        });
    }
    out.sort_by_key(|f| f.target[0].0);
    out
}

/// The joints below `joint` while each has one child: a finger's joints to its tip.
fn single_line(skeleton: &Skeleton, joint: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = joint;
    while let [only] = skeleton.children(at).collect::<Vec<_>>()[..] {
        out.push(only);
        at = only;
    }
    out
}

/// Spreads each finger's turn from `t_L` to its tip over the target's joints there that have
/// a child, evenly (the last joint, a tip, keeps its reference):
/// the turn `E` (in `t_L`'s parent's frame) is `t_L`'s own turn from its reference followed
/// by the source tail's (`F = K · Ds · K⁻¹` in `t_L`'s frame), and joint `k` takes
/// `E^(1/n)` in that frame: `L_k = P_{k-1}⁻¹ · E^(1/n) · P_{k-1} · Bt_k`. Allocates nothing.
pub(super) fn curl(tails: &[FingerTail], source: &Pose, pose: &mut Pose) {
    for f in tails {
        let source_turn = f
            .source
            .iter()
            .fold(Quat::IDENTITY, |q, &j| q * source.rotations[j])
            * f.source_reference_inverse;
        let tail = f.between * source_turn * f.between.inverse();
        // `t_L`'s reference local rotation is the first of `target`'s.
        let (t_l, base, _) = f.target[0];
        let own = pose.rotations[t_l] * base.inverse();
        let mut whole = (own * base * tail * base.inverse()).normalize();
        if whole.w < 0.0 {
            whole = -whole;
        }
        let share = Quat::IDENTITY.slerp(whole, 1.0 / f.shares as f32);
        for (k, &(j, reference, prefix)) in f.target.iter().enumerate() {
            pose.rotations[j] = if k < f.shares {
                (prefix.inverse() * share * prefix * reference).normalize()
            } else {
                reference
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::humanoid::HumanBone::{self, *};
    use crate::mapping::BonePair;
    use crate::skeleton::JointDef;
    use crate::transform::Transform;
    use glam::Vec3;
    use std::f32::consts::FRAC_PI_6;

    /// A chain along +X: a hand and `n` finger joints, each `0.03` long, plus a tip.
    fn finger(n: usize) -> Skeleton {
        let mut defs = vec![JointDef::new("hand", None, Transform::IDENTITY)];
        for k in 0..=n {
            let at = Transform::new(
                Vec3::X * if k == 0 { 0.1 } else { 0.03 },
                Quat::IDENTITY,
                Vec3::ONE,
            );
            defs.push(JointDef::new(format!("f{k}"), Some(k), at));
        }
        Skeleton::new("finger", Mat4::IDENTITY, defs).unwrap()
    }

    fn pair(s: usize, t: usize, bone: HumanBone) -> BonePair {
        BonePair {
            bone: Some(bone),
            ..BonePair::new(s, t)
        }
    }

    /// The world direction of the target's last segment (the joint before the tip).
    fn tip(t: &Skeleton, pose: &Pose) -> Vec3 {
        let w = pose.world_matrices(t);
        let n = t.len();
        (w[n - 1].w_axis - w[n - 2].w_axis).truncate().normalize()
    }

    #[test]
    fn three_source_joints_onto_two_point_the_tip_where_the_source_s_points() {
        let (source, target) = (finger(3), finger(2));
        let map = BoneMap::new(vec![
            pair(0, 0, LeftHand),
            pair(1, 1, LeftIndexProximal),
            pair(2, 2, LeftIndexIntermediate),
        ]);
        let world = |s: &Skeleton| Pose::rest(s).world_matrices(s);
        let rest = Pose::rest(&target);
        let tails = finger_tails(
            &source,
            &world(&source),
            &target,
            &world(&target),
            &map,
            &rest,
        );
        assert_eq!(tails.len(), 1);
        // The source bends 30° at each of its three joints: its tip turns 90°.
        let mut src = Pose::rest(&source);
        for j in 1..=3 {
            src.rotations[j] = Quat::from_rotation_z(-FRAC_PI_6);
        }
        // The solve turns the mapped joints as the source's (30° each).
        let mut pose = Pose::rest(&target);
        pose.rotations[1] = Quat::from_rotation_z(-FRAC_PI_6);
        pose.rotations[2] = Quat::from_rotation_z(-FRAC_PI_6);
        let before = tip(&target, &pose)
            .angle_between(tip(&source, &src))
            .to_degrees();
        assert!(before > 25.0, "{before}");
        curl(&tails, &src, &mut pose);
        // The judged segment (joint 1's) is kept; the tip turned the source's remaining 60°.
        assert!(pose.rotations[1].abs_diff_eq(Quat::from_rotation_z(-FRAC_PI_6), 1e-5));
        let after = tip(&target, &pose)
            .angle_between(tip(&source, &src))
            .to_degrees();
        assert!(after < 0.1, "{after}");
    }
}
