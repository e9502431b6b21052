//! Build-time analysis of a map: per target joint, how its rotation is solved, and which
//! constants the per-frame pass needs. Everything here runs once per `Retargeter`.

use crate::humanoid::HumanBone;
use crate::mapping::{BoneMap, BonePair, RotationMode};
use crate::skeleton::Skeleton;
use glam::{Mat4, Quat, Vec3};

/// How one target joint's world rotation is found each frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum RotationSolve {
    /// Not mapped and not between mapped bones: keeps its reference local rotation.
    Keep,
    /// `Wt = Ws[source] * offset` with `offset = Bs⁻¹ (A) Bt`.
    Mapped { source: usize, offset: Quat },
    /// An unmapped bone inside a mapped chain: its world offset from the reference pose is
    /// blended between the mapped bones below and above it, so the chain bends smoothly.
    Between {
        low_source: usize,
        /// `offset(low) * Bt(low)⁻¹`: turns the low source's world rotation into its delta.
        low_delta: Quat,
        high_source: usize,
        high_delta: Quat,
        fraction: f32,
        reference_world: Quat,
    },
    /// A twist bone inside a limb segment: the segment's rotation, turned about it by a
    /// share of the limb's roll (`twist`).
    Twist(super::twist::Twist),
}

/// Reference-pose facts of one side, in world space (containers included).
pub(super) struct SideReference {
    pub world: Vec<Mat4>,
    pub rotations: Vec<Quat>,
    pub positions: Vec<Vec3>,
}

impl SideReference {
    pub fn new(world: Vec<Mat4>) -> Self {
        let rotations = world
            .iter()
            .map(|m| crate::reference::rotation_of(*m))
            .collect();
        let positions = world.iter().map(|m| m.w_axis.truncate()).collect();
        Self {
            world,
            rotations,
            positions,
        }
    }
}

/// Direction a bone points in the reference pose: towards its mapped child if it has one,
/// else its first child with some length.
pub(super) fn bone_direction(
    skeleton: &Skeleton,
    reference: &SideReference,
    joint: usize,
    prefer: impl Fn(usize) -> bool,
) -> Option<Vec3> {
    let children: Vec<usize> = skeleton.children(joint).collect();
    let from = reference.positions[joint];
    let pick = children
        .iter()
        .copied()
        .filter(|&c| prefer(c))
        .chain(children.iter().copied())
        .find(|&c| (reference.positions[c] - from).length_squared() > 1e-12)?;
    Some((reference.positions[pick] - from).normalize())
}

pub(super) fn rotation_solves(
    source: &Skeleton,
    target: &Skeleton,
    map: &BoneMap,
    src_ref: &SideReference,
    tgt_ref: &SideReference,
) -> Vec<RotationSolve> {
    let mapped_target = |t: usize| map.for_target(t).is_some();
    let mapped_source = |s: usize| map.pairs().iter().any(|p| p.source == s);
    let mut solves = vec![RotationSolve::Keep; target.len()];
    for pair in map.pairs() {
        let (s, t) = (pair.source, pair.target);
        let bt = tgt_ref.rotations[t];
        let align = match pair.rotation {
            RotationMode::RestRelative => Quat::IDENTITY,
            RotationMode::Absolute => {
                let dt = bone_direction(target, tgt_ref, t, mapped_target);
                let ds = bone_direction(source, src_ref, s, mapped_source);
                match (dt, ds) {
                    (Some(dt), Some(ds)) => Quat::from_rotation_arc(dt, ds),
                    _ => Quat::IDENTITY,
                }
            }
        };
        let driver = chain_driver(source, target, map, src_ref, s, t);
        let bs_inv = src_ref.rotations[driver].inverse();
        solves[t] = RotationSolve::Mapped {
            source: driver,
            offset: (bs_inv * align * bt).normalize(),
        };
    }
    super::twist::twist_solves(target, map, tgt_ref, &mut solves);
    // Each joint's children, listed once: a scan of the parents per child made a long run
    // of unmapped joints (a 5,000-joint chain) cubic.
    let mut children = vec![Vec::new(); target.len()];
    for (j, p) in target.parents().iter().enumerate() {
        if let Some(p) = *p {
            children[p].push(j);
        }
    }
    for t in 0..target.len() {
        if solves[t] == RotationSolve::Keep && !crate::hands::rigid_in_finger(target, map, t) {
            solves[t] =
                between(target, map, tgt_ref, &solves, &children, t).unwrap_or(RotationSolve::Keep);
        }
    }
    solves
}

/// The source joint whose rotation drives target joint `t` (mapped from `s`): `s` itself,
/// unless the source has unmapped joints between `s` and the source of `t`'s mapped child
/// (CMU `Neck → Neck1 → Head` onto one target neck). Then the parent of the last link with
/// length drives, so the target bone points along the source chain's end rather than its
/// first link (CMU `Spine → Spine1 → Neck`, where `Neck` sits on `Spine1`, keeps `Spine`).
fn chain_driver(
    source: &Skeleton,
    target: &Skeleton,
    map: &BoneMap,
    src_ref: &SideReference,
    s: usize,
    t: usize,
) -> usize {
    let Some((_, source_child)) = crate::align::mapped_child(target, map, t) else {
        return s;
    };
    let mut at = source_child;
    while let Some(parent) = source.parents()[at] {
        let length = src_ref.positions[at].distance(src_ref.positions[parent]);
        if length > 1e-6 {
            let on_path = parent == s || source.is_ancestor(s, parent);
            return if on_path { parent } else { s };
        }
        if parent == s {
            return s;
        }
        at = parent;
    }
    s
}

/// For an unmapped target joint with a mapped ancestor below and a mapped descendant that
/// continues the chain above, the blend between them. Inside one limb segment (a
/// three-segment leg's `LowerLeg` between the knee and the foot) it turns with the segment
/// alone: the foot's own turn shared into it would bend the shin off the source's; so does a
/// hip girdle bone with the hips.
fn between(
    target: &Skeleton,
    map: &BoneMap,
    tgt_ref: &SideReference,
    solves: &[RotationSolve],
    children: &[Vec<usize>],
    joint: usize,
) -> Option<RotationSolve> {
    let parents = target.parents();
    let mut low = parents[joint]?;
    while !matches!(solves[low], RotationSolve::Mapped { .. }) {
        low = parents[low]?;
    }
    let high = chain_continuation(children, tgt_ref, solves, low, joint)?;
    let pos = &tgt_ref.positions;
    let below = (pos[joint] - pos[low]).length();
    let above = (pos[high] - pos[joint]).length();
    let bone = |j: usize| map.for_target(j).and_then(|p| p.bone);
    let in_segment = bone(low)
        .and_then(HumanBone::segment_end)
        .is_some_and(|end| bone(high) == Some(end));
    // A leg's girdle bone between the hips and the thigh (the kaiju's `Back_Leg_Pelvis_L`)
    // is the pelvis's: shared into the thigh's swing, it would carry the hip joint along.
    let girdle = bone(low) == Some(HumanBone::Hips)
        && matches!(
            bone(high),
            Some(HumanBone::LeftUpperLeg | HumanBone::RightUpperLeg)
        );
    let fraction = if in_segment || girdle {
        0.0
    } else if below + above > 1e-9 {
        below / (below + above)
    } else {
        0.5
    };
    let delta = |j: usize| match solves[j] {
        RotationSolve::Mapped { source, offset } => {
            Some((source, offset * tgt_ref.rotations[j].inverse()))
        }
        _ => None,
    };
    let (low_source, low_delta) = delta(low)?;
    let (high_source, high_delta) = delta(high)?;
    Some(RotationSolve::Between {
        low_source,
        low_delta,
        high_source,
        high_delta,
        fraction,
        reference_world: tgt_ref.rotations[joint],
    })
}

/// The first mapped descendant of `joint` (through unmapped joints only) that lies most
/// nearly straight on from `low → joint`: the neck above an extra spine bone rather than a
/// shoulder, the forearm beyond a twist bone.
fn chain_continuation(
    children: &[Vec<usize>],
    tgt_ref: &SideReference,
    solves: &[RotationSolve],
    low: usize,
    joint: usize,
) -> Option<usize> {
    let pos = &tgt_ref.positions;
    let along = (pos[joint] - pos[low]).normalize_or_zero();
    let mut best: Option<(usize, f32)> = None;
    let mut stack: Vec<usize> = children[joint].clone();
    while let Some(c) = stack.pop() {
        if matches!(solves[c], RotationSolve::Mapped { .. }) {
            let dir = (pos[c] - pos[joint]).normalize_or_zero();
            let score = if along == Vec3::ZERO {
                0.0
            } else {
                dir.dot(along)
            };
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((c, score));
            }
        } else {
            stack.extend_from_slice(&children[c]);
        }
    }
    best.map(|(c, _)| c)
}

/// A mapped target joint whose parent chain differs from its source's: RobotExpressive's
/// feet hang from the root (IK targets) and its upper legs from `Body`, not from the
/// joints their sources hang from. Such a joint is carried by the target joint that its
/// source's parent maps to, as if it were its child, so feet stay on legs and legs on hips.
#[derive(Clone, Debug)]
pub(super) struct FollowSolve {
    pub target: usize,
    /// Target joints from the root down to the anchor.
    pub anchor_chain: Vec<usize>,
    /// The joint's reference position in the anchor's space.
    pub offset: Vec3,
    /// Target joints from the root down to the joint's parent.
    pub parent_chain: Vec<usize>,
    /// A rigid child of a control that is itself carried: kept at its offset, its parent
    /// turned to point it at its place instead (`carried`).
    pub hang: Option<Hang>,
    /// A follower hung at a fixed offset from a rigid child so kept: it keeps the offset
    /// too, and goes where its parent takes it (`carried::keep_hung_followers`).
    pub keep: Option<Vec3>,
}

/// A carried joint kept at its offset from its parent, which turns instead.
#[derive(Clone, Debug)]
pub(super) struct Hang {
    /// The joint's offset in its parent's frame.
    pub rest: Vec3,
    /// The joints below the parent that the solve turns (not carried, under carried ones
    /// only), each with the chain down to its parent: turned back, they keep their world
    /// turns.
    pub kept: Vec<(usize, Vec<usize>)>,
    /// Target joints from the root down to the parent's anchor, which the parent turns with.
    pub anchor_chain: Vec<usize>,
    /// The parent's reference world turn in its anchor's frame.
    pub on_anchor: Quat,
    /// Whether the parent then points the joint at its place (its only place for carried
    /// children): else they sit where the parent's turn takes them.
    pub aim: bool,
}

fn nearest_mapped_ancestor(
    parents: &[Option<usize>],
    joint: usize,
    mapped: impl Fn(usize) -> bool,
) -> Option<usize> {
    let mut at = parents[joint]?;
    loop {
        if mapped(at) {
            return Some(at);
        }
        at = parents[at]?;
    }
}

pub(super) fn chain_to_root(parents: &[Option<usize>], joint: usize) -> Vec<usize> {
    let mut chain = vec![joint];
    let mut at = joint;
    while let Some(p) = parents[at] {
        chain.push(p);
        at = p;
    }
    chain.reverse();
    chain
}

pub(super) fn follow_solves(
    source: &Skeleton,
    target: &Skeleton,
    map: &BoneMap,
    tgt_ref: &SideReference,
    solves: &[RotationSolve],
) -> Vec<FollowSolve> {
    let mut follows: Vec<(usize, FollowSolve)> = Vec::new();
    for pair in map.pairs() {
        if pair.translation != crate::mapping::TranslationMode::None {
            continue;
        }
        let source_parent = nearest_mapped_ancestor(source.parents(), pair.source, |s| {
            map.pairs().iter().any(|p| p.source == s)
        });
        // A hand or foot follows its limb, wherever the file hangs it (IK feet under the root).
        let limb = || {
            let bone = crate::characterize::chain_parent(pair.bone?)?;
            map.pairs().iter().find(|p| p.bone == Some(bone))
        };
        // One source joint may drive several targets (four arms, three palms on one
        // finger base): the one above this joint is its anchor if there is one.
        let from_source_parent = || {
            let sp = source_parent?;
            let mut anchors = map.pairs().iter().filter(|p| p.source == sp);
            let first = anchors.clone().next();
            anchors
                .find(|p| target.is_ancestor(p.target, pair.target))
                .or(first)
        };
        let by_limb = limb();
        let Some(anchor) = by_limb.or_else(from_source_parent).map(|p| p.target) else {
            continue;
        };
        let by_limb = by_limb.is_some();
        if hangs_with_its_anchor(source, target, map, solves, pair, anchor, by_limb) {
            continue;
        }
        let offset = tgt_ref.world[anchor]
            .inverse()
            .transform_point3(tgt_ref.positions[pair.target]);
        let mut parent_chain = chain_to_root(target.parents(), pair.target);
        parent_chain.pop();
        follows.push((
            anchor,
            FollowSolve {
                target: pair.target,
                anchor_chain: chain_to_root(target.parents(), anchor),
                offset,
                parent_chain,
                hang: None,
                keep: None,
            },
        ));
    }
    // Anchors earlier in the hierarchy first: a foot follows a leg that follows the hips.
    follows.sort_by_key(|(anchor, _)| *anchor);
    follows.into_iter().map(|(_, f)| f).collect()
}

/// Whether the target joint of `pair` moves with `anchor` through its own hierarchy, so
/// following would only stretch the bone to its parent (`by_limb`: the anchor is the
/// limb of a hand or foot).
fn hangs_with_its_anchor(
    source: &Skeleton,
    target: &Skeleton,
    map: &BoneMap,
    solves: &[RotationSolve],
    pair: &BonePair,
    anchor: usize,
    by_limb: bool,
) -> bool {
    let hips = map.for_bone(HumanBone::Hips).map(|p| p.target);
    let target_parent = nearest_mapped_ancestor(target.parents(), pair.target, |t| {
        map.for_target(t).is_some()
    });
    // The hips and the joints above them (a mapped root) hold the whole body: a hand or
    // foot hung from them, past its limb, is detached (GDBot's `foot.L` under
    // `foot_IK.L.001` under `root`), whatever the two hierarchies share up there.
    let trunk = |tp: usize| hips.is_some_and(|h| h == tp || target.is_ancestor(tp, h));
    let limb_parent = target_parent.filter(|&tp| !by_limb || !trunk(tp));
    // Hanging higher up the same limb (the robot's thumb on its forearm, CMU's on the
    // hand) is a rig's shape, not a detached part: following would stretch the bone.
    let within_limb = limb_parent.is_some_and(|tp| target.is_ancestor(tp, anchor));
    // The target's parent is driven from above this joint's source: the two
    // hierarchies agree here (fingers paired along matched chains), nothing is detached.
    let agrees = limb_parent
        .and_then(|tp| map.for_target(tp))
        .is_some_and(|tp| tp.source == pair.source || source.is_ancestor(tp.source, pair.source));
    // The target hangs the joint below its anchor already, through joints that move its
    // parent against the anchor (GENEA's `b_l_shoulder` turning its `p_l_scap` over the
    // arm, a shoulder GDBot keeps beside its arm; the robot's `hip`, whose translation is
    // solved, over the `waist` paired with GDBot's `torso` above its `hips`; the spine
    // bones the map leaves out between a chest and a neck, which bend with the chain, under
    // the ozz biped's clavicles on its neck): following would stretch the bone to its
    // parent. A parent fixed on the anchor (Ethan's neck right on the upper chest, which
    // only turns, over its shoulders) keeps the bone's length either way.
    let below_anchor = target.is_ancestor(anchor, pair.target)
        && parent_moves_against(target, map, solves, anchor, pair.target);
    // A finger hangs from its hand, whatever palm bone the source hangs it from (the
    // robot's index and ring from `Palm1.L` and `Palm3.L` beside its hand): pinned to the
    // forearm it would leave the hand as the wrist turns (`hands::digit_on_hand`).
    let on_hand = crate::hands::digit_on_hand(target, map, pair.target);
    target_parent == Some(anchor)
        || anchor == pair.target
        || within_limb
        || agrees
        || below_anchor
        || on_hand
}

/// Whether the parent of `joint` (below `anchor`) moves in the anchor's frame: a joint
/// between them turns (a mapped one, or an unmapped one bent with its chain or twisted
/// with its limb), or one down to the parent takes a translation.
fn parent_moves_against(
    target: &Skeleton,
    map: &BoneMap,
    solves: &[RotationSolve],
    anchor: usize,
    joint: usize,
) -> bool {
    let parents = target.parents();
    let Some(parent) = parents[joint] else {
        return false;
    };
    // An unmapped joint turns against the mapped one below it unless it keeps its
    // reference turn on its parent or takes none of the chain's bend (`between`).
    let turns = |j: usize| match solves[j] {
        RotationSolve::Keep => false,
        RotationSolve::Between { fraction, .. } => fraction > 0.0,
        RotationSolve::Mapped { .. } | RotationSolve::Twist(_) => true,
    };
    let mut at = Some(parent);
    while let Some(j) = at.filter(|&j| j != anchor) {
        let pair = map.for_target(j);
        let moved = pair.is_some_and(|p| p.translation != crate::mapping::TranslationMode::None);
        if moved || (j != parent && (pair.is_some() || turns(j))) {
            return true;
        }
        at = parents[j];
    }
    false
}
