//! One instance's update: advance, sample, retarget, plant, mirror, write matrices.

use super::Output;
use super::instance::{Flags, Instance};
use super::rig::RigPair;
use crate::core::mirror::MirrorScratch;
use crate::core::pose::Pose;
use crate::core::retarget::{PlantScratch, PoseScratch};
use glam::{Affine3A, Mat4};

/// A thread's working memory: allocated once per crowd, reused every frame.
pub(super) struct Scratch {
    source: Pose,
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

/// Updates `inst` by `dt` and writes its matrices into `out` (`target_len()` of them).
pub(super) fn step(
    rig: &RigPair,
    inst: &mut Instance,
    dt: f32,
    output: Output,
    scratch: &mut Scratch,
    out: &mut [Mat4],
) {
    let clip = &rig.clips[inst.clip as usize];
    let c = &clip.compiled;
    let looping = inst.flags.contains(Flags::LOOP);
    inst.time = advance(
        inst.time,
        dt,
        inst.speed,
        c.start_secs(),
        c.duration_secs(),
        looping,
    );
    scratch.source.copy_from(&rig.source_rest);
    c.sample(inst.time, &mut inst.cursor, &mut scratch.source);
    clip.solver
        .retarget_pose_with(&scratch.source, &mut inst.pose, &mut scratch.pose);
    let ik = inst.flags.contains(Flags::IK) && !inst.flags.contains(Flags::LOW_DETAIL);
    if let (true, Some(plants)) = (ik, &clip.plants) {
        clip.solver.plant_at(
            &rig.target,
            plants,
            inst.time,
            &mut inst.pose,
            &mut scratch.plant,
        );
    }
    if inst.flags.contains(Flags::MIRROR) {
        rig.mirror
            .apply_with(&inst.pose, &mut scratch.mirrored, &mut scratch.mirror);
        inst.pose.copy_from(&scratch.mirrored);
    }
    let top = Affine3A::from_mat4(inst.placement * rig.container);
    let worlds = &mut scratch.worlds;
    for (j, parent) in rig.target.parents().iter().enumerate() {
        let p = &inst.pose;
        let local = Affine3A::from_scale_rotation_translation(
            p.scales[j],
            p.rotations[j],
            p.translations[j],
        );
        worlds[j] = match parent {
            Some(parent) => worlds[*parent] * local,
            None => top * local,
        };
    }
    match output {
        Output::World => {
            for (m, w) in out.iter_mut().zip(worlds.iter()) {
                *m = Mat4::from(*w);
            }
        }
        Output::Skinning => {
            for ((m, w), inverse_bind) in out.iter_mut().zip(worlds.iter()).zip(&rig.inverse_bind) {
                *m = Mat4::from(*w * *inverse_bind);
            }
        }
    }
}
