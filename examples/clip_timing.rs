//! Our side of `scripts/threejs-bench.sh`: times `Session::retargeter` +
//! `Retargeter::retarget_clip` on a whole clip (CMU 01_01 by default), from files loaded once
//! as three.js's runs are (and from a fresh session each run), onto itself and onto
//! RobotExpressive, frame by frame (three.js's work) and with the feet planted (the
//! session's default), and `retarget_pose` on one frame, through the public API. Prints JSON
//! (median, min and max over the runs, in ms and µs) so the script can put both sides in one
//! table; criterion would take minutes, this takes seconds.
//!
//! `cargo run --release --example clip_timing -- [--runs N]
//! [--pose-runs N] [--source BVH] [--target GLB] [--map]`; `--map` prints the automatic map
//! onto the target (target joint -> source joint) instead, for three.js's `names`.

use retarget_studio::core::retarget::PoseScratch;
use retarget_studio::core::{Pose, RetargetClipOptions};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

struct Args {
    source: PathBuf,
    target: PathBuf,
    runs: usize,
    pose_runs: usize,
    map: bool,
}

fn asset(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        source: asset("bvh/01_01.bvh"),
        target: asset("gltf/RobotExpressive.glb"),
        runs: 15,
        pose_runs: 2000,
        map: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--source" => args.source = value()?.into(),
            "--target" => args.target = value()?.into(),
            "--runs" => args.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--pose-runs" => {
                args.pose_runs = value()?.parse().map_err(|e| format!("--pose-runs: {e}"))?
            }
            "--map" => args.map = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    args.runs = args.runs.max(1);
    args.pose_runs = args.pose_runs.max(1);
    Ok(args)
}

/// Median, min and max of `samples` (seconds), in milliseconds and microseconds.
fn stats(mut samples: Vec<f64>) -> serde_json::Value {
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    let median = if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    };
    let (min, max) = (samples[0], samples[n - 1]);
    serde_json::json!({
        "runs": n,
        "median_ms": median * 1e3, "min_ms": min * 1e3, "max_ms": max * 1e3,
        "median_us": median * 1e6, "min_us": min * 1e6, "max_us": max * 1e6,
    })
}

/// How each whole-clip run starts.
#[derive(Clone, Copy)]
enum Start {
    /// From the files loaded once, as three.js's runs start: a new retargeter each run.
    Loaded,
    /// From a session loaded again before each run (the loading not timed): the source
    /// clip is no longer in the caches.
    Fresh,
}

/// The whole clip, `runs` times (after one untimed run), each with a new retargeter as a
/// user of the API would make it (`Session::retargeter`, timed). `planted`: with the
/// session's feet planting (its default); without it, frame by frame, the work three.js's
/// `retargetClip` does.
fn time_clip(
    source: &Path,
    target: &Path,
    runs: usize,
    planted: bool,
    start: Start,
) -> Result<serde_json::Value, String> {
    let options = ImportOptions::default();
    let load = || Session::automatic(source, target, &options).map_err(|e| e.to_string());
    let mut session = load()?;
    let mut samples = Vec::with_capacity(runs);
    let mut frames = 0;
    for k in 0..=runs {
        if matches!(start, Start::Fresh) {
            session = load()?;
        }
        let clip = session.source_clip(None).map_err(|e| e.to_string())?;
        let started = Instant::now();
        let mut r = session.retargeter().map_err(|e| e.to_string())?;
        if !planted {
            let mut settings = *r.solve_settings();
            settings.plant_feet = false;
            r.set_solve(settings);
        }
        let out = r
            .retarget_clip(
                session.source.skeleton(),
                black_box(clip),
                session.target.skeleton(),
                &RetargetClipOptions::default(),
            )
            .map_err(|e| e.to_string())?;
        let elapsed = started.elapsed().as_secs_f64();
        frames = out.clip.frame_count();
        if k > 0 {
            samples.push(elapsed);
        }
    }
    let mut v = stats(samples);
    v["frames"] = frames.into();
    Ok(v)
}

/// One pose (frame 1000 of the clip, or its last), `runs` times, each timed on its own.
fn time_pose(source: &Path, target: &Path, runs: usize) -> Result<serde_json::Value, String> {
    let session =
        Session::automatic(source, target, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let clip = session.source_clip(None).map_err(|e| e.to_string())?;
    let (s, t) = (session.source.skeleton(), session.target.skeleton());
    let r = session.retargeter().map_err(|e| e.to_string())?;
    let mut scratch = PoseScratch::new(&r);
    let mut src = Pose::rest(s);
    let frame = 1000.min(clip.frame_count().saturating_sub(1));
    let time = clip.start_secs() + clip.duration_secs() * frame as f32 / clip.frame_count() as f32;
    clip.sample(time, &mut src);
    let mut dst = Pose::bind(t);
    for _ in 0..100 {
        r.retarget_pose(&src, &mut dst, &mut scratch);
    }
    let samples = (0..runs)
        .map(|_| {
            let started = Instant::now();
            r.retarget_pose(black_box(&src), black_box(&mut dst), &mut scratch);
            started.elapsed().as_secs_f64()
        })
        .collect();
    let mut v = stats(samples);
    v["joints"] = t.len().into();
    Ok(v)
}

fn map(source: &Path, target: &Path) -> Result<serde_json::Value, String> {
    let session =
        Session::automatic(source, target, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let pairs: serde_json::Map<String, serde_json::Value> = session
        .map_pairs()
        .into_iter()
        .map(|p| (p.target, p.source.into()))
        .collect();
    Ok(pairs.into())
}

fn run() -> Result<(), String> {
    let a = parse_args()?;
    if a.map {
        println!("{}", map(&a.source, &a.target)?);
        return Ok(());
    }
    let (s, t, runs) = (&a.source, &a.target, a.runs);
    let out = serde_json::json!({
        "clip_self": time_clip(s, s, runs, false, Start::Loaded)?,
        "clip_target": time_clip(s, t, runs, false, Start::Loaded)?,
        "clip_self_fresh": time_clip(s, s, runs, false, Start::Fresh)?,
        "clip_target_fresh": time_clip(s, t, runs, false, Start::Fresh)?,
        "clip_self_planted": time_clip(s, s, runs, true, Start::Loaded)?,
        "clip_target_planted": time_clip(s, t, runs, true, Start::Loaded)?,
        "pose_self": time_pose(&a.source, &a.source, a.pose_runs)?,
        "pose_target": time_pose(&a.source, &a.target, a.pose_runs)?,
    });
    println!("{out}");
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("clip_timing: {e}");
        std::process::exit(2);
    }
}
