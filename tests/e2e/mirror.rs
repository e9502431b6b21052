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
