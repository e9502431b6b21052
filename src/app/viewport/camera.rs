//! An orbit camera in glam: the one source of truth for both drawing and picking, so that
//! a joint is clicked exactly where it is drawn.

use eframe::egui;
use glam::camera::rh::{proj::opengl, view};
use glam::{Mat4, Vec3, Vec4Swizzles};
use serde::{Deserialize, Serialize};

/// Radians of orbit per point of pointer drag.
const ORBIT_RADIANS_PER_POINT: f32 = 0.008;
/// Pitch stops short of the poles so that `look_at` never sees a view direction parallel to up.
const PITCH_LIMIT: f32 = std::f32::consts::FRAC_PI_2 - 0.01;
/// How fast the wheel zooms: distance is multiplied by `exp(-delta * this)`.
const ZOOM_PER_WHEEL_POINT: f32 = 0.002;
/// Extra room around a framed box so the character does not touch the viewport's edges.
const FRAME_MARGIN: f32 = 1.1;
/// Floor framed around a standing character, in shares of its height: enough to see where
/// the feet land without shrinking the character much.
const FLOOR_AROUND: f32 = 0.05;

/// The fixed views of the view row and of the keys 1 and 3 (Blender's numpad), for a
/// character facing +Z as the session turns every character.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ViewDirection {
    /// From +Z, looking along -Z at the character's face.
    Front,
    /// From -Z, looking along +Z at its back.
    Back,
    /// From +X, looking along -X: a walk goes right to left.
    Side,
    /// From -X, looking along +X.
    OtherSide,
}

impl ViewDirection {
    /// Orbit yaw of the eye for this view (0 = from +Z).
    pub fn yaw(self) -> f32 {
        use std::f32::consts::{FRAC_PI_2, PI};
        match self {
            ViewDirection::Front => 0.0,
            ViewDirection::Back => PI,
            ViewDirection::Side => FRAC_PI_2,
            ViewDirection::OtherSide => -FRAC_PI_2,
        }
    }

    /// The horizontal direction the camera looks along.
    pub fn forward(self) -> Vec3 {
        let (s, c) = self.yaw().sin_cos();
        -Vec3::new(s, 0.0, c)
    }
}

/// The fixed views look down this much: nearly level (they read like an orthographic
/// elevation), yet enough that the floor shows as a band under the feet, not a line.
pub const VIEW_PITCH: f32 = 0.12;
/// The free default: from in front and a little to the right, slightly above the hips.
pub const DEFAULT_YAW: f32 = 0.5;
pub const DEFAULT_PITCH: f32 = 0.2;

/// Looks at `target` from `distance` away, turned by `yaw` about +Y (0 = from +Z, the glTF
/// front) and raised by `pitch`. Persisted with the UI state, hence serde.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OrbitCamera {
    pub target: Vec3,
    pub distance: f32,
    pub yaw: f32,
    pub pitch: f32,
    /// Vertical field of view in radians.
    pub fov_y: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: Vec3::new(0.0, 1.0, 0.0),
            distance: 4.0,
            yaw: DEFAULT_YAW,
            pitch: DEFAULT_PITCH,
            fov_y: 45f32.to_radians(),
        }
    }
}

impl OrbitCamera {
    /// Fits a bounding box into a square view, keeping the viewing direction.
    pub fn frame(&mut self, min: Vec3, max: Vec3) {
        self.frame_in(min, max, 1.0);
    }

    /// Fits a bounding box into a view of `aspect` (width / height), seen from the current
    /// direction: the nearest distance at which every corner is inside both fields of view,
    /// with a margin. A box's bounding sphere would be simpler but leaves a T-posed character
    /// in a tall viewport at a third of its height.
    pub fn frame_in(&mut self, min: Vec3, max: Vec3, aspect: f32) {
        if !(min.is_finite() && max.is_finite()) || min.cmpgt(max).any() {
            return;
        }
        self.target = (min + max) * 0.5;
        let tan_y = (self.fov_y * 0.5).tan() / FRAME_MARGIN;
        let tan_x = (self.fov_y * 0.5).tan() * aspect.max(1e-3) / FRAME_MARGIN;
        let back = self.back();
        let (right, up) = self.right_up();
        let half = (max - min) * 0.5;
        let mut distance = half.length().max(1e-4) * 0.01;
        for corner in 0..8 {
            let sign = |bit: u32| if corner & (1 << bit) == 0 { -1.0 } else { 1.0 };
            let c = Vec3::new(sign(0) * half.x, sign(1) * half.y, sign(2) * half.z);
            // The corner sits `c·back` nearer the eye than the target does.
            let depth = c.dot(back);
            distance = distance
                .max(depth + c.dot(right).abs() / tan_x)
                .max(depth + c.dot(up).abs() / tan_y);
        }
        // Keep the whole box beyond the near plane (1 % of the distance).
        self.distance = distance.max(half.length() * 1.05);
    }

    /// Moves back (never closer, never sideways) until the box fits a view of `aspect`: a
    /// dance that swings its arms out after the first framing stays whole, while the target
    /// the follow camera carries is left where it is.
    pub fn fit_without_moving(&mut self, min: Vec3, max: Vec3, aspect: f32) {
        if !(min.is_finite() && max.is_finite()) || min.cmpgt(max).any() {
            return;
        }
        let tan_y = (self.fov_y * 0.5).tan() / FRAME_MARGIN;
        let tan_x = (self.fov_y * 0.5).tan() * aspect.max(1e-3) / FRAME_MARGIN;
        let back = self.back();
        let (right, up) = self.right_up();
        let mut distance = self.distance;
        for corner in 0..8 {
            let pick = |bit: u32, lo: f32, hi: f32| if corner & (1 << bit) == 0 { lo } else { hi };
            let p = Vec3::new(
                pick(0, min.x, max.x),
                pick(1, min.y, max.y),
                pick(2, min.z, max.z),
            );
            let c = p - self.target;
            let depth = c.dot(back);
            distance = distance
                .max(depth + c.dot(right).abs() / tan_x)
                .max(depth + c.dot(up).abs() / tan_y);
        }
        if distance.is_finite() {
            self.distance = distance;
        }
    }

    /// Frames a character standing on `floor` (its height, when known): from the floor, not
    /// only the lowest vertex, to the head, with a little floor around the feet, so that
    /// whether the feet touch it can be seen.
    pub fn frame_standing(&mut self, min: Vec3, max: Vec3, floor: Option<f32>, aspect: f32) {
        let floor = floor
            .filter(|f| f.is_finite())
            .map_or(min.y, |f| f.min(min.y));
        let pad = (max.y - floor).max(0.0) * FLOOR_AROUND;
        let lo = Vec3::new(min.x - pad, floor, min.z - pad);
        let hi = Vec3::new(max.x + pad, max.y, max.z + pad);
        self.frame_in(lo, hi, aspect);
    }

    /// Turns the camera around its target by a pointer drag (in points): dragging right
    /// turns the scene right, dragging down tilts its top towards the viewer.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw = (self.yaw - dx * ORBIT_RADIANS_PER_POINT) % std::f32::consts::TAU;
        self.pitch = (self.pitch + dy * ORBIT_RADIANS_PER_POINT).clamp(-PITCH_LIMIT, PITCH_LIMIT);
    }

    /// Slides the camera in its image plane so that the point at the target's depth follows
    /// the pointer: `dx`, `dy` and `viewport_height_px` must be in the same unit.
    pub fn pan(&mut self, dx: f32, dy: f32, viewport_height_px: f32) {
        if viewport_height_px <= 0.0 {
            return;
        }
        let world_per_px = 2.0 * self.distance * (self.fov_y * 0.5).tan() / viewport_height_px;
        let (right, up) = self.right_up();
        self.target += (-right * dx + up * dy) * world_per_px;
    }

    /// Moves towards (positive `wheel_delta`) or away from the target, by a factor, so a
    /// wheel notch feels the same for a 1.6 m and a 300-unit character.
    pub fn zoom(&mut self, wheel_delta: f32) {
        let factor = (-wheel_delta * ZOOM_PER_WHEEL_POINT).exp();
        self.distance = (self.distance * factor).clamp(1e-4, 1e7);
    }

    /// Looks along `direction`, keeping target and distance (frame again to fit).
    pub fn look_along(&mut self, direction: ViewDirection) {
        self.yaw = direction.yaw();
        self.pitch = VIEW_PITCH;
    }

    /// Unit vector from the eye towards the target: where the camera looks.
    pub fn forward(&self) -> Vec3 {
        -self.back()
    }

    /// Unit vector from the target towards the eye.
    fn back(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(cp * sy, sp, cp * cy)
    }

    /// The camera's right and up axes in world space.
    fn right_up(&self) -> (Vec3, Vec3) {
        let back = self.back();
        let right = Vec3::Y.cross(back).normalize_or(Vec3::X);
        (right, back.cross(right))
    }

    pub fn eye(&self) -> Vec3 {
        self.target + self.back() * self.distance
    }

    /// Near and far planes proportional to the distance, so that depth precision follows
    /// the character's scale instead of a fixed unit.
    pub fn near_far(&self) -> (f32, f32) {
        (self.distance * 0.01, self.distance * 100.0)
    }

    pub fn view_from_world(&self) -> Mat4 {
        view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// OpenGL clip space (z in -1..1), as three-d expects.
    pub fn clip_from_view(&self, aspect: f32) -> Mat4 {
        let (near, far) = self.near_far();
        opengl::perspective(self.fov_y, aspect.max(1e-3), near, far)
    }

    pub fn clip_from_world(&self, aspect: f32) -> Mat4 {
        self.clip_from_view(aspect) * self.view_from_world()
    }

    /// Where a world point lands inside `rect` (egui points), or `None` behind the camera
    /// or past the far plane.
    pub fn project(&self, world: Vec3, rect: egui::Rect) -> Option<egui::Pos2> {
        if rect.width() <= 0.0 || rect.height() <= 0.0 {
            return None;
        }
        let clip = self.clip_from_world(rect.width() / rect.height()) * world.extend(1.0);
        if clip.w <= 1e-9 {
            return None;
        }
        let ndc = clip.xyz() / clip.w;
        if !(-1.0..=1.0).contains(&ndc.z) {
            return None;
        }
        Some(egui::pos2(
            rect.left() + (ndc.x + 1.0) * 0.5 * rect.width(),
            rect.top() + (1.0 - ndc.y) * 0.5 * rect.height(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect() -> egui::Rect {
        egui::Rect::from_min_size(egui::pos2(10.0, 20.0), egui::vec2(640.0, 780.0))
    }

    /// Every corner of the box projects inside the rect, and the box spans a good part of it.
    fn assert_fills(cam: &OrbitCamera, min: Vec3, max: Vec3) {
        let r = rect();
        let mut lo = egui::pos2(f32::MAX, f32::MAX);
        let mut hi = egui::pos2(f32::MIN, f32::MIN);
        for i in 0..8 {
            let corner = Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            );
            let p = cam
                .project(corner, r)
                .expect("corner in front of the camera");
            assert!(r.contains(p), "{corner} → {p:?} outside {r:?}");
            lo = lo.min(p);
            hi = hi.max(p);
        }
        let covered = ((hi.x - lo.x) / r.width()).max((hi.y - lo.y) / r.height());
        assert!(covered > 0.6, "box covers only {covered} of the view");
    }

    #[test]
    fn frame_fills_the_view_at_any_scale() {
        for (min, max) in [
            (Vec3::new(-0.3, 0.0, -0.15), Vec3::new(0.3, 1.6, 0.15)),
            (Vec3::new(-60.0, 0.0, -30.0), Vec3::new(60.0, 300.0, 30.0)),
            (Vec3::new(-1.0, 0.0, -0.2), Vec3::new(1.0, 1.6, 0.2)),
        ] {
            let mut cam = OrbitCamera::default();
            let r = rect();
            cam.frame_in(min, max, r.width() / r.height());
            assert_fills(&cam, min, max);
            let (near, _) = cam.near_far();
            assert!(cam.distance - near > (max - min).length() * 0.5);
        }
    }

    #[test]
    fn a_t_pose_fills_a_tall_viewport() {
        // The VRM in its T-pose (1.2 m arm span, 1.47 m tall) in one of two side-by-side
        // viewports: it must fill most of the height, not sit at a third of it.
        let (min, max) = (Vec3::new(-0.6, 0.0, -0.13), Vec3::new(0.6, 1.47, 0.18));
        let r = egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(381.0, 725.0));
        let mut cam = OrbitCamera::default();
        cam.frame_in(min, max, r.width() / r.height());
        let (mut lo, mut hi) = (
            egui::pos2(f32::MAX, f32::MAX),
            egui::pos2(f32::MIN, f32::MIN),
        );
        for i in 0..8 {
            let corner = Vec3::select(
                glam::BVec3::new(i & 1 != 0, i & 2 != 0, i & 4 != 0),
                max,
                min,
            );
            let p = cam.project(corner, r).expect("every corner is in view");
            assert!(
                r.contains(p),
                "corner {corner} lands at {p:?}, outside {r:?}"
            );
            lo = lo.min(p);
            hi = hi.max(p);
        }
        let covered = ((hi.x - lo.x) / r.width()).max((hi.y - lo.y) / r.height());
        assert!(covered > 0.8, "box covers only {covered} of the view");
    }

    #[test]
    fn frame_ignores_an_empty_or_broken_box() {
        let mut cam = OrbitCamera::default();
        let before = cam;
        cam.frame(Vec3::ONE, Vec3::ZERO);
        cam.frame(Vec3::splat(f32::NAN), Vec3::ONE);
        assert_eq!(cam, before);
    }

    #[test]
    fn target_projects_to_the_centre() {
        let cam = OrbitCamera::default();
        let p = cam.project(cam.target, rect()).unwrap();
        assert!((p - rect().center()).length() < 1e-3, "{p:?}");
    }

    #[test]
    fn behind_the_camera_does_not_project() {
        let cam = OrbitCamera::default();
        let behind = cam.eye() + (cam.eye() - cam.target);
        assert_eq!(cam.project(behind, rect()), None);
    }

    #[test]
    fn pan_moves_the_target_depth_with_the_pointer() {
        let mut cam = OrbitCamera::default();
        let r = rect();
        let point = cam.target + Vec3::new(0.1, -0.2, 0.05);
        let before = cam.project(point, r).unwrap();
        cam.pan(30.0, -12.0, r.height());
        let after = cam.project(point, r).unwrap();
        let moved = after - before;
        assert!(
            (moved.x - 30.0).abs() < 0.5 && (moved.y + 12.0).abs() < 0.5,
            "{moved:?}"
        );
    }

    #[test]
    fn orbit_keeps_distance_and_clamps_pitch() {
        let mut cam = OrbitCamera::default();
        cam.orbit(123.0, 10_000.0);
        assert!((cam.eye().distance(cam.target) - cam.distance).abs() < 1e-4);
        assert!(cam.pitch <= PITCH_LIMIT);
        // Still a valid view near the pole.
        assert!(cam.view_from_world().is_finite());
    }

    #[test]
    fn orbit_right_moves_the_eye_left() {
        let mut cam = OrbitCamera {
            yaw: 0.0,
            pitch: 0.0,
            ..Default::default()
        };
        let before = cam.eye();
        cam.orbit(10.0, 0.0);
        assert!(cam.eye().x < before.x);
    }

    #[test]
    fn zoom_in_then_out_returns() {
        let mut cam = OrbitCamera::default();
        let d = cam.distance;
        cam.zoom(120.0);
        assert!(cam.distance < d);
        cam.zoom(-120.0);
        assert!((cam.distance - d).abs() < 1e-4);
    }

    #[test]
    fn serde_round_trip_and_defaults() {
        let cam = OrbitCamera {
            distance: 7.5,
            ..Default::default()
        };
        let text = ron::to_string(&cam).unwrap();
        let back: OrbitCamera = ron::from_str(&text).unwrap();
        assert_eq!(back, cam);
        let partial: OrbitCamera = ron::from_str("(distance: 2.0)").unwrap();
        assert_eq!(partial.distance, 2.0);
        assert_eq!(partial.fov_y, OrbitCamera::default().fov_y);
    }
}
