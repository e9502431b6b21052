#![allow(dead_code)]

use glam::Vec3;
use retarget_studio::core::{Clip, Pose, Skeleton};
use retarget_studio::io::{Asset, ImportError, ImportOptions};
use retarget_studio::session::Session;
use std::path::PathBuf;

/// A bundled asset under `assets/` (copies of the shared assets, so a fresh clone tests alone).
pub fn asset_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

/// The `retarget-studio` binary this test run built, as a command to add arguments to: the
/// one way every test starts it.
pub fn studio() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_retarget-studio"))
}

/// Runs the CLI with `args`; gives back its output whatever the exit code.
pub fn cli(args: &[&str]) -> std::process::Output {
    studio().args(args).output().unwrap()
}

/// Runs the CLI and gives back its standard output, failing the test on a non-zero exit.
pub fn cli_ok(args: &[&str]) -> String {
    let out = cli(args);
    assert!(
        out.status.success(),
        "retarget-studio {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// CMU's walk (02_01) onto the bundled `target`, mapped automatically.
pub fn walk_onto(target: &str) -> retarget_studio::session::Session {
    retarget_studio::session::Session::automatic(
        &asset_path("bvh/02_01.bvh"),
        &asset_path(target),
        &ImportOptions::default(),
    )
    .unwrap_or_else(|e| panic!("02_01 onto {target}: {e}"))
}

pub fn load(rel: &str) -> Asset {
    let path = asset_path(rel);
    retarget_studio::io::load(&path, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{rel} should load: {e}"))
}

pub fn load_err_bytes(name: &str, bytes: &[u8]) -> ImportError {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    match retarget_studio::io::load(&path, &ImportOptions::default()) {
        Ok(_) => panic!("{name} should not load"),
        Err(e) => e,
    }
}

pub const GLTF_ASSETS: &[&str] = &[
    "gltf/RobotExpressive.glb",
    "gltf/Fox.glb",
    "gltf/CesiumMan.glb",
    "vrm/cryptovoxels.vrm",
    "vrm/three-vrm_test.vrma",
];

pub mod corpus;
pub use corpus::{corpus_path, walk_onto_corpus};
pub mod creature_set;
pub mod editor;
pub mod file_variants;
pub mod matrix_export;
pub mod renames;
pub mod textured;
pub mod variants;

pub const BVH_ASSETS: &[&str] = &["bvh/01_01.bvh", "bvh/02_01.bvh", "bvh/05_06.bvh"];

/// Waits on `child`'s stderr for the CLI's slow-clip test hook (`RETARGET_STUDIO_TEST_SLOW_MS`:
/// the run is under way), then sends it SIGINT. Gives back the rest of stderr to read.
pub fn interrupt_at_test_hook(
    child: &mut std::process::Child,
) -> std::io::BufReader<std::process::ChildStderr> {
    use std::io::BufRead;
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 && !line.contains("test hook") {
        line.clear();
    }
    assert!(line.contains("test hook"), "the run reached the test hook");
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    stderr
}

/// World joint positions of `clip` on `skeleton` at `frames` evenly spaced times.
pub fn world_frames(s: &Skeleton, clip: &Clip, frames: usize) -> Vec<Vec<Vec3>> {
    world_matrices(s, clip, frames)
        .iter()
        .map(|f| f.iter().map(|m| m.w_axis.truncate()).collect())
        .collect()
}

/// The worst change of a bone's length (a joint to its parent) over 120 frames of
/// `session`'s retargeted first clip against the target's bind, in heights, among the
/// bones `counted(joint, parent)` keeps, and the joint it is at.
pub fn worst_bone_change(
    session: &Session,
    counted: impl Fn(usize, usize) -> bool,
) -> (f32, String) {
    let s = session.target.skeleton();
    let clip = session.retarget_clip(None, None).unwrap();
    let rest = Pose::bind(s).world_positions(s);
    let (lo, hi) = rest.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    let mut worst = (0.0f32, String::new());
    for f in world_frames(s, &clip, 120) {
        for (j, p) in s.parents().iter().enumerate() {
            let Some(p) = *p else { continue };
            if !counted(j, p) {
                continue;
            }
            let change = (f[j].distance(f[p]) - rest[j].distance(rest[p])).abs() / (hi - lo);
            if change > worst.0 {
                worst = (change, s.names()[j].clone());
            }
        }
    }
    worst
}

/// World joint positions of `clip` on `s` at each of `times`.
pub fn positions_at(s: &Skeleton, clip: &Clip, times: &[f32]) -> Vec<Vec<Vec3>> {
    times
        .iter()
        .map(|&t| {
            let mut pose = Pose::rest(s);
            clip.sample(t, &mut pose);
            pose.world_positions(s)
        })
        .collect()
}

/// World joint transforms of `clip` on `skeleton` at `frames` evenly spaced times.
pub fn world_matrices(s: &Skeleton, clip: &Clip, frames: usize) -> Vec<Vec<glam::Mat4>> {
    (0..frames)
        .map(|k| {
            let t = clip.start_secs() + clip.duration_secs() * k as f32 / (frames - 1) as f32;
            let mut pose = Pose::rest(s);
            clip.sample(t, &mut pose);
            pose.world_matrices(s)
        })
        .collect()
}

/// Every key time of every track of `clip`, sorted, times under 1e-6 s apart taken once.
pub fn key_times(clip: &Clip) -> Vec<f32> {
    let mut times: Vec<f32> = clip
        .tracks()
        .iter()
        .flat_map(|t| {
            let tt = t.translation.iter().flat_map(|k| k.times().to_vec());
            let rt = t.rotation.iter().flat_map(|k| k.times().to_vec());
            let st = t.scale.iter().flat_map(|k| k.times().to_vec());
            tt.chain(rt).chain(st).collect::<Vec<_>>()
        })
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup_by(|a, b| (*a - *b).abs() < 1e-6);
    times
}

/// Sessions of the bundled `source` onto the bundled `plain` and onto `variant` (a GLB's
/// bytes, written in the temporary folder returned with them, which must outlive them).
pub fn onto_plain_and_variant(
    source: &str,
    plain: &str,
    variant: &[u8],
) -> (tempfile::TempDir, Session, Session) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("variant.glb");
    std::fs::write(&path, variant).unwrap();
    let source = asset_path(source);
    let a = session(&source, &asset_path(plain));
    let b = session(&source, &path);
    (dir, a, b)
}

/// The automatic session of two files, or a panic naming both.
pub fn session(
    source: &std::path::Path,
    target: &std::path::Path,
) -> retarget_studio::session::Session {
    retarget_studio::session::Session::automatic(source, target, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{} onto {}: {e}", source.display(), target.display()))
}
