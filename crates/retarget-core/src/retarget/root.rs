//! Root motion: where the target's pelvis goes each frame.
//!
//! The pelvis is placed so that the target's hip point (the midpoint of its upper legs) is
//! as high above the target's floor, in target leg lengths, as the source's hip point is
//! above the source's floor in source leg lengths. Both floors are where the feet stand:
//! the source's from its motion (a BVH root's OFFSET is often 0 with the whole height in the
//! position channels, so the rest pose says nothing about the floor), the target's from its
//! own reference pose. Sideways the hip point moves by the source's displacement scaled by
//! the same leg ratio, so steps stay steps.
//!
//! The joint that takes the translation is the lowest common ancestor of the hips, both
//! upper legs and the spine: RobotExpressive hangs its legs from `Body`, above the
//! spine-start bone its file calls `Hips`, and moving `Hips` would tear the torso off the
//! legs; Character Creator hangs its legs from `CC_Base_Pelvis` and its spine from the
//! `CC_Base_Hip` above it, and moving the pelvis would walk the legs away from the torso.

use super::plan::chain_to_root;
use crate::HumanBone;
use crate::mapping::{BoneMap, BonePair, TranslationMode};
use crate::pose::Pose;
use crate::skeleton::Skeleton;
use glam::{Affine3A, Mat4, Quat, Vec3};

/// The joints one side's root motion is measured on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Legs {
    /// Upper legs (left, right).
    pub upper: Option<[usize; 2]>,
    /// Lower legs (left, right).
    pub lower: Option<[usize; 2]>,
    /// Feet (ankles), left and right; for a rig without humanoid legs, each leg's end.
    pub feet: Vec<usize>,
    /// Top-to-foot joints of each leg of a rig without humanoid legs (`BoneMap::legs`).
    pub paths: Vec<Vec<usize>>,
}

impl Legs {
    /// The legs of one side of `map`, from the humanoid bones its pairs carry.
    pub fn of_map(map: &BoneMap, side: impl Fn(&BonePair) -> usize) -> Self {
        let find = |b: HumanBone| map.pairs().iter().find(|p| p.bone == Some(b)).map(&side);
        let upper = find(HumanBone::LeftUpperLeg).zip(find(HumanBone::RightUpperLeg));
        let lower = find(HumanBone::LeftLowerLeg).zip(find(HumanBone::RightLowerLeg));
        let feet: Vec<usize> = [HumanBone::LeftFoot, HumanBone::RightFoot]
            .into_iter()
            .filter_map(find)
            .collect();
        if upper.is_none() && feet.is_empty() && !map.legs().is_empty() {
            // Which side `side` reads, asked of a pair whose sides differ.
            let source_side = side(&BonePair::new(0, 1)) == 0;
            let paths: Vec<Vec<usize>> = map
                .legs()
                .iter()
                .map(|l| if source_side { &l.source } else { &l.target })
                .filter(|p| !p.is_empty())
                .cloned()
                .collect();
            return Self {
                upper: None,
                lower: None,
                feet: paths.iter().filter_map(|p| p.last().copied()).collect(),
                paths,
            };
        }
        Self {
            upper: upper.map(|(l, r)| [l, r]),
            lower: lower.map(|(l, r)| [l, r]),
            feet,
            paths: Vec::new(),
        }
    }

    /// The joints whose midpoint is the hip point: the upper legs; on a rig without
    /// humanoid legs, the tops of the legs hung from the pelvis (a fox's hind legs, which
    /// move with it) or of all legs; else the pelvis itself.
    fn hip_joints(&self, skeleton: &Skeleton, pelvis: usize) -> Vec<usize> {
        if let Some([l, r]) = self.upper {
            return vec![l, r];
        }
        let tops: Vec<usize> = self
            .paths
            .iter()
            .filter_map(|p| p.first().copied())
            .collect();
        let on_pelvis: Vec<usize> = tops
            .iter()
            .copied()
            .filter(|&t| skeleton.parents()[t] == Some(pelvis))
            .collect();
        match (on_pelvis.is_empty(), tops.is_empty()) {
            (false, _) => on_pelvis,
            (true, false) => tops,
            (true, true) => vec![pelvis],
        }
    }

    /// Midpoint of `joints`.
    fn hip_point(world: &[Vec3], joints: &[usize]) -> Vec3 {
        joints.iter().map(|&j| world[j]).sum::<Vec3>() / joints.len().max(1) as f32
    }

    /// Upper leg to foot, summed over thigh and shin (so a bent knee does not shorten it),
    /// averaged over both legs; `None` without legs.
    fn length(&self, world: &[Vec3]) -> Option<f32> {
        if !self.paths.is_empty() {
            // A creature's legs stand folded (a fox's zig-zag): their height, not their
            // length, says how high they carry the body (the caller's fallback).
            return None;
        }
        let (upper, lower) = (self.upper?, self.lower?);
        if self.feet.len() != 2 {
            return None;
        }
        let leg = |k: usize| {
            world[upper[k]].distance(world[lower[k]])
                + world[lower[k]].distance(world[self.feet[k]])
        };
        let mean = (leg(0) + leg(1)) * 0.5;
        (mean > 1e-6).then_some(mean)
    }

    /// Height of the lower foot, or of the lowest joint without feet.
    pub fn floor(&self, world: &[Vec3]) -> f32 {
        let joints: Box<dyn Iterator<Item = &Vec3>> = if self.feet.is_empty() {
            Box::new(world.iter())
        } else {
            Box::new(self.feet.iter().map(|&f| &world[f]))
        };
        joints.map(|p| p.y).fold(f32::INFINITY, f32::min)
    }
}

/// Lowest common ancestor of `joints` (a joint counts as its own ancestor).
pub fn common_ancestor(skeleton: &Skeleton, joints: &[usize]) -> Option<usize> {
    crate::skeleton::common_ancestor_in(skeleton.parents(), joints)
}

/// The map the solver runs: the hips pair's translation moved to the pelvis (the common
/// ancestor of hips, upper legs and the spine's first joint) on each side, which also takes the hips' rotation, so
/// legs and torso hang from the joint that moves.
pub fn route_to_pelvis(map: &BoneMap, source: &Skeleton, target: &Skeleton) -> BoneMap {
    let Some(hips) = map
        .pairs()
        .iter()
        .find(|p| p.translation != TranslationMode::None && p.bone == Some(HumanBone::Hips))
        .cloned()
    else {
        return map.clone();
    };
    let spine = map
        .pairs()
        .iter()
        .find(|p| p.bone == Some(HumanBone::Spine));
    // Per side: the joint carrying hips and legs, and the one carrying the spine as well.
    let pelvis = |skeleton: &Skeleton, hips: usize, side: fn(&BonePair) -> usize| {
        let Some([l, r]) = Legs::of_map(map, side).upper else {
            return (hips, hips);
        };
        let legs = common_ancestor(skeleton, &[hips, l, r]).unwrap_or(hips);
        let body = spine.map_or(legs, |p| {
            common_ancestor(skeleton, &[legs, side(p)]).unwrap_or(legs)
        });
        (legs, body)
    };
    let (source_legs, source_body) = pelvis(source, hips.source, |p| p.source);
    let (target_legs, target_body) = pelvis(target, hips.target, |p| p.target);
    // Character Creator hangs the legs from `CC_Base_Pelvis` (the humanoid hips) but the
    // spine from its parent `CC_Base_Hip`: there the joint that moves carries the spine
    // too, and turns as the source's joint above its spine and legs. A source split so
    // (MakeHuman's `Root` over `Hips` and `Spine1`) onto a target that is not still turns
    // the target's pelvis as its legs' joint.
    let target_pelvis = target_body;
    let source_pelvis = if target_body != target_legs {
        source_body
    } else {
        source_legs
    };
    if source_pelvis == hips.source && target_pelvis == hips.target {
        return map.clone();
    }
    let mut routed = map.clone();
    if target_pelvis != hips.target {
        // The file's hips keep the hips' rotation, without the translation.
        routed.insert(BonePair {
            translation: TranslationMode::None,
            ..hips.clone()
        });
    }
    routed.insert(BonePair {
        source: source_pelvis,
        target: target_pelvis,
        ..hips
    });
    routed
}

/// The root-motion solve of one translated pair, built once per retargeter.
#[derive(Clone, Debug)]
pub(super) struct RootSolve {
    /// The target joint that moves (the pelvis).
    pub target: usize,
    /// Target joints from the root down to the pelvis's parent.
    target_chain: Vec<usize>,
    /// Source joints from the root down to each joint the hip point needs.
    source_chains: Vec<Vec<usize>>,
    /// The target's hip point in the pelvis's own space.
    target_hip_offset: Vec3,
    source_ref_hip: Vec3,
    target_ref_hip: Vec3,
    /// Height the source's feet stand at (per clip: see `set_source_floor`).
    pub source_floor: f32,
    pub target_floor: f32,
    /// Target leg length over source leg length.
    pub scale: f32,
    /// The ground path's own scale when it is not `scale` (`stride::Stride::SourcePath`).
    pub path: Option<f32>,
    vertical_only: bool,
    /// Source feet, for the floor of a clip.
    source_feet: Vec<usize>,
    /// The target's hip line (right to left upper leg) and its carrier's world rotation, in
    /// the reference pose; `None` without legs on both sides.
    target_hip_line: Option<(Vec3, Quat)>,
    /// The humanoid hips that carry both upper legs, at or below the pelvis: the joint
    /// [`Self::hip_line_turn`] turns (Character Creator's `CC_Base_Pelvis` under the
    /// `CC_Base_Hip` that moves).
    hip_carrier: usize,
    /// Target joints from the root down to each joint of the hip point.
    target_hip_chains: Vec<Vec<usize>>,
    /// Whether a joint below the pelvis on the way to the hip point takes a translation of
    /// its own (a stag's gallop keys its hind shoulders): the hip point is then not where
    /// the rest puts it in the pelvis's space, and [`Self::settle`] places the pelvis again
    /// once those are solved.
    pub hips_move: bool,
}

/// The deepest humanoid hips of `map` over both upper legs, at or below `pelvis` (joints
/// come parents first), else `pelvis`: Character Creator's `CC_Base_Pelvis` under the
/// `CC_Base_Hip` that moves; not the `EthanSpine` Unity's Ethan hangs its legs from, whose
/// turn is the spine's own.
fn hip_carrier(
    map: &BoneMap,
    target: &Skeleton,
    upper: Option<[usize; 2]>,
    pelvis: usize,
) -> usize {
    let carries = |h: usize| {
        let legs = upper.unwrap_or_default();
        legs.iter().all(|&u| target.is_ancestor(h, u))
            && (h == pelvis || target.is_ancestor(pelvis, h))
    };
    (map.pairs().iter())
        .filter(|p| p.bone == Some(HumanBone::Hips) && carries(p.target))
        .map(|p| p.target)
        .max()
        .unwrap_or(pelvis)
}

/// World positions of a reference pose, from its world matrices.
fn positions(world: &[Mat4]) -> Vec<Vec3> {
    world.iter().map(|m| m.w_axis.truncate()).collect()
}

impl RootSolve {
    pub fn new(
        pair: &BonePair,
        map: &BoneMap,
        (source, source_world): (&Skeleton, &[Mat4]),
        (target, target_world): (&Skeleton, &[Mat4]),
    ) -> Self {
        let (src_pos, tgt_pos) = (positions(source_world), positions(target_world));
        let source_legs = Legs::of_map(map, |p| p.source);
        let target_legs = Legs::of_map(map, |p| p.target);
        let source_hip_joints = source_legs.hip_joints(source, pair.source);
        let target_hip_joints = target_legs.hip_joints(target, pair.target);
        let source_ref_hip = Legs::hip_point(&src_pos, &source_hip_joints);
        let target_ref_hip = Legs::hip_point(&tgt_pos, &target_hip_joints);
        let (source_floor, target_floor) =
            (source_legs.floor(&src_pos), target_legs.floor(&tgt_pos));
        let scale = match (source_legs.length(&src_pos), target_legs.length(&tgt_pos)) {
            (Some(s), Some(t)) => t / s,
            _ => {
                let (hs, ht) = (
                    source_ref_hip.y - source_floor,
                    target_ref_hip.y - target_floor,
                );
                if hs > 1e-6 && ht > 1e-6 { ht / hs } else { 1.0 }
            }
        };
        let mut target_chain = chain_to_root(target.parents(), pair.target);
        target_chain.pop();
        let hip_carrier = hip_carrier(map, target, target_legs.upper, pair.target);
        let target_hip_line = match (source_legs.upper, target_legs.upper) {
            (Some(_), Some([l, r])) => Some((
                tgt_pos[l] - tgt_pos[r],
                crate::reference::rotation_of(target_world[hip_carrier]),
            )),
            _ => None,
        };
        Self {
            target_hip_line,
            hip_carrier,
            target: pair.target,
            target_chain,
            source_chains: source_hip_joints
                .iter()
                .map(|&j| chain_to_root(source.parents(), j))
                .collect(),
            target_hip_chains: target_hip_joints
                .iter()
                .map(|&j| chain_to_root(target.parents(), j))
                .collect(),
            hips_move: false,
            target_hip_offset: target_world[pair.target]
                .inverse()
                .transform_point3(target_ref_hip),
            source_ref_hip,
            target_ref_hip,
            source_floor,
            target_floor,
            scale,
            path: None,
            vertical_only: pair.translation == TranslationMode::InPlace,
            source_feet: source_legs.feet,
        }
    }

    /// Turns the hip carrier's world rotation `world` about its own up axis so its hip line
    /// lies along the source's hip line, measured from the joints' positions: CMU mocap
    /// turns its `LHipJoint`/`RHipJoint` under the hips, so the hips bone alone misses up
    /// to 10° of the pelvis's yaw, and the feet would be placed that far round.
    /// `placed`: the source joints placed this frame (`fk::place`; their positions are read).
    pub fn hip_line_turn(&self, placed: &[Affine3A], world: Quat) -> Quat {
        let Some((line_ref, pelvis_ref)) = self.target_hip_line else {
            return world;
        };
        let [l, r] = [&self.source_chains[0], &self.source_chains[1]].map(|c| end_of(placed, c));
        let from_ref = world * pelvis_ref.inverse();
        let up = from_ref * Vec3::Y;
        let flat = |v: Vec3| (v - up * v.dot(up)).try_normalize();
        let (Some(have), Some(want)) = (flat(from_ref * line_ref), flat(l - r)) else {
            return world;
        };
        let angle = have.cross(want).dot(up).atan2(have.dot(want));
        (Quat::from_axis_angle(up, angle) * world).normalize()
    }

    pub fn set_source_spot(&mut self, x: f32, z: f32) {
        self.source_ref_hip.x = x;
        self.source_ref_hip.z = z;
    }

    /// As `set_source_spot`, for a target whose reference pose is a frame of its own motion.
    pub fn set_target_spot(&mut self, x: f32, z: f32) {
        self.target_ref_hip.x = x;
        self.target_ref_hip.z = z;
    }

    /// The source's hip point in a frame's world matrices.
    pub fn source_hip_in(&self, world: &[Mat4]) -> Vec3 {
        self.source_chains
            .iter()
            .filter_map(|c| c.last().map(|&j| world[j].w_axis.truncate()))
            .sum::<Vec3>()
            / self.source_chains.len().max(1) as f32
    }

    /// The target's hip point in a frame's world matrices (carried by the pelvis).
    pub fn target_hip_in(&self, world: &[Mat4]) -> Vec3 {
        world[self.target].transform_point3(self.target_hip_offset)
    }

    /// Source joints from the root down to each joint the hip point needs.
    pub fn source_chains(&self) -> &[Vec<usize>] {
        &self.source_chains
    }

    /// Target joints from the root down to the pelvis's parent.
    pub fn target_chain(&self) -> &[usize] {
        &self.target_chain
    }

    /// The pelvis joint this solve moves.
    pub fn pelvis(&self) -> usize {
        self.target
    }

    /// The joint whose world rotation [`Self::hip_line_turn`] turns: the pelvis, or the
    /// humanoid hips below it that carry both upper legs.
    pub fn hip_carrier(&self) -> usize {
        self.hip_carrier
    }

    /// Sets the target pelvis's local translation in `target` (rotations already solved):
    /// `placed` holds the source joints placed this frame (their positions are read: the
    /// hip chains'), `parent` the world transform of the pelvis's parent.
    pub fn solve(&self, placed: &[Affine3A], parent: Affine3A, target: &mut Pose) {
        let want = self.aim(placed);
        let j = self.target;
        let local = Affine3A::from_scale_rotation_translation(
            target.scales[j],
            target.rotations[j],
            Vec3::ZERO,
        );
        // The pelvis's origin sits where the hip point, carried by the pelvis's own turn and
        // scale, lands on `want`.
        let hip_from_pelvis =
            parent.transform_vector3(local.transform_vector3(self.target_hip_offset));
        let pelvis_world = want - hip_from_pelvis;
        target.translations[j] = parent.inverse().transform_point3(pelvis_world);
    }

    /// Where the target's hip point goes this frame, from the source's placed joints.
    fn aim(&self, placed: &[Affine3A]) -> Vec3 {
        let hip = self
            .source_chains
            .iter()
            .map(|c| end_of(placed, c))
            .sum::<Vec3>()
            / self.source_chains.len().max(1) as f32;
        let k = self.scale;
        let mut want = self.target_ref_hip + (hip - self.source_ref_hip) * self.path.unwrap_or(k);
        want.y = self.target_floor + (hip.y - self.source_floor) * k;
        if self.vertical_only {
            want.x = self.target_ref_hip.x;
            want.z = self.target_ref_hip.z;
        }
        want
    }

    /// Whether any of `translated` (target joints with a translation solve) lies below the
    /// pelvis on the way to the hip point.
    pub fn hips_moved_by(&self, translated: impl Fn(usize) -> bool) -> bool {
        self.target_hip_chains.iter().any(|chain| {
            let below = chain.iter().skip_while(|&&j| j != self.target).skip(1);
            below.copied().any(&translated)
        })
    }

    /// After the translations below the pelvis are solved: moves the pelvis so that the
    /// target's hip point, where the pose now puts it, lands where [`Self::solve`] aimed.
    pub fn settle(
        &self,
        placed: &[Affine3A],
        world_of: &mut impl FnMut(&[usize], &Pose) -> Affine3A,
        target: &mut Pose,
    ) {
        let want = self.aim(placed);
        let hip = self
            .target_hip_chains
            .iter()
            .map(|c| Vec3::from(world_of(c, target).translation))
            .sum::<Vec3>()
            / self.target_hip_chains.len().max(1) as f32;
        let parent = world_of(&self.target_chain, target);
        target.translations[self.target] += parent.inverse().transform_vector3(want - hip);
    }

    /// The source's foot joints (the clip's floor is the lowest they reach, by the rule
    /// judge and `check` measure contacts against).
    pub fn source_feet(&self) -> &[usize] {
        &self.source_feet
    }
}

/// The world position of the end of `chain` (a source hip chain, never empty) in `placed`.
fn end_of(placed: &[Affine3A], chain: &[usize]) -> Vec3 {
    chain
        .last()
        .map_or(Vec3::ZERO, |&j| Vec3::from(placed[j].translation))
}

/// World transform at the end of `chain` (root first), composed from `pose`'s locals.
pub(super) fn chain_world(container: Affine3A, chain: &[usize], pose: &Pose) -> Affine3A {
    chain.iter().fold(container, |acc, &j| {
        acc * Affine3A::from_scale_rotation_translation(
            pose.scales[j],
            pose.rotations[j],
            pose.translations[j],
        )
    })
}

#[cfg(test)]
#[path = "root_tests.rs"]
mod tests;
