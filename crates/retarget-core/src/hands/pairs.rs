//! A source hand beside its target hand: the joints of both palm frames, chosen from the
//! fingers both hands have, and the finger segments the bone map pairs.

use super::{Digit, Hand, hands, palm_digits};
use crate::humanoid::HumanBone;
use crate::mapping::BoneMap;
use crate::skeleton::Skeleton;

/// A finger segment on each side: (from, to) joints, `to` below `from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentLink {
    pub digit: Digit,
    pub source: (usize, usize),
    pub target: (usize, usize),
}

/// One hand on both sides: each palm frame's joints (hand, middle base, index base, outer
/// base; the same fingers on both sides) and the paired finger segments.
#[derive(Clone, Debug, PartialEq)]
pub struct HandPair {
    pub left: bool,
    pub source: [usize; 4],
    pub target: [usize; 4],
    /// The target's palm bones beside its hand (`Hand::beside`): they turn with the hand.
    pub target_beside: Vec<usize>,
    /// Each target metacarpal with the source joint that drives it: the source's
    /// metacarpal of the same digit, else the source's hand (it stays as it rests on the hand).
    pub metacarpals: Vec<(usize, usize)>,
    pub segments: Vec<SegmentLink>,
    /// Each paired finger's tail: the target's joints from its last mapped one to its tip,
    /// and the source's last joint of that finger (their last bones are lined up).
    pub tails: Vec<TailLink>,
}

/// A finger's last bones on each side: the target's joints from its last mapped joint to
/// its tip (they share the turn to its end) and the source's last joint of the digit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TailLink {
    pub digit: Digit,
    pub target: Vec<usize>,
    pub source_last: usize,
}

/// The hands both sides have, paired left with left, with the finger segments whose two
/// ends are both mapped (in the target finger, each mapped joint and the next mapped one
/// whose source lies below its own).
pub fn hand_pairs(
    source: &Skeleton,
    source_labels: &[Option<HumanBone>],
    target: &Skeleton,
    target_labels: &[Option<HumanBone>],
    map: &BoneMap,
) -> Vec<HandPair> {
    let source_hands = hands(source, source_labels);
    let mut out = Vec::new();
    for t in hands(target, target_labels) {
        let Some(s) = source_hands.iter().find(|s| s.left == t.left) else {
            continue;
        };
        let common: Vec<Digit> = t
            .fingers()
            .into_iter()
            .filter(|&d| !s.digit(d).is_empty())
            .collect();
        let Some(palm) = palm_digits(&common) else {
            continue;
        };
        let points = |h: &Hand| {
            let [m, i, o] = palm;
            [h.hand, h.digit(m)[0], h.digit(i)[0], h.digit(o)[0]]
        };
        let segments = Digit::ALL
            .into_iter()
            .flat_map(|d| segments_of(source, map, d, t.digit(d)))
            .collect();
        let metacarpals = Digit::ALL
            .into_iter()
            .filter_map(|d| {
                let tm = t.metacarpals[d as usize]?;
                Some((s.metacarpals[d as usize].unwrap_or(s.hand), tm))
            })
            .collect();
        let tails = Digit::ALL
            .into_iter()
            .filter_map(|d| tail_of(map, s, d, t.digit(d)))
            .collect();
        out.push(HandPair {
            left: t.left,
            source: points(s),
            target: points(&t),
            target_beside: t.beside.clone(),
            metacarpals,
            segments,
            tails,
        });
    }
    out
}

/// The paired segments of one target finger.
fn segments_of(
    source: &Skeleton,
    map: &BoneMap,
    digit: Digit,
    joints: &[usize],
) -> Vec<SegmentLink> {
    let mapped: Vec<(usize, usize)> = joints
        .iter()
        .filter_map(|&t| Some((t, map.for_target(t)?.source)))
        .collect();
    mapped
        .windows(2)
        .filter(|w| w[0].1 != w[1].1 && source.is_ancestor(w[0].1, w[1].1))
        .map(|w| SegmentLink {
            digit,
            source: (w[0].1, w[1].1),
            target: (w[0].0, w[1].0),
        })
        .collect()
}

/// One target finger's tail: from the first joint mapped to the deepest source joint the
/// finger maps, to its tip; with the last joint of the source's digit that holds it.
fn tail_of(map: &BoneMap, source: &Hand, digit: Digit, joints: &[usize]) -> Option<TailLink> {
    let mapped: Vec<(usize, usize)> = joints
        .iter()
        .filter_map(|&t| Some((t, map.for_target(t)?.source)))
        .collect();
    let &(_, deepest) = mapped.last()?;
    let first = mapped.iter().find(|m| m.1 == deepest)?.0;
    let at = joints.iter().position(|&j| j == first)?;
    let source_last = source
        .digits
        .iter()
        .find(|d| d.contains(&deepest))
        .and_then(|d| d.last().copied())
        .unwrap_or(deepest);
    Some(TailLink {
        digit,
        target: joints[at..].to_vec(),
        source_last,
    })
}
