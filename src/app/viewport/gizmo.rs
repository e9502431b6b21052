//! The rotation gizmo of the selected bone: three rings around the joint, one per axis of the
//! bone's own frame (X red, Y green, Z blue, as in Blender and Maya). Dragging a ring turns
//! the bone about that axis by how far the pointer moves along the ring where it was grabbed. Pure egui + glam: it paints with
//! egui shapes over the 3D drawing and needs no GL.

use super::camera::OrbitCamera;
use eframe::egui;
use glam::{Quat, Vec3};

/// Ring radius on screen, in points: a constant size reads better than a world size that
/// vanishes on a zoomed-out crowd or fills the view on a close-up of a finger.
const RADIUS_POINTS: f32 = 70.0;
/// How near the pointer must be to a ring to grab it, in points.
const GRAB_POINTS: f32 = 7.0;
const SEGMENTS: usize = 64;
const AXIS_COLORS: [egui::Color32; 3] = [
    egui::Color32::from_rgb(230, 70, 70),
    egui::Color32::from_rgb(90, 200, 90),
    egui::Color32::from_rgb(80, 130, 240),
];
const ACTIVE_COLOR: egui::Color32 = egui::Color32::from_rgb(255, 220, 60);

/// Where the gizmo sits this frame: the selected joint as it is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GizmoPlacement {
    pub center: Vec3,
    /// The joint's world rotation: ring `i` turns about `frame * axis_i`.
    pub frame: Quat,
}

/// Which ring is held, kept across frames by the viewport's owner.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GizmoState {
    active: Option<Grab>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Grab {
    axis: usize,
    /// Screen direction of a positive turn at the grabbed point, fixed for the drag.
    tangent: egui::Vec2,
}

impl GizmoState {
    pub fn is_active(&self) -> bool {
        self.active.is_some()
    }
}

/// World-space axis of ring `axis` (0 = X, 1 = Y, 2 = Z).
pub fn ring_axis(placement: &GizmoPlacement, axis: usize) -> Vec3 {
    placement.frame * [Vec3::X, Vec3::Y, Vec3::Z][axis]
}

/// The world radius that shows as `RADIUS_POINTS` at the joint's distance from the camera.
fn world_radius(placement: &GizmoPlacement, camera: &OrbitCamera, rect: egui::Rect) -> f32 {
    let depth = (placement.center - camera.eye()).length().max(1e-6);
    let world_per_point = 2.0 * depth * (camera.fov_y * 0.5).tan() / rect.height().max(1.0);
    RADIUS_POINTS * world_per_point
}

/// The ring of `axis` projected into `rect`, as a closed polyline; `None` if any point falls
/// behind the camera.
pub fn ring_points(
    placement: &GizmoPlacement,
    camera: &OrbitCamera,
    rect: egui::Rect,
    axis: usize,
) -> Option<Vec<egui::Pos2>> {
    let radius = world_radius(placement, camera, rect);
    let normal = ring_axis(placement, axis);
    let u = normal.any_orthonormal_vector();
    let v = normal.cross(u);
    (0..=SEGMENTS)
        .map(|k| {
            let a = k as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
            camera.project(
                placement.center + radius * (a.cos() * u + a.sin() * v),
                rect,
            )
        })
        .collect()
}

/// The ring nearest to `pointer` within grabbing distance.
pub fn hit_ring(
    placement: &GizmoPlacement,
    camera: &OrbitCamera,
    rect: egui::Rect,
    pointer: egui::Pos2,
) -> Option<usize> {
    (0..3)
        .filter_map(|axis| {
            let points = ring_points(placement, camera, rect, axis)?;
            let d = points
                .windows(2)
                .map(|w| distance_to_segment(pointer, w[0], w[1]))
                .fold(f32::INFINITY, f32::min);
            (d <= GRAB_POINTS).then_some((axis, d))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(axis, _)| axis)
}

fn distance_to_segment(p: egui::Pos2, a: egui::Pos2, b: egui::Pos2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_sq().max(1e-9)).clamp(0.0, 1.0);
    (a + t * ab).distance(p)
}

/// Screen direction in which the grabbed point of a ring moves under a positive turn: the
/// drag is measured along it, as Blender and Maya do, which stays usable when a ring is seen
/// edge-on (an angle swept around the centre would jump there).
fn screen_tangent(
    placement: &GizmoPlacement,
    camera: &OrbitCamera,
    rect: egui::Rect,
    axis: usize,
    grab: egui::Pos2,
) -> Option<egui::Vec2> {
    let radius = world_radius(placement, camera, rect);
    let normal = ring_axis(placement, axis);
    let u = normal.any_orthonormal_vector();
    let v = normal.cross(u);
    // The ring point nearest the pointer on screen, and the way it moves.
    let (at, _) = (0..SEGMENTS)
        .filter_map(|k| {
            let a = k as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
            let world = placement.center + radius * (a.cos() * u + a.sin() * v);
            Some((world, camera.project(world, rect)?.distance(grab)))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let moving = normal.cross(at - placement.center).normalize_or_zero() * radius * 0.1;
    let (from, to) = (
        camera.project(at, rect)?,
        camera.project(at + moving, rect)?,
    );
    let tangent = to - from;
    if tangent.length() > 0.5 {
        return Some(tangent.normalized());
    }
    // Where the ring runs straight at the viewer, turn as if it faced them.
    let center = camera.project(placement.center, rect)?;
    let radial = (grab - center).normalized();
    let facing_viewer = normal.dot(camera.eye() - placement.center) > 0.0;
    // egui's y points down: a positive turn about an axis facing the viewer goes
    // counter-clockwise on screen.
    Some(if facing_viewer {
        egui::vec2(radial.y, -radial.x)
    } else {
        egui::vec2(-radial.y, radial.x)
    })
}

/// The world turn for `along` points of drag along the ring's tangent: a drag of the ring's
/// screen radius turns one radian.
pub fn turn_for_drag(placement: &GizmoPlacement, axis: usize, along: f32) -> Quat {
    Quat::from_axis_angle(ring_axis(placement, axis), along / RADIUS_POINTS)
}

/// Handles grabbing and dragging the rings; returns this frame's world turn, if any. Must run
/// before the camera handles the same drag: a held ring consumes it.
pub fn interact(
    state: &mut GizmoState,
    placement: Option<&GizmoPlacement>,
    camera: &OrbitCamera,
    rect: egui::Rect,
    response: &egui::Response,
) -> Option<Quat> {
    let Some(placement) = placement else {
        state.active = None;
        return None;
    };
    if response.drag_started_by(egui::PointerButton::Primary)
        && let Some(press) = press_origin(response).or(response.interact_pointer_pos())
        && let Some(axis) = hit_ring(placement, camera, rect, press)
        && let Some(tangent) = screen_tangent(placement, camera, rect, axis, press)
    {
        state.active = Some(Grab { axis, tangent });
    }
    if !response.dragged_by(egui::PointerButton::Primary) {
        state.active = None;
        return None;
    }
    let grab = state.active?;
    let along = response.drag_delta().dot(grab.tangent);
    (along != 0.0).then(|| turn_for_drag(placement, grab.axis, along))
}

/// Where the press that started this drag was: egui starts a drag only after the pointer has
/// moved a few points, and the ring under the press is the one meant.
fn press_origin(response: &egui::Response) -> Option<egui::Pos2> {
    response.ctx.input(|i| i.pointer.press_origin())
}

/// Paints the three rings over the viewport; the held or hovered ring is highlighted.
pub fn paint(
    painter: &egui::Painter,
    state: &GizmoState,
    placement: &GizmoPlacement,
    camera: &OrbitCamera,
    rect: egui::Rect,
    hover: Option<egui::Pos2>,
) {
    let highlighted = state
        .active
        .map(|g| g.axis)
        .or_else(|| hover.and_then(|p| hit_ring(placement, camera, rect, p)));
    for (axis, axis_color) in AXIS_COLORS.into_iter().enumerate() {
        let Some(points) = ring_points(placement, camera, rect, axis) else {
            continue;
        };
        let (width, color) = if highlighted == Some(axis) {
            (3.0, ACTIVE_COLOR)
        } else {
            (2.0, axis_color)
        };
        painter.add(egui::Shape::line(points, egui::Stroke::new(width, color)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera_from_front() -> OrbitCamera {
        OrbitCamera {
            target: Vec3::ZERO,
            distance: 4.0,
            yaw: 0.0,
            pitch: 0.0,
            ..OrbitCamera::default()
        }
    }

    fn rect() -> egui::Rect {
        egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(800.0, 600.0))
    }

    fn at_origin() -> GizmoPlacement {
        GizmoPlacement {
            center: Vec3::ZERO,
            frame: Quat::IDENTITY,
        }
    }

    #[test]
    fn rings_have_the_screen_radius_whatever_the_distance() {
        for distance in [0.05, 4.0, 300.0] {
            let camera = OrbitCamera {
                distance,
                ..camera_from_front()
            };
            // Seen from +Z the Z ring is a circle facing the viewer.
            let points = ring_points(&at_origin(), &camera, rect(), 2).unwrap();
            let center = rect().center();
            for p in &points {
                assert!(
                    (p.distance(center) - RADIUS_POINTS).abs() < 0.5,
                    "distance {distance}: {p:?} is {} from the centre",
                    p.distance(center)
                );
            }
        }
    }

    #[test]
    fn the_pointer_on_a_ring_grabs_that_ring() {
        let camera = camera_from_front();
        let center = rect().center();
        // The Z ring is a full circle; the X ring is edge-on, a vertical line through the
        // centre; the Y ring a horizontal line.
        let on_z = center
            + egui::vec2(
                RADIUS_POINTS * std::f32::consts::FRAC_1_SQRT_2,
                RADIUS_POINTS * std::f32::consts::FRAC_1_SQRT_2,
            );
        assert_eq!(hit_ring(&at_origin(), &camera, rect(), on_z), Some(2));
        let on_x = center + egui::vec2(0.0, RADIUS_POINTS * 0.5);
        assert_eq!(hit_ring(&at_origin(), &camera, rect(), on_x), Some(0));
        let on_y = center + egui::vec2(RADIUS_POINTS * 0.5, 0.0);
        assert_eq!(hit_ring(&at_origin(), &camera, rect(), on_y), Some(1));
        let far = center + egui::vec2(RADIUS_POINTS * 2.0, RADIUS_POINTS * 2.0);
        assert_eq!(hit_ring(&at_origin(), &camera, rect(), far), None);
    }

    #[test]
    fn a_drag_along_the_grabbed_ring_point_turns_positively_one_radian_per_radius() {
        let camera = camera_from_front();
        let center = rect().center();
        // The Z ring faces the viewer; its rightmost point moves up (egui -y) under +Z.
        let grab = center + egui::vec2(RADIUS_POINTS, 0.0);
        let tangent = screen_tangent(&at_origin(), &camera, rect(), 2, grab).unwrap();
        assert!(tangent.y < -0.99, "{tangent:?}");
        let turn = turn_for_drag(&at_origin(), 2, RADIUS_POINTS * 0.5);
        let (axis, angle) = turn.to_axis_angle();
        assert!(
            (axis.dot(Vec3::Z) * angle - 0.5).abs() < 1e-5,
            "{axis} {angle}"
        );
    }

    #[test]
    fn an_edge_on_ring_still_has_a_direction_to_drag() {
        // Seen from the front, the X ring is a vertical line; grabbed at its top, the point
        // there moves straight at the viewer under +X, which projects to nothing.
        let camera = camera_from_front();
        let grab = rect().center() + egui::vec2(0.0, -RADIUS_POINTS);
        let tangent = screen_tangent(&at_origin(), &camera, rect(), 0, grab).unwrap();
        assert!((tangent.length() - 1.0).abs() < 1e-4, "{tangent:?}");
    }

    #[test]
    fn a_point_turned_by_a_drag_follows_the_pointer_on_screen() {
        let camera = OrbitCamera {
            yaw: 0.7,
            pitch: 0.3,
            ..camera_from_front()
        };
        let placement = GizmoPlacement {
            center: Vec3::ZERO,
            frame: Quat::from_rotation_y(0.4) * Quat::from_rotation_x(0.3),
        };
        for axis in 0..3 {
            let ring = ring_points(&placement, &camera, rect(), axis).unwrap();
            // The ring point that moves most on screen, dragged a little along its tangent.
            let k = (0..SEGMENTS)
                .max_by(|&a, &b| {
                    let d = |k: usize| ring[k].distance(ring[k + 1]);
                    d(a).total_cmp(&d(b))
                })
                .unwrap();
            let tangent = screen_tangent(&placement, &camera, rect(), axis, ring[k]).unwrap();
            let turn = turn_for_drag(&placement, axis, 5.0);
            let radius = world_radius(&placement, &camera, rect());
            let normal = ring_axis(&placement, axis);
            let u = normal.any_orthonormal_vector();
            let a = k as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
            let point = radius * (a.cos() * u + a.sin() * normal.cross(u));
            let moved = camera.project(turn * point, rect()).unwrap() - ring[k];
            assert!(
                moved.dot(tangent) > 0.9 * moved.length(),
                "axis {axis}: moved {moved:?}, tangent {tangent:?}"
            );
            assert!(
                (moved.length() - 5.0).abs() < 1.0,
                "axis {axis}: moved {moved:?}"
            );
        }
    }
}
