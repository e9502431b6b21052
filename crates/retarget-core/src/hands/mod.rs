//! Hands and fingers characterized: which joints make each hand and finger, the palm's own
//! frame (the judge's: hand → middle base, across index → little), and each finger's
//! direction, curl and spread in that frame, so fingers are lined up and measured there.

mod align;
mod pairs;
mod shape;
mod structure;
mod tips;

pub use align::align_hands;
pub use pairs::{HandPair, SegmentLink, TailLink, hand_pairs};
pub use shape::{FingerShape, finger_shape, palm_frame};
pub use structure::label_fingers;
pub use tips::{Tip, bone_direction, tips};

use crate::humanoid::HumanBone;
use crate::mapping::BoneMap;
use crate::skeleton::Skeleton;

/// The five digits, thumb first, then index to little (across the palm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Digit {
    Thumb,
    Index,
    Middle,
    Ring,
    Little,
}

impl Digit {
    pub const ALL: [Digit; 5] = [
        Digit::Thumb,
        Digit::Index,
        Digit::Middle,
        Digit::Ring,
        Digit::Little,
    ];

    /// The digit's labels on the left hand, base to tip (a thumb starts at its metacarpal).
    fn left_bones(self) -> [HumanBone; 3] {
        use HumanBone::*;
        match self {
            Digit::Thumb => [LeftThumbMetacarpal, LeftThumbProximal, LeftThumbDistal],
            Digit::Index => [LeftIndexProximal, LeftIndexIntermediate, LeftIndexDistal],
            Digit::Middle => [LeftMiddleProximal, LeftMiddleIntermediate, LeftMiddleDistal],
            Digit::Ring => [LeftRingProximal, LeftRingIntermediate, LeftRingDistal],
            Digit::Little => [LeftLittleProximal, LeftLittleIntermediate, LeftLittleDistal],
        }
    }

    /// The digit's labels on one hand, base to tip.
    pub fn bones(self, left: bool) -> [HumanBone; 3] {
        let bones = self.left_bones();
        if left {
            bones
        } else {
            bones.map(HumanBone::twin)
        }
    }
}

/// One hand of a skeleton: its joint and, per digit (`Digit::ALL` order), the finger's
/// joints from base to tip (empty where the hand has no such finger).
#[derive(Clone, Debug, PartialEq)]
pub struct Hand {
    pub left: bool,
    pub hand: usize,
    pub digits: [Vec<usize>; 5],
    /// Unlabelled palm bones beside the hand (under the forearm) that carry fingers: the
    /// robot's `Palm1.L` and `Palm3.L` beside its `Palm2.L` hand. They move with the hand.
    pub beside: Vec<usize>,
    /// Per digit, its unlabelled metacarpal: the joint just above the digit's first joint
    /// when that is neither the hand nor the forearm (rigify's `palm.01.L`).
    pub metacarpals: [Option<usize>; 5],
}

impl Hand {
    pub fn digit(&self, digit: Digit) -> &[usize] {
        &self.digits[digit as usize]
    }

    /// The fingers (not the thumb) the hand has, index to little.
    pub fn fingers(&self) -> Vec<Digit> {
        Digit::ALL[1..]
            .iter()
            .copied()
            .filter(|&d| !self.digit(d).is_empty())
            .collect()
    }

    /// The joints the palm frame is made of: hand, middle base, index base, outer base.
    /// Without a middle finger the finger between, without a little finger the outermost;
    /// `None` with fewer than two fingers.
    pub fn palm_points(&self) -> Option<[usize; 4]> {
        palm_digits(&self.fingers()).map(|[m, i, o]| {
            [
                self.hand,
                self.digit(m)[0],
                self.digit(i)[0],
                self.digit(o)[0],
            ]
        })
    }
}

/// Of the fingers a hand has (index to little), the ones the palm frame is made of:
/// middle (or the one between), index (or the first), outer (little, or the last).
pub fn palm_digits(fingers: &[Digit]) -> Option<[Digit; 3]> {
    let (&first, &last) = (fingers.first()?, fingers.last()?);
    if first == last {
        return None;
    }
    let middle = if fingers.contains(&Digit::Middle) {
        Digit::Middle
    } else {
        fingers[fingers.len() / 2]
    };
    Some([middle, first, last])
}

/// The hands of `skeleton` from its humanoid `labels` (one per joint): each labelled hand
/// with its labelled fingers (below the hand or beside it under the forearm), each finger carried on past its last label down a single line
/// of joints (the tips and `_End` joints files add).
pub fn hands(skeleton: &Skeleton, labels: &[Option<HumanBone>]) -> Vec<Hand> {
    let find = |b: HumanBone| labels.iter().position(|l| *l == Some(b));
    let mut out = Vec::new();
    for (left, bone) in [(true, HumanBone::LeftHand), (false, HumanBone::RightHand)] {
        let Some(hand) = find(bone) else { continue };
        // Fingers hang below the hand, or beside it on their own palm bones (the robot's
        // `Palm1.L` and `Palm3.L` beside its `Palm2.L`): below the forearm.
        let arm = skeleton.parents()[hand].unwrap_or(hand);
        let digits = Digit::ALL.map(|d| {
            let mut joints: Vec<usize> = d
                .bones(left)
                .into_iter()
                .filter_map(find)
                .filter(|&j| j != hand && skeleton.is_ancestor(arm, j))
                .collect();
            joints.sort_unstable();
            joints.dedup();
            if let Some(&last) = joints.last() {
                let mut at = last;
                while let [only] = skeleton.children(at).collect::<Vec<_>>()[..] {
                    joints.push(only);
                    at = only;
                }
            }
            joints
        });
        if digits.iter().any(|d| !d.is_empty()) {
            let beside = palm_bones_beside(skeleton, labels, hand, &digits);
            let metacarpals = digits.clone().map(|d| {
                let above = skeleton.parents()[*d.first()?]?;
                let unlabelled = labels.get(above).copied().flatten().is_none();
                (above != hand && Some(above) != Some(arm) && unlabelled).then_some(above)
            });
            out.push(Hand {
                left,
                hand,
                digits,
                beside,
                metacarpals,
            });
        }
    }
    out
}

/// The unlabelled bones between the forearm and a finger that is not below the hand.
fn palm_bones_beside(
    skeleton: &Skeleton,
    labels: &[Option<HumanBone>],
    hand: usize,
    digits: &[Vec<usize>; 5],
) -> Vec<usize> {
    let arm = skeleton.parents()[hand];
    let mut out = Vec::new();
    for first in digits.iter().filter_map(|d| d.first().copied()) {
        if skeleton.is_ancestor(hand, first) {
            continue;
        }
        let mut at = skeleton.parents()[first];
        while let Some(j) = at.filter(|&j| Some(j) != arm) {
            if labels.get(j).copied().flatten().is_none() && !out.contains(&j) {
                out.push(j);
            }
            at = skeleton.parents()[j];
        }
    }
    out.sort_unstable();
    out
}

/// Whether `bone` is a finger's or a thumb's.
pub fn is_digit_bone(bone: HumanBone) -> bool {
    Digit::ALL
        .iter()
        .any(|d| d.bones(true).contains(&bone) || d.bones(false).contains(&bone))
}

/// Whether target joint `joint` is a finger's (its pair labelled with a digit) whose first
/// labelled ancestor in the map is its hand or a finger joint (unlabelled palm bones
/// between, VALID's `LeftFingerBase`, are passed): it moves with them, never pinned elsewhere.
pub fn digit_on_hand(target: &Skeleton, map: &BoneMap, joint: usize) -> bool {
    let bone = |j: usize| map.for_target(j).and_then(|p| p.bone);
    if !bone(joint).is_some_and(is_digit_bone) {
        return false;
    }
    let mut at = target.parents()[joint];
    while let Some(j) = at {
        if let Some(b) = bone(j) {
            return is_digit_bone(b) || matches!(b, HumanBone::LeftHand | HumanBone::RightHand);
        }
        at = target.parents()[j];
    }
    false
}

/// Whether unmapped target joint `joint` hangs below a mapped finger joint, with only
/// unmapped joints between: it keeps its reference turn against that joint rather than a
/// blend of the mapped joints around it, so a finger segment split in two (a joint the
/// source has not) points, whole, where its source segment points.
pub fn rigid_in_finger(target: &Skeleton, map: &BoneMap, joint: usize) -> bool {
    let mut at = target.parents()[joint];
    while let Some(j) = at {
        if let Some(pair) = map.for_target(j) {
            return pair.bone.is_some_and(is_digit_bone);
        }
        at = target.parents()[j];
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_palm_uses_the_finger_between_and_the_outermost() {
        use Digit::*;
        assert_eq!(
            palm_digits(&[Index, Middle, Ring, Little]),
            Some([Middle, Index, Little])
        );
        assert_eq!(
            palm_digits(&[Index, Middle, Ring]),
            Some([Middle, Index, Ring])
        );
        assert_eq!(
            palm_digits(&[Index, Ring, Little]),
            Some([Ring, Index, Little])
        );
        assert_eq!(palm_digits(&[Index]), None);
    }
}
