//! Cross-rig retargeting on real files: mocap onto a glTF robot, a glTF clip onto a VRM.
//! Judged by the direction of every mapped bone against its source bone, frame by frame.

use crate::common::asset_path;
use glam::Vec3;
use retarget_studio::core::align::mapped_child;
use retarget_studio::core::{Clip, HumanBone, Pose};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::{Session, SessionError};

/// World positions of a clip at time `t` under a side's (edited) container.
fn world_at(side: &retarget_studio::session::Side, clip: &Clip, t: f32) -> Vec<Vec3> {
    let s = side.skeleton();
    let mut pose = Pose::rest(s);
    clip.sample(t, &mut pose);
    let mut m = vec![glam::Mat4::IDENTITY; s.len()];
    pose.world_matrices_under(s, side.reference.container, &mut m);
    m.iter().map(|m| m.w_axis.truncate()).collect()
}

struct Report {
    mean: f32,
    max: f32,
    limb_mean: f32,
    /// Drift of bones mapped one-to-one (no unmapped source joint in between).
    drift_max: f32,
    /// Drift of target bones standing for a longer source chain (CMU's two neck joints).
    chain_drift_max: f32,
}

/// Per frame and mapped bone, the angle between target and source bone directions; how far
/// it drifts from the same angle in the reference poses (rest-relative keeps it constant).
fn direction_report(session: &Session, clip_name: Option<&str>) -> Report {
    let src_clip = session.source_clip(clip_name).unwrap();
    let out = session.retarget_clip(clip_name, None).unwrap();
    let (src, tgt) = (&session.source, &session.target);
    let reference = session.reference_agreement();
    let (mut sum, mut n, mut max, mut drift_max) = (0.0f32, 0, 0.0f32, 0.0f32);
    let mut chain_drift_max = 0.0f32;
    let (mut limb_sum, mut limb_n) = (0.0f32, 0);
    let frames = out.frame_count();
    for k in 0..frames {
        let t_out = out.start_secs() + out.duration_secs() * k as f32 / (frames - 1).max(1) as f32;
        let t_src = src_clip.start_secs() + (t_out - out.start_secs());
        let ps = world_at(src, src_clip, t_src);
        let pt = world_at(tgt, &out, t_out);
        for pair in session.map.pairs() {
            let Some((child, source_child)) =
                mapped_child(tgt.skeleton(), &session.map, pair.target)
            else {
                continue;
            };
            let dt = pt[child] - pt[pair.target];
            let ds = ps[source_child] - ps[pair.source];
            if dt.length() < 1e-6 || ds.length() < 1e-6 {
                continue;
            }
            let angle = dt.angle_between(ds).to_degrees();
            let ref_angle = reference
                .iter()
                .find(|(j, _)| *j == pair.target)
                .map_or(0.0, |r| r.1);
            let drift = (angle - ref_angle).abs();
            if src.skeleton().parents()[source_child] == Some(pair.source) {
                drift_max = drift_max.max(drift);
            } else {
                chain_drift_max = chain_drift_max.max(drift);
            }
            sum += angle;
            n += 1;
            max = max.max(angle);
            if pair.bone.is_some_and(is_limb) {
                limb_sum += angle;
                limb_n += 1;
            }
        }
    }
    Report {
        mean: sum / n as f32,
        max,
        limb_mean: limb_sum / limb_n.max(1) as f32,
        drift_max,
        chain_drift_max,
    }
}

fn is_limb(b: HumanBone) -> bool {
    use HumanBone::*;
    matches!(
        b,
        LeftUpperArm
            | RightUpperArm
            | LeftLowerArm
            | RightLowerArm
            | LeftUpperLeg
            | RightUpperLeg
            | LeftLowerLeg
            | RightLowerLeg
    )
}

#[test]
fn cmu_walk_onto_robot_expressive() {
    let mut session = Session::automatic(
        &asset_path("bvh/02_01.bvh"),
        &asset_path("gltf/RobotExpressive.glb"),
        &ImportOptions::default(),
    )
    .unwrap();
    // The frame-by-frame solve's invariants: planted feet (`feet_ik`) bend the legs.
    session.solve.settings.plant_feet = false;
    assert!(session.map.len() >= 20, "{} pairs", session.map.len());
    let r = direction_report(&session, None);
    eprintln!(
        "walk → robot: mean {:.2}° max {:.2}° limbs {:.2}° drift {:.3}° (chains {:.3}°)",
        r.mean, r.max, r.limb_mean, r.drift_max, r.chain_drift_max
    );
    assert!(r.limb_mean < 2.0, "limbs follow the mocap: {}", r.limb_mean);
    assert!(
        r.drift_max < 1.0,
        "rest-relative keeps each bone's reference offset: {}",
        r.drift_max
    );
    assert!(
        r.chain_drift_max < 5.0,
        "two source neck joints onto one: {}",
        r.chain_drift_max
    );
}

#[test]
fn robot_dance_onto_vrm() {
    let mut session = Session::automatic(
        &asset_path("gltf/RobotExpressive.glb"),
        &asset_path("vrm/cryptovoxels.vrm"),
        &ImportOptions::default(),
    )
    .unwrap();
    session.solve.settings.plant_feet = false;
    let r = direction_report(&session, Some("Dance"));
    eprintln!(
        "dance → vrm: mean {:.2}° max {:.2}° limbs {:.2}° drift {:.3}° (chains {:.3}°)",
        r.mean, r.max, r.limb_mean, r.drift_max, r.chain_drift_max
    );
    assert!(r.limb_mean < 2.0, "{}", r.limb_mean);
    assert!(r.drift_max < 1.0, "{}", r.drift_max);
}

#[test]
fn a_missing_clip_is_a_clear_error_and_a_fox_target_is_not() {
    let session = Session::automatic(
        &asset_path("bvh/02_01.bvh"),
        &asset_path("vrm/cryptovoxels.vrm"),
        &ImportOptions::default(),
    )
    .unwrap();
    let e = session.retarget_clip(Some("Moonwalk"), None).err().unwrap();
    assert!(matches!(e, SessionError::ClipMissing { .. }), "{e}");
    assert!(
        e.to_string().contains("'02_01'"),
        "lists the clips there are: {e}"
    );
    let fox = Session::automatic(
        &asset_path("bvh/02_01.bvh"),
        &asset_path("gltf/Fox.glb"),
        &ImportOptions::default(),
    );
    // A fox is no humanoid, but its legs, tail and head map by their chains.
    let fox = fox.expect("a quadruped target maps by its chains");
    let legs = fox.map.legs().len();
    assert_eq!(legs, 4, "the fox stands on four leg chains");
    let clip = fox.retarget_clip(None, None).unwrap();
    assert!(clip.frame_count() > 100);
}
