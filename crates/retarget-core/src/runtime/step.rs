//! One instance's update: advance, sample, retarget, plant, mirror, write matrices.

use super::Output;
use super::instance::{Flags, Instance};
use super::rig::RigPair;
use crate::mirror::MirrorScratch;
use crate::pose::Pose;
use crate::retarget::{PlantScratch, PoseScratch};
use crate::sampler::Cursor;
use glam::{Affine3A, Mat4, Quat, Vec3, Vec4, Vec4Swizzles};

/// A thread's working memory: allocated once per crowd, reused every frame. The poses of
/// a frame live here, not in the instances: an instance keeps only what the next frame
/// needs, so a frame writes each instance's matrices and little else. Aligned apart so
/// that two threads' scratch never share a cache line.
#[repr(align(128))]
pub(super) struct Scratch {
    pub poses: PoseWork,
    /// World matrices of the target's joints (for skinning matrices).
    worlds: Vec<Mat4>,
}

/// Where an instance's pose is solved.
pub(super) struct PoseWork {
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
}

impl Scratch {
    pub fn new(rig: &RigPair) -> Self {
        let solver = &rig.clips.first().map(|c| &c.solver);
        Self {
            poses: PoseWork {
                source: rig.source_rest.clone(),
                sampled: None,
                target: Pose::rest(&rig.target),
                pose: solver.map(PoseScratch::new).unwrap_or_default(),
                plant: solver.map(PlantScratch::new).unwrap_or_default(),
                mirror: MirrorScratch::new(&rig.mirror),
                mirrored: Pose::rest(&rig.target),
            },
            worlds: vec![Mat4::IDENTITY; rig.target.len()],
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
    scratch: &'s mut PoseWork,
) -> &'s Pose {
    let c = &rig.clips[clip as usize];
    if scratch.sampled != Some(clip) {
        scratch.source.copy_from(&rig.source_rest);
        scratch.sampled = Some(clip);
    }
    c.compiled.sample(time, cursor, &mut scratch.source);
    let target = &mut scratch.target;
    c.solver
        .retarget_pose(&scratch.source, target, &mut scratch.pose);
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

/// Output larger than this is streamed to memory past the caches ([`stream`]): it cannot
/// stay cached until the caller reads it, and streaming saves reading each line in before
/// writing it (10,000 instances of 43 or 65 joints: 27 or 42 MB, 8 to 15 % faster; 1,000
/// instances, 2.8 MB that stay in cache, 5 % slower streamed).
pub(super) const STREAM_BYTES: usize = 8 << 20;

/// Updates `inst` by `dt` and writes its matrices into `out` (`target_len()` of them),
/// streamed past the caches when `STREAM` (then [`fence`] before the writes are read).
pub(super) fn step<const STREAM: bool>(
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
    let Scratch { poses, worlds } = scratch;
    let pose = solve(
        rig,
        inst.clip,
        inst.time,
        inst.flags,
        &mut inst.cursor,
        poses,
    );
    // An affine placement (as it always was: the bottom row is not read).
    let top = Mat4::from(Affine3A::from_mat4(inst.placement * rig.container));
    let parents = rig.target.parents();
    let n = parents.len();
    let (t, r, s) = (
        &pose.translations[..n],
        &pose.rotations[..n],
        &pose.scales[..n],
    );
    let (out, worlds) = (&mut out[..n], &mut worlds[..n]);
    match output {
        // The world matrices are the output: parents are read back from it (not when
        // streamed: those writes bypass the cache).
        Output::World if !STREAM => {
            for j in 0..n {
                let parent = parents[j].map_or(top, |p| out[p]);
                out[j] = world(parent, t[j], r[j], s[j]);
            }
        }
        Output::World => {
            for j in 0..n {
                let parent = parents[j].map_or(top, |p| worlds[p]);
                worlds[j] = world(parent, t[j], r[j], s[j]);
                stream(&mut out[j], worlds[j]);
            }
        }
        Output::Skinning => {
            let inverse_bind = &rig.inverse_bind[..n];
            for j in 0..n {
                let parent = parents[j].map_or(top, |p| worlds[p]);
                worlds[j] = world(parent, t[j], r[j], s[j]);
                let m = affine_product(worlds[j], inverse_bind[j]);
                if STREAM {
                    stream(&mut out[j], m);
                } else {
                    out[j] = m;
                }
            }
        }
    }
}

/// `a * b` for affine matrices (bottom rows `0 0 0 1`): the 4×4 product without the terms
/// that are zero.
#[inline(always)]
fn affine_product(a: Mat4, b: Mat4) -> Mat4 {
    let col = |v: Vec4| a.x_axis * v.x + a.y_axis * v.y + a.z_axis * v.z;
    Mat4::from_cols(
        col(b.x_axis),
        col(b.y_axis),
        col(b.z_axis),
        col(b.w_axis) + a.w_axis,
    )
}

/// `*to = m` with non-temporal stores: written to memory without reading the line into
/// the cache first. Call [`fence`] before anything reads what was streamed.
#[inline(always)]
fn stream(to: &mut Mat4, m: Mat4) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128, _mm_stream_ps};
        const { assert!(align_of::<Mat4>() >= 16) };
        let p = (to as *mut Mat4).cast::<f32>();
        // SAFETY: `p` points to a `Mat4` we hold exclusively (`to`), 16-byte aligned (the
        // assertion above), so the four aligned 16-byte stores write exactly its 64 bytes.
        unsafe {
            _mm_stream_ps(p, __m128::from(m.x_axis));
            _mm_stream_ps(p.add(4), __m128::from(m.y_axis));
            _mm_stream_ps(p.add(8), __m128::from(m.z_axis));
            _mm_stream_ps(p.add(12), __m128::from(m.w_axis));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *to = m;
    }
}

/// Orders streamed writes before the writes that follow (rayon's signal that a chunk is
/// done): after it, any thread that sees the chunk done sees its matrices.
pub(super) fn fence() {
    // SAFETY: SSE, which `sfence` needs, is part of x86_64.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// The rotation matrix of unit quaternion `q` as three columns (w lanes zero), in SIMD
/// lanes: `1 - 2(y² + z²), 2(xy + wz), 2(xz - wy)` and the like, each column two lane-wise
/// products of swizzles.
#[inline(always)]
pub(super) fn axes(q: Quat) -> [Vec4; 3] {
    let v = Vec4::from(q);
    let v2 = v + v;
    let x = Vec4::X
        + v.yxxw() * v2.yyzw() * Vec4::new(-1.0, 1.0, 1.0, 0.0)
        + v.zwww() * v2.zzyw() * Vec4::new(-1.0, 1.0, -1.0, 0.0);
    let y = Vec4::Y
        + v.yxyw() * v2.xxzw() * Vec4::new(1.0, -1.0, 1.0, 0.0)
        + v.wzww() * v2.zzxw() * Vec4::new(-1.0, -1.0, 1.0, 0.0);
    let z = Vec4::Z
        + v.zzxw() * v2.xyxw() * Vec4::new(1.0, 1.0, -1.0, 0.0)
        + v.wwyw() * v2.yxyw() * Vec4::new(1.0, -1.0, -1.0, 0.0);
    [x, y, z]
}

/// Joint `j`'s world matrix under its parent's (affine): composed from the parent's
/// columns and the joint's local rotation, scale and translation without building the
/// local matrix.
#[inline(always)]
fn world(parent: Mat4, t: Vec3, r: Quat, s: Vec3) -> Mat4 {
    let p = parent;
    let [x, y, z] = axes(r);
    let (x, y, z) = (x * s.x, y * s.y, z * s.z);
    let col = |a: Vec4| p.x_axis * a.x + p.y_axis * a.y + p.z_axis * a.z;
    Mat4::from_cols(
        col(x),
        col(y),
        col(z),
        p.x_axis * t.x + p.y_axis * t.y + p.z_axis * t.z + p.w_axis,
    )
}
