//! Two armatures of one rig in one file (RobotExpressive copied beside itself, every
//! animation driving both copies): `inspect` lists each clip once with the skeletons it
//! drives, and a retarget onto the file animates every copy.

use crate::common::file_variants::checks::bytes;
use crate::common::file_variants::two_armatures;
use crate::common::{asset_path, cli_ok};
use glam::Vec3;
use retarget_studio::core::Pose;
use retarget_studio::io::Asset;
use serde_json::Value;
use std::path::PathBuf;

const OFFSET: Vec3 = Vec3::new(2.0, 0.0, 0.0);

/// The copy's joints named as Blender names them (`Hips.001`), or with the same names.
fn variant(dir: &tempfile::TempDir, suffix: &str) -> PathBuf {
    let path = dir.path().join("robot_twice.glb");
    let data = two_armatures(&bytes("gltf/RobotExpressive.glb"), OFFSET, suffix);
    std::fs::write(&path, data).unwrap();
    path
}

#[test]
fn inspect_lists_each_clip_once_with_the_skeletons_it_drives() {
    let dir = tempfile::tempdir().unwrap();
    let path = variant(&dir, ".001");
    let path = path.to_str().unwrap();
    let v: Value = serde_json::from_str(&cli_ok(&["inspect", path, "--json"])).unwrap();
    assert_eq!(v["skeletons"].as_array().unwrap().len(), 2);
    let clips = v["clips"].as_array().unwrap();
    assert_eq!(clips.len(), 14, "one entry per animation");
    for c in clips {
        assert_eq!(c["skeletons"], serde_json::json!([0, 1]), "{}", c["name"]);
        assert_eq!(c["skeleton"], 0);
    }
    let text = cli_ok(&["inspect", path]);
    assert!(text.contains("'Dance' (skeletons 0, 1)"), "{text}");
    assert!(text.contains("clips: 14"), "{text}");
}

/// World joint positions of `skeleton` at each key of its clip `name`.
fn frames(asset: &Asset, skeleton: usize, name: &str) -> Vec<Vec<Vec3>> {
    let entry = asset
        .clips
        .iter()
        .find(|c| c.skeleton == skeleton && c.clip.name == name)
        .unwrap_or_else(|| panic!("skeleton {skeleton} has no clip '{name}'"));
    let s = &asset.skeletons[skeleton];
    let times = entry
        .clip
        .tracks()
        .iter()
        .filter_map(|t| t.rotation.as_ref())
        .map(|r| r.times().to_vec())
        .max_by_key(Vec::len)
        .unwrap();
    let mut pose = Pose::rest(s);
    times
        .iter()
        .map(|&t| {
            pose = Pose::rest(s);
            entry.clip.sample(t, &mut pose);
            pose.world_positions(s)
        })
        .collect()
}

/// The exported file, read back: both copies play the clip, the second 2 m beside the
/// first, neither standing still. With the same joint names the two are equal candidates,
/// and the first is the one solved for.
#[test]
fn a_retarget_onto_two_copies_animates_both() {
    for suffix in [".001", ""] {
        retarget_onto_two_copies(suffix);
    }
}

fn retarget_onto_two_copies(suffix: &str) {
    let dir = tempfile::tempdir().unwrap();
    let target = variant(&dir, suffix);
    let out = dir.path().join("out.glb");
    let report = cli_ok(&[
        "retarget",
        "--source",
        asset_path("gltf/RobotExpressive.glb").to_str().unwrap(),
        "--clip",
        "Walking",
        "--target",
        target.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        report.contains("also drive skeleton 1"),
        "'{suffix}': {report}"
    );
    let asset = retarget_studio::io::load(&out, &Default::default()).unwrap();
    assert_eq!(asset.skeletons.len(), 2);
    let (first, second) = (frames(&asset, 0, "Walking"), frames(&asset, 1, "Walking"));
    assert_eq!(first.len(), second.len());
    let mut worst = 0.0f32;
    for (a, b) in first.iter().zip(&second) {
        for (p, q) in a.iter().zip(b) {
            worst = worst.max((*p + OFFSET).distance(*q));
        }
    }
    assert!(
        worst < 1e-4,
        "the copy is {worst} m off the first plus the offset"
    );
    let moved = |f: &[Vec<Vec3>]| {
        f.iter()
            .flat_map(|frame| frame.iter().zip(&f[0]).map(|(p, q)| p.distance(*q)))
            .fold(0.0f32, f32::max)
    };
    assert!(moved(&second) > 0.1, "'{suffix}': the copy stands still");
}
