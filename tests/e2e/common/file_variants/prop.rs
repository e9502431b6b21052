//! A source with two hands on one prop held apart: CMU's walk 02_01 carrying a rifle, the
//! right hand on its grip before the right hip, the left 0.21 of the height (0.3 m) along
//! its barrel, raised toward the shoulder and lowered again twice through the walk (the
//! barrel pitching up as it rises), set by two-bone IK on the source's arms.

use super::grip::hands_on_walk;
use glam::Vec3;
use std::path::{Path, PathBuf};

/// The rifle's length between the hands, a share of the height.
pub const RIFLE: f32 = 0.21;

/// The two hands on the rifle at `time`: in the body's frame from the hip line, the grip
/// rising by up to 0.12 of the height and the barrel pitching from 5° to 35° with it.
fn rifle_points(
    world: &[Vec3],
    joint: &dyn Fn(&str) -> usize,
    height: f32,
    time: f32,
) -> [Vec3; 2] {
    let across = (world[joint("LeftUpLeg")] - world[joint("RightUpLeg")]).normalize();
    let forward = across.cross(Vec3::Y).normalize();
    let shoulders = (world[joint("LeftArm")] + world[joint("RightArm")]) / 2.0;
    let raised = 0.5 - 0.5 * (time * std::f32::consts::TAU / 1.4).cos();
    let grip = shoulders + forward * (0.13 + 0.03 * raised) * height
        - Vec3::Y * (0.12 - 0.1 * raised) * height
        - across * 0.05 * height;
    let pitch = (15.0 + 30.0 * raised).to_radians();
    let barrel = (forward * pitch.cos() + Vec3::Y * pitch.sin() + across * 0.7).normalize();
    [grip + barrel * RIFLE * height, grip]
}

/// 02_01 carrying a rifle in both hands, written as a BVH in `dir`.
pub fn rifle_walk(dir: &Path) -> PathBuf {
    hands_on_walk(&dir.join("02_01_rifle.bvh"), rifle_points)
}
