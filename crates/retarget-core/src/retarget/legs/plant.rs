//! Planted feet: after the clip is solved frame by frame, each target foot is held
//! still wherever the source's foot is planted, then the leg is solved to reach it. Without
//! this, a target whose thigh and shin differ in proportion from the source's slides its
//! feet during contacts (CMU's walk on the robot: 15.8 mm per contact, the source 7.6).
//!
//! Per leg: the source foot's contacts (hysteresis, `core::contacts`) → the plant, the
//! target's own foot position averaged over the contact (its stance and stride, so the
//! stride is scaled by leg length as the root motion is; a slide too) → a goal held from
//! the frame the source foot settled to the contact's end, eased from the solved foot onto
//! the plant and back over a few frames around it (`goals`) → no goal below the
//! floor → the pelvis lowered where a leg cannot reach (the seed's "max extension",
//! smoothed so no knee snaps straight) → two-bone IK (the knee kept in its solved
//! half-plane: no flips), or the IK cache for a longer leg, within the joints' limits.

use super::super::Retargeter;
use super::super::plan::chain_to_root;
use super::super::root::chain_world;
use super::goals::{Hold, Sizes, drop_to_reach, eased_goals, smoothed_max};
use super::ik::{LegIk, LegKind};
use super::options::{PoleAt, spans_to_contacts};
use crate::contacts::{ContactThresholds, FootContact, detect, settled_from};
use crate::ik::{arc, cache::bend_of, fabrik, lay_along, two_bone};
use crate::pose::Pose;
use crate::reference::rotation_of;
use crate::skeleton::Skeleton;
use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

/// How the quality layer solves a clip.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SolveSettings {
    /// Hold the target's feet where the source's are planted.
    pub plant_feet: bool,
    pub contacts: ContactThresholds,
    /// Seconds over which a plant eases in and out.
    pub blend_secs: f32,
    /// No foot below the target's floor.
    pub floor: bool,
    /// Lower the pelvis where a planted leg cannot reach.
    pub lower_hips: bool,
    /// The share of a leg's straight length IK may use (the seed's "max extension").
    pub max_extension: f32,
    /// Hold IK's joints within the humanoid profile's limits.
    pub limits: bool,
    /// Longer legs from the IK cache (51 samples of the reference shape: the crowd
    /// runtime's fast path) rather than FABRIK from the solved shape, which keeps the
    /// source's bend of every joint.
    pub ik_cache: bool,
    /// Mirror the retargeted clip left to right on the target (`core::mirror`).
    pub mirror: bool,
    /// The mirror's plane and the hips' rules.
    pub mirror_plane: crate::mirror::MirrorSettings,
    /// Keep the source's hand contacts (hands together, a hand on the body) with arm IK.
    pub hand_contacts: bool,
    pub hand_thresholds: crate::contacts::HandThresholds,
    /// Push forearms and hands out of the torso, and a thigh out of the other, where they
    /// go in deeper than the source's own (`retarget::keep_out`).
    pub keep_out: bool,
}

impl SolveSettings {
    /// The settings with every number made usable: finite, within its range (a project
    /// file may hold anything). The solver uses only this form.
    pub fn sanitized(mut self) -> Self {
        let d = Self::default();
        let fix = crate::contacts::detect::fix;
        self.blend_secs = fix(self.blend_secs, 0.0, 2.0, d.blend_secs);
        self.max_extension = fix(self.max_extension, 0.5, 1.0, d.max_extension);
        self.contacts = self.contacts.sanitized();
        self.hand_thresholds = self.hand_thresholds.sanitized();
        let axis = |a: Option<Vec3>| a.filter(|v| v.is_finite() && v.length_squared() > 1e-12);
        self.mirror_plane.axis = axis(self.mirror_plane.axis);
        self.mirror_plane.hips_axis = axis(self.mirror_plane.hips_axis);
        self
    }

    /// The frame-by-frame solve alone: what `Retargeter::new` starts with, so the runtime
    /// API and the solver's invariants see no clip-level pass unless asked.
    pub fn frame_by_frame() -> Self {
        Self {
            plant_feet: false,
            hand_contacts: false,
            keep_out: false,
            ..Self::default()
        }
    }
}

/// The product's defaults (the session's): feet planted, floor, hips, limits.
impl Default for SolveSettings {
    fn default() -> Self {
        Self {
            plant_feet: true,
            contacts: ContactThresholds::default(),
            blend_secs: 0.1,
            floor: true,
            lower_hips: true,
            max_extension: 0.995,
            limits: true,
            ik_cache: false,
            mirror: false,
            mirror_plane: Default::default(),
            hand_contacts: true,
            hand_thresholds: Default::default(),
            keep_out: true,
        }
    }
}

/// How far below the floor a foot may dip before it is lifted, as a share of the height.
const FLOOR_TOLERANCE: f32 = 0.01;

/// What the planting found and did, per leg (the editor draws the contacts as bars).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlantReport {
    /// Per planted leg: the target foot joint and its source contacts (output frames).
    pub contacts: Vec<(usize, Vec<FootContact>)>,
    /// Largest pelvis drop over the clip, in world units.
    pub max_hip_drop: f32,
    /// Per frame, how far the reach chains' farthest end stays from its goal (world
    /// units); empty without reach chains.
    pub reach_missed: Vec<f32>,
    /// The source's hand contacts (output frames) that the arms kept, when they keep them.
    pub hand_contacts: Vec<crate::contacts::HandContact>,
}

impl Retargeter {
    /// Plants the feet of the solved `poses` (one per entry of `times`), given each leg's
    /// source foot `tracks`. Does nothing for one body on both sides (the clip is given
    /// back as it is) or when planting is off.
    pub(in crate::retarget) fn plant(
        &self,
        target: &Skeleton,
        poses: &mut [Pose],
        times: &[f32],
        tracks: &[Vec<Vec3>],
    ) -> PlantReport {
        let mut report = PlantReport::default();
        let Some(goals) = self.plant_goals(poses, times, tracks, &mut report) else {
            return report;
        };
        if self.plan.solve.lower_hips {
            let drops = self.hip_drops(poses, &goals, self.blend_frames(times));
            report.max_hip_drop = drops.iter().copied().fold(0.0, f32::max);
            if let Some(hips) = self.hips_chain() {
                for (pose, &drop) in poses.iter_mut().zip(&drops) {
                    self.lower_hips_by(&hips, pose, drop);
                }
            }
        }
        let mut scratch = super::super::PlantScratch::new(self);
        let placed = self.placed_for_legs();
        for (f, pose) in poses.iter_mut().enumerate() {
            self.plant_frame(target, pose, |leg| goals[leg][f], &placed, &mut scratch);
        }
        report
    }

    /// Frames over which a plant eases in and out, at the rate of `times`.
    pub(in crate::retarget) fn blend_frames(&self, times: &[f32]) -> usize {
        let frames = times.len();
        if frames < 2 {
            return 0;
        }
        let fps = (frames - 1) as f32 / (times[frames - 1] - times[0]).max(1e-6);
        // At most the clip's length (a project may say anything: `as` saturates).
        ((self.plan.solve.blend_secs * fps).round() as usize).min(frames)
    }

    /// Per leg and frame, where the foot is to go (`None`: where the solve put it), with
    /// the contacts put in `report`. `None` when nothing is planted: planting off, no
    /// legs, under two frames, or one body on both sides (its contacts are still reported).
    pub(in crate::retarget) fn plant_goals(
        &self,
        poses: &[Pose],
        times: &[f32],
        tracks: &[Vec<Vec3>],
        report: &mut PlantReport,
    ) -> Option<Vec<Vec<Option<Vec3>>>> {
        let settings = &self.plan.solve;
        if !settings.plant_feet || self.plan.legs.is_empty() || poses.len() < 2 {
            return None;
        }
        if self.plan.same_rig {
            // One body: its clip comes back as it is; the contacts are still shown.
            for (leg, track) in self.plan.legs.iter().zip(tracks) {
                report
                    .contacts
                    .push((leg.foot(), self.leg_contacts(leg, track, times)));
            }
            return None;
        }
        let frames = poses.len();
        let blend = self.blend_frames(times);
        // The solved feet, per leg and frame (down their own root paths only).
        let mut feet = vec![Vec::with_capacity(frames); self.plan.legs.len()];
        for pose in poses.iter() {
            for (leg, track) in self.plan.legs.iter().zip(&mut feet) {
                let at = chain_world(self.plan.target_container, &leg.foot_chain, pose);
                track.push(Vec3::from(at.translation));
            }
        }
        let floor = self.fit.roots.first().map(|r| r.target_floor);
        let mut goals: Vec<Vec<Option<Vec3>>> = Vec::with_capacity(self.plan.legs.len());
        for ((leg, track), solved) in self.plan.legs.iter().zip(tracks).zip(&feet) {
            let contacts = self.leg_contacts(leg, track, times);
            if !leg.planted {
                report.contacts.push((leg.foot(), contacts));
                goals.push(vec![None; frames]);
                continue;
            }
            // The source foot's height above its lowest, scaled, over the target's floor:
            // a planted foot stands as high as the source's does (the robot's long shins
            // left one foot 19 mm above the source's and the other 11 below).
            let lowest = track.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
            let ground = floor.map(|f| (f + leg.rest_lift, lowest));
            let stride = self.fit.roots.first().map(|r| r.scale);
            let sizes = Sizes::new(self.plan.source_height, self.plan.target_height, stride);
            let holds = self.leg_holds(leg, track, times, &contacts);
            let mut goal = eased_goals(solved, track, sizes, ground, &holds, blend);
            if let (true, Some(floor)) = (settings.floor, floor) {
                // A dip of under 1 % of the height is the clip's own (its floor is where
                // its feet stand at rest, not the lowest they reach); deeper, the foot
                // goes through the floor and is lifted onto it.
                let through = floor - FLOOR_TOLERANCE * self.plan.target_height;
                for (g, s) in goal.iter_mut().zip(solved) {
                    if s.y < through || g.is_some_and(|g| g.y < through) {
                        let mut p = g.unwrap_or(*s);
                        p.y = p.y.max(floor);
                        *g = Some(p);
                    }
                }
            }
            report.contacts.push((leg.foot(), contacts));
            goals.push(goal);
        }
        Some(goals)
    }

    /// Solves the legs of one frame's `pose` toward `goal(leg)` (an index into the legs;
    /// `None` leaves that leg). `placed`: the joints the legs read, parents first
    /// (`placed_for_legs`); only those are placed in the world. Allocates nothing.
    pub(in crate::retarget) fn plant_frame(
        &self,
        target: &Skeleton,
        pose: &mut Pose,
        goal: impl Fn(usize) -> Option<Vec3>,
        placed: &[usize],
        scratch: &mut super::super::PlantScratch,
    ) {
        if (0..self.plan.legs.len()).all(|l| goal(l).is_none()) {
            return;
        }
        let container = Mat4::from(self.plan.target_container);
        let turn = self.plan.target_container_rotation;
        let super::super::PlantScratch {
            world,
            rotations,
            points,
        } = scratch;
        let parents = target.parents();
        for &j in placed {
            let local = Mat4::from_scale_rotation_translation(
                pose.scales[j],
                pose.rotations[j],
                pose.translations[j],
            );
            world[j] = match parents[j] {
                Some(p) => world[p] * local,
                None => container * local,
            };
        }
        let world_rotations = |pose: &Pose, rotations: &mut [Quat]| {
            for &j in placed {
                let parent = parents[j].map_or(turn, |p| rotations[p]);
                rotations[j] = parent * pose.rotations[j];
            }
        };
        world_rotations(pose, rotations);
        for (l, leg) in self.plan.legs.iter().enumerate() {
            let foot = world[leg.foot()].w_axis.truncate();
            // A goal where the solved foot already is (a floor that was not crossed):
            // nothing to solve.
            if let Some(goal) =
                goal(l).filter(|g| g.distance(foot) > 1e-5 * self.plan.target_height)
            {
                self.solve_leg(target, leg, goal, pose, world, rotations, points);
                // The next leg may hang from what this one turned (not on any rig here).
                world_rotations(pose, rotations);
            }
        }
    }

    /// The joints a leg's solve reads the world transform or rotation of, with their
    /// ancestors, in index order (a parent's index is below its children's).
    pub(in crate::retarget) fn placed_for_legs(&self) -> Vec<usize> {
        let parents = &self.plan.target_parents;
        let mut placed = vec![false; parents.len()];
        let mut place = |joint: usize| {
            let mut at = Some(joint).filter(|&j| j < parents.len());
            while let Some(j) = at.filter(|&j| !placed[j]) {
                placed[j] = true;
                at = parents[j];
            }
        };
        for leg in &self.plan.legs {
            match &leg.kind {
                LegKind::Path { joints, .. } => joints.iter().for_each(|&j| place(j)),
                LegKind::Detached {
                    upper, lower, foot, ..
                } => [*upper, *lower, *foot].into_iter().for_each(&mut place),
            }
            if let PoleAt::Joint(j) = leg.pole {
                place(j);
            }
        }
        if let Some(pelvis) = self.fit.roots.first().map(|r| r.pelvis()) {
            place(pelvis);
        }
        (0..parents.len()).filter(|&j| placed[j]).collect()
    }

    /// Per frame, how far the pelvis comes down for the legs that cannot reach their
    /// goals, spread over the neighbouring frames so it eases in and out (no further than
    /// `path_drop_limit` where the source's path is kept).
    pub(in crate::retarget) fn hip_drops(
        &self,
        poses: &[Pose],
        goals: &[Vec<Option<Vec3>>],
        blend: usize,
    ) -> Vec<f32> {
        if self.fit.roots.is_empty() {
            return vec![0.0; poses.len()];
        }
        let need: Vec<f32> = poses
            .iter()
            .enumerate()
            .map(|(f, pose)| {
                if goals.iter().all(|g| g[f].is_none()) {
                    return 0.0;
                }
                self.plan
                    .legs
                    .iter()
                    .zip(goals)
                    .filter_map(|(leg, g)| {
                        let top = chain_world(self.plan.target_container, &leg.top_chain, pose);
                        let top = Vec3::from(top.translation);
                        drop_to_reach(top, g[f]?, leg.reach() * self.plan.solve.max_extension)
                    })
                    .fold(0.0, f32::max)
            })
            .collect();
        let mut drops = smoothed_max(&need, blend.max(1));
        if let Some(most) = self.path_drop_limit() {
            // The source's path kept: where the stride would need the body to sink further,
            // the plant gives way (its foot follows the root) instead.
            drops.iter_mut().for_each(|d| *d = d.min(most));
        }
        drops
    }

    /// The pelvis and the root path above it (its parent's), which a hip drop moves.
    pub(in crate::retarget) fn hips_chain(&self) -> Option<(usize, Vec<usize>)> {
        let pelvis = self.fit.roots.first()?.pelvis();
        let mut above = chain_to_root(&self.plan.target_parents, pelvis);
        above.pop();
        Some((pelvis, above))
    }

    /// Lowers the pelvis of `pose` by `drop` world units (`hips` from `hips_chain`).
    pub(in crate::retarget) fn lower_hips_by(
        &self,
        hips: &(usize, Vec<usize>),
        pose: &mut Pose,
        drop: f32,
    ) {
        if drop <= 0.0 {
            return;
        }
        let (pelvis, above) = hips;
        let parent = chain_world(self.plan.target_container, above, pose);
        pose.translations[*pelvis] += parent
            .inverse()
            .transform_vector3(Vec3::new(0.0, -drop, 0.0));
    }

    #[allow(clippy::too_many_arguments)]
    pub(in crate::retarget) fn solve_leg(
        &self,
        target: &Skeleton,
        leg: &LegIk,
        goal: Vec3,
        pose: &mut Pose,
        world: &[Mat4],
        rotations: &[Quat],
        points: &mut [Vec3],
    ) {
        let at = |j: usize| world[j].w_axis.truncate();
        let pelvis = self.fit.roots.first().map(|r| r.pelvis());
        let parent_turn = |j: usize| {
            target.parents()[j].map_or_else(
                || rotation_of(Mat4::from(self.plan.target_container)),
                |p| rotations[p],
            )
        };
        match &leg.kind {
            LegKind::Path {
                joints,
                lengths,
                cache,
                limits,
            } => {
                let n = joints.len();
                let root = at(joints[0]);
                let solved = &mut points[..n];
                for (p, &j) in solved.iter_mut().zip(joints) {
                    *p = at(j);
                }
                if n == 3 {
                    let pole = pole_of(leg.pole, solved[1] - root, root, world, pelvis);
                    let (knee, end) = two_bone::solve(root, goal, lengths[0], lengths[1], pole);
                    solved[1] = knee;
                    solved[2] = end;
                } else if let (Some(cache), true) = (cache, self.plan.solve.ik_cache) {
                    let pole = pole_of(leg.pole, bend_of(solved), root, world, pelvis);
                    cache.solve_into(root, goal, pole, solved);
                } else {
                    fabrik::solve(solved, lengths, goal);
                }
                // The solved rotations, which the limits widen to (legs of up to 8 joints).
                let mut original = [Quat::IDENTITY; 8];
                let limited = self.plan.solve.limits && n <= original.len();
                for (o, &j) in original.iter_mut().zip(joints) {
                    *o = pose.rotations[j];
                }
                let parents = target.parents();
                lay_along(
                    pose,
                    parents,
                    joints,
                    solved,
                    rotations,
                    parent_turn(joints[0]),
                );
                if limited {
                    self.hold_limits(pose, joints, limits, &original[..n]);
                }
            }
            LegKind::Detached {
                upper,
                lower,
                foot,
                lengths,
            } => {
                let (top, knee_now, foot_now) = (at(*upper), at(*lower), at(*foot));
                let pole = pole_of(leg.pole, knee_now - top, top, world, pelvis);
                let (knee, end) = two_bone::solve(top, goal, lengths[0], lengths[1], pole);
                let thigh_turn = arc(knee_now - top, knee - top);
                let shin_turn = arc(thigh_turn * (foot_now - knee_now), end - knee);
                let upper_world = (thigh_turn * rotations[*upper]).normalize();
                let lower_world = (shin_turn * thigh_turn * rotations[*lower]).normalize();
                pose.rotations[*upper] = (parent_turn(*upper).inverse() * upper_world).normalize();
                // The shin's parent is the thigh (or hangs below it).
                let lower_parent = if target.parents()[*lower] == Some(*upper) {
                    upper_world
                } else {
                    thigh_turn * parent_turn(*lower)
                };
                pose.rotations[*lower] = (lower_parent.inverse() * lower_world).normalize();
                let foot_parent = target.parents()[*foot]
                    .map_or(Mat4::from(self.plan.target_container), |p| world[p]);
                pose.translations[*foot] = foot_parent.inverse().transform_point3(goal);
            }
        }
    }

    /// Joints IK turned, held within their limits about the target's reference (widened to
    /// where the solved clip already had them).
    fn hold_limits(
        &self,
        pose: &mut Pose,
        joints: &[usize],
        limits: &[Option<crate::ik::JointLimit>],
        original: &[Quat],
    ) {
        for k in 0..joints.len().saturating_sub(1) {
            let Some(limit) = limits[k] else { continue };
            let j = joints[k];
            let bone = pose.translations[joints[k + 1]];
            let reference = self.plan.target_reference.rotations[j];
            let limit = limit.widened_to(reference, original[k], bone);
            pose.rotations[j] = limit.clamp(reference, pose.rotations[j], bone);
        }
    }
}

/// Which way a leg rooted at `root` bends: as solved (`solved`, the frame's own bend), toward
/// a joint, or along a direction in a joint's frame.
fn pole_of(pole: PoleAt, solved: Vec3, root: Vec3, world: &[Mat4], pelvis: Option<usize>) -> Vec3 {
    match pole {
        PoleAt::Solved => solved,
        PoleAt::Joint(j) => world.get(j).map_or(solved, |m| m.w_axis.truncate() - root),
        PoleAt::Direction(d) => pelvis
            .and_then(|p| world.get(p))
            .map_or(d, |m| m.transform_vector3(d)),
    }
}

impl Retargeter {
    /// A leg's contacts on frames at `times`: drawn by hand, or detected from its source
    /// foot's `track` with its own thresholds or the clip's.
    fn leg_contacts(&self, leg: &LegIk, track: &[Vec3], times: &[f32]) -> Vec<FootContact> {
        if let Some(spans) = &leg.spans {
            return spans_to_contacts(spans, times);
        }
        let limits = leg.contacts.as_ref().unwrap_or(&self.plan.solve.contacts);
        detect(track, times, self.plan.source_height, limits)
    }

    /// Each contact of `leg_contacts` with the frame its hold begins: a detected one from
    /// the frames before it where the source foot already stays; one drawn by hand where
    /// it was drawn.
    fn leg_holds(
        &self,
        leg: &LegIk,
        track: &[Vec3],
        times: &[f32],
        contacts: &[FootContact],
    ) -> Vec<Hold> {
        let limits = leg.contacts.as_ref().unwrap_or(&self.plan.solve.contacts);
        let from = match leg.spans {
            Some(_) => contacts.iter().map(|c| c.start).collect(),
            None => settled_from(track, times, self.plan.source_height, limits, contacts),
        };
        let hold = |(&contact, from)| Hold { contact, from };
        contacts.iter().zip(from).map(hold).collect()
    }
}

impl LegIk {
    /// Points a solve of this leg needs.
    pub(in crate::retarget) fn reach_points(&self) -> usize {
        match &self.kind {
            LegKind::Path { joints, .. } => joints.len(),
            LegKind::Detached { .. } => 3,
        }
    }
}
