//! One frame's solve: the source's local pose in, the target's out, one flat pass over
//! arrays the caller (or the retargeter's own scratch) owns, allocating nothing.

use super::fast::frame;
use super::fast::{copies, fk};
use super::root::chain_world;
use super::{Fit, Plan, PoseScratch, Retargeter};
use crate::pose::Pose;
use glam::{Affine3A, Quat, Vec3};

/// What one frame's translation solves read: the source pose, its placed joints and world
/// rotations, the target's world rotations, and whether both sides are rigid (`copies`).
struct Frame<'a> {
    source: &'a Pose,
    placed: &'a [Affine3A],
    /// The container's scale where `placed` holds positions alone (`fk::place_positions`).
    placed_scale: Option<f32>,
    source_world: &'a [Quat],
    target_world: &'a [Quat],
    rigid: Option<(f32, f32)>,
}

impl Retargeter {
    /// Solves one frame: `source` is the source's local pose, `target` receives the
    /// target's. The working memory is the caller's (`scratch` from [`PoseScratch::new`]), so
    /// one retargeter serves many threads and the solve leaves nothing behind. Allocates
    /// nothing.
    pub fn retarget_pose(&self, source: &Pose, target: &mut Pose, scratch: &mut PoseScratch) {
        target.copy_from(&self.plan.target_reference);
        self.solve_pose(source, target, scratch);
    }

    /// One frame's solve onto `target`, which holds the reference's translations and scales
    /// wherever the solve writes none (it writes every rotation, and the same translations
    /// every frame): the previous frame's solve of a clip, or the reference itself.
    pub(super) fn solve_pose(&self, source: &Pose, target: &mut Pose, scratch: &mut PoseScratch) {
        solve_pose(&self.plan, &self.fit, source, target, scratch);
    }
}

// The per-frame solve takes the plan and the fit as arguments of their own, as the rotation
// loops do (`fast::locals`): the compiler then keeps their arrays' addresses in registers
// across the writes to the pose.

/// One frame's solve onto `target`, which holds the reference's translations and scales
/// wherever the solve writes none (it writes every rotation, and the same translations
/// every frame): the previous frame's solve of a clip, or the reference itself.
fn solve_pose(plan: &Plan, fit: &Fit, source: &Pose, target: &mut Pose, scratch: &mut PoseScratch) {
    debug_assert_eq!(source.len(), plan.source_parents.len());
    debug_assert_eq!(target.len(), plan.target_parents.len());
    let PoseScratch {
        source_world,
        target_world,
        source_affine,
        target_affine,
        target_known,
    } = scratch;
    // Copied translations in their parents' frames, where both sides are rigid.
    let rigid = plan.rigid.filter(|_| copies::source_is_rigid(source));
    frame::source_world_rotations(plan, fit, rigid.is_some(), &source.rotations, source_world);
    // The source joints the solves read, each placed once: down quaternions where no
    // placed joint scales, else bit for bit a chain walk's products (`fk`).
    let order = match rigid {
        Some(_) => &plan.source_placed_rigid,
        None => &plan.source_placed,
    };
    let unscaled = |top| {
        order
            .iter()
            .all(|&j| source.scales[j] == Vec3::ONE)
            .then_some(top)
    };
    let positions_only = plan.source_top.and_then(unscaled);
    match positions_only {
        Some(top) => fk::place_positions(
            top,
            &plan.source_parents,
            order,
            source,
            source_world,
            source_affine,
        ),
        None => fk::place(
            plan.source_container,
            &plan.source_parents,
            order,
            source,
            source_affine,
        ),
    }
    let placed = &source_affine[..];
    frame::solve_rotations(
        plan,
        fit,
        placed,
        source,
        target,
        source_world,
        target_world,
    );
    super::finger_tails::curl(&plan.finger_tails, source, target);
    for &(t, s) in &fit.scales {
        target.scales[t] = source.scales[s];
    }
    // The target's world transforms, shared by the solves when that is exact.
    let mut memo = plan.target_memo.then(|| {
        target_known.fill(false);
        fk::TargetMemo {
            affine: target_affine,
            known: target_known,
        }
    });
    let container = plan.target_container;
    let mut world_of = |chain: &[usize], target: &Pose| match &mut memo {
        Some(memo) => memo.world(container, chain, target),
        None => chain_world(container, chain, target),
    };
    let frame = Frame {
        source,
        placed,
        placed_scale: positions_only.map(|(_, _, c)| c),
        source_world,
        target_world,
        rigid,
    };
    // Parents before children: joints that copy the source's translation are placed in
    // the world, under a parent that must already be where it goes; the pelvis hangs
    // from the joints above it (Blender's FBX of the robot keys its root `Bone` away
    // from the bind pose).
    // Constant copies first: they read nothing of the target, and the world solves
    // below read their parents' translations.
    let copies = match rigid {
        Some(_) => {
            for &(t, s, copy) in &fit.locals.fixed_copies {
                target.translations[t] = copy.solve(source.translations[s]);
            }
            &fit.locals.other_copies
        }
        None => &fit.locals.all_copies,
    };
    for &t in &copies[0] {
        solve_translation(plan, fit, t, &frame, &mut world_of, target);
    }
    for r in &fit.roots {
        let parent = world_of(r.target_chain(), target);
        r.solve(placed, parent, target);
    }
    for &t in &copies[1] {
        solve_translation(plan, fit, t, &frame, &mut world_of, target);
    }
    if fit.roots.iter().any(|r| r.hips_move) {
        for r in fit.roots.iter().filter(|r| r.hips_move) {
            r.settle(placed, &mut world_of, target);
        }
        // Copies placed in the world under the pelvis follow it to where it settled.
        for &t in &copies[1] {
            solve_translation(plan, fit, t, &frame, &mut world_of, target);
        }
    }
    place_followers(plan, &mut world_of, target);
    super::ik_bones::follow(&plan.ik_bones, container, target);
}

/// Followers where their anchors are; then the controls that carry followers go along, and
/// the followers are placed again under them (the memo is off where there are carriers:
/// `carried`).
fn place_followers(
    plan: &Plan,
    world_of: &mut impl FnMut(&[usize], &Pose) -> Affine3A,
    target: &mut Pose,
) {
    for f in &plan.follows {
        follow(f, world_of, target);
    }
    if !plan.carried.is_empty() {
        for f in plan.carried.iter().chain(&plan.follows) {
            follow(f, world_of, target);
        }
    }
}

impl Retargeter {
    /// Followers placed again where their anchors now are, with the controls that carry
    /// them, after the passes that turn and move the joints they follow (the legs' planting,
    /// the hips' drop, the hand contacts, the keep-out). A foot under its IK control (the
    /// Godot robot's `foot.L` under `foot_IK.L.001`) is carried by the control: a planted
    /// foot moved on its own would stretch the bone between them. Where no control carries
    /// a follower its bone hangs from elsewhere and nothing is placed again. Allocates
    /// nothing.
    pub(super) fn place_carried(&self, pose: &mut Pose) {
        if self.plan.carried.is_empty() {
            return;
        }
        let container = self.plan.target_container;
        let mut world_of = |chain: &[usize], pose: &Pose| chain_world(container, chain, pose);
        place_followers(&self.plan, &mut world_of, pose);
    }
}

/// Puts a follower where its anchor takes it, under its parent's world transform.
fn follow(
    f: &super::plan::FollowSolve,
    world_of: &mut impl FnMut(&[usize], &Pose) -> Affine3A,
    target: &mut Pose,
) {
    if let Some(rest) = f.keep {
        target.translations[f.target] = rest;
        return;
    }
    let anchor = world_of(&f.anchor_chain, target);
    let parent = world_of(&f.parent_chain, target);
    let world_pos = anchor.transform_point3(f.offset);
    let (Some(hang), Some((&p, above))) = (&f.hang, f.parent_chain.split_last()) else {
        target.translations[f.target] = parent.inverse().transform_point3(world_pos);
        return;
    };
    // A rigid child: it keeps its offset, and its parent turns with the parent's anchor,
    // then to point it at its place.
    target.translations[f.target] = hang.rest;
    let (_, turned, _) = parent.to_scale_rotation_translation();
    let (_, anchor_turn, _) = world_of(&hang.anchor_chain, target).to_scale_rotation_translation();
    let mut turn = (anchor_turn * hang.on_anchor).normalize();
    let from = turn * hang.rest;
    let to = world_pos - Vec3::from(parent.translation);
    if hang.aim && from.length_squared() > 1e-12 && to.length_squared() > 1e-12 {
        turn = (Quat::from_rotation_arc(from.normalize(), to.normalize()) * turn).normalize();
    }
    // The joints the solve turned below it keep their world turns (Rigify's `DEF-thigh.L`
    // under `ORG-spine`); the carried ones go round with it.
    let delta = turn * turned.inverse();
    for (k, chain) in &hang.kept {
        let (_, up, _) = world_of(chain, target).to_scale_rotation_translation();
        target.rotations[*k] =
            (up.inverse() * delta.inverse() * up * target.rotations[*k]).normalize();
    }
    let (_, over, _) = world_of(above, target).to_scale_rotation_translation();
    target.rotations[p] = (over.inverse() * turn).normalize();
}

/// Sets the target joint of translation solve `t` where its source joint is (scaled): in
/// its parent's frame where both sides are rigid (`copies`), else in the world, under its
/// parent's world transform (`world_of` its chain).
fn solve_translation(
    plan: &Plan,
    fit: &Fit,
    t: usize,
    frame: &Frame,
    world_of: &mut impl FnMut(&[usize], &Pose) -> Affine3A,
    target: &mut Pose,
) {
    let t = &plan.translations[t];
    // Scaled as the pelvis is, so an IK target keeps its place on a rescaled rig.
    let k = fit.roots.first().map_or(1.0, |r| r.scale);
    if let (Some(scales), Some(copy), Some(&s)) = (frame.rigid, t.local, t.source_chain.last()) {
        let local = frame.source.translations[s];
        target.translations[t.target] =
            copy.solve(local, frame.source_world, frame.target_world, k, scales);
        return;
    }
    let source_pos = match t.source_chain.last() {
        Some(&j) => Vec3::from(frame.placed[j].translation),
        None => plan.source_container.translation.into(),
    };
    let parent = world_of(&t.target_chain, target);
    target.translations[t.target] = match t.source_parent {
        // Off its parent as far as the source joint is off its own (`copies`).
        Some(sp) => {
            let s = *t.source_chain.last().unwrap_or(&sp);
            let moved = frame.source.translations[s] - t.source_rest;
            let moved = match frame.placed_scale {
                Some(c) => frame.source_world[sp] * moved * c,
                None => frame.placed[sp].transform_vector3(moved),
            };
            t.target_rest + parent.inverse().transform_vector3(moved * k)
        }
        None => {
            let world_pos = t.target_reference + (source_pos - t.source_reference) * k;
            parent.inverse().transform_point3(world_pos)
        }
    };
}
