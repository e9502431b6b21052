//! Which joints of a leg or arm chain are which bones, and which way the figure faces, from
//! rest geometry alone. Bone lengths and distances are compared with the figure's height so
//! that centimetre, metre and CMU-unit rigs are read alike.

use super::tree::{Tree, horizontal};
use glam::Vec3;

/// Joints closer than this fraction of the figure's height sit "at the same place": the
/// zero-length helpers of mocap rigs (`LHipJoint`, `LeftShoulder`, `LeftFingerBase`).
const SAME_PLACE: f32 = 0.02;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LegSlots {
    pub upper: usize,
    pub lower: usize,
    pub foot: Option<usize>,
    pub toes: Option<usize>,
    /// The foot hangs elsewhere in the hierarchy (an IK rig), found by position.
    pub foot_detached: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ArmSlots {
    pub shoulder: Option<usize>,
    pub upper: usize,
    pub lower: usize,
    pub hand: Option<usize>,
}

/// Length of the bone from `chain[i]` to `chain[i + 1]`, if both exist.
fn segment(tree: &Tree, chain: &[usize], i: usize) -> Option<f32> {
    Some(tree.distance(*chain.get(i)?, *chain.get(i + 1)?))
}

/// Index of the first joint in `chain` that is not at the place of `root`.
fn first_apart(tree: &Tree, root: usize, chain: &[usize]) -> usize {
    let near = SAME_PLACE * tree.height;
    chain
        .iter()
        .position(|&j| tree.distance(j, root) >= near)
        .unwrap_or(chain.len())
}

/// A leg chain (from the hips' child down to the lowest leaf) → upper leg, lower leg, foot,
/// toes. Helpers at the hip (zero-length, or a short first bone) are stepped over.
pub(super) fn leg_slots(tree: &Tree, root: usize, chain: &[usize]) -> Option<LegSlots> {
    let mut i = first_apart(tree, root, chain);
    if let (Some(a), Some(b)) = (segment(tree, chain, i), segment(tree, chain, i + 1))
        && a < 0.4 * b
    {
        i += 1;
    }
    Some(LegSlots {
        upper: *chain.get(i)?,
        lower: *chain.get(i + 1)?,
        foot: chain.get(i + 2).copied(),
        toes: chain.get(i + 3).copied(),
        foot_detached: false,
    })
}

/// An arm chain (from the chest's child out to the farthest leaf) → shoulder, upper arm,
/// lower arm, hand. The shoulder is the joint before the upper arm when there is one: a
/// zero-length clavicle at the chest (CMU), or a first bone that is short or stays near the
/// midline (Mixamo, Unreal, VRoid, RobotExpressive). A long first bone well off the midline
/// is the upper arm itself (CesiumMan, whose chest bone reaches the shoulder).
pub(super) fn arm_slots(tree: &Tree, attach: usize, chain: &[usize]) -> Option<ArmSlots> {
    let i = first_apart(tree, attach, chain);
    let first = *chain.get(i)?;
    let short_first = match (segment(tree, chain, i), segment(tree, chain, i + 1)) {
        (Some(a), Some(b)) => a < 0.5 * b,
        _ => false,
    };
    let near_midline = tree.horizontal_distance(first, attach) < 0.06 * tree.height;
    let (shoulder, u) = if i > 0 {
        (Some(chain[i - 1]), i)
    } else if chain.len() > i + 2 && (short_first || near_midline) {
        (Some(first), i + 1)
    } else {
        (None, i)
    };
    let upper = *chain.get(u)?;
    let lower = *chain.get(u + 1)?;
    let hand = chain.get(u + 2).map(|&h| pick_hand(tree, lower, h));
    Some(ArmSlots {
        shoulder,
        upper,
        lower,
        hand,
    })
}

/// Where several joints sit at the wrist (RobotExpressive: one palm per finger), the hand is
/// the one that carries on along the forearm.
fn pick_hand(tree: &Tree, lower: usize, hand: usize) -> usize {
    let near = SAME_PLACE * tree.height;
    let forearm = (tree.pos[hand] - tree.pos[lower]).normalize_or_zero();
    let along = |s: usize| {
        let base = tree.pos[s];
        tree.subtree(s)
            .into_iter()
            .map(|d| tree.pos[d] - base)
            .max_by(|a, b| a.length_squared().total_cmp(&b.length_squared()))
            .map_or(-2.0, |v| v.normalize_or_zero().dot(forearm))
    };
    tree.children[lower]
        .iter()
        .copied()
        .filter(|&s| tree.distance(s, hand) < near)
        .max_by(|&a, &b| along(a).total_cmp(&along(b)).then(b.cmp(&a)))
        .unwrap_or(hand)
}

/// A foot that is not below the knee in the hierarchy (IK rigs hang feet from the root):
/// the free joint nearest to where the shin, as long as the thigh, would end.
pub(super) fn detached_foot(tree: &Tree, leg: &LegSlots, taken: &[bool]) -> Option<usize> {
    let (hip, knee) = (tree.pos[leg.upper], tree.pos[leg.lower]);
    let thigh = knee - hip;
    let len = thigh.length();
    if len.is_nan() || len <= 0.0 {
        return None;
    }
    let predicted = knee + thigh;
    let fits: Vec<usize> = (0..tree.len())
        .filter(|&j| !taken.get(j).copied().unwrap_or(true))
        .filter(|&j| !tree.is_ancestor(j, leg.upper))
        .filter(|&j| {
            let p = tree.pos[j];
            let d = p.distance(knee);
            p.y < knee.y - 0.5 * len
                && horizontal(p - knee).length() < 0.5 * len
                && (0.5 * len..=2.0 * len).contains(&d)
        })
        .collect();
    // A detached foot carries its toes: of a joint and one below it, the upper is the foot.
    fits.iter()
        .copied()
        .filter(|&j| !fits.iter().any(|&a| tree.is_ancestor(a, j)))
        .min_by(|&a, &b| {
            let da = tree.pos[a].distance(predicted);
            let db = tree.pos[b].distance(predicted);
            da.total_cmp(&db)
        })
}

/// Which way the figure faces (a horizontal unit vector) and how sure that is (1 = toes
/// say so). glTF faces +Z but VRM 0.x faces −Z, and BVH can face anywhere, so this is read
/// from the legs: toes point forward, knees bend forward. `left_hint` (left minus right, from
/// names) is used when the legs say nothing; the glTF convention is the last resort.
pub(super) fn facing(tree: &Tree, legs: &[LegSlots], left_hint: Option<Vec3>) -> (Vec3, f32) {
    let enough = 0.01 * tree.height;
    let toes: Vec3 = legs
        .iter()
        .filter_map(|l| Some(horizontal(tree.pos[l.toes?] - tree.pos[l.foot?])))
        .sum();
    if toes.length() > enough {
        return (toes.normalize(), 1.0);
    }
    let knees: Vec3 = legs.iter().filter_map(|l| knee_bend(tree, l)).sum();
    if knees.length() > enough {
        return (knees.normalize(), 0.9);
    }
    if let Some(left) = left_hint.map(horizontal)
        && left.length() > enough
    {
        // left = up × forward, so forward = left × up.
        return (left.cross(Vec3::Y).normalize(), 0.85);
    }
    (Vec3::Z, 0.7)
}

/// The knee's horizontal offset from the straight line hip → ankle.
fn knee_bend(tree: &Tree, leg: &LegSlots) -> Option<Vec3> {
    let (hip, knee, ankle) = (
        tree.pos[leg.upper],
        tree.pos[leg.lower],
        tree.pos[leg.foot?],
    );
    let line = ankle - hip;
    let t = (knee - hip).dot(line) / line.length_squared();
    t.is_finite().then(|| horizontal(knee - (hip + line * t)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain_tree(points: &[Vec3]) -> Tree {
        let parents: Vec<Option<usize>> = (0..points.len()).map(|i| i.checked_sub(1)).collect();
        Tree::new(&parents, points.to_vec())
    }

    #[test]
    fn zero_length_hip_helper_is_not_the_upper_leg() {
        // root, helper at the root, hip, knee, ankle, toe, plus a head far above for height.
        let t = chain_tree(&[
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.1, 0.9, 0.0),
            Vec3::new(0.1, 0.5, 0.05),
            Vec3::new(0.1, 0.1, 0.0),
            Vec3::new(0.1, 0.0, 0.1),
        ]);
        let leg = leg_slots(&t, 0, &[1, 2, 3, 4, 5]).unwrap();
        assert_eq!(
            (leg.upper, leg.lower, leg.foot, leg.toes),
            (2, 3, Some(4), Some(5))
        );
        let (forward, sure) = facing(&t, &[leg], None);
        assert!(forward.abs_diff_eq(Vec3::Z, 1e-6) && sure == 1.0);
    }

    #[test]
    fn short_first_arm_bone_is_the_shoulder() {
        let t = chain_tree(&[
            Vec3::new(0.0, 1.5, 0.0),
            Vec3::new(0.05, 1.55, 0.0),
            Vec3::new(0.15, 1.55, 0.0),
            Vec3::new(0.45, 1.55, 0.0),
            Vec3::new(0.7, 1.55, 0.0),
            Vec3::new(0.0, 0.0, 0.0),
        ]);
        let arm = arm_slots(&t, 0, &[1, 2, 3, 4]).unwrap();
        assert_eq!(arm.shoulder, Some(1));
        assert_eq!((arm.upper, arm.lower, arm.hand), (2, 3, Some(4)));
    }

    #[test]
    fn facing_falls_back_to_names_then_to_plus_z() {
        let t = chain_tree(&[Vec3::ZERO, Vec3::Y]);
        assert_eq!(facing(&t, &[], None), (Vec3::Z, 0.7));
        // Left at −X means the figure faces −Z (a VRM 0.x model).
        let (f, _) = facing(&t, &[], Some(Vec3::NEG_X));
        assert!(f.abs_diff_eq(Vec3::NEG_Z, 1e-6), "{f}");
    }
}
