//! Hand contacts kept on real rigs: CMU's walk 02_01 made into a two-handed grip held
//! through the walk (both hands 3.5 % of the height apart in front of the chest, by two-bone
//! IK on the source) and retargeted onto CesiumMan and onto CesiumMan with arms 1.3× and
//! 0.8× as long. Without the arms' pass the target's hands part (its arms have other
//! proportions than CMU's); with it `check` judges the grip within its limit, and reports
//! the contact in text and JSON.

use crate::common::file_variants::longer_arms;
use crate::common::{asset_path, cli, key_times, load};
use glam::{Mat4, Quat, Vec3};
use retarget_studio::core::ik::{lay_along, two_bone};
use retarget_studio::core::reference::{rotation_of, world_rotations_into};
use retarget_studio::core::{Clip, Interpolation, Pose, Skeleton, Track, Unit};
use retarget_studio::io::bvh_export::{BvhExportOptions, export_bvh};
use std::path::{Path, PathBuf};

/// CMU's arms, left then right: upper arm, forearm, hand.
const ARMS: [[&str; 3]; 2] = [
    ["LeftArm", "LeftForeArm", "LeftHand"],
    ["RightArm", "RightForeArm", "RightHand"],
];

/// Where the hands hold the grip at this frame: in front of the shoulders' midpoint,
/// lowered, `apart` of the height across, on the body's own facing (from the hip line).
fn grip_points(world: &[Vec3], joint: impl Fn(&str) -> usize, height: f32) -> [Vec3; 2] {
    let across = (world[joint("LeftUpLeg")] - world[joint("RightUpLeg")]).normalize();
    let forward = across.cross(Vec3::Y).normalize();
    let shoulders = (world[joint("LeftArm")] + world[joint("RightArm")]) / 2.0;
    let grip = shoulders + forward * 0.2 * height - Vec3::Y * 0.12 * height;
    let apart = 0.035 * height;
    [grip + across * apart / 2.0, grip - across * apart / 2.0]
}

/// 02_01 with both hands on one grip for the whole walk, written as a BVH in `dir`.
fn grip_walk(dir: &Path) -> PathBuf {
    let asset = load("bvh/02_01.bvh");
    let clip = &asset.clips[0].clip;
    let s: &Skeleton = &asset.skeletons[asset.clips[0].skeleton];
    let joint = |name: &str| s.names().iter().position(|n| n == name).unwrap();
    let times = key_times(clip);
    let rest = Pose::rest(s);
    let height = {
        let ys = rest.world_positions(s).into_iter().map(|p| p.y);
        ys.clone().fold(f32::MIN, f32::max) - ys.fold(f32::MAX, f32::min)
    };
    let arms = ARMS.map(|names| names.map(joint));
    let mut keys = vec![Vec::with_capacity(times.len()); 6];
    let mut rotations = vec![Quat::IDENTITY; s.len()];
    for &t in &times {
        let mut pose = rest.clone();
        clip.sample(t, &mut pose);
        let world: Vec<Mat4> = pose.world_matrices(s);
        let at: Vec<Vec3> = world.iter().map(|m| m.w_axis.truncate()).collect();
        let goals = grip_points(&at, joint, height);
        world_rotations_into(
            s.parents(),
            rotation_of(s.container()),
            &pose.rotations,
            &mut rotations,
        );
        for (arm, goal) in arms.iter().zip(goals) {
            let [u, l, h] = arm.map(|j| at[j]);
            let (elbow, end) = two_bone::solve(u, goal, u.distance(l), l.distance(h), l - u);
            let above = rotations[s.parents()[arm[0]].unwrap()];
            lay_along(
                &mut pose,
                s.parents(),
                arm,
                &[u, elbow, end],
                &rotations,
                above,
            );
        }
        for (k, &j) in arms.iter().flatten().enumerate() {
            keys[k].push(pose.rotations[j]);
        }
    }
    let mut tracks = clip.tracks().to_vec();
    for (k, &j) in arms.iter().flatten().enumerate() {
        let track = Track::new(times.clone(), keys[k].clone(), Interpolation::Linear).unwrap();
        tracks[j].rotation = Some(track);
    }
    let gripped = Clip::new("grip_walk", tracks, clip.fps());
    let path = dir.join("02_01_grip.bvh");
    let options = BvhExportOptions {
        unit: Unit::Metre,
        ..BvhExportOptions::default()
    };
    export_bvh(s, &gripped, &options, &path).unwrap();
    path
}

/// CesiumMan and its variants with arms `factor` times as long.
fn targets(dir: &Path) -> Vec<(String, PathBuf)> {
    let plain = asset_path("gltf/CesiumMan.glb");
    let bytes = std::fs::read(&plain).unwrap();
    let mut out = vec![("CesiumMan".to_owned(), plain)];
    for factor in [1.3f32, 0.8] {
        let path = dir.join(format!("CesiumMan_arms_{factor}.glb"));
        std::fs::write(&path, longer_arms(&bytes, factor)).unwrap();
        out.push((format!("CesiumMan, arms ×{factor}"), path));
    }
    out
}

/// `check --json` of the grip walk onto `target`, hand contacts kept or not.
fn check(source: &Path, target: &Path, keep: bool) -> serde_json::Value {
    let (s, t) = (source.to_str().unwrap(), target.to_str().unwrap());
    let on = if keep { "on" } else { "off" };
    let args = ["check", "-q", "--json", "--source", s, "--target", t];
    let out = cli(&[&args[..], &["--hand-contacts", on]].concat());
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

fn grip_verdict(report: &serde_json::Value) -> (f64, bool) {
    let v = report["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["measure"] == "grip")
        .expect("a grip verdict: the source holds its hands together");
    (v["value"].as_f64().unwrap(), v["passed"].as_bool().unwrap())
}

#[test]
fn a_two_handed_grip_held_through_a_walk_stays_together_on_other_arms() {
    let dir = tempfile::tempdir().unwrap();
    let source = grip_walk(dir.path());
    let mut parted = 0;
    for (name, target) in targets(dir.path()) {
        let before = check(&source, &target, false);
        let after = check(&source, &target, true);
        let grip = &after["report"]["grip"];
        let contacts = grip["contacts"].as_array().unwrap();
        assert_eq!(contacts.len(), 1, "{name}: {grip}");
        assert_eq!(contacts[0]["touch"], "hands together", "{name}: {grip}");
        let frames = after["report"]["frames"].as_u64().unwrap();
        assert_eq!(contacts[0]["start"], 0, "{name}: {grip}");
        assert_eq!(
            contacts[0]["end"].as_u64().unwrap() + 1,
            frames,
            "{name}: {grip}"
        );
        let ((was, _), (now, passed)) = (
            grip_verdict(&before["report"]),
            grip_verdict(&after["report"]),
        );
        println!(
            "{name}: grip {was:.1} mm → {now:.1} mm at 1.75 m (source's hands {:.0} mm apart)",
            contacts[0]["source_mm"].as_f64().unwrap()
        );
        assert!(
            passed && now <= 10.0,
            "{name}: the hands stay {now:.1} mm off the source's"
        );
        if was > 30.0 {
            parted += 1;
        }
    }
    assert!(
        parted >= 2,
        "without the pass, the other arms part the hands"
    );
}

#[test]
fn check_prints_each_hand_contact_against_the_source_s() {
    let dir = tempfile::tempdir().unwrap();
    let source = grip_walk(dir.path());
    let target = asset_path("gltf/CesiumMan.glb");
    let (s, t) = (source.to_str().unwrap(), target.to_str().unwrap());
    let out = cli(&["check", "-q", "--source", s, "--target", t]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("grip")).expect(&text);
    assert!(
        line.contains("PASS") && line.contains("1 hand contacts"),
        "{text}"
    );
    let contact = text
        .lines()
        .find(|l| l.trim_start().starts_with("hands together"));
    let contact = contact.unwrap_or_else(|| panic!("{text}"));
    assert!(
        contact.contains("LeftHand–RightHand") && contact.contains("source"),
        "{text}"
    );
}
