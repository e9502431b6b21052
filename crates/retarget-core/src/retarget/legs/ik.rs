//! The target legs the feet planting moves, each paired with the source foot whose
//! contacts plant it, and how each is solved: a thigh–shin–foot path by the analytic
//! two-bone solver, a longer path (a fox's leg) by the IK cache, and a foot that hangs
//! elsewhere (the robot's IK target under its root) by moving the foot and aiming the leg.

use super::super::plan::{RotationSolve, SideReference, chain_to_root};
use super::super::root::Legs;
use super::super::twist::twist_free;
use super::options::PoleAt;
use crate::contacts::ContactThresholds;
use crate::ik::{IkCache, JointLimit};
use crate::mapping::BoneMap;
use crate::skeleton::{Skeleton, is_ancestor_in};
use glam::Vec3;

#[derive(Clone, Debug)]
pub(in crate::retarget) enum LegKind {
    /// Joints from the leg's top to its foot, each an ancestor of the next (twist bones
    /// inside a thigh or shin ride on it: `twist_free`); `cache` for more than two bones.
    Path {
        joints: Vec<usize>,
        lengths: Vec<f32>,
        cache: Option<IkCache>,
        /// Per joint of the path, its limit (from the humanoid profile), if any.
        limits: Vec<Option<JointLimit>>,
    },
    /// A foot that is not below its leg: the foot is moved, thigh and shin aimed at it.
    Detached {
        upper: usize,
        lower: usize,
        foot: usize,
        lengths: [f32; 2],
    },
}

#[derive(Clone, Debug)]
pub(in crate::retarget) struct LegIk {
    pub source_foot: usize,
    pub kind: LegKind,
    /// Root-to-joint paths of the foot and the leg's top: where they are in a frame without
    /// the whole skeleton's forward kinematics.
    pub foot_chain: Vec<usize>,
    pub top_chain: Vec<usize>,
    /// The source foot's root-to-joint path: its track costs no full forward kinematics.
    pub source_chain: Vec<usize>,
    /// Planted on its contacts (a leg can be left to the frame-by-frame solve).
    pub planted: bool,
    /// Which way its knee bends.
    pub pole: PoleAt,
    /// Its own contact thresholds, in place of the clip's.
    pub contacts: Option<ContactThresholds>,
    /// Contacts drawn by hand for the next clips, in clip seconds, in place of detection.
    pub spans: Option<Vec<(f32, f32)>>,
    /// How far this foot stands above the lowest foot in the target's reference pose (a
    /// fox's paw joints are not all at one height): where a plant stands above the floor
    /// when the source's foot is at its lowest.
    pub rest_lift: f32,
}

impl LegIk {
    /// A leg planted on its contacts, bending as solved, its root paths still to be found.
    fn new(source_foot: usize, kind: LegKind) -> Self {
        Self {
            source_foot,
            kind,
            foot_chain: Vec::new(),
            top_chain: Vec::new(),
            source_chain: Vec::new(),
            planted: true,
            pole: PoleAt::Solved,
            contacts: None,
            spans: None,
            rest_lift: 0.0,
        }
    }

    /// The foot joint the plant moves.
    pub fn foot(&self) -> usize {
        match &self.kind {
            LegKind::Path { joints, .. } => joints[joints.len() - 1],
            LegKind::Detached { foot, .. } => *foot,
        }
    }

    /// A foot the planting moves by its translation (it hangs elsewhere than its leg).
    pub fn moved_foot(&self) -> Option<usize> {
        match &self.kind {
            LegKind::Detached { foot, .. } => Some(*foot),
            LegKind::Path { .. } => None,
        }
    }

    /// The joint whose position the leg reaches from.
    pub fn top(&self) -> usize {
        match &self.kind {
            LegKind::Path { joints, .. } => joints[0],
            LegKind::Detached { upper, .. } => *upper,
        }
    }

    /// Length from the top to the foot with the leg straight.
    pub fn reach(&self) -> f32 {
        match &self.kind {
            LegKind::Path { lengths, .. } => lengths.iter().sum(),
            LegKind::Detached { lengths, .. } => lengths[0] + lengths[1],
        }
    }
}

/// The path from `top` down to `foot`, top first; `None` unless `top` is above `foot`.
fn path(parents: &[Option<usize>], top: usize, foot: usize) -> Option<Vec<usize>> {
    if top == foot || !is_ancestor_in(parents, top, foot) {
        return None;
    }
    let mut out = vec![foot];
    while let Some(p) = parents[*out.last()?] {
        out.push(p);
        if p == top {
            out.reverse();
            return Some(out);
        }
    }
    None
}

fn path_leg(
    joints: Vec<usize>,
    source_foot: usize,
    target: &SideReference,
    limit_of: impl Fn(usize) -> Option<JointLimit>,
) -> Option<LegIk> {
    let points: Vec<Vec3> = joints.iter().map(|&j| target.positions[j]).collect();
    let lengths: Vec<f32> = points.windows(2).map(|w| w[0].distance(w[1])).collect();
    if lengths.iter().any(|&l| l <= 1e-9) {
        return None;
    }
    let cache = if joints.len() > 3 {
        Some(IkCache::new(&points)?)
    } else {
        None
    };
    Some(LegIk::new(
        source_foot,
        LegKind::Path {
            limits: joints.iter().map(|&j| limit_of(j)).collect(),
            joints,
            lengths,
            cache,
        },
    ))
}

/// The legs of `map` the planting can move, with their source feet.
pub(in crate::retarget) fn legs(
    map: &BoneMap,
    target: &Skeleton,
    tgt_ref: &SideReference,
    source_parents: &[Option<usize>],
    solves: &[RotationSolve],
) -> Vec<LegIk> {
    let parents = target.parents();
    let mut legs: Vec<LegIk> = found_legs(map, target, tgt_ref, solves)
        .into_iter()
        .map(|mut leg| {
            leg.foot_chain = chain_to_root(parents, leg.foot());
            leg.top_chain = chain_to_root(parents, leg.top());
            leg.source_chain = chain_to_root(source_parents, leg.source_foot);
            leg
        })
        .collect();
    let y = |leg: &LegIk| tgt_ref.positions[leg.foot()].y;
    let lowest = legs.iter().map(y).fold(f32::INFINITY, f32::min);
    for leg in &mut legs {
        leg.rest_lift = y(leg) - lowest;
    }
    legs
}

fn found_legs(
    map: &BoneMap,
    target: &Skeleton,
    tgt_ref: &SideReference,
    solves: &[RotationSolve],
) -> Vec<LegIk> {
    let limit_of = |j: usize| {
        map.for_target(j)
            .and_then(|p| p.bone)
            .and_then(JointLimit::humanoid_default)
    };
    let (s, t) = (
        Legs::of_map(map, |p| p.source),
        Legs::of_map(map, |p| p.target),
    );
    let parents = target.parents();
    if let (Some(upper), Some(lower)) = (t.upper, t.lower)
        && s.feet.len() == 2
        && t.feet.len() == 2
    {
        return (0..2)
            .filter_map(|k| {
                let foot = t.feet[k];
                match path(parents, upper[k], foot) {
                    Some(joints) if is_ancestor_in(parents, lower[k], foot) => {
                        let joints = twist_free(joints, solves);
                        path_leg(joints, s.feet[k], tgt_ref, limit_of)
                    }
                    _ => {
                        let p = &tgt_ref.positions;
                        let lengths = [
                            p[upper[k]].distance(p[lower[k]]),
                            p[lower[k]].distance(p[foot]),
                        ];
                        (lengths[0] > 1e-9 && lengths[1] > 1e-9).then(|| {
                            LegIk::new(
                                s.feet[k],
                                LegKind::Detached {
                                    upper: upper[k],
                                    lower: lower[k],
                                    foot,
                                    lengths,
                                },
                            )
                        })
                    }
                }
            })
            .collect();
    }
    map.legs()
        .iter()
        .filter_map(|leg| {
            let (&top, &foot) = (leg.target.first()?, leg.target.last()?);
            let joints = twist_free(path(parents, top, foot)?, solves);
            path_leg(joints, *leg.source.last()?, tgt_ref, limit_of)
        })
        .collect()
}
