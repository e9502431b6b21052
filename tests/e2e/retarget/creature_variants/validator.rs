//! The creature variants pass the Khronos validator (when the independent tools are beside
//! the repository): what a variant generator writes is a valid glTF.

use super::*;
use std::collections::BTreeMap;
use std::process::Command;

/// The Khronos validator's errors and warnings of a file, counted by code; `None` (with the
/// reason printed) when the independent tools or node are not there.
fn validator_issues(name: &str, data: &[u8]) -> Option<BTreeMap<String, usize>> {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/gltf-validate");
    if !tool.exists() {
        eprintln!("skipped: {} is absent", tool.display());
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, data).unwrap();
    // To a file: through a pipe, node exits before a long report is written out.
    let report_path = dir.path().join("report.json");
    let status = Command::new(&tool)
        .arg(&path)
        .args(["--json", "--max-issues", "100000"])
        .stdout(std::fs::File::create(&report_path).unwrap())
        .status()
        .unwrap();
    let text = std::fs::read(&report_path).unwrap();
    if status.code() == Some(2) && text.is_empty() {
        eprintln!("skipped: the validator could not run (exit 2, see its message above)");
        return None;
    }
    let report: serde_json::Value = serde_json::from_slice(&text)
        .unwrap_or_else(|e| panic!("{name}: the validator's report: {e} ({status})"));
    let mut counts = BTreeMap::new();
    for m in report["issues"]["messages"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if m["severity"].as_u64().is_some_and(|s| s <= 1) {
            *counts
                .entry(m["code"].as_str().unwrap_or("?").to_owned())
                .or_insert(0) += 1;
        }
    }
    Some(counts)
}

/// Every generator's output on the Fox, CesiumMan and the robot passes the Khronos validator
/// with no error or warning the original does not have (the robot's sample already has 752
/// non-normalized weights), and no more of them.
#[test]
fn creature_variants_pass_the_khronos_validator() {
    let fox = bytes(FOX);
    let robot = bytes(ROBOT);
    let cesium = bytes(CESIUM);
    let vrm = bytes(VRM);
    let (f, r, c) = (Glb::parse(&fox), Glb::parse(&robot), Glb::parse(&cesium));
    let spine = joint_named(&f, "Spine", |n| n.contains("Spine"));
    let tail = joint_named(&f, "Tail", |n| n.contains("Tail"));
    let legs = joints_named(&f, |n| n.contains("UpperArm") || n.contains("Leg01"));
    let finger = joint_named(&r, "Middle1.L", |n| n == "Middle1.L");
    let abdomen = joint_named(&r, "Abdomen", |n| n == "Abdomen");
    let cesium_legs = nodes_of(
        &human_bones(&c),
        &[HumanBone::LeftUpperLeg, HumanBone::RightUpperLeg],
    );
    let cases: Vec<(&str, &[u8], Vec<u8>)> = vec![
        (
            "fox renamed",
            &fox,
            renamed_as(&fox, NameStyle::Namespace("Fox")),
        ),
        (
            "fox sides",
            &fox,
            renamed_as(&fox, NameStyle::Sides(SideMarker::DotUpper)),
        ),
        ("fox extra root", &fox, extra_root_node(&fox)),
        ("fox spine in 3", &fox, split_bone(&fox, spine, 3)),
        ("fox short tail", &fox, shorten_chain(&fox, tail, 2, 0.6)),
        ("fox long legs", &fox, longer_limbs(&fox, &legs, 1.3)),
        (
            "robot renamed",
            &robot,
            renamed_as(&robot, NameStyle::NoSeparators),
        ),
        ("robot extra root", &robot, extra_root_node(&robot)),
        ("robot abdomen in 3", &robot, split_bone(&robot, abdomen, 3)),
        (
            "robot short finger",
            &robot,
            shorten_chain(&robot, finger, 1, 1.0),
        ),
        ("robot four arms", &robot, four_armed(&robot)),
        (
            "cesium long legs",
            &cesium,
            longer_limbs(&cesium, &cesium_legs, 1.3),
        ),
        ("cesium four arms", &cesium, four_armed(&cesium)),
        ("vrm four arms", &vrm, four_armed(&vrm)),
    ];
    // For checks by hand (Blender, ref-dump): CREATURE_VARIANTS_DIR=/some/dir writes them.
    if let Some(dir) = std::env::var_os("CREATURE_VARIANTS_DIR") {
        for (what, _, variant) in &cases {
            let file = Path::new(&dir).join(format!("{}.glb", what.replace(' ', "_")));
            std::fs::write(file, variant).unwrap();
        }
    }
    let mut known: Vec<(&[u8], BTreeMap<String, usize>)> = Vec::new();
    for (what, original, variant) in cases {
        let before = match known.iter().find(|(o, _)| *o == original) {
            Some((_, b)) => b.clone(),
            None => {
                let Some(b) = validator_issues("original.glb", original) else {
                    return;
                };
                known.push((original, b.clone()));
                b
            }
        };
        let after = validator_issues("variant.glb", &variant).unwrap();
        eprintln!("{what}: {after:?}");
        for (code, n) in &after {
            let was = before.get(code).copied().unwrap_or(0);
            assert!(*n <= was, "{what}: {n} × {code} (the original has {was})");
        }
    }
}
