//! A skin bound somewhere else than where its rig rests (as FBX exporters write: Blender's
//! FBX of the robot binds its root 2.4 units below its rest). Where a mesh was bound is not
//! motion: each character bound 0.8 of its size away, down and aside, must retarget exactly
//! as itself, as target and as source, and pass the same measures.

use crate::common::file_variants::bound_elsewhere;
use crate::common::{asset_path, session};
use glam::Vec3;
use retarget_studio::core::Pose;
use retarget_studio::core::quality::{Report, Thresholds};
use retarget_studio::session::Session;
use std::path::Path;

const SHIFT: Vec3 = Vec3::new(0.3, -0.8, 0.1);

/// The target's world joint positions at each output frame.
fn output(session: &Session, clip: Option<&str>) -> Vec<Vec<Vec3>> {
    let out = session.retarget_clip(clip, None).unwrap();
    let s = session.target.skeleton();
    let fps = out.fps().unwrap_or(30.0);
    (0..out.frame_count())
        .map(|f| {
            let mut pose = Pose::rest(s);
            out.sample(out.start_secs() + f as f32 / fps, &mut pose);
            pose.world_positions(s)
        })
        .collect()
}

fn worst_gap(a: &[Vec<Vec3>], b: &[Vec<Vec3>]) -> f32 {
    assert_eq!(a.len(), b.len(), "frame count");
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| p.distance(*q)))
        .fold(0.0, f32::max)
}

fn height(frames: &[Vec<Vec3>]) -> f32 {
    let ys = frames[0].iter().map(|p| p.y);
    ys.clone().fold(f32::MIN, f32::max) - ys.fold(f32::MAX, f32::min)
}

fn same_verdicts(what: &str, a: &Report, b: &Report) {
    let passed = |r: &Report| {
        r.verdicts
            .iter()
            .map(|v| (v.measure.label(), v.passed))
            .collect::<Vec<_>>()
    };
    assert_eq!(passed(a), passed(b), "{what}");
    assert!(
        (a.pelvis.difference - b.pelvis.difference).abs() < 1e-3,
        "{what}: pelvis {} vs {}",
        a.pelvis.difference,
        b.pelvis.difference
    );
}

/// `rel` rewritten bound elsewhere into `dir`.
fn moved_copy(dir: &Path, rel: &str) -> std::path::PathBuf {
    let moved = dir.join(Path::new(rel).file_name().unwrap());
    let bytes = std::fs::read(asset_path(rel)).unwrap();
    std::fs::write(&moved, bound_elsewhere(&bytes, SHIFT)).unwrap();
    moved
}

/// Both sessions' outputs agree: planted feet are solved from slightly different
/// floats, so within 5e-4 of the height (under a millimetre).
fn same_output(rel: &str, a: &Session, b: &Session, clip: Option<&str>) {
    let (oa, ob) = (output(a, clip), output(b, clip));
    let gap = worst_gap(&oa, &ob) / height(&oa);
    assert!(
        gap < 5e-4,
        "{rel}: {gap:e} of the height from its own retarget"
    );
}

#[test]
fn a_target_bound_elsewhere_gets_the_same_motion() {
    let dir = tempfile::tempdir().unwrap();
    let walk = asset_path("bvh/02_01.bvh");
    for rel in [
        "gltf/CesiumMan.glb",
        "gltf/RobotExpressive.glb",
        "vrm/cryptovoxels.vrm",
    ] {
        let moved = moved_copy(dir.path(), rel);
        let (a, b) = (session(&walk, &asset_path(rel)), session(&walk, &moved));
        same_output(rel, &a, &b, None);
        let limits = Thresholds::default();
        let (ra, rb) = (
            a.quality(None, &limits).unwrap(),
            b.quality(None, &limits).unwrap(),
        );
        same_verdicts(rel, &ra, &rb);
        let ground = |r: &Report| r.ground.as_ref().map(|g| g.target.mean_mm);
        let (ga, gb) = (ground(&ra).unwrap(), ground(&rb).unwrap());
        assert!((ga - gb).abs() < 1.0, "{rel}: ground {ga} mm vs {gb} mm");
    }
}

#[test]
fn a_source_bound_elsewhere_drives_the_same_motion() {
    let dir = tempfile::tempdir().unwrap();
    let target = asset_path("gltf/CesiumMan.glb");
    for (rel, clip) in [
        ("gltf/RobotExpressive.glb", Some("Walking")),
        ("gltf/CesiumMan.glb", None),
    ] {
        let moved = moved_copy(dir.path(), rel);
        let (a, b) = (session(&asset_path(rel), &target), session(&moved, &target));
        same_output(rel, &a, &b, clip);
        let limits = Thresholds::default();
        same_verdicts(
            rel,
            &a.quality(clip, &limits).unwrap(),
            &b.quality(clip, &limits).unwrap(),
        );
    }
}
