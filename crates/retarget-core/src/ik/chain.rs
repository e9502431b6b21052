//! Laying a chain of the pose along solved positions: each joint but the last turns by the
//! shortest arc that points its bone at the next solved point; the last keeps its world
//! rotation, so a planted foot keeps its tilt.

use crate::pose::Pose;
use glam::{Quat, Vec3};

/// Turns `joints` (a path from the root down, each an ancestor of the next) of `pose` so
/// each bone points from `points[i]` to `points[i + 1]`; the joints between two of them (a
/// twist bone inside a thigh, a helper above a knee) ride on the upper one. `world` holds
/// every joint's world rotation for the pose as it is (`reference::world_rotations_into`),
/// and `parent_world` the world rotation above the chain's root; `world` is left stale for
/// the chain's joints.
pub fn lay_along(
    pose: &mut Pose,
    parents: &[Option<usize>],
    joints: &[usize],
    points: &[Vec3],
    world: &[Quat],
    parent_world: Quat,
) {
    let Some(&last) = joints.last() else {
        return;
    };
    let mut parent = parent_world;
    for i in 0..joints.len() - 1 {
        let j = joints[i];
        let current = parent * pose.rotations[j];
        let (offset, between) = offset_below(pose, parents, j, joints[i + 1]);
        let turn = arc(current * offset, points[i + 1] - points[i]);
        let turned = (turn * current).normalize();
        pose.rotations[j] = (parent.inverse() * turned).normalize();
        parent = turned * between;
    }
    pose.rotations[last] = (parent.inverse() * world[last]).normalize();
}

/// `joint`'s offset in `top`'s frame, down the joints between them, and the turn of those
/// joints (the world rotation of `joint`'s parent under `top`'s).
fn offset_below(pose: &Pose, parents: &[Option<usize>], top: usize, joint: usize) -> (Vec3, Quat) {
    let mut offset = pose.translations[joint];
    let mut between = Quat::IDENTITY;
    let mut at = parents.get(joint).copied().flatten();
    while let Some(k) = at.filter(|&k| k != top) {
        offset = pose.translations[k] + pose.rotations[k] * (pose.scales[k] * offset);
        between = pose.rotations[k] * between;
        at = parents[k];
    }
    (offset, between)
}

/// The shortest turn from `from`'s direction to `to`'s. glam's `from_rotation_arc` snaps
/// turns under about 0.08° to none, which on a 1 m leg leaves a planted foot a millimetre
/// off (and jittering); the half-way quaternion `(a × b, 1 + a · b)` keeps them.
pub fn arc(from: Vec3, to: Vec3) -> Quat {
    let (Some(a), Some(b)) = (from.try_normalize(), to.try_normalize()) else {
        return Quat::IDENTITY;
    };
    let w = 1.0 + a.dot(b);
    if w < 1e-6 {
        // Opposite: half a turn about any perpendicular.
        return Quat::from_axis_angle(a.any_orthonormal_vector(), std::f32::consts::PI);
    }
    let c = a.cross(b);
    Quat::from_xyzw(c.x, c.y, c.z, w).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::world_rotations_into;
    use crate::skeleton::{JointDef, Skeleton};
    use crate::transform::Transform;
    use glam::Mat4;

    #[test]
    fn tiny_turns_are_kept() {
        let a = Vec3::new(0.0, -1.0, 0.0);
        let b = Vec3::new(0.0, -1.0, 4e-4);
        let turned = arc(a, b) * a;
        assert!((turned - b.normalize()).length() < 1e-6, "{turned}");
        assert!((arc(a, -a) * a + a).length() < 1e-5);
    }

    #[test]
    fn the_bones_point_at_the_points_and_the_end_keeps_its_turn() {
        let t = |y: f32| Transform::from_translation(Vec3::new(0.0, y, 0.0));
        let s = Skeleton::new(
            "leg",
            Mat4::IDENTITY,
            vec![
                JointDef::new("hip", None, t(1.0)),
                JointDef::new("knee", Some(0), t(-0.5)),
                JointDef::new("ankle", Some(1), t(-0.5)),
            ],
        )
        .unwrap();
        let mut pose = Pose::rest(&s);
        pose.rotations[2] = Quat::from_rotation_x(0.3);
        let mut world = vec![Quat::IDENTITY; 3];
        world_rotations_into(s.parents(), Quat::IDENTITY, &pose.rotations, &mut world);
        let foot_turn = world[2];
        let points = [
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.6, 0.3),
            Vec3::new(0.0, 0.2, 0.0),
        ];
        let parents = [None, Some(0), Some(1)];
        lay_along(
            &mut pose,
            &parents,
            &[0, 1, 2],
            &points,
            &world,
            Quat::IDENTITY,
        );
        let p = pose.world_positions(&s);
        for (got, want) in p.iter().zip(points) {
            assert!(got.abs_diff_eq(want, 1e-5), "{got} vs {want}");
        }
        world_rotations_into(s.parents(), Quat::IDENTITY, &pose.rotations, &mut world);
        assert!(world[2].angle_between(foot_turn) < 1e-3);
    }
}
