//! One frame's rotations by the plan `locals` makes: the local forms first, then the world
//! solves and the world rotations read, parents first.
//!
//! The loops take the plan and the fit as arguments of their own: references the compiler
//! knows nothing writes through, so it keeps their arrays' addresses in registers across the
//! writes to the poses (read through the `Arc` on every joint, they cost 5% of a pose's
//! solve).

use super::super::plan::RotationSolve;
use super::super::{Fit, Plan};
use crate::pose::Pose;
use glam::Quat;

/// The source's world rotations of the joints the plan asks for (`LocalPlan::source_world`),
/// on a rigid frame or another.
pub(in crate::retarget) fn source_world_rotations(
    plan: &Plan,
    fit: &Fit,
    rigid: bool,
    locals: &[Quat],
    out: &mut [Quat],
) {
    for &j in &fit.locals.source_world[usize::from(!rigid)] {
        out[j] = match plan.source_parents[j] {
            Some(p) => out[p],
            None => plan.source_container_rotation,
        } * locals[j];
    }
}

/// Every target joint's local rotation, and the world rotations the plan asks for
/// (`source_world`: the source's; `target_world` receives the target's): first the local
/// forms, which read the source's locals alone, then the world solves and the world
/// rotations read, parents first.
pub(in crate::retarget) fn solve_rotations(
    plan: &Plan,
    fit: &Fit,
    placed: &[glam::Affine3A],
    source: &Pose,
    target: &mut Pose,
    source_world: &[Quat],
    target_world: &mut [Quat],
) {
    let order = &fit.locals;
    let locals = &source.rotations;
    order.turns.solve(locals, &mut target.rotations);
    for &(t, path, len, before, after) in &order.long_turns {
        let q = path[..len].iter().fold(before, |q, &s| q * locals[s]);
        target.rotations[t] = (q * after).normalize();
    }
    for &(t, s) in &order.copied {
        target.rotations[t] = locals[s].normalize();
    }
    for &(t, q) in &order.fixed {
        target.rotations[t] = q;
    }
    for &(i, solved_here) in &order.world_order {
        let parent = match plan.target_parents[i] {
            Some(p) => target_world[p],
            None => plan.target_container_rotation,
        };
        if solved_here {
            let world = world_rotation(plan, fit, i, placed, parent, source_world);
            target_world[i] = world;
            target.rotations[i] = (parent.inverse() * world).normalize();
        } else {
            target_world[i] = parent * target.rotations[i];
        }
    }
}

/// Target joint `i`'s world rotation by its `RotationSolve`, under `parent_world`.
fn world_rotation(
    plan: &Plan,
    fit: &Fit,
    i: usize,
    placed: &[glam::Affine3A],
    parent_world: Quat,
    source_world: &[Quat],
) -> Quat {
    let world = match fit.rotations[i] {
        RotationSolve::Keep => parent_world * plan.target_reference.rotations[i],
        RotationSolve::Mapped { source, offset } => source_world[source] * offset,
        RotationSolve::Between {
            low_source,
            low_delta,
            high_source,
            high_delta,
            fraction,
            reference_world,
        } => {
            let low = source_world[low_source] * low_delta;
            let mut high = source_world[high_source] * high_delta;
            if low.dot(high) < 0.0 {
                high = -high;
            }
            low.slerp(high, fraction) * reference_world
        }
        RotationSolve::Twist(twist) => twist.world(source_world),
    };
    match plan.root_at[i] {
        Some(k) => fit.roots[k].hip_line_turn(placed, world),
        None => world,
    }
}
