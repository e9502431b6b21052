use super::step::advance;
use super::*;
use crate::clip::{Clip, Interpolation, JointTracks, Track};
use crate::mapping::BoneMap;
use crate::pose::Pose;
use crate::reference::ReferencePose;
use crate::retarget::Retargeter;
use crate::skeleton::{JointDef, Skeleton};
use crate::transform::Transform;
use glam::{Mat4, Quat, Vec3};
use std::sync::Arc;

/// A three-joint arm whose shoulder turns about Z over one second.
fn arm_and_clip() -> (Skeleton, Clip) {
    let t = |x: f32| Transform::from_translation(Vec3::new(x, 0.0, 0.0));
    let arm = Skeleton::new(
        "arm",
        Mat4::IDENTITY,
        vec![
            JointDef::new("shoulder", None, t(0.0)),
            JointDef::new("elbow", Some(0), t(1.0)),
            JointDef::new("wrist", Some(1), t(1.0)),
        ],
    )
    .unwrap();
    let times: Vec<f32> = (0..31).map(|k| k as f32 / 30.0).collect();
    let keys = times.iter().map(|t| Quat::from_rotation_z(*t)).collect();
    let mut tracks = vec![JointTracks::default(); 3];
    tracks[0].rotation = Some(Track::new(times, keys, Interpolation::Linear).unwrap());
    (arm, Clip::new("turn", tracks, None))
}

fn rig() -> Arc<RigPair> {
    let (arm, clip) = arm_and_clip();
    let reference = ReferencePose::new(&arm, Pose::rest(&arm), &Default::default(), &[]);
    let r = Retargeter::new(&arm, &reference, &arm, &reference, &BoneMap::identity(3)).unwrap();
    let options = RigOptions {
        ik: false,
        fps: None,
    };
    Arc::new(RigPair::new(&r, &arm, &arm, &[clip], options).unwrap())
}

#[test]
fn looping_time_wraps_into_the_clip_both_ways() {
    assert!((advance(0.9, 0.2, 1.0, 0.0, 1.0, true) - 0.1).abs() < 1e-6);
    assert!((advance(0.1, 0.2, -1.0, 0.0, 1.0, true) - 0.9).abs() < 1e-6);
    assert_eq!(advance(0.9, 0.2, 1.0, 0.0, 1.0, false), 0.9 + 0.2);
    assert_eq!(advance(3.0, 0.5, 1.0, 2.0, 0.0, true), 2.0);
}

#[test]
fn flags_combine_and_clear() {
    let mut f = Flags::LOOP | Flags::IK;
    assert!(f.contains(Flags::IK) && f.contains(Flags::LOOP));
    f.set(Flags::IK, false);
    assert!(!f.contains(Flags::IK) && f.contains(Flags::LOOP));
}

#[test]
fn each_instance_plays_its_own_time_and_placement() {
    let rig = rig();
    let mut crowd = Crowd::new(rig.clone());
    let away = Mat4::from_translation(Vec3::new(10.0, 0.0, 0.0));
    crowd.spawn(0, 0.0, Mat4::IDENTITY, Flags::LOOP);
    crowd.spawn(0, 0.5, away, Flags::LOOP);
    let mut out = vec![Mat4::ZERO; crowd.output_len()];
    crowd.update(0.25, Output::World, &mut out);
    // The wrist is two units out along the shoulder's turn (0.25 and 0.75 rad).
    for (i, (angle, offset)) in [(0.25f32, 0.0), (0.75, 10.0)].into_iter().enumerate() {
        let wrist = out[i * 3 + 2].w_axis.truncate();
        let want = Vec3::new(offset + 2.0 * angle.cos(), 2.0 * angle.sin(), 0.0);
        assert!(wrist.abs_diff_eq(want, 1e-4), "{i}: {wrist} vs {want}");
    }
    // Skinning matrices at the bind pose are the placement alone.
    let mut c = Crowd::new(rig);
    c.spawn(0, 0.0, away, Flags::default());
    let mut skin = vec![Mat4::ZERO; c.output_len()];
    c.update(0.0, Output::Skinning, &mut skin);
    for m in &skin {
        assert!(m.abs_diff_eq(away, 1e-5), "{m}");
    }
}

#[test]
fn parallel_and_serial_updates_agree() {
    let rig = rig();
    let (mut a, mut b) = (Crowd::new(rig.clone()), Crowd::new(rig));
    for k in 0..300 {
        let t = k as f32 * 0.013;
        a.spawn(0, t, Mat4::IDENTITY, Flags::LOOP);
        b.spawn(0, t, Mat4::IDENTITY, Flags::LOOP);
    }
    let (mut oa, mut ob) = (
        vec![Mat4::ZERO; a.output_len()],
        vec![Mat4::ZERO; b.output_len()],
    );
    for _ in 0..5 {
        a.update(1.0 / 60.0, Output::World, &mut oa);
        b.update_serial(1.0 / 60.0, Output::World, &mut ob);
    }
    assert_eq!(oa, ob);
}

#[test]
fn the_pose_on_demand_is_the_one_the_update_wrote_matrices_of() {
    let rig = rig();
    let mut crowd = Crowd::new(rig.clone());
    let away = Mat4::from_translation(Vec3::new(3.0, 0.0, -2.0));
    crowd.spawn(0, 0.1, away, Flags::LOOP);
    crowd.spawn(0, 0.7, Mat4::IDENTITY, Flags::LOOP | Flags::MIRROR);
    let mut out = vec![Mat4::ZERO; crowd.output_len()];
    for _ in 0..7 {
        crowd.update(0.05, Output::World, &mut out);
    }
    let n = rig.target_len();
    for i in 0..crowd.len() {
        let placement = crowd.instances()[i].placement;
        let mut want = vec![Mat4::ZERO; n];
        crowd
            .pose(i)
            .world_matrices_under(rig.target(), placement * rig.container, &mut want);
        for (got, want) in out[i * n..(i + 1) * n].iter().zip(&want) {
            assert!(got.abs_diff_eq(*want, 1e-5), "{i}: {got} vs {want}");
        }
    }
}

#[test]
fn the_forward_kinematics_rotation_columns_are_glam_s() {
    for k in 0..200 {
        let a = k as f32 * 0.37;
        let axis = Vec3::new(a.sin(), (1.3 * a).cos(), 0.4 + (0.7 * a).sin()).normalize();
        let q = Quat::from_axis_angle(axis, a * 1.9 - 3.0);
        let m = Mat4::from_quat(q);
        let [x, y, z] = super::step::axes(q);
        for (got, want) in [(x, m.x_axis), (y, m.y_axis), (z, m.z_axis)] {
            assert!(got.abs_diff_eq(want, 1e-6), "{q}: {got} vs {want}");
        }
    }
}

#[test]
fn streamed_output_is_the_cached_output() {
    let rig = rig();
    let (mut big, mut small) = (Crowd::new(rig.clone()), Crowd::new(rig.clone()));
    let count = super::step::STREAM_BYTES / (64 * rig.target_len()) + 100;
    let at = |k: usize| Mat4::from_translation(Vec3::new(k as f32, 0.0, 0.0));
    let sampled: Vec<usize> = (0..count).step_by(997).collect();
    for k in 0..count {
        big.spawn(0, k as f32 * 0.013, at(k), Flags::LOOP);
    }
    for &k in &sampled {
        small.spawn(0, k as f32 * 0.013, at(k), Flags::LOOP);
    }
    let n = rig.target_len();
    for output in [Output::World, Output::Skinning] {
        let mut a = vec![Mat4::ZERO; big.output_len()];
        let mut b = vec![Mat4::ZERO; small.output_len()];
        assert!(size_of_val(&a[..]) > super::step::STREAM_BYTES);
        big.update(0.01, output, &mut a);
        small.update(0.01, output, &mut b);
        for (i, &k) in sampled.iter().enumerate() {
            assert_eq!(
                a[k * n..(k + 1) * n],
                b[i * n..(i + 1) * n],
                "{output:?} {k}"
            );
        }
        big.update_serial(0.01, output, &mut a);
        small.update_serial(0.01, output, &mut b);
        for (i, &k) in sampled.iter().enumerate() {
            assert_eq!(
                a[k * n..(k + 1) * n],
                b[i * n..(i + 1) * n],
                "{output:?} {k}"
            );
        }
    }
}
