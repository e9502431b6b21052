//! A joint's local transform as separate translation, rotation and scale, the glTF way
//! (`T * R * S`), so that channels can be sampled and blended component by component.

use glam::{Affine3A, Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transform {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    pub fn new(translation: Vec3, rotation: Quat, scale: Vec3) -> Self {
        Self {
            translation,
            rotation,
            scale,
        }
    }

    pub fn from_translation(translation: Vec3) -> Self {
        Self {
            translation,
            ..Self::IDENTITY
        }
    }

    pub fn from_rotation(rotation: Quat) -> Self {
        Self {
            rotation,
            ..Self::IDENTITY
        }
    }

    /// Splits an affine matrix into TRS. Shear, which TRS cannot hold, is lost; the glTF
    /// spec forbids it on animated nodes anyway.
    pub fn from_mat4(m: Mat4) -> Self {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Self {
            translation,
            rotation: rotation.normalize(),
            scale,
        }
    }

    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_round_trip_keeps_trs() {
        let t = Transform::new(
            Vec3::new(1.0, -2.0, 3.0),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0),
            Vec3::new(2.0, 2.0, 2.0),
        );
        let back = Transform::from_mat4(t.to_mat4());
        assert!(back.translation.abs_diff_eq(t.translation, 1e-5));
        assert!(back.rotation.dot(t.rotation).abs() > 1.0 - 1e-6);
        assert!(back.scale.abs_diff_eq(t.scale, 1e-5));
    }

    #[test]
    fn order_is_translate_rotate_scale() {
        let t = Transform::new(
            Vec3::X,
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            Vec3::splat(2.0),
        );
        // (1,0,0) scaled to (2,0,0), turned 90° about Z to (0,2,0), moved by +X.
        let p = t.to_mat4().transform_point3(Vec3::X);
        assert!(p.abs_diff_eq(Vec3::new(1.0, 2.0, 0.0), 1e-6), "{p}");
    }
}
