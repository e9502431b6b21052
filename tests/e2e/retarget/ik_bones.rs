//! Unreal's IK bones on a target: `ik_hand_gun` and `ik_hand_r` sit on `hand_r`, `ik_hand_l`
//! on `hand_l`, `ik_foot_l/r` on the feet and the roots on the top joint, in every frame of
//! a retarget's export as read back by our reader: engines solve hand and foot IK on them.

use crate::common::file_variants::ue_ik::{IK_BONES, unreal_ik_bones};
use crate::common::{asset_path, cli_ok, key_times, positions_at};
use retarget_studio::core::HumanBone;
use retarget_studio::io::ImportOptions;
use std::path::{Path, PathBuf};

/// The joint names on the Unreal copy that each IK bone sits on.
fn on(bone: Option<HumanBone>) -> &'static str {
    match bone {
        Some(HumanBone::RightHand) => "hand_r",
        Some(HumanBone::LeftHand) => "hand_l",
        Some(HumanBone::RightFoot) => "foot_r",
        Some(HumanBone::LeftFoot) => "foot_l",
        _ => "",
    }
}

/// `rel` made Unreal's with IK bones, written in `dir`.
fn unreal_copy(dir: &Path, rel: &str) -> PathBuf {
    let path = dir.join(format!("{}_ue.glb", rel.replace('/', "_")));
    let bytes = std::fs::read(asset_path(rel)).unwrap();
    std::fs::write(&path, unreal_ik_bones(&bytes)).unwrap();
    path
}

/// Over every key of the export of `source` onto `target` made Unreal's with IK bones (the
/// CLI's `extra` arguments added), each IK bone's worst distance from the joint it belongs
/// on (m).
fn worst_gaps(source: &Path, target: &str, extra: &[&str]) -> Vec<(&'static str, f32)> {
    let dir = tempfile::tempdir().unwrap();
    let variant = unreal_copy(dir.path(), target);
    let out = dir.path().join("out.glb");
    let args = ["retarget", "-q", "--source", source.to_str().unwrap()];
    let (t, o) = (variant.to_str().unwrap(), out.to_str().unwrap());
    cli_ok(&[&args[..], &["--target", t, "--out", o], extra].concat());
    let asset = retarget_studio::io::load(&out, &ImportOptions::default()).unwrap();
    let clip = &asset.clips[0];
    let s = &asset.skeletons[clip.skeleton];
    let frames = positions_at(s, &clip.clip, &key_times(&clip.clip));
    let top = s.parents().iter().position(Option::is_none).unwrap();
    let joint = |n: &str| s.find(n).unwrap_or_else(|| panic!("{n} in the export"));
    IK_BONES
        .iter()
        .map(|&(name, bone)| {
            let (ik, at) = (joint(name), bone.map_or(top, |b| joint(on(Some(b)))));
            let worst = (frames.iter().map(|f| f[ik].distance(f[at]))).fold(0.0, f32::max);
            (name, worst)
        })
        .collect()
}

fn assert_on(what: &str, gaps: &[(&str, f32)]) {
    println!("{what}: {gaps:?}");
    for (name, gap) in gaps {
        assert!(gap < &1e-3, "{what}: {name} strays {:.1} mm", gap * 1e3);
    }
}

/// Before they followed, the VRM's stayed at rest under the pelvis: `ik_hand_gun` 706 mm
/// from `hand_r`, the feet's 403 to 409 mm from theirs. Mirrored too: the mirror swaps the
/// twins under an `ik_hand_gun` that has none (1.9 m off before they were put back).
#[test]
fn a_targets_unreal_ik_bones_sit_on_its_retargeted_hands_and_feet() {
    let walk = asset_path("bvh/02_01.bvh");
    for target in ["vrm/cryptovoxels.vrm", "gltf/RobotExpressive.glb"] {
        assert_on(target, &worst_gaps(&walk, target, &[]));
    }
    let mirrored = worst_gaps(&walk, "vrm/cryptovoxels.vrm", &["--mirror"]);
    assert_on("vrm/cryptovoxels.vrm mirrored", &mirrored);
}

/// From a source with IK bones of its own (the robot made Unreal's: its IK bones at rest,
/// paired by name with the target's): the target's follow its own hands and feet, not
/// the source's bones, and none of the source's is mapped onto a body joint.
#[test]
fn a_sources_ik_bones_drive_no_body_joint_and_the_targets_follow_its_own_hands() {
    let dir = tempfile::tempdir().unwrap();
    let source = unreal_copy(dir.path(), "gltf/RobotExpressive.glb");
    let target = dir.path().join("target.glb");
    std::fs::copy(unreal_copy(dir.path(), "vrm/cryptovoxels.vrm"), &target).unwrap();
    let session = crate::common::session(&source, &target);
    let (s, t) = (session.source.skeleton(), session.target.skeleton());
    for p in session.map.pairs() {
        let (sn, tn) = (&s.names()[p.source], &t.names()[p.target]);
        if sn.starts_with("ik_") {
            assert!(p.bone.is_none() && tn.starts_with("ik_"), "{sn} onto {tn}");
        }
    }
    assert_on(
        "robot → VRM, both Unreal's",
        &worst_gaps(&source, "vrm/cryptovoxels.vrm", &[]),
    );
}
