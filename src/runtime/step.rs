//! One instance's update: advance, sample, retarget, plant, mirror, write matrices.

use super::Output;
use super::instance::{Flags, Instance};
use super::rig::RigPair;
use crate::core::mirror::MirrorScratch;
use crate::core::pose::Pose;
use crate::core::retarget::{PlantScratch, PoseScratch};
use crate::core::sampler::Cursor;
use glam::{Affine3A, Mat4};

/// A thread's working memory: allocated once per crowd, reused every frame. The poses of
/// a frame live here, not in the instances: an instance keeps only what the next frame
/// needs, so a frame writes each instance's matrices and little else.
pub(super) struct Scratch {
    source: Pose,
    /// The clip whose animated properties `source` holds (over the source's rest pose);
    /// `None` before the first sample. A clip's sample writes the same properties every
    /// time, so the rest pose is copied in again only when the clip changes.
    sampled: Option<u32>,
    target: Pose,
    pose: PoseScratch,
    plant: PlantScratch,
    mirror: MirrorScratch,
    mirrored: Pose,
    /// World transforms of the target's joints (affine: cheaper to compose than 4×4).
    worlds: Vec<Affine3A>,
}

impl Scratch {
    pub fn new(rig: &RigPair) -> Self {
        let solver = &rig.clips.first().map(|c| &c.solver);
        Self {
            source: rig.source_rest.clone(),
            sampled: None,
            target: Pose::rest(&rig.target),
            pose: solver.map(PoseScratch::new).unwrap_or_default(),
            plant: solver.map(PlantScratch::new).unwrap_or_default(),
            mirror: MirrorScratch::new(&rig.mirror),
            mirrored: Pose::rest(&rig.target),
            worlds: vec![Affine3A::IDENTITY; rig.target.len()],
        }
    }
}

/// The time `dt` seconds on, wrapped into the clip's span when looping.
pub(super) fn advance(
    time: f32,
    dt: f32,
    speed: f32,
    start: f32,
    duration: f32,
    looping: bool,
) -> f32 {
    let t = time + dt * speed;
    if !looping || !t.is_finite() {
        return t;
    }
    if duration <= 0.0 {
        return start;
    }
    start + (t - start).rem_euclid(duration)
}

/// The target's local pose of an instance playing `clip` at `time` with `flags`: sampled,
/// retargeted, planted where asked, mirrored where asked. Written into `scratch`.
pub(super) fn solve<'s>(
    rig: &RigPair,
    clip: u32,
    time: f32,
    flags: Flags,
    cursor: &mut Cursor,
    scratch: &'s mut Scratch,
) -> &'s Pose {
    let c = &rig.clips[clip as usize];
    if scratch.sampled != Some(clip) {
        scratch.source.copy_from(&rig.source_rest);
        scratch.sampled = Some(clip);
    }
    c.compiled.sample(time, cursor, &mut scratch.source);
    let target = &mut scratch.target;
    c.solver
        .retarget_pose_with(&scratch.source, target, &mut scratch.pose);
    let ik = flags.contains(Flags::IK) && !flags.contains(Flags::LOW_DETAIL);
    if let (true, Some(plants)) = (ik, &c.plants) {
        c.solver
            .plant_at(&rig.target, plants, time, target, &mut scratch.plant);
    }
    if flags.contains(Flags::MIRROR) {
        rig.mirror
            .apply_with(target, &mut scratch.mirrored, &mut scratch.mirror);
        return &scratch.mirrored;
    }
    &scratch.target
}

/// Updates `inst` by `dt` and writes its matrices into `out` (`target_len()` of them).
pub(super) fn step(
    rig: &RigPair,
    inst: &mut Instance,
    dt: f32,
    output: Output,
    scratch: &mut Scratch,
    out: &mut [Mat4],
) {
    let c = &rig.clips[inst.clip as usize].compiled;
    let looping = inst.flags.contains(Flags::LOOP);
    inst.time = advance(
        inst.time,
        dt,
        inst.speed,
        c.start_secs(),
        c.duration_secs(),
        looping,
    );
    let mut worlds = std::mem::take(&mut scratch.worlds);
    let pose = solve(
        rig,
        inst.clip,
        inst.time,
        inst.flags,
        &mut inst.cursor,
        scratch,
    );
    let top = Affine3A::from_mat4(inst.placement * rig.container);
    match output {
        Output::World => forward(rig, pose, top, &mut worlds, out, |_, w| Mat4::from(w)),
        Output::Skinning => forward(rig, pose, top, &mut worlds, out, |j, w| {
            Mat4::from(w * rig.inverse_bind[j])
        }),
    }
    scratch.worlds = worlds;
}

/// Forward kinematics of `pose` under `top`, each joint's matrix written as soon as its
/// world transform is known: `out[j] = matrix(j, world[j])`.
#[inline(always)]
fn forward(
    rig: &RigPair,
    pose: &Pose,
    top: Affine3A,
    worlds: &mut [Affine3A],
    out: &mut [Mat4],
    matrix: impl Fn(usize, Affine3A) -> Mat4,
) {
    let parents = rig.target.parents();
    let n = parents.len();
    let (worlds, out) = (&mut worlds[..n], &mut out[..n]);
    let (t, r, s) = (
        &pose.translations[..n],
        &pose.rotations[..n],
        &pose.scales[..n],
    );
    for j in 0..n {
        let local = Affine3A::from_scale_rotation_translation(s[j], r[j], t[j]);
        let world = match parents[j] {
            Some(p) => worlds[p] * local,
            None => top * local,
        };
        worlds[j] = world;
        out[j] = matrix(j, world);
    }
}
