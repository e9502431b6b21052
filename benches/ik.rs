//! IK and feet planting: one analytic two-bone solve, one FABRIK solve of a fox's
//! three-bone leg against the 51-sample IK cache (and the cache's error against FABRIK),
//! and a whole CMU walk onto the robot with and without planting, so the planting's share
//! of the retarget shows. Run: `cargo bench --bench ik`.

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use retarget_studio::core::RetargetClipOptions;
use retarget_studio::core::ik::{IkCache, cache::bend_of, fabrik, two_bone};
use retarget_studio::core::retarget::SolveSettings;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::hint::black_box;
use std::path::PathBuf;

fn asset(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

/// A fox's hind leg, folded: hip, knee, hock, foot.
fn fox_leg() -> Vec<Vec3> {
    vec![
        Vec3::new(0.0, 0.5, 0.0),
        Vec3::new(0.0, 0.3, 0.12),
        Vec3::new(0.0, 0.12, -0.04),
        Vec3::new(0.0, 0.0, 0.02),
    ]
}

/// Goals all over the leg's reach (ratio 0.3 to 0.95 of its length).
fn goals(leg: &[Vec3], lengths: &[f32]) -> Vec<Vec3> {
    let total: f32 = lengths.iter().sum();
    (0..64)
        .map(|k| {
            let a = k as f32 * 0.37;
            let r = total * (0.3 + 0.65 * (k as f32 / 63.0));
            leg[0] + Vec3::new(0.3 * a.sin(), -1.0, 0.4 * a.cos()).normalize() * r
        })
        .collect()
}

fn solvers(c: &mut Criterion) {
    let leg = fox_leg();
    let cache = IkCache::new(&leg).unwrap();
    let lengths = cache.lengths().to_vec();
    let goals = goals(&leg, &lengths);
    let pole = bend_of(&leg);
    // The cache's error against FABRIK, over the goals (printed once).
    let (mut worst, mut sum) = (0.0f32, 0.0f32);
    let mut out = vec![Vec3::ZERO; leg.len()];
    for g in &goals {
        cache.solve_into(leg[0], *g, pole, &mut out);
        let mut full = leg.clone();
        fabrik::solve(&mut full, &lengths, *g);
        let e = out[3].distance(full[3]) / lengths.iter().sum::<f32>();
        worst = worst.max(e);
        sum += e;
    }
    println!(
        "ik cache vs FABRIK, foot gap over {} goals: mean {:.2e}, worst {:.2e} of the leg's length",
        goals.len(),
        sum / goals.len() as f32,
        worst
    );
    let mut group = c.benchmark_group("ik");
    let mut k = 0;
    group.bench_function("two-bone solve", |b| {
        b.iter(|| {
            k = (k + 1) % goals.len();
            two_bone::solve(leg[0], black_box(goals[k]), 0.5, 0.45, Vec3::Z)
        })
    });
    let mut points = leg.clone();
    group.bench_function("FABRIK 3-bone solve", |b| {
        b.iter(|| {
            k = (k + 1) % goals.len();
            points.copy_from_slice(&leg);
            fabrik::solve(&mut points, &lengths, black_box(goals[k]))
        })
    });
    group.bench_function("IK cache 3-bone solve", |b| {
        b.iter(|| {
            k = (k + 1) % goals.len();
            cache.solve_into(leg[0], black_box(goals[k]), pole, &mut out)
        })
    });
    group.finish();
}

fn planting(c: &mut Criterion) {
    // The robot plants nearly every contact (its legs slide); CesiumMan's contacts mostly
    // need only their height set, so IK runs there on fewer frames.
    for (group_name, target) in [
        ("walk onto robot", "gltf/RobotExpressive.glb"),
        ("walk onto CesiumMan", "gltf/CesiumMan.glb"),
    ] {
        let session = Session::automatic(
            &asset("bvh/02_01.bvh"),
            &asset(target),
            &ImportOptions::default(),
        )
        .expect("assets load");
        let (source, target) = (session.source.skeleton(), session.target.skeleton());
        let clip = session.source_clip(None).unwrap().clone();
        let mut group = c.benchmark_group(group_name);
        group.sample_size(20);
        for (name, settings) in [
            ("frame by frame", SolveSettings::frame_by_frame()),
            (
                "planted feet",
                SolveSettings {
                    hand_contacts: false,
                    keep_out: false,
                    ..SolveSettings::default()
                },
            ),
            (
                "planted feet, hand contacts, keep-out (the default)",
                SolveSettings::default(),
            ),
            (
                "planted feet, IK cache",
                SolveSettings {
                    ik_cache: true,
                    hand_contacts: false,
                    keep_out: false,
                    ..SolveSettings::default()
                },
            ),
        ] {
            let mut r = session.retargeter().unwrap();
            r.set_solve(settings);
            group.bench_function(name, |b| {
                b.iter(|| {
                    r.retarget_clip(
                        source,
                        black_box(&clip),
                        target,
                        &RetargetClipOptions::default(),
                    )
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, solvers, planting);
criterion_main!(benches);
