//! Mirroring across the character's sagittal plane (world X = 0, the character facing +Z):
//! twin bones swap their offsets from the reference pose, bones without a twin mirror their
//! own; the root's displacement flips in X. Mirroring twice gives back the pose.

use super::pose::Pose;
use super::reference::{ReferencePose, rotation_of, world_rotations_into};
use super::skeleton::Skeleton;
use glam::{Quat, Vec3};

/// The world rotation reflected across the YZ plane: `R·Q·R` with `R = diag(-1, 1, 1)`.
fn reflect(q: Quat) -> Quat {
    Quat::from_xyzw(q.x, -q.y, -q.z, q.w)
}

/// Each joint's twin: the joint with the opposite humanoid label, else itself. Always an
/// involution (`twin[twin[j]] == j`), which is what makes mirroring its own inverse.
pub fn twins(skeleton: &Skeleton) -> Vec<usize> {
    let labels = skeleton.humanoid();
    let mut twins: Vec<usize> = (0..skeleton.len()).collect();
    for (j, label) in labels.iter().enumerate() {
        let Some(bone) = label else { continue };
        if bone.twin() == *bone {
            continue;
        }
        if let Some(t) = labels.iter().position(|l| *l == Some(bone.twin()))
            && labels[t].map(|b| b.twin()) == Some(*bone)
        {
            twins[j] = t;
        }
    }
    twins
}

/// Mirrors `pose` (local) into `out`, given the reference the offsets are measured from.
pub fn mirror_pose(
    skeleton: &Skeleton,
    reference: &ReferencePose,
    twins: &[usize],
    pose: &Pose,
    out: &mut Pose,
) {
    let n = skeleton.len();
    let container = rotation_of(reference.container);
    let mut reference_world = vec![Quat::IDENTITY; n];
    world_rotations_into(
        skeleton.parents(),
        container,
        &reference.locals.rotations,
        &mut reference_world,
    );
    let mut world = vec![Quat::IDENTITY; n];
    world_rotations_into(skeleton.parents(), container, &pose.rotations, &mut world);
    out.copy_from(pose);
    let mut mirrored_world = vec![Quat::IDENTITY; n];
    for j in 0..n {
        let from = twins[j];
        let delta = world[from] * reference_world[from].inverse();
        mirrored_world[j] = reflect(delta) * reference_world[j];
        let parent = skeleton.parents()[j].map_or(container, |p| mirrored_world[p]);
        out.rotations[j] = (parent.inverse() * mirrored_world[j]).normalize();
    }
    for (j, parent) in skeleton.parents().iter().enumerate() {
        if parent.is_none() {
            let flip = Vec3::new(-1.0, 1.0, 1.0);
            let d = pose.translations[j] - reference.locals.translations[j];
            // The root's displacement mirrors in world space, then returns to local.
            let inv = reference.container.inverse();
            let world_d = reference.container.transform_vector3(d) * flip;
            out.translations[j] = reference.locals.translations[j] + inv.transform_vector3(world_d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflect_twice_is_identity_and_keeps_x_rotations() {
        let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        assert!(reflect(reflect(q)).abs_diff_eq(q, 1e-7));
        // A turn about X (a nod) is its own mirror; a turn about Y reverses.
        let nod = Quat::from_rotation_x(0.5);
        assert!(reflect(nod).abs_diff_eq(nod, 1e-7));
        assert!(reflect(Quat::from_rotation_y(0.5)).abs_diff_eq(Quat::from_rotation_y(-0.5), 1e-6));
    }
}
