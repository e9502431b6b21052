//! Invariant 7: mirror ∘ mirror = identity, and a mirrored pose is the twin's pose.

use crate::common::load;
use crate::common::variants::Lcg;
use glam::{Quat, Vec3};
use retarget_studio::core::mirror::{mirror_pose, twins};
use retarget_studio::core::{HumanBone, Pose, ReferencePose, Skeleton};

fn reference(s: &Skeleton) -> ReferencePose {
    ReferencePose::new(s, Pose::bind(s), &Default::default(), &[])
}

#[test]
fn mirroring_twice_gives_back_every_frame() {
    let vrm = load("vrm/cryptovoxels.vrm");
    let s = &vrm.skeletons[0];
    let r = reference(s);
    let tw = twins(s);
    assert_eq!(
        tw[s.find_humanoid(HumanBone::LeftHand).unwrap()],
        s.find_humanoid(HumanBone::RightHand).unwrap()
    );
    let mut rng = Lcg(11);
    for _ in 0..20 {
        let mut pose = Pose::bind(s);
        for q in pose.rotations.iter_mut() {
            *q = (Quat::from_scaled_axis(rng.rotation().to_scaled_axis() * 0.3) * *q).normalize();
        }
        pose.translations[0] += Vec3::new(rng.next_f32(), 0.1, -rng.next_f32());
        let (mut once, mut twice) = (pose.clone(), pose.clone());
        mirror_pose(s, &r, &tw, &pose, &mut once);
        mirror_pose(s, &r, &tw, &once, &mut twice);
        for j in 0..s.len() {
            assert!(
                twice.rotations[j].dot(pose.rotations[j]).abs() > 1.0 - 1e-5,
                "joint {}",
                s.names()[j]
            );
            assert!(twice.translations[j].abs_diff_eq(pose.translations[j], 1e-5));
        }
        assert!(
            once.rotations
                .iter()
                .zip(&pose.rotations)
                .any(|(a, b)| a.dot(*b).abs() < 0.999),
            "mirroring changed something"
        );
    }
}

#[test]
fn a_raised_left_arm_mirrors_to_a_raised_right_arm() {
    let vrm = load("vrm/cryptovoxels.vrm");
    let s = &vrm.skeletons[0];
    let r = reference(s);
    let left = s.find_humanoid(HumanBone::LeftUpperArm).unwrap();
    let (lh, rh) = (
        s.find_humanoid(HumanBone::LeftHand).unwrap(),
        s.find_humanoid(HumanBone::RightHand).unwrap(),
    );
    let mut pose = Pose::bind(s);
    // Raise the left arm 60° about the forward axis (in the parent's space).
    pose.rotations[left] = (Quat::from_rotation_z(1.0) * pose.rotations[left]).normalize();
    let mut mirrored = pose.clone();
    mirror_pose(s, &r, &twins(s), &pose, &mut mirrored);
    let before = pose.world_positions(s);
    let after = mirrored.world_positions(s);
    let bind = Pose::bind(s).world_positions(s);
    // The right hand moved as the left did, reflected in X; the left hand is back at bind.
    let moved_left = before[lh] - bind[lh];
    let moved_right = after[rh] - bind[rh];
    assert!(moved_left.length() > 0.1, "the arm was raised");
    let reflected = Vec3::new(-moved_left.x, moved_left.y, moved_left.z);
    assert!(
        moved_right.distance(reflected) < 0.01 * moved_left.length() + 2e-3,
        "{moved_right} vs {reflected}"
    );
    assert!(
        after[lh].distance(bind[lh]) < 2e-3,
        "left hand at rest after mirroring"
    );
}

/// The retargeted clip mirrored on the target: `retarget --mirror`'s path. Onto
/// CesiumMan, the robot (its IK feet hung from the root) and the fox (twins from its chains,
/// its names say no side): mirrored twice the clip comes back within 1e-5 of the height,
/// and once, the left foot walks the right foot's path reflected across the plane.
#[test]
fn a_retargeted_clip_mirrors_on_the_target_and_back() {
    use retarget_studio::core::mirror::Mirror;
    use retarget_studio::io::ImportOptions;
    use retarget_studio::session::Session;
    let cases = [
        ("bvh/02_01.bvh", "gltf/CesiumMan.glb", None),
        ("bvh/02_01.bvh", "gltf/RobotExpressive.glb", None),
        ("gltf/Fox.glb", "gltf/Fox.glb", Some("Walk")),
    ];
    for (src, tgt, clip) in cases {
        let path = crate::common::asset_path;
        let mut s = Session::automatic(&path(src), &path(tgt), &ImportOptions::default()).unwrap();
        let plain = s.retarget_clip(clip, None).unwrap();
        s.solve.settings.mirror = true;
        let mirrored = s.retarget_clip(clip, None).unwrap();
        let t = s.target.skeleton();
        let twins = s.target.twins();
        let paired = (0..t.len()).filter(|&j| twins[j] != j).count();

        assert!(paired >= 8, "{tgt}: {paired} joints have a twin");
        let mut m = Mirror::new(
            t,
            &s.target.reference,
            twins.clone(),
            None,
            &Default::default(),
        );
        let fps = plain.fps().unwrap_or(30.0);
        let (mut a, mut b, mut back) = (Pose::rest(t), Pose::rest(t), Pose::rest(t));
        let mut worst = 0.0f32;
        let mut side_gap = 0.0f32;
        let mut changed = 0.0f32;
        let height = {
            let w = Pose::bind(t).world_positions(t);
            let ys = w.iter().map(|p| p.y);
            ys.clone().fold(f32::MIN, f32::max) - ys.fold(f32::MAX, f32::min)
        };
        let frames = plain.frame_count();
        for f in 0..frames {
            let time = plain.start_secs() + f as f32 / fps;
            a.copy_from(&Pose::rest(t));
            b.copy_from(&Pose::rest(t));
            plain.sample(time, &mut a);
            mirrored.sample(time, &mut b);
            // Mirroring the mirrored clip again gives the plain one back.
            m.apply(&b, &mut back);
            let (wa, wb) = (a.world_positions(t), back.world_positions(t));
            for (p, q) in wa.iter().zip(&wb) {
                worst = worst.max(p.distance(*q) / height);
            }
            // Each paired joint of the mirrored clip sits where its twin sat, reflected.
            let wm = b.world_positions(t);
            for (p, q) in wa.iter().zip(&wm) {
                changed = changed.max(p.distance(*q) / height);
            }
            let n = m.axis();
            let reflect = |v: Vec3| v - n * (2.0 * v.dot(n));
            for j in 0..t.len() {
                if twins[j] != j {
                    let gap = wm[j].distance(reflect(wa[twins[j]])) / height;
                    side_gap = side_gap.max(gap);
                }
            }
        }
        println!("{tgt}: twice {worst:.1e}, twin gap {side_gap:.3} of the height");
        assert!(
            worst < 1e-5,
            "{tgt}: mirrored twice is {worst:e} of the height off"
        );
        assert!(
            changed > 0.05,
            "{tgt}: the mirror moved nothing ({changed:.3})"
        );
        assert!(
            side_gap < 0.05,
            "{tgt}: a twin is {side_gap:.3} of the height off its mirror image"
        );
    }
}
