//! ufbx's double-precision math types as glam's.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use retarget_core::Transform;

pub(super) fn vec3(v: ufbx::Vec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

pub(super) fn vec2(v: ufbx::Vec2) -> Vec2 {
    Vec2::new(v.x as f32, v.y as f32)
}

pub(super) fn quat(q: ufbx::Quat) -> Quat {
    Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
}

pub(super) fn transform(t: &ufbx::Transform) -> Transform {
    Transform::new(
        vec3(t.translation),
        quat(t.rotation).normalize(),
        vec3(t.scale),
    )
}

/// ufbx matrices are affine 3x4, column-major.
pub(super) fn mat4(m: &ufbx::Matrix) -> Mat4 {
    Mat4::from_cols(
        Vec4::new(m.m00 as f32, m.m10 as f32, m.m20 as f32, 0.0),
        Vec4::new(m.m01 as f32, m.m11 as f32, m.m21 as f32, 0.0),
        Vec4::new(m.m02 as f32, m.m12 as f32, m.m22 as f32, 0.0),
        Vec4::new(m.m03 as f32, m.m13 as f32, m.m23 as f32, 1.0),
    )
}

/// An inverse, or `None` for a matrix that has none (zero scale, NaN).
pub(super) fn invert(m: Mat4) -> Option<Mat4> {
    let det = m.determinant();
    (det.is_finite() && det.abs() > 1e-30).then(|| m.inverse())
}
