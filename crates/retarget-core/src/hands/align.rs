//! Lining up the target's hands and fingers with the source's in the reference poses: with
//! the same palm frame and the same finger directions there, the rest-relative solve
//! (`Wt = Ws · Bs⁻¹ · Bt`) gives the fingers the source's directions in the hand's frame on
//! every frame, whatever the two rigs' rest fingers were.

use super::pairs::{HandPair, TailLink};
use super::shape::palm_frame;
use super::tips::bone_direction;
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
        for tail in &pair.tails {
            turned.extend(align_tail(source, source_ref, target, target_ref, tail));
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

/// Turns a finger's tail so its last bone points where the source's last bone points: the
/// turn is shared by the tail's joints that have a child (a lone joint takes it all), each
/// taking its share of what is left. Returns the joints turned.
fn align_tail(
    source: &Skeleton,
    source_ref: &ReferencePose,
    target: &Skeleton,
    target_ref: &mut ReferencePose,
    tail: &TailLink,
) -> Vec<usize> {
    let (Some(&last), n) = (tail.target.last(), (tail.target.len() - 1).max(1)) else {
        return Vec::new();
    };
    let sw = source_ref.world_matrices(source);
    let Some(want) = bone_direction(source, &sw, &sw, tail.source_last) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, &joint) in tail.target.iter().take(n).enumerate() {
        let tw = target_ref.world_matrices(target);
        let Some(now) = bone_direction(target, &tw, &tw, last) else {
            break;
        };
        let whole = Quat::from_rotation_arc(now, want);
        if whole.angle_between(Quat::IDENTITY) < 1e-5 {
            break;
        }
        let share = Quat::IDENTITY.slerp(whole, 1.0 / (n - k) as f32);
        turn_joint(target, target_ref, joint, share);
        out.push(joint);
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hands::hand_pairs;
    use crate::humanoid::HumanBone::{self, *};
    use crate::mapping::{BoneMap, BonePair};
    use crate::pose::Pose;
    use crate::skeleton::JointDef;
    use crate::transform::Transform;

    const LABELS: [HumanBone; 8] = [
        LeftLowerArm,
        LeftHand,
        LeftIndexProximal,
        LeftIndexIntermediate,
        LeftMiddleProximal,
        LeftMiddleIntermediate,
        LeftLittleProximal,
        LeftLittleIntermediate,
    ];

    /// A left forearm and hand along +X with three two-joint fingers; `palm` turns the hand
    /// about the forearm, `curl` bends each finger's base joint about Z.
    fn hand(palm: Quat, curl: f32) -> Skeleton {
        let bend = Quat::from_rotation_z(-curl);
        let joint = |name: &str, parent, at: Vec3, turn: Quat| {
            JointDef::new(name, parent, Transform::new(at, turn, Vec3::ONE))
        };
        let defs = vec![
            joint("arm", None, Vec3::ZERO, Quat::IDENTITY),
            joint("hand", Some(0), Vec3::X * 0.3, palm),
            joint("index1", Some(1), Vec3::new(0.1, 0.0, 0.03), bend),
            joint("index2", Some(2), Vec3::X * 0.04, Quat::IDENTITY),
            joint("middle1", Some(1), Vec3::new(0.1, 0.0, 0.0), bend),
            joint("middle2", Some(4), Vec3::X * 0.04, Quat::IDENTITY),
            joint("little1", Some(1), Vec3::new(0.09, 0.0, -0.03), bend),
            joint("little2", Some(6), Vec3::X * 0.03, Quat::IDENTITY),
        ];
        Skeleton::new("hand", Mat4::IDENTITY, defs).unwrap()
    }

    fn reference(s: &Skeleton) -> ReferencePose {
        ReferencePose {
            locals: Pose::rest(s),
            container: Mat4::IDENTITY,
            stance_height: None,
        }
    }

    /// The largest angle (degrees) between a paired target segment and its source's, in world.
    fn worst(
        s: &Skeleton,
        sr: &ReferencePose,
        t: &Skeleton,
        tr: &ReferencePose,
        p: &HandPair,
    ) -> f32 {
        let (ps, pt) = (
            positions(&sr.world_matrices(s)),
            positions(&tr.world_matrices(t)),
        );
        p.segments
            .iter()
            .map(|l| {
                let ds = ps[l.source.1] - ps[l.source.0];
                let dt = pt[l.target.1] - pt[l.target.0];
                ds.angle_between(dt).to_degrees()
            })
            .fold(0.0, f32::max)
    }

    #[test]
    fn a_curled_hand_on_a_turned_palm_is_laid_along_the_sources_fingers() {
        let labels: Vec<Option<HumanBone>> = LABELS.map(Some).to_vec();
        let source = hand(Quat::IDENTITY, 0.0);
        let target = hand(Quat::from_rotation_x(1.3), 0.7);
        let map = BoneMap::new(
            (0..8)
                .map(|j| BonePair {
                    bone: Some(LABELS[j]),
                    ..BonePair::new(j, j)
                })
                .collect(),
        );
        let pairs = hand_pairs(&source, &labels, &target, &labels, &map);
        assert_eq!(pairs.len(), 1);
        assert_eq!(pairs[0].source, [1, 4, 2, 6]);
        assert_eq!(pairs[0].segments.len(), 3);
        let sr = reference(&source);
        let mut tr = reference(&target);
        assert!(worst(&source, &sr, &target, &tr, &pairs[0]) > 40.0);
        let offsets = align_hands(&source, &sr, &target, &mut tr, &pairs);
        assert_eq!(
            offsets.iter().map(|o| o.0).collect::<Vec<_>>(),
            [1, 2, 4, 6]
        );
        assert!(worst(&source, &sr, &target, &tr, &pairs[0]) < 1e-3);
        // The offsets rebuild the same reference from the target's rest.
        let again = ReferencePose::new(&target, Pose::rest(&target), &Default::default(), &offsets);
        let (a, b) = (again.world_matrices(&target), tr.world_matrices(&target));
        assert!(a.iter().zip(&b).all(|(a, b)| a.abs_diff_eq(*b, 1e-5)));
    }
}
