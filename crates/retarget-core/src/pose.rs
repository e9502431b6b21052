//! A pose: every joint's local transform, as three flat arrays (structure of arrays) so that
//! samplers and the retargeter write only the component they own.

use super::skeleton::Skeleton;
use super::transform::Transform;
use glam::{Mat4, Quat, Vec3};

#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    pub translations: Vec<Vec3>,
    pub rotations: Vec<Quat>,
    pub scales: Vec<Vec3>,
}

impl Pose {
    pub fn from_locals(locals: &[Transform]) -> Self {
        Self {
            translations: locals.iter().map(|t| t.translation).collect(),
            rotations: locals.iter().map(|t| t.rotation).collect(),
            scales: locals.iter().map(|t| t.scale).collect(),
        }
    }

    /// The nodes' own transforms at load.
    pub fn rest(skeleton: &Skeleton) -> Self {
        Self::from_locals(skeleton.rest())
    }

    /// The pose the skin was bound in (from the inverse bind matrices).
    pub fn bind(skeleton: &Skeleton) -> Self {
        Self::from_locals(skeleton.bind())
    }

    /// The bind pose, or its shape standing where the skeleton rests when it was bound
    /// elsewhere: a top joint whose bind lies more than a quarter of the figure's size from
    /// its rest takes its rest translation. Where a skin was bound is a fact of the mesh,
    /// not of the motion: clips key the top joint about its rest (Blender's FBX of the robot
    /// binds its root `Bone` 2.4 units below where it rests and keys it there), and a
    /// reference or a floor taken at such a bind carries that gap into every frame. A
    /// nearer rest is kept out: Blender writes the current frame's pose as an FBX's rest,
    /// and CesiumMan's then stands 3.5 cm (2 % of its size) off its true bind.
    /// With its bones at the rig's lengths (`rig_lengths::bind_pose`), this is the reference
    /// pose "bind", and the target's own pose for quality.
    pub fn bind_in_place(skeleton: &Skeleton) -> Self {
        let mut pose = Self::bind(skeleton);
        let mut worlds = vec![Mat4::IDENTITY; pose.len()];
        pose.world_matrices_under(skeleton, Mat4::IDENTITY, &mut worlds);
        let (lo, hi) = worlds.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), m| {
            (lo.min(m.w_axis.truncate()), hi.max(m.w_axis.truncate()))
        });
        let size = (hi - lo).max_element();
        for (j, parent) in skeleton.parents().iter().enumerate() {
            let rest = skeleton.rest()[j].translation;
            if parent.is_none() && rest.distance(pose.translations[j]) > 0.25 * size {
                pose.translations[j] = rest;
            }
        }
        pose
    }

    pub fn len(&self) -> usize {
        self.rotations.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rotations.is_empty()
    }

    pub fn local(&self, joint: usize) -> Transform {
        Transform::new(
            self.translations[joint],
            self.rotations[joint],
            self.scales[joint],
        )
    }

    pub fn set_local(&mut self, joint: usize, t: Transform) {
        self.translations[joint] = t.translation;
        self.rotations[joint] = t.rotation;
        self.scales[joint] = t.scale;
    }

    /// Copies `other` into `self` without reallocating.
    pub fn copy_from(&mut self, other: &Pose) {
        self.translations.copy_from_slice(&other.translations);
        self.rotations.copy_from_slice(&other.rotations);
        self.scales.copy_from_slice(&other.scales);
    }

    /// Forward kinematics in one pass: `world_from_joint[i] = world_from_joint[parent] * local[i]`,
    /// with the skeleton's container above the roots. `out` must hold one matrix per joint.
    pub fn world_matrices_into(&self, skeleton: &Skeleton, out: &mut [Mat4]) {
        self.world_matrices_under(skeleton, skeleton.container(), out);
    }

    /// Forward kinematics with `container` in place of the skeleton's own (an edited one).
    pub fn world_matrices_under(&self, skeleton: &Skeleton, container: Mat4, out: &mut [Mat4]) {
        assert_eq!(out.len(), self.len(), "one output matrix per joint");
        assert_eq!(
            skeleton.len(),
            self.len(),
            "pose and skeleton differ in size"
        );
        for (i, parent) in skeleton.parents().iter().enumerate() {
            let local = Mat4::from_scale_rotation_translation(
                self.scales[i],
                self.rotations[i],
                self.translations[i],
            );
            out[i] = match parent {
                Some(p) => out[*p] * local,
                None => container * local,
            };
        }
    }

    pub fn world_matrices(&self, skeleton: &Skeleton) -> Vec<Mat4> {
        let mut out = vec![Mat4::IDENTITY; self.len()];
        self.world_matrices_into(skeleton, &mut out);
        out
    }

    /// World positions of the joint origins.
    pub fn world_positions(&self, skeleton: &Skeleton) -> Vec<Vec3> {
        self.world_matrices(skeleton)
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::JointDef;
    use std::f32::consts::FRAC_PI_2;

    fn arm() -> Skeleton {
        let t = |x: f32| Transform::from_translation(Vec3::new(x, 0.0, 0.0));
        Skeleton::new(
            "arm",
            Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0)),
            vec![
                JointDef::new("shoulder", None, t(0.0)),
                JointDef::new("elbow", Some(0), t(2.0)),
                JointDef::new("wrist", Some(1), t(1.0)),
            ],
        )
        .unwrap()
    }

    #[test]
    fn forward_kinematics_chains_parents_and_container() {
        let s = arm();
        let mut pose = Pose::rest(&s);
        pose.rotations[1] = Quat::from_rotation_z(FRAC_PI_2);
        let p = pose.world_positions(&s);
        assert!(p[0].abs_diff_eq(Vec3::new(0.0, 1.0, 0.0), 1e-6));
        assert!(p[1].abs_diff_eq(Vec3::new(2.0, 1.0, 0.0), 1e-6));
        // The elbow turned 90° about Z, so the forearm points up.
        assert!(p[2].abs_diff_eq(Vec3::new(2.0, 2.0, 0.0), 1e-6), "{}", p[2]);
    }

    #[test]
    fn scale_propagates_to_children() {
        let s = arm();
        let mut pose = Pose::rest(&s);
        pose.scales[0] = Vec3::splat(3.0);
        let p = pose.world_positions(&s);
        assert!(p[2].abs_diff_eq(Vec3::new(9.0, 1.0, 0.0), 1e-5), "{}", p[2]);
    }

    /// The arm bound with its shoulder moved `by`, its elbow bent at the bind.
    fn bound_at(by: Vec3) -> Skeleton {
        let mut defs = arm().joint_defs();
        defs[0].bind = Transform::from_translation(by);
        defs[1].bind = Transform::new(
            Vec3::new(2.0, 0.0, 0.0),
            Quat::from_rotation_z(0.5),
            Vec3::ONE,
        );
        Skeleton::new("arm", Mat4::IDENTITY, defs).unwrap()
    }

    #[test]
    fn a_bind_made_elsewhere_stands_where_the_rig_rests_with_its_shape() {
        // Bound 2 units below (2/3 of the arm's 3): the shape stays, the place is the rest's.
        let s = bound_at(Vec3::new(0.0, -2.0, 0.0));
        let placed = Pose::bind_in_place(&s);
        assert_eq!(placed.translations[0], Vec3::ZERO);
        assert_eq!(placed.rotations[1], Pose::bind(&s).rotations[1]);
        // Bound a little off (a tenth of its size): a posed rest, the bind is kept.
        let near = bound_at(Vec3::new(0.3, 0.0, 0.0));
        assert_eq!(Pose::bind_in_place(&near), Pose::bind(&near));
    }
}
