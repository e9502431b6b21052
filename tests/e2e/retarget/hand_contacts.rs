//! Hand contacts kept on real rigs: CMU's walk 02_01 made into a two-handed grip held
//! through the walk (both hands 3.5 % of the height apart in front of the chest, by two-bone
//! IK on the source) and retargeted onto CesiumMan and onto CesiumMan with arms 1.3× and
//! 0.8× as long. Without the arms' pass the target's hands part (its arms have other
//! proportions than CMU's); with it `check` judges the grip within its limit, and reports
//! the contact in text and JSON. The same walk carrying a rifle in both hands held 0.3 m
//! apart (`rifle_walk`) is two hands on one prop, kept on CesiumMan, the robot and the VRM.

use crate::common::file_variants::{grip_walk, longer_arms, rifle_walk};
use crate::common::{asset_path, cli};
use std::path::{Path, PathBuf};

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

/// The rifle walk's hands stay the rifle's length apart on three targets whose arms have
/// other proportions than CMU's: the contact is one prop held through the walk, judged
/// within the grip's 30 mm limit with the pass and beyond it without.
#[test]
fn a_rifle_carried_in_both_hands_keeps_its_length_on_three_targets() {
    let dir = tempfile::tempdir().unwrap();
    let source = rifle_walk(dir.path());
    for target in [
        "gltf/CesiumMan.glb",
        "gltf/RobotExpressive.glb",
        "vrm/cryptovoxels.vrm",
    ] {
        let path = asset_path(target);
        let (before, after) = (check(&source, &path, false), check(&source, &path, true));
        let grip = &after["report"]["grip"];
        let contacts = grip["contacts"].as_array().unwrap();
        assert!(
            contacts.iter().all(|c| c["touch"] == "hands on one prop"),
            "{target}: {grip}"
        );
        let frames = after["report"]["frames"].as_u64().unwrap();
        let held: u64 = (contacts.iter())
            .map(|c| c["end"].as_u64().unwrap() + 1 - c["start"].as_u64().unwrap())
            .sum();
        assert!(
            held * 10 >= frames * 9,
            "{target}: {held} of {frames} frames: {grip}"
        );
        let ((was, failed), (now, passed)) = (
            grip_verdict(&before["report"]),
            grip_verdict(&after["report"]),
        );
        println!(
            "{target}: grip {was:.1} mm → {now:.1} mm at 1.75 m (source's hands {:.0} mm apart)",
            contacts[0]["source_mm"].as_f64().unwrap()
        );
        assert!(
            !failed && was > 30.0,
            "{target}: {was:.1} mm without the pass"
        );
        assert!(passed && now <= 30.0, "{target}: {now:.1} mm with it");
    }
}
