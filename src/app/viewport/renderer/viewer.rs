//! The orbit camera as three-d's viewer, and the lights that go with it.

use super::{to_cgmath_mat4, to_cgmath_vec3};
use crate::app::viewport::camera::OrbitCamera;
use three_d::{
    AmbientLight, ColorMapping, Context, DirectionalLight, Srgba, ToneMapping, Viewer, Viewport,
};

/// A soft ambient plus a key light from above and to the left of the camera, so that the
/// side facing the user is always lit however the camera orbits.
pub(super) fn lights(context: &Context, camera: &OrbitCamera) -> (AmbientLight, DirectionalLight) {
    let forward = (camera.target - camera.eye()).normalize_or(glam::Vec3::NEG_Z);
    let right = forward.cross(glam::Vec3::Y).normalize_or(glam::Vec3::X);
    let direction = forward + right * 0.4 - glam::Vec3::Y * 0.6;
    let ambient = AmbientLight::new(context, 0.35, Srgba::WHITE);
    let sun = DirectionalLight::new(context, 2.2, Srgba::WHITE, to_cgmath_vec3(direction));
    (ambient, sun)
}

/// The orbit camera as three-d's viewer, with the very matrices picking uses.
pub(super) struct GlamViewer {
    position: three_d::Vec3,
    view: three_d::Mat4,
    projection: three_d::Mat4,
    viewport: Viewport,
    near: f32,
    far: f32,
}

impl GlamViewer {
    pub(super) fn new(camera: &OrbitCamera, viewport: Viewport) -> Self {
        let aspect = viewport.width as f32 / viewport.height.max(1) as f32;
        let (near, far) = camera.near_far();
        Self {
            position: to_cgmath_vec3(camera.eye()),
            view: to_cgmath_mat4(camera.view_from_world()),
            projection: to_cgmath_mat4(camera.clip_from_view(aspect)),
            viewport,
            near,
            far,
        }
    }
}

impl Viewer for GlamViewer {
    fn position(&self) -> three_d::Vec3 {
        self.position
    }
    fn view(&self) -> three_d::Mat4 {
        self.view
    }
    fn projection(&self) -> three_d::Mat4 {
        self.projection
    }
    fn viewport(&self) -> Viewport {
        self.viewport
    }
    fn z_near(&self) -> f32 {
        self.near
    }
    fn z_far(&self) -> f32 {
        self.far
    }
    fn color_mapping(&self) -> ColorMapping {
        // egui's framebuffer is not sRGB: encode in the shader.
        ColorMapping::ComputeToSrgb
    }
    fn tone_mapping(&self) -> ToneMapping {
        // Base colours as authored; filmic curves would shift the characters' colours.
        ToneMapping::None
    }
}
