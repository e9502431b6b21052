//! Lining up the target's hands and fingers with the source's in the reference poses: with
//! the same palm frame and the same finger directions there, the rest-relative solve
//! (`Wt = Ws · Bs⁻¹ · Bt`) gives the fingers the source's directions in the hand's frame on
//! every frame, whatever the two rigs' rest fingers were.

use super::pairs::HandPair;
use super::shape::palm_frame;
use crate::reference::{ReferencePose, rotation_of};
use crate::skeleton::Skeleton;
use glam::{Mat4, Quat, Vec3};

/// Turns each paired target hand (and the palm bones beside it) so its palm frame is the
/// source's, then each paired finger
/// segment (parents first) so it points where its source segment points. Returns per-joint
/// rotation offsets (in the parent's space) to feed `ReferencePose::new`, and updates
/// `target_ref` in place.
pub fn align_hands(
    source: &Skeleton,
    source_ref: &ReferencePose,
    target: &Skeleton,
    target_ref: &mut ReferencePose,
    pairs: &[HandPair],
) -> Vec<(usize, Quat)> {
    let src = positions(&source_ref.world_matrices(source));
    let old = target_ref.locals.rotations.clone();
    let mut turned = Vec::new();
    for pair in pairs {
        let frame = |p: &[Vec3], j: [usize; 4]| palm_frame(p[j[0]], p[j[1]], p[j[2]], p[j[3]]);
        let tgt = positions(&target_ref.world_matrices(target));
        if let (Some(fs), Some(ft)) = (frame(&src, pair.source), frame(&tgt, pair.target)) {
            let turn = Quat::from_mat3(&(fs * ft.transpose())).normalize();
            for &j in std::iter::once(&pair.target[0]).chain(&pair.target_beside) {
                turn_joint(target, target_ref, j, turn);
                turned.push(j);
            }
        }
        let mut segments = pair.segments.clone();
        segments.sort_by_key(|s| s.target.0);
        for s in segments {
            let tgt = positions(&target_ref.world_matrices(target));
            let dir_t = tgt[s.target.1] - tgt[s.target.0];
            let dir_s = src[s.source.1] - src[s.source.0];
            let (Some(dir_t), Some(dir_s)) = (dir_t.try_normalize(), dir_s.try_normalize()) else {
                continue;
            };
            turn_joint(
                target,
                target_ref,
                s.target.0,
                Quat::from_rotation_arc(dir_t, dir_s),
            );
            turned.push(s.target.0);
        }
    }
    turned.sort_unstable();
    turned.dedup();
    let new = &target_ref.locals.rotations;
    turned
        .into_iter()
        .map(|j| (j, (new[j] * old[j].inverse()).normalize()))
        .collect()
}

fn positions(world: &[Mat4]) -> Vec<Vec3> {
    world.iter().map(|m| m.w_axis.truncate()).collect()
}

/// Turns `joint` by the world rotation `turn` about its own origin.
fn turn_joint(skeleton: &Skeleton, reference: &mut ReferencePose, joint: usize, turn: Quat) {
    let world = reference.world_matrices(skeleton);
    let parent = skeleton.parents()[joint]
        .map_or(rotation_of(reference.container), |p| rotation_of(world[p]));
    let local = (parent.inverse() * turn * rotation_of(world[joint])).normalize();
    reference.locals.rotations[joint] = local;
}
