//! A source with a hand contact: CMU's walk 02_01 with both hands on one grip (3.5 % of the
//! height apart, in front of the chest) through the whole walk, set by two-bone IK on the
//! source's arms and written as a BVH in metres.

use crate::common::{key_times, load};
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
fn grip_points(world: &[Vec3], joint: &dyn Fn(&str) -> usize, height: f32) -> [Vec3; 2] {
    let across = (world[joint("LeftUpLeg")] - world[joint("RightUpLeg")]).normalize();
    let forward = across.cross(Vec3::Y).normalize();
    let shoulders = (world[joint("LeftArm")] + world[joint("RightArm")]) / 2.0;
    let grip = shoulders + forward * 0.2 * height - Vec3::Y * 0.12 * height;
    let apart = 0.035 * height;
    [grip + across * apart / 2.0, grip - across * apart / 2.0]
}

/// 02_01 with both hands on one grip for the whole walk, written as a BVH in `dir`.
pub fn grip_walk(dir: &Path) -> PathBuf {
    hands_on_walk(&dir.join("02_01_grip.bvh"), |at, joint, height, _| {
        grip_points(at, joint, height)
    })
}

/// 02_01 with each frame's hands set by two-bone IK on the source's arms at
/// `goals(world positions, joint by name, height, time)` (left, right), written as a BVH
/// in metres at `path`.
pub fn hands_on_walk(
    path: &Path,
    goals: impl Fn(&[Vec3], &dyn Fn(&str) -> usize, f32, f32) -> [Vec3; 2],
) -> PathBuf {
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
    let mut keys: Vec<Vec<Quat>> = vec![Vec::new(); 6];
    let mut rotations = vec![Quat::IDENTITY; s.len()];
    for &t in &times {
        let mut pose = rest.clone();
        clip.sample(t, &mut pose);
        let world: Vec<Mat4> = pose.world_matrices(s);
        let at: Vec<Vec3> = world.iter().map(|m| m.w_axis.truncate()).collect();
        let goals = goals(&at, &joint, height, t);
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
    let options = BvhExportOptions {
        unit: Unit::Metre,
        ..BvhExportOptions::default()
    };
    export_bvh(s, &gripped, &options, path).unwrap();
    path.to_path_buf()
}
