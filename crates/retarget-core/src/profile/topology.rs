//! Labels from the shape of the hierarchy and the rest geometry, for rigs whose names say
//! nothing (`leg_joint_L_1`, `joint_07`). Following the Golaem crowd paper's automatic
//! skeleton: find the limbs, then the pelvis where they meet, then the spine between.
//!
//! - hips: where two chains going down (legs) and one going up (spine) meet;
//! - up from the hips, the spine runs to the joint where two chains reach out sideways in
//!   opposite directions (arms); what continues upwards is neck and head;
//! - left and right come from world positions once the facing is known (`limbs::facing`).
//!
//! World +Y is up (importers bring every file into glTF's frame through the container).

use super::limbs::{self, ArmSlots, LegSlots};
use super::tree::{Tree, horizontal};
use super::{Candidate, LabelMethod, spine_bones};
use crate::HumanBone;
use glam::Vec3;

/// Where the legs hang from and which joint is the hips.
struct Pelvis {
    /// The joint the two leg chains hang from.
    leg_root: usize,
    hips: usize,
    legs: [usize; 2],
}

/// Labels read from structure and geometry. `left_hint` (left minus right, from names or a
/// table) is only used when the legs do not show the facing. Returns nothing for figures
/// that are not upright bipeds (a quadruped's "head" is ahead of its hips, not above).
pub(super) fn topology_candidates(tree: &Tree, left_hint: Option<Vec3>) -> Vec<Candidate> {
    let mut out = Vec::new();
    let Some(body) = find_body(tree) else {
        return out;
    };
    let Body {
        pelvis,
        up_path,
        arms,
    } = body;
    let mut taken = vec![false; tree.len()];
    up_path.iter().for_each(|&j| taken[j] = true);
    taken[pelvis.leg_root] = true;
    let mut legs = Vec::new();
    for &start in &pelvis.legs {
        let chain = tree.descend(start, |c| -tree.sub_min_y[c]);
        tree.subtree(start)
            .into_iter()
            .for_each(|j| taken[j] = true);
        legs.extend(limbs::leg_slots(tree, pelvis.leg_root, &chain));
    }
    let arm_slots: Vec<ArmSlots> = match &arms {
        Some((attach, starts)) => starts
            .iter()
            .filter_map(|&s| {
                let chain = arm_chain(tree, up_path[*attach], s);
                tree.subtree(s).into_iter().for_each(|j| taken[j] = true);
                limbs::arm_slots(tree, up_path[*attach], &chain)
            })
            .collect(),
        None => Vec::new(),
    };
    for leg in legs.iter_mut().filter(|l| l.foot.is_none()) {
        leg.foot = limbs::detached_foot(tree, leg, &taken);
        leg.foot_detached = leg.foot.is_some();
        if let Some(f) = leg.foot {
            taken[f] = true;
        }
    }
    let (forward, sure) = limbs::facing(tree, &legs, left_hint);
    let left = Vec3::Y.cross(forward);
    push(&mut out, pelvis.hips, HumanBone::Hips, 0.7);
    if let Some((attach, _)) = arms {
        trunk_candidates(&up_path, attach, &mut out);
    }
    leg_candidates(tree, pelvis.hips, &legs, left, sure, &mut out);
    arm_candidates(tree, pelvis.hips, &arm_slots, left, sure, &mut out);
    out
}

/// The trunk of an upright figure: pelvis, the path from the hips up to the top of the
/// head, and where on that path the arms hang (index into the path, first arm joints).
struct Body {
    pelvis: Pelvis,
    up_path: Vec<usize>,
    arms: Option<(usize, [usize; 2])>,
}

/// The best upright pelvis whose spine carries arms; without arms anywhere, the best upright
/// pelvis alone (its hips and legs are still worth labelling).
fn find_body(tree: &Tree) -> Option<Body> {
    let mut fallback = None;
    for pelvis in pelvis_candidates(tree) {
        let up_path = tree.descend(pelvis.hips, |c| tree.sub_max_y[c]);
        let top = up_path.last().copied().unwrap_or(pelvis.hips);
        if !upright(tree, pelvis.hips, top) {
            continue;
        }
        let arms = find_arms(tree, &up_path);
        let body = Body {
            pelvis,
            up_path,
            arms,
        };
        if body.arms.is_some() {
            return Some(body);
        }
        fallback = fallback.or(Some(body));
    }
    fallback
}

fn push(out: &mut Vec<Candidate>, joint: usize, bone: HumanBone, confidence: f32) {
    out.push(Candidate {
        joint,
        bone,
        method: LabelMethod::Topology,
        confidence,
    });
}

/// Head above the hips, and more above than ahead.
fn upright(tree: &Tree, hips: usize, top: usize) -> bool {
    let v = tree.pos[top] - tree.pos[hips];
    v.y > 0.2 * tree.height && v.y > horizontal(v).length()
}

/// Joints with two chains going well down and one going well up, best first (deepest reach
/// down and up). A leg has at least two joints, so lone IK targets hanging to the floor from
/// the root do not count. A spine-side joint that sits below such a joint is the pelvis bone of a rig
/// that hangs the legs from a separate body joint (RobotExpressive's `Body` → `Hips`), so
/// that joint is the hips.
fn pelvis_candidates(tree: &Tree) -> Vec<Pelvis> {
    let h = tree.height;
    let mut found: Vec<(f32, Pelvis)> = Vec::new();
    for j in 0..tree.len() {
        let y = tree.pos[j].y;
        let kids = &tree.children[j];
        let Some(&up) = kids
            .iter()
            .max_by(|&&a, &&b| tree.sub_max_y[a].total_cmp(&tree.sub_max_y[b]))
        else {
            continue;
        };
        let rise = tree.sub_max_y[up] - y;
        if rise < 0.2 * h {
            continue;
        }
        let drop = |c: usize| y - tree.sub_min_y[c];
        let mut downs: Vec<usize> = kids
            .iter()
            .copied()
            .filter(|&c| c != up && drop(c) > 0.12 * h && !tree.children[c].is_empty())
            .collect();
        downs.sort_by(|&a, &b| drop(b).total_cmp(&drop(a)));
        let Some(legs) = leg_pair(tree, &downs) else {
            continue;
        };
        let score = rise + drop(legs[0]) + drop(legs[1]);
        let hips = if tree.pos[up].y < y - 0.01 * h { up } else { j };
        let pelvis = Pelvis {
            leg_root: j,
            hips,
            legs,
        };
        found.push((score, pelvis));
    }
    // A candidate above another one has the other's "legs" in its spine: they are arms
    // hanging down (a relaxed rest pose). The pelvis is the lowest joint in the hierarchy
    // that has every limb below it, so only the topmost candidates stay.
    let joints: Vec<usize> = found.iter().map(|(_, p)| p.leg_root).collect();
    found.retain(|(_, p)| !joints.iter().any(|&a| tree.is_ancestor(a, p.leg_root)));
    found.sort_by(|a, b| b.0.total_cmp(&a.0));
    found.into_iter().map(|(_, p)| p).collect()
}

/// The two longest downward chains whose feet are apart (not two bones of one skirt).
fn leg_pair(tree: &Tree, downs: &[usize]) -> Option<[usize; 2]> {
    let apart = 0.03 * tree.height;
    for (i, &a) in downs.iter().enumerate() {
        for &b in &downs[i + 1..] {
            let (fa, fb) = (tree.sub_lowest[a], tree.sub_lowest[b]);
            if tree.horizontal_distance(fa, fb) > apart {
                return Some([a, b]);
            }
        }
    }
    None
}

/// Two side branches off the spine path that leave it in opposite horizontal directions and
/// do not reach the ground (a quadruped's front legs leave forwards and reach the ground). Returns the index in `path` of the
/// joint they hang from (the higher one if they differ) and the first joint of each arm.
fn find_arms(tree: &Tree, path: &[usize]) -> Option<(usize, [usize; 2])> {
    let h = tree.height;
    let mut branches: Vec<(usize, usize, f32, Vec3)> = Vec::new();
    for (k, &p) in path.iter().enumerate().skip(1) {
        let reach = tree.horizontal_reach(tree.pos[p]);
        for &c in &tree.children[p] {
            if path.get(k + 1) == Some(&c) || tree.sub_min_y[c] < tree.floor + 0.08 * h {
                continue;
            }
            if reach[c] < 0.12 * h {
                continue;
            }
            // Which way the limb leaves the trunk: towards its first joint off the spine's
            // line. Shoulders stay sideways even when the hands hang forward, and a
            // zero-length clavicle at the chest is stepped over.
            let near = 0.02 * h;
            let dir = tree
                .subtree(c)
                .into_iter()
                .map(|d| horizontal(tree.pos[d] - tree.pos[p]))
                .find(|v| v.length() >= near)
                .unwrap_or_default()
                .normalize_or_zero();
            branches.push((k, c, reach[c], dir));
        }
    }
    let mut best: Option<(f32, usize, [usize; 2])> = None;
    for (i, a) in branches.iter().enumerate() {
        for b in &branches[i + 1..] {
            let score = a.2 + b.2;
            if a.3.dot(b.3) < -0.5 && best.as_ref().is_none_or(|(s, _, _)| score > *s) {
                best = Some((score, a.0.max(b.0), [a.1, b.1]));
            }
        }
    }
    best.map(|(_, attach, arms)| (attach, arms))
}

/// From the chest out to the farthest joint of the arm (the finger tips).
fn arm_chain(tree: &Tree, attach: usize, start: usize) -> Vec<usize> {
    let reach = tree.horizontal_reach(tree.pos[attach]);
    tree.descend(start, |c| reach[c])
}

/// Spine joints up to where the arms hang, then neck and head. A neck chain of three or more
/// ending in a leaf ends in a head-top end site, so the head is the joint before it.
fn trunk_candidates(path: &[usize], attach: usize, out: &mut Vec<Candidate>) {
    let spine = path.get(1..=attach).unwrap_or_default();
    for (&j, bone) in spine.iter().zip(spine_bones(spine.len())) {
        if let Some(bone) = bone {
            push(out, j, bone, 0.6);
        }
    }
    let neck = path.get(attach + 1..).unwrap_or_default();
    match neck {
        [] => {}
        [head] => push(out, *head, HumanBone::Head, 0.55),
        [neck, head] => {
            push(out, *neck, HumanBone::Neck, 0.6);
            push(out, *head, HumanBone::Head, 0.65);
        }
        [neck, .., head, _end] => {
            push(out, *neck, HumanBone::Neck, 0.6);
            push(out, *head, HumanBone::Head, 0.6);
        }
    }
}

/// Which of two chains is the figure's left: the one further along `left` from the hips.
fn order_by_side<T: Copy>(
    tree: &Tree,
    hips: usize,
    pair: &[T],
    at: impl Fn(T) -> usize,
    left: Vec3,
) -> Option<[T; 2]> {
    let [a, b] = pair else { return None };
    let side = |x: T| (tree.pos[at(x)] - tree.pos[hips]).dot(left);
    Some(if side(*a) >= side(*b) {
        [*a, *b]
    } else {
        [*b, *a]
    })
}

fn leg_candidates(
    tree: &Tree,
    hips: usize,
    legs: &[LegSlots],
    left: Vec3,
    sure: f32,
    out: &mut Vec<Candidate>,
) {
    use HumanBone::*;
    let Some([l, r]) = order_by_side(tree, hips, legs, |s| s.upper, left) else {
        return;
    };
    for (leg, twins) in [(l, 0), (r, 1)] {
        let pick = |pair: [HumanBone; 2]| pair[twins];
        push(
            out,
            leg.upper,
            pick([LeftUpperLeg, RightUpperLeg]),
            0.65 * sure,
        );
        push(
            out,
            leg.lower,
            pick([LeftLowerLeg, RightLowerLeg]),
            0.65 * sure,
        );
        if let Some(f) = leg.foot {
            let c = if leg.foot_detached { 0.5 } else { 0.6 };
            push(out, f, pick([LeftFoot, RightFoot]), c * sure);
        }
        if let Some(t) = leg.toes {
            push(out, t, pick([LeftToes, RightToes]), 0.5 * sure);
        }
    }
}

fn arm_candidates(
    tree: &Tree,
    hips: usize,
    arms: &[ArmSlots],
    left: Vec3,
    sure: f32,
    out: &mut Vec<Candidate>,
) {
    use HumanBone::*;
    let Some([l, r]) = order_by_side(tree, hips, arms, |s| s.upper, left) else {
        return;
    };
    for (arm, twins) in [(l, 0), (r, 1)] {
        let pick = |pair: [HumanBone; 2]| pair[twins];
        if let Some(s) = arm.shoulder {
            push(out, s, pick([LeftShoulder, RightShoulder]), 0.55 * sure);
        }
        push(
            out,
            arm.upper,
            pick([LeftUpperArm, RightUpperArm]),
            0.65 * sure,
        );
        push(
            out,
            arm.lower,
            pick([LeftLowerArm, RightLowerArm]),
            0.65 * sure,
        );
        if let Some(h) = arm.hand {
            push(out, h, pick([LeftHand, RightHand]), 0.6 * sure);
        }
    }
}
