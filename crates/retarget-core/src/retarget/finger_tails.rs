//! Finger joints the target has past the source's: a two-joint source finger onto three
//! target phalanges turns the third as its parent turned, so the curl runs to the tip and a
//! fist closes (the joints the source has keep its directions exactly).

use crate::mapping::BoneMap;
use crate::pose::Pose;
use crate::skeleton::Skeleton;
use glam::Quat;

/// An unmapped target joint past a finger's last mapped joint, with its parent's and its
/// own reference turn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct FingerTail {
    joint: usize,
    parent: usize,
    parent_reference_inverse: Quat,
    reference: Quat,
}

/// The target's finger tails, parents first: unmapped joints below a mapped finger joint
/// with nothing mapped below them (`hands::rigid_in_finger` without a mapped descendant).
pub(super) fn finger_tails(target: &Skeleton, map: &BoneMap, reference: &Pose) -> Vec<FingerTail> {
    let parents = target.parents();
    let mapped: Vec<bool> = (0..target.len())
        .map(|j| map.for_target(j).is_some())
        .collect();
    let mut mapped_below = vec![false; target.len()];
    for j in (0..target.len()).rev() {
        if let Some(p) = parents[j] {
            mapped_below[p] |= mapped[j] || mapped_below[j];
        }
    }
    (0..target.len())
        .filter(|&j| !mapped[j] && !mapped_below[j])
        .filter(|&j| crate::hands::rigid_in_finger(target, map, j))
        .filter_map(|j| {
            let parent = parents[j]?;
            Some(FingerTail {
                joint: j,
                parent,
                parent_reference_inverse: reference.rotations[parent].inverse(),
                reference: reference.rotations[j],
            })
        })
        .collect()
}

/// Turns each tail as its parent turned from its reference, in the parent's frame (a
/// finger's joints bend about one axis): `L = (Lref_p⁻¹ · L_p) · Lref`. Allocates nothing.
pub(super) fn curl(tails: &[FingerTail], pose: &mut Pose) {
    for t in tails {
        let turn = t.parent_reference_inverse * pose.rotations[t.parent];
        pose.rotations[t.joint] = (turn * t.reference).normalize();
    }
}
