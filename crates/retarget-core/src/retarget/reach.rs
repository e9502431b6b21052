//! Reach: a chain in absolute mode is solved, every frame, so its end lands where the
//! source's end is, measured from the hip point and scaled by the figures' heights: a hand
//! that touches a table, a foot on a step. Off by default; an option per chain.

use super::Retargeter;
use crate::ik::{fabrik, lay_along, two_bone};
use crate::pose::Pose;
use crate::reference::{rotation_of, world_rotations_into};
use crate::skeleton::{Skeleton, is_ancestor_in};
use glam::{Mat4, Quat, Vec3};

/// A target chain solved to reach its source's end.
#[derive(Clone, Debug, PartialEq)]
pub struct ReachChain {
    /// Target joints from the chain's top to its end, each the parent of the next.
    pub joints: Vec<usize>,
    /// The source joint whose position the end reaches for.
    pub source_end: usize,
}

impl Retargeter {
    /// The chains solved in absolute mode; a chain that is not a parent-to-child path of
    /// the target, or names a joint out of range, is left out.
    pub fn set_reach(&mut self, chains: Vec<ReachChain>) {
        let parents = &self.plan.target_parents;
        self.plan_mut().reach = chains
            .into_iter()
            .filter(|c| {
                c.joints.len() >= 2
                    && c.source_end < self.plan.source_parents.len()
                    && c.joints.iter().all(|&j| j < parents.len())
                    && c.joints.windows(2).all(|w| parents[w[1]] == Some(w[0]))
            })
            .collect();
    }

    pub fn reach_chains(&self) -> &[ReachChain] {
        &self.plan.reach
    }

    /// Each reach chain's source end, from the source's hip point, for one sampled frame.
    pub(super) fn push_reach_sources(&self, world: &[Mat4], tracks: &mut [Vec<Vec3>]) {
        let hip = self
            .fit
            .roots
            .first()
            .map_or(Vec3::ZERO, |r| r.source_hip_in(world));
        for (chain, track) in self.plan.reach.iter().zip(tracks) {
            track.push(world[chain.source_end].w_axis.truncate() - hip);
        }
    }

    /// Solves every reach chain of every pose onto its scaled source end. Returns, per
    /// frame, how far the farthest chain end stays from its goal (out of reach), in the
    /// target's world units; empty without reach chains.
    pub(super) fn reach_poses(
        &self,
        target: &Skeleton,
        poses: &mut [Pose],
        tracks: &[Vec<Vec3>],
    ) -> Vec<f32> {
        if self.plan.reach.is_empty() {
            return Vec::new();
        }
        let mut missed = vec![0.0f32; poses.len()];
        let container = Mat4::from(self.plan.target_container);
        let turn = rotation_of(container);
        let scale = self.plan.target_height / self.plan.source_height;
        let mut world = vec![Mat4::IDENTITY; target.len()];
        let mut rotations = vec![Quat::IDENTITY; target.len()];
        let longest = self
            .plan
            .reach
            .iter()
            .map(|c| c.joints.len())
            .max()
            .unwrap_or(0);
        let mut points = vec![Vec3::ZERO; longest];
        let mut lengths = vec![0.0f32; longest];
        for (f, pose) in poses.iter_mut().enumerate() {
            for (chain, track) in self.plan.reach.iter().zip(tracks) {
                let Some(offset) = track.get(f) else { continue };
                pose.world_matrices_under(target, container, &mut world);
                world_rotations_into(target.parents(), turn, &pose.rotations, &mut rotations);
                let hip = self
                    .fit
                    .roots
                    .first()
                    .map_or(Vec3::ZERO, |r| r.target_hip_in(&world));
                let goal = hip + *offset * scale;
                let n = chain.joints.len();
                let (pts, lens) = (&mut points[..n], &mut lengths[..n - 1]);
                for (p, &j) in pts.iter_mut().zip(&chain.joints) {
                    *p = world[j].w_axis.truncate();
                }
                for k in 0..n - 1 {
                    lens[k] = pts[k].distance(pts[k + 1]);
                }
                if n == 3 {
                    let (mid, end) =
                        two_bone::solve(pts[0], goal, lens[0], lens[1], pts[1] - pts[0]);
                    pts[1] = mid;
                    pts[2] = end;
                } else {
                    fabrik::solve(pts, lens, goal);
                }
                missed[f] = missed[f].max(pts[n - 1].distance(goal));
                let parent = target.parents()[chain.joints[0]].map_or(turn, |p| rotations[p]);
                lay_along(
                    pose,
                    target.parents(),
                    &chain.joints,
                    pts,
                    &rotations,
                    parent,
                );
            }
        }
        missed
    }
}

/// The joints from `top` down to `end`, top first, when `top` is above `end`.
pub fn path_between(parents: &[Option<usize>], top: usize, end: usize) -> Option<Vec<usize>> {
    if !is_ancestor_in(parents, top, end) {
        return None;
    }
    let mut out = vec![end];
    while *out.last()? != top {
        out.push(parents[*out.last()?]?);
    }
    out.reverse();
    Some(out)
}
