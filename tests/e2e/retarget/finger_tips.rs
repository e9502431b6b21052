//! Fingertips where the two fingers have other joint counts: the curl past the last paired
//! joint is spread over the target's joints by share, so the target's last segment points
//! where the source's last segment points in the palm frame and a fist closes as far,
//! whether the target has a joint more or fewer than the source (the robot's two-joint
//! fingers, the VRM's three, each with one more and one fewer; rigify's three).

use crate::common::asset_path;
use crate::common::file_variants::fingers::{one_finger_joint_fewer, one_finger_joint_more};
use retarget_studio::core::Pose;
use std::path::Path;

const ROBOT: &str = "gltf/RobotExpressive.glb";
const VRM: &str = "vrm/cryptovoxels.vrm";

/// The fingers' tips of the robot's `clip` onto `target`: (mean and worst angle between the
/// two last segments in their palm frames, worst difference of how far they closed), degrees.
pub(super) fn tips(source: &Path, clip: &str, target: &Path) -> (f32, f32, f32) {
    let s = crate::common::session(source, target);
    let out = s.retarget_clip(Some(clip), None).unwrap();
    let input = s.source.clip(Some(clip)).unwrap();
    let (sk, tk) = (s.source.skeleton(), s.target.skeleton());
    let rest = Pose::rest(sk);
    let (mut a, mut b) = (rest.clone(), Pose::rest(tk));
    let (mut sum, mut n, mut worst, mut closed) = (0.0, 0, 0.0f32, 0.0f32);
    for time in input.even_times(40) {
        a.copy_from(&rest);
        input.sample(time, &mut a);
        out.sample(time, &mut b);
        for t in s.finger_tips(&a.world_matrices(sk), &b.world_matrices(tk)) {
            sum += t.apart_deg;
            n += 1;
            worst = worst.max(t.apart_deg);
            closed = closed.max((t.source_closed_deg - t.target_closed_deg).abs());
        }
    }
    assert!(n > 0, "no fingertips compared onto {target:?}");
    (sum / n as f32, worst, closed)
}

fn write(dir: &Path, name: &str, bytes: Vec<u8>) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

const VRM_FINGERS: [&str; 6] = [
    "IndexFinger1_L",
    "MiddleFinger1_L",
    "RingFinger1_L",
    "IndexFinger1_R",
    "MiddleFinger1_R",
    "RingFinger1_R",
];
const ROBOT_FINGERS: [&str; 6] = [
    "Index.L",
    "Middle1.L",
    "Ring1.L",
    "Index.R",
    "Middle1.R",
    "Ring1.R",
];

#[test]
fn fingertips_point_where_the_source_s_do_with_a_joint_more_or_fewer() {
    // Before the tails were shared and lined up: the robot's 36–76° apart on average, 106°
    // at worst, minnyquinn's 18–53° and 84° (the tail joint turned as its parent, a lost
    // source joint's turn dropped, each side's last bone at its own rest); after: 0.1–0.2°
    // and 2.3° on average, 3.9° at worst.
    let dir = tempfile::tempdir().unwrap();
    let (robot, vrm) = (asset_path(ROBOT), asset_path(VRM));
    let robot_bytes = std::fs::read(&robot).unwrap();
    let vrm_bytes = std::fs::read(&vrm).unwrap();
    let robot3 = write(
        dir.path(),
        "robot3.glb",
        one_finger_joint_more(&robot_bytes, &ROBOT_FINGERS),
    );
    let robot1 = write(
        dir.path(),
        "robot1.glb",
        one_finger_joint_fewer(&robot_bytes, &ROBOT_FINGERS),
    );
    let vrm4 = write(
        dir.path(),
        "vrm4.vrm",
        one_finger_joint_more(&vrm_bytes, &VRM_FINGERS),
    );
    let vrm2 = write(
        dir.path(),
        "vrm2.vrm",
        one_finger_joint_fewer(&vrm_bytes, &VRM_FINGERS),
    );
    let mut failed = Vec::new();
    for (name, source, target) in [
        ("robot(2) → vrm(3)", &robot, &vrm),
        ("robot(2) → vrm(4)", &robot, &vrm4),
        ("robot(2) → vrm(2)", &robot, &vrm2),
        ("robot(3) → vrm(2)", &robot3, &vrm2),
        ("robot(1) → vrm(3)", &robot1, &vrm),
    ] {
        for clip in ["ThumbsUp", "Wave"] {
            let (mean, worst, closed) = tips(source, clip, target);
            println!(
                "{name} {clip}: tips {mean:.1}° apart on average, {worst:.1}° at worst; closed within {closed:.1}°"
            );
            if mean > 5.0 || worst > 10.0 || closed > 10.0 {
                failed.push(format!("{name} {clip}"));
            }
        }
    }
    // Rigify's three phalanges, the distal one turning too, onto two, three and four.
    let minnyquinn = asset_path("gltf/rigify/minnyquinn_rigify_DEF_rootmotion_pair.glb");
    for (name, target) in [
        ("minnyquinn(3) → vrm(2)", &vrm2),
        ("minnyquinn(3) → robot(2)", &robot),
        ("minnyquinn(3) → vrm(4)", &vrm4),
    ] {
        let (mean, worst, closed) = tips(&minnyquinn, "retreat", target);
        println!(
            "{name} retreat: tips {mean:.1}° apart on average, {worst:.1}° at worst; closed within {closed:.1}°"
        );
        if mean > 5.0 || worst > 10.0 || closed > 10.0 {
            failed.push(format!("{name} retreat"));
        }
    }
    assert!(failed.is_empty(), "tips apart: {failed:?}");
}
