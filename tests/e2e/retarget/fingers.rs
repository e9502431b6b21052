//! Fingers: the target's hands and fingers are lined up with the source's in the reference
//! poses, so `check`'s fingers measure (each finger segment's direction in its hand's own
//! frame, the judge's rule) stays within its 5° limit, whatever the target's rest fingers
//! are: curled, on palms turned 90°, with a joint more or less per finger.

use crate::common::file_variants::creatures::{shorten_chain, split_bone};
use crate::common::file_variants::fingers::unnamed_fingers;
use crate::common::file_variants::glb::Glb;
use crate::common::file_variants::node_edit::joint_named;
use crate::common::file_variants::{curled_fingers, turned_palms};
use crate::common::{asset_path, cli_ok};
use std::path::Path;

const ROBOT: &str = "gltf/RobotExpressive.glb";
const VRM: &str = "vrm/cryptovoxels.vrm";

/// `check --json` of the robot's `clip` onto `target`: (fingers mean, max) in degrees.
fn fingers(clip: &str, target: &Path) -> (f64, f64) {
    fingers_from(&asset_path(ROBOT), clip, target)
}

/// `check --json` of `source`'s `clip` onto `target`: (fingers mean, max) in degrees.
fn fingers_from(source: &Path, clip: &str, target: &Path) -> (f64, f64) {
    let out = crate::common::cli(&[
        "check",
        "--json",
        "--source",
        source.to_str().unwrap(),
        "--clip",
        clip,
        "--target",
        target.to_str().unwrap(),
    ]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let f = &json["report"]["fingers"];
    assert!(f.is_object(), "no fingers measure onto {target:?}");
    (
        f["mean_deg"].as_f64().unwrap(),
        f["max_deg"].as_f64().unwrap(),
    )
}

fn variant(dir: &Path, name: &str, bytes: Vec<u8>) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn thumbs_up_onto_the_vrm_keeps_the_fingers_within_5_degrees() {
    // Before the hands were lined up: 85.3° mean, 130.7° worst (the rest fingers 40–100° apart).
    for clip in ["ThumbsUp", "Wave", "Punch"] {
        let (mean, max) = fingers(clip, &asset_path(VRM));
        println!("{clip}: fingers mean {mean:.2}°, max {max:.2}°");
        assert!(mean <= 5.0, "{clip}: fingers mean {mean:.2}°");
        assert!(max <= 10.0, "{clip}: fingers max {max:.2}°");
    }
}

#[test]
fn the_map_reports_the_fingers_lined_up() {
    let text = cli_ok(&[
        "map",
        "--source",
        asset_path(ROBOT).to_str().unwrap(),
        "--target",
        asset_path(VRM).to_str().unwrap(),
    ]);
    // The thumbs' reference directions were 100.5° and 88.4° apart.
    assert!(
        text.contains("reference poses agree to 0.0° at worst"),
        "{text}"
    );
}

#[test]
fn curled_rest_fingers_and_turned_palms_are_lined_up() {
    let dir = tempfile::tempdir().unwrap();
    let vrm = std::fs::read(asset_path(VRM)).unwrap();
    for (name, bytes) in [
        ("curled.vrm", curled_fingers(&vrm, 40.0)),
        ("palms.vrm", turned_palms(&vrm, 90.0)),
    ] {
        let (mean, max) = fingers("ThumbsUp", &variant(dir.path(), name, bytes));
        println!("{name}: fingers mean {mean:.2}°, max {max:.2}°");
        assert!(mean <= 5.0, "{name}: fingers mean {mean:.2}°");
    }
}

#[test]
fn fingers_with_a_joint_more_or_less_are_lined_up() {
    let dir = tempfile::tempdir().unwrap();
    let vrm = std::fs::read(asset_path(VRM)).unwrap();
    let names: Vec<String> = ["Index", "Middle", "Ring", "Little"]
        .into_iter()
        .flat_map(|f| ["L", "R"].map(|s| format!("{f}Finger1_{s}")))
        .collect();
    // Nodes are found by name in each step: cutting a chain renumbers them.
    let edit = |f: &dyn Fn(&[u8], usize) -> Vec<u8>| {
        names.iter().fold(vrm.clone(), |bytes, name| {
            let j = joint_named(&Glb::parse(&bytes), name, |n| n == name);
            f(&bytes, j)
        })
    };
    // Four joints: each proximal bone split in two. Two: each finger cut after its second.
    let four = edit(&|b, j| split_bone(b, j, 2));
    let two = edit(&|b, j| shorten_chain(b, j, 2, 1.0));
    for (name, bytes) in [("four.vrm", four), ("two.vrm", two)] {
        let (mean, max) = fingers("ThumbsUp", &variant(dir.path(), name, bytes));
        println!("{name}: fingers mean {mean:.2}°, max {max:.2}°");
        assert!(mean <= 5.0, "{name}: fingers mean {mean:.2}°");
    }
}

/// Finger joints named `j_<node>` (and out of the VRM's humanoid table) are found by the
/// hand's shape: lines of joints under the hand (or beside it, the robot's palm bones), the
/// thumb furthest back toward the wrist, index to little away from it. Without that they
/// were neither mapped nor measured.
#[test]
fn unnamed_fingers_are_found_by_shape() {
    let dir = tempfile::tempdir().unwrap();
    let vrm = std::fs::read(asset_path(VRM)).unwrap();
    let robot = std::fs::read(asset_path(ROBOT)).unwrap();
    let robot_j = variant(dir.path(), "robot_j.glb", unnamed_fingers(&robot));
    let vrm_j = variant(dir.path(), "vrm_j.vrm", unnamed_fingers(&vrm));
    let palms_j = variant(
        dir.path(),
        "palms_j.vrm",
        unnamed_fingers(&turned_palms(&vrm, 90.0)),
    );
    for (name, source, target) in [
        ("robot → vrm_j", asset_path(ROBOT), &vrm_j),
        ("robot_j → vrm", robot_j.clone(), &asset_path(VRM)),
        ("robot_j → vrm_j", robot_j.clone(), &vrm_j),
        ("robot_j → palms_j", robot_j, &palms_j),
    ] {
        let (mean, max) = fingers_from(&source, "ThumbsUp", target);
        println!("{name}: fingers mean {mean:.2}°, max {max:.2}°");
        assert!(mean <= 5.0, "{name}: fingers mean {mean:.2}°");
    }
}

/// The robot's index and ring bases hang from palm bones beside its hand (`Palm1.L`,
/// `Palm3.L` under the forearm): the plan pinned the target's index and ring bases to the
/// forearm as "detached" joints, so they left the target's hand as the wrist turned and its
/// palm frame bent (every finger segment off by the same angle, 3.1° all through Dance onto
/// the VRM, 5.8° through Walking onto VALID, and VALID's ring base 2.4e-3 of the height off
/// its bone). A finger stays on its hand.
#[test]
fn fingers_on_palm_bones_beside_the_hand_stay_on_the_target_s_hand() {
    let valid = asset_path("gltf/morph/valid_hispanic_f2_meshopt_65morphs.glb");
    for (clip, target, before) in [("Dance", asset_path(VRM), 3.12), ("Walking", valid, 5.78)] {
        let (mean, max) = fingers(clip, &target);
        println!("{clip}: fingers mean {mean:.2}° (was {before}°), max {max:.2}°");
        assert!(mean <= 1.0, "{clip}: fingers mean {mean:.2}°");
    }
}

/// `check --json --project`: (fingers mean, max) in degrees.
fn project_fingers(project: &Path) -> (f64, f64) {
    let out = crate::common::cli(&["check", "--json", "--project", project.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let f = &json["report"]["fingers"];
    (
        f["mean_deg"].as_f64().unwrap(),
        f["max_deg"].as_f64().unwrap(),
    )
}

#[test]
fn a_project_saved_before_hands_were_lined_up_has_them_lined_up_on_opening() {
    use retarget_studio::session::Session;
    // The demo project was saved before: its target's fingers rest as the file has them
    // (74.6° off the robot's Dance in the hand's frame, opened as saved).
    let demo = asset_path("demo.ron");
    let (mean, _) = project_fingers(&demo);
    println!("demo project: fingers mean {mean:.2}°");
    assert!(mean <= 5.0, "{mean:.2}°");
    // Saved since, a finger turned by hand stays as it was turned: opening does not line
    // the hands up again over the user's edits.
    let mut s = Session::from_project(&demo).unwrap();
    let j = s.target.skeleton().find("IndexFinger1_L").unwrap();
    s.target
        .add_bone_offset(j, glam::Quat::from_rotation_z(0.6));
    s.target.rebuild_reference().unwrap();
    let turned = s.target.bone_offset(j);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turned.ron");
    let project = s.to_project();
    project.save(&path).unwrap();
    let again = Session::from_project(&path).unwrap();
    let kept = again.target.bone_offset(j);
    assert!(kept.angle_between(turned) < 1e-4, "{kept} vs {turned}");
    let (_, max) = project_fingers(&path);
    assert!(
        max > 20.0,
        "the turned finger is measured as turned: {max:.2}°"
    );
}
