//! Retargeting throughput: one frame (`retarget_pose`) and a 60 s clip at 120 fps, on one
//! core, from a mocap skeleton onto the VRM character (57 joints).
//! Run: `cargo bench --bench retarget`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use retarget_studio::core::retarget::PoseScratch;
use retarget_studio::core::{
    Clip, Interpolation, JointTracks, Pose, RetargetClipOptions, Skeleton, Track,
};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::hint::black_box;
use std::path::PathBuf;

fn asset(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

/// A long clip with every joint swinging on its own sine: 60 s at 120 fps.
fn long_clip(skeleton: &Skeleton) -> Clip {
    let frames = 60 * 120;
    let times: Vec<f32> = (0..frames).map(|k| k as f32 / 120.0).collect();
    let tracks = (0..skeleton.len())
        .map(|j| {
            let rest = skeleton.bind()[j].rotation;
            let values = times
                .iter()
                .map(|t| Quat::from_rotation_x(0.4 * (t * 2.0 + j as f32).sin()) * rest)
                .collect();
            JointTracks {
                rotation: Some(Track::new(times.clone(), values, Interpolation::Linear).unwrap()),
                translation: (j == 0).then(|| {
                    let v = times
                        .iter()
                        .map(|t| Vec3::new(t.sin(), 1.0, t * 0.5))
                        .collect();
                    Track::new(times.clone(), v, Interpolation::Linear).unwrap()
                }),
                scale: None,
            }
        })
        .collect();
    Clip::new("long", tracks, Some(120.0))
}

fn bench(c: &mut Criterion) {
    let options = ImportOptions::default();
    let session = Session::automatic(
        &asset("bvh/01_01.bvh"),
        &asset("vrm/cryptovoxels.vrm"),
        &options,
    )
    .or_else(|_| {
        Session::automatic(
            &asset("vrm/three-vrm_test.vrma"),
            &asset("vrm/cryptovoxels.vrm"),
            &options,
        )
    })
    .expect("assets load");
    let source = session.source.skeleton();
    let target = session.target.skeleton();
    let retargeter = session.retargeter().expect("retargeter builds");
    let clip = long_clip(source);
    let mut src_pose = Pose::bind(source);
    clip.sample(1.234, &mut src_pose);
    let mut dst_pose = Pose::bind(target);

    let mut group = c.benchmark_group("retarget");
    group.throughput(Throughput::Elements(target.len() as u64));
    let name = format!("pose {} -> {} joints", source.len(), target.len());
    let mut scratch = PoseScratch::new(&retargeter);
    group.bench_function(name, |b| {
        b.iter(|| retargeter.retarget_pose(black_box(&src_pose), &mut dst_pose, &mut scratch))
    });
    group.sample_size(10);
    group.throughput(Throughput::Elements((target.len() * 7200) as u64));
    group.bench_function("clip 60 s @ 120 fps", |b| {
        b.iter(|| {
            retargeter.retarget_clip(
                source,
                black_box(&clip),
                target,
                &RetargetClipOptions::default(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
