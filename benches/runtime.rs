//! The runtime's figures, one run on this machine:
//! - whole-clip retarget of CMU 01_01 (sampling included, one core) onto itself and onto
//!   RobotExpressive, as joint-frames/s (criterion's "elem/s"), with the frame loop
//!   sampled the old way (`Clip::sample`, a binary search per track) and the new
//!   (`CompiledClip` and a cursor) side by side;
//! - µs per pose (sample + retarget) on the same pairs;
//! - ms per crowd frame (`Crowd::update`, world matrices) for 1,000, 10,000 and 100,000
//!   characters on 1 and 2 threads (rayon `ThreadPool`s), with IK on every leg and
//!   without, on RobotExpressive and on a 65-joint target (the VRM with 8 helper joints).
//!
//! Run: `cargo bench --bench runtime`. Bytes per instance are printed at the start.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{Mat4, Vec3};
use retarget_studio::core::retarget::PoseScratch;
use retarget_studio::core::{
    Clip, CompiledClip, Cursor, JointDef, Pose, ReferencePose, RetargetClipOptions, Retargeter,
    Skeleton, Transform,
};
use retarget_studio::io::ImportOptions;
use retarget_studio::runtime::{Crowd, Flags, Output, RigOptions, RigPair};
use retarget_studio::session::Session;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

fn asset(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

/// A pair to retarget: its skeletons, the walk and a retargeter with the session's solve.
struct Pair {
    name: &'static str,
    source: Skeleton,
    target: Skeleton,
    clip: Clip,
    retargeter: Retargeter,
}

fn pair(name: &'static str, target: &str) -> Pair {
    let s = Session::automatic(
        &asset("bvh/01_01.bvh"),
        &asset(target),
        &ImportOptions::default(),
    )
    .expect("assets load");
    Pair {
        name,
        source: s.source.skeleton().clone(),
        target: s.target.skeleton().clone(),
        clip: s.source.clips()[0].clone(),
        retargeter: s.retargeter().expect("retargeter builds"),
    }
}

/// The VRM (57 joints) with 8 helper joints (twist bones on arms and legs) added: 65.
fn pair_65() -> Pair {
    let s = Session::automatic(
        &asset("bvh/01_01.bvh"),
        &asset("vrm/cryptovoxels.vrm"),
        &ImportOptions::default(),
    )
    .expect("assets load");
    let vrm = s.target.skeleton();
    let mut defs = vrm.joint_defs();
    let mut locals = s.target.reference.locals.clone();
    let hosts = [
        "Left arm",
        "Right arm",
        "Left elbow",
        "Right elbow",
        "Left leg",
        "Right leg",
        "Left knee",
        "Right knee",
    ];
    for (k, host) in hosts.iter().enumerate() {
        let parent = vrm.find(host).or_else(|| Some(k % vrm.len()));
        let rest = Transform::from_translation(Vec3::new(0.0, 0.05, 0.0));
        defs.push(JointDef::new(format!("twist{k}"), parent, rest));
        locals.translations.push(rest.translation);
        locals.rotations.push(rest.rotation);
        locals.scales.push(rest.scale);
    }
    let target = Skeleton::new("vrm65", vrm.container(), defs).expect("65 joints");
    let reference = ReferencePose {
        locals,
        container: s.target.reference.container,
        stance_height: s.target.reference.stance_height,
    };
    let source = s.source.skeleton();
    let mut r = Retargeter::new(source, &s.source.reference, &target, &reference, &s.map)
        .expect("retargeter builds");
    r.set_solve(s.solve.settings);
    Pair {
        name: "CMU -> VRM+8 (65 joints)",
        source: source.clone(),
        target,
        clip: s.source.clips()[0].clone(),
        retargeter: r,
    }
}

fn whole_clip(c: &mut Criterion, p: &Pair) {
    let frames = p.clip.frame_count();
    let mut group = c.benchmark_group(format!("clip {}", p.name));
    group.sample_size(10);
    group.throughput(Throughput::Elements((p.target.len() * frames) as u64));
    let mut r = p.retargeter.clone();
    let mut settings = *r.solve_settings();
    settings.plant_feet = false;
    r.set_solve(settings);
    let options = RetargetClipOptions::default();
    group.bench_function("retarget_clip (frame by frame)", |b| {
        b.iter(|| r.retarget_clip(&p.source, black_box(&p.clip), &p.target, &options))
    });
    let planted = p.retargeter.clone();
    group.bench_function("retarget_clip (planted feet, session default)", |b| {
        b.iter(|| planted.retarget_clip(&p.source, black_box(&p.clip), &p.target, &options))
    });
    let step = p.clip.duration_secs() / (frames - 1) as f32;
    let rest = Pose::rest(&p.source);
    let (mut src, mut dst) = (rest.clone(), Pose::rest(&p.target));
    let mut scratch = PoseScratch::new(&r);
    group.bench_function("frame loop, old sampling (Clip::sample)", |b| {
        b.iter(|| {
            for k in 0..frames {
                src.copy_from(&rest);
                p.clip
                    .sample(p.clip.start_secs() + k as f32 * step, &mut src);
                r.retarget_pose(&src, &mut dst, &mut scratch);
            }
        })
    });
    let compiled = CompiledClip::new(&p.clip);
    let mut cursor = Cursor::new(&compiled);
    group.bench_function("frame loop, new sampling (CompiledClip + cursor)", |b| {
        b.iter(|| {
            for k in 0..frames {
                src.copy_from(&rest);
                compiled.sample(p.clip.start_secs() + k as f32 * step, &mut cursor, &mut src);
                r.retarget_pose(&src, &mut dst, &mut scratch);
            }
        })
    });
    group.throughput(Throughput::Elements((p.source.len() * frames) as u64));
    group.bench_function("sampling alone, old", |b| {
        b.iter(|| {
            for k in 0..frames {
                p.clip
                    .sample(p.clip.start_secs() + k as f32 * step, &mut src);
            }
        })
    });
    group.bench_function("sampling alone, new", |b| {
        b.iter(|| {
            for k in 0..frames {
                compiled.sample(p.clip.start_secs() + k as f32 * step, &mut cursor, &mut src);
            }
        })
    });
    group.finish();
}

fn one_pose(c: &mut Criterion, p: &Pair) {
    let mut group = c.benchmark_group(format!("pose {}", p.name));
    let r = p.retargeter.clone();
    let compiled = CompiledClip::new(&p.clip);
    let mut cursor = Cursor::new(&compiled);
    let (mut src, mut dst) = (Pose::rest(&p.source), Pose::rest(&p.target));
    compiled.sample(1.234, &mut cursor, &mut src);
    let mut scratch = PoseScratch::new(&r);
    group.bench_function("retarget_pose", |b| {
        b.iter(|| r.retarget_pose(black_box(&src), &mut dst, &mut scratch))
    });
    let mut t = 0.0f32;
    group.bench_function("sample (cursor, 60 fps) + retarget_pose", |b| {
        b.iter(|| {
            t = (t + 1.0 / 60.0) % compiled.duration_secs();
            compiled.sample(t, &mut cursor, &mut src);
            r.retarget_pose(&src, &mut dst, &mut scratch)
        })
    });
    group.finish();
}

fn crowd(rig: &Arc<RigPair>, count: usize, ik: bool) -> (Crowd, Vec<Mat4>) {
    let mut crowd = Crowd::new(rig.clone());
    let flags = if ik {
        Flags::LOOP | Flags::IK
    } else {
        Flags::LOOP
    };
    let d = rig.clip(0).duration_secs();
    for k in 0..count {
        let at = Mat4::from_translation(Vec3::new((k % 100) as f32, 0.0, (k / 100) as f32));
        crowd.spawn(0, (k as f32 * 0.618).rem_euclid(d), at, flags);
    }
    let out = vec![Mat4::IDENTITY; crowd.output_len()];
    (crowd, out)
}

fn crowds(c: &mut Criterion, p: &Pair, counts: &[usize]) {
    let rig = Arc::new(
        RigPair::new(
            &p.retargeter,
            &p.source,
            &p.target,
            std::slice::from_ref(&p.clip),
            RigOptions::default(),
        )
        .expect("rig pair builds"),
    );
    let (probe, _) = crowd(&rig, 1, true);
    let inst = &probe.instances()[0];
    println!(
        "{}: {} target joints; per instance {} B inline + {} B heap; shared clip data {} B; \
         IK goals on {} of {} frames",
        p.name,
        p.target.len(),
        size_of_val(inst),
        inst.heap_bytes(),
        rig.clip_heap_bytes(),
        rig.plants(0).map_or(0, |t| t.planted_frames()),
        rig.plants(0).map_or(0, |t| t.frames()),
    );
    let mut group = c.benchmark_group(format!("crowd {}", p.name));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        for &count in counts {
            for ik in [false, true] {
                let (mut crowd, mut out) = crowd(&rig, count, ik);
                let label = format!("{} IK, {threads} thread(s)", if ik { "with" } else { "no" });
                group.throughput(Throughput::Elements(count as u64));
                group.bench_function(BenchmarkId::new(label, count), |b| {
                    b.iter(|| pool.install(|| crowd.update(1.0 / 60.0, Output::World, &mut out)))
                });
            }
        }
    }
    group.finish();
}

fn bench(c: &mut Criterion) {
    let itself = pair("CMU -> CMU", "bvh/01_01.bvh");
    let robot = pair("CMU -> RobotExpressive", "gltf/RobotExpressive.glb");
    let p65 = pair_65();
    for p in [&itself, &robot, &p65] {
        whole_clip(c, p);
        one_pose(c, p);
    }
    crowds(c, &robot, &[1_000, 10_000, 100_000]);
    crowds(c, &p65, &[10_000]);
}

criterion_group!(benches, bench);
criterion_main!(benches);
