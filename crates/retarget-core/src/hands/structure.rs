//! Fingers found by the skeleton's shape where names and tables say nothing (joints named
//! `joint_12`): under a labelled hand, or beside it under the forearm, each line of two or
//! more unlabelled joints is a digit; the thumb is the one whose base sits furthest back
//! toward the wrist, and the fingers go index to little by their bases' distance from the
//! thumb's.

use super::Digit;
use crate::humanoid::HumanBone;
use crate::profile::{Label, LabelMethod};
use crate::skeleton::Skeleton;
use glam::Vec3;

/// How sure a finger found by shape is.
const CONFIDENCE: f32 = 0.5;

/// Labels the digits of each labelled hand that has no labelled digit, from the shape:
/// `positions` are the joints' world positions at rest. Distances alone decide, so a hand
/// turned any way, or mirrored (left or right), is read the same.
pub fn label_fingers(skeleton: &Skeleton, positions: &[Vec3], labels: &mut [Option<Label>]) {
    for (left, bone) in [(true, HumanBone::LeftHand), (false, HumanBone::RightHand)] {
        let Some(hand) = labels
            .iter()
            .position(|l| l.is_some_and(|l| l.bone == bone))
        else {
            continue;
        };
        let has_digit = |labels: &[Option<Label>]| {
            labels
                .iter()
                .flatten()
                .any(|l| Digit::ALL.iter().any(|d| d.bones(left).contains(&l.bone)))
        };
        if has_digit(labels) {
            continue;
        }
        let chains = digit_chains(skeleton, positions, labels, hand);
        for (digit, chain) in assign(positions, hand, chains) {
            for (&j, bone) in chain.iter().zip(digit.bones(left)) {
                labels[j] = Some(Label {
                    bone,
                    method: LabelMethod::Topology,
                    confidence: CONFIDENCE,
                });
            }
        }
    }
}

/// The unlabelled lines of single children (two joints or more) that start below the hand,
/// or beside it under the forearm and reach past the wrist; a line's first joint at the
/// wrist (a palm bone, the robot's `Palm1.L`) is left out when the rest still has two.
fn digit_chains(
    skeleton: &Skeleton,
    positions: &[Vec3],
    labels: &[Option<Label>],
    hand: usize,
) -> Vec<Vec<usize>> {
    let wrist = positions[hand];
    let arm = skeleton.parents()[hand];
    let forearm = arm.map_or(0.0, |a| positions[a].distance(wrist));
    let starts = skeleton
        .children(hand)
        .chain(arm.into_iter().flat_map(|a| skeleton.children(a)))
        .filter(|&j| j != hand);
    let mut out = Vec::new();
    for start in starts {
        let mut chain = vec![start];
        while let [only] = skeleton
            .children(*chain.last().unwrap())
            .collect::<Vec<_>>()[..]
        {
            chain.push(only);
        }
        if chain.iter().any(|&j| labels[j].is_some()) || chain.len() < 2 {
            continue;
        }
        let length: f32 = chain
            .windows(2)
            .map(|w| positions[w[0]].distance(positions[w[1]]))
            .sum();
        let beside = !skeleton.is_ancestor(hand, start);
        // Beside the hand: only lines that start at the wrist and reach on past it, not a
        // forearm twist or a prop hanging from the forearm.
        if beside && (positions[start].distance(wrist) > 0.25 * forearm.max(length)) {
            continue;
        }
        if chain.len() >= 3 && positions[start].distance(wrist) < 0.15 * length {
            chain.remove(0);
        }
        out.push(chain);
    }
    out
}

/// Which digit each line is: the thumb's base sits back toward the wrist along the hand
/// (the least along the line from the wrist to the bases' mean, where it is clearly less
/// than the others'; nearness to the wrist alone fails where the fingers' bases spread
/// back), then index to little by their bases' distance from the thumb's base (without a
/// thumb, from the base furthest back). Five lines at most.
fn assign(
    positions: &[Vec3],
    hand: usize,
    mut chains: Vec<Vec<usize>>,
) -> Vec<(Digit, Vec<usize>)> {
    if chains.is_empty() || chains.len() > 5 {
        return Vec::new();
    }
    let wrist = positions[hand];
    let base = |c: &Vec<usize>| positions[c[0]];
    let mean = chains.iter().map(|c| base(c) - wrist).sum::<Vec3>() / chains.len() as f32;
    let Some(axis) = mean.try_normalize() else {
        return Vec::new();
    };
    let along = |c: &Vec<usize>| (base(c) - wrist).dot(axis);
    chains.sort_by(|a, b| along(a).total_cmp(&along(b)));
    let others: Vec<f32> = chains[1..].iter().map(along).collect();
    let median = others
        .get(others.len() / 2)
        .copied()
        .unwrap_or(f32::INFINITY);
    let back = along(&chains[0]);
    let thumb = (chains.len() == 5 || back < median - 0.2 * median.abs()).then(|| chains.remove(0));
    let from = thumb.as_ref().map_or_else(|| base(&chains[0]), base);
    chains.sort_by(|a, b| base(a).distance(from).total_cmp(&base(b).distance(from)));
    let mut out: Vec<(Digit, Vec<usize>)> = thumb.map(|t| (Digit::Thumb, t)).into_iter().collect();
    out.extend(Digit::ALL[1..].iter().copied().zip(chains));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::JointDef;
    use crate::transform::Transform;
    use glam::{Mat4, Quat};

    /// A forearm, a hand and five two-joint digits (thumb near the wrist, index to little
    /// across), turned by `turn` and mirrored across X when `mirror`; digits are listed in
    /// a scrambled order.
    fn hand(turn: Quat, mirror: bool) -> (Skeleton, Vec<Vec3>) {
        let m = if mirror { -1.0 } else { 1.0 };
        let at = |x: f32, y: f32, z: f32| turn * Vec3::new(x * m, y, z);
        let mut defs = vec![
            JointDef::new("arm", None, Transform::IDENTITY),
            JointDef::new(
                "hand",
                Some(0),
                Transform::new(at(0.3, 0.0, 0.0), Quat::IDENTITY, Vec3::ONE),
            ),
        ];
        // (name, base offset from the hand): ring, thumb, little, index, middle.
        let bases = [
            ("r", at(0.09, 0.0, -0.015)),
            ("t", at(0.03, 0.0, 0.035)),
            ("l", at(0.08, 0.0, -0.035)),
            ("i", at(0.09, 0.0, 0.025)),
            ("m", at(0.095, 0.0, 0.005)),
        ];
        for (name, base) in bases {
            let first = defs.len();
            defs.push(JointDef::new(
                format!("j_{name}0"),
                Some(1),
                Transform::new(base, Quat::IDENTITY, Vec3::ONE),
            ));
            let step = Transform::new(at(0.03, 0.0, 0.0), Quat::IDENTITY, Vec3::ONE);
            defs.push(JointDef::new(format!("j_{name}1"), Some(first), step));
        }
        let s = Skeleton::new("hand", Mat4::IDENTITY, defs).unwrap();
        let p = crate::pose::Pose::rest(&s).world_positions(&s);
        (s, p)
    }

    #[test]
    fn digits_are_found_by_shape_on_turned_and_mirrored_hands() {
        for (turn, mirror) in [
            (Quat::IDENTITY, false),
            (
                Quat::from_rotation_x(1.4) * Quat::from_rotation_z(0.7),
                false,
            ),
            (Quat::from_rotation_y(2.0), true),
        ] {
            let (s, p) = hand(turn, mirror);
            let mut labels = vec![None; s.len()];
            let bone = if mirror {
                HumanBone::RightHand
            } else {
                HumanBone::LeftHand
            };
            labels[1] = Some(Label {
                bone,
                method: LabelMethod::Name,
                confidence: 1.0,
            });
            label_fingers(&s, &p, &mut labels);
            let of = |name: &str| labels[s.find(name).unwrap()].map(|l| l.bone);
            let left = !mirror;
            for (name, digit) in [
                ("j_t0", Digit::Thumb),
                ("j_i0", Digit::Index),
                ("j_m0", Digit::Middle),
                ("j_r0", Digit::Ring),
                ("j_l0", Digit::Little),
            ] {
                assert_eq!(
                    of(name),
                    Some(digit.bones(left)[0]),
                    "{name} {turn:?} {mirror}"
                );
            }
            assert_eq!(of("j_i1"), Some(Digit::Index.bones(left)[1]));
        }
    }
}
