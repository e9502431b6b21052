//! Four quaternions as SIMD lanes: their x, y, z and w components in four registers, so
//! products and blends of four take plain lane-wise multiplies and adds (`slerp::slerp_rows`,
//! the retargeter's `turns`).

use glam::{Mat4, Quat, Vec4};

/// The x, y, z and w lanes of four quaternions.
pub type Lanes = [Vec4; 4];

/// The lanes of four quaternions.
#[inline(always)]
pub fn lanes(q: [Quat; 4]) -> Lanes {
    let m = Mat4::from_cols(q[0].into(), q[1].into(), q[2].into(), q[3].into()).transpose();
    [m.x_axis, m.y_axis, m.z_axis, m.w_axis]
}

/// The four quaternions of `l`.
#[inline(always)]
pub fn quats(l: Lanes) -> [Quat; 4] {
    let m = Mat4::from_cols(l[0], l[1], l[2], l[3]).transpose();
    [m.x_axis, m.y_axis, m.z_axis, m.w_axis].map(Quat::from_vec4)
}
