//! The 3D viewport widget: an orbit camera, a skinned character with its skeleton, joint
//! picking. Drawing goes through three-d inside an egui paint callback (see `renderer`,
//! the only module that knows three-d); everything else here is plain glam and egui.

pub mod camera;
pub mod gizmo;
pub mod instances;
pub mod renderer;
pub mod scene;
pub mod skinning;
pub mod texture;

pub use camera::{OrbitCamera, ViewDirection};
pub use gizmo::{GizmoPlacement, GizmoState};
pub use renderer::ViewportRenderer;
pub use scene::{CharacterScene, MeshDraw, SkeletonOverlay, pick_joint};
pub use texture::TextureCache;

use eframe::{egui, egui_glow};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What the user did in the viewport this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewportResponse {
    /// A joint clicked with the primary button (a click, not the end of an orbit drag).
    pub clicked_joint: Option<usize>,
    pub hovered: bool,
    /// Alt + left-drag this frame, in points: the bone-rotation gesture (the camera stays).
    pub rotate_drag: Option<egui::Vec2>,
    /// The world rotation the held gizmo ring asks for this frame.
    pub gizmo_turn: Option<glam::Quat>,
    /// Where the viewport was laid out, in points.
    pub rect: egui::Rect,
}

impl Default for ViewportResponse {
    fn default() -> Self {
        Self {
            clicked_joint: None,
            hovered: false,
            rotate_drag: None,
            gizmo_turn: None,
            rect: egui::Rect::NOTHING,
        }
    }
}

/// Shows `scene` in all the space `ui` has left and handles the camera: left-drag orbits,
/// right- or middle-drag pans, the wheel zooms, F frames the scene while hovered. With a
/// `placement`, the rotation gizmo is drawn there and a drag that starts on a ring turns it.
///
/// `renderer` is created on first paint (the GL context exists only there) and must live as
/// long as the viewport, so its GPU buffers are reused from frame to frame.
pub fn viewport_ui(
    ui: &mut egui::Ui,
    camera: &mut OrbitCamera,
    scene: Arc<CharacterScene>,
    renderer: Arc<Mutex<Option<ViewportRenderer>>>,
    gizmo: (&mut GizmoState, Option<GizmoPlacement>),
) -> ViewportResponse {
    let (gizmo_state, placement) = gizmo;
    let size = ui.available_size();
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click_and_drag());
    let hovered = response.hovered();
    let gizmo_turn = gizmo::interact(gizmo_state, placement.as_ref(), camera, rect, &response);
    let alt = ui.input(|i| i.modifiers.alt);
    let rotate_drag =
        (alt && !gizmo_state.is_active() && response.dragged_by(egui::PointerButton::Primary))
            .then(|| response.drag_delta());
    if rotate_drag.is_none() && !gizmo_state.is_active() {
        handle_camera_input(ui, &response, camera, &scene, rect);
    }
    let clicked_joint = if response.clicked_by(egui::PointerButton::Primary) {
        response
            .interact_pointer_pos()
            .and_then(|p| pick_joint(&scene, camera, rect, p))
    } else {
        None
    };
    if rect.width() >= 1.0 && rect.height() >= 1.0 && ui.is_rect_visible(rect) {
        add_paint_callback(ui, rect, *camera, scene, renderer);
        if let Some(placement) = &placement {
            let painter = ui.painter_at(rect);
            gizmo::paint(
                &painter,
                gizmo_state,
                placement,
                camera,
                rect,
                response.hover_pos(),
            );
        }
    }
    ViewportResponse {
        clicked_joint,
        hovered,
        rotate_drag,
        gizmo_turn,
        rect,
    }
}

fn handle_camera_input(
    ui: &egui::Ui,
    response: &egui::Response,
    camera: &mut OrbitCamera,
    scene: &CharacterScene,
    rect: egui::Rect,
) {
    let delta = response.drag_delta();
    if response.dragged_by(egui::PointerButton::Primary) {
        camera.orbit(delta.x, delta.y);
    } else if response.dragged_by(egui::PointerButton::Secondary)
        || response.dragged_by(egui::PointerButton::Middle)
    {
        camera.pan(delta.x, delta.y, rect.height());
    }
    if !response.hovered() {
        return;
    }
    let (scroll, frame_key) = ui.input(|i| (i.smooth_scroll_delta.y, i.key_pressed(egui::Key::F)));
    if scroll != 0.0 {
        camera.zoom(scroll);
    }
    if frame_key && let Some((min, max)) = scene.bounds() {
        camera.frame_standing(min, max, scene.floor, rect.aspect_ratio());
    }
}

/// Queues the three-d drawing for when egui paints; the callback owns copies of what it
/// needs, since it runs after this frame's UI code has returned.
fn add_paint_callback(
    ui: &egui::Ui,
    rect: egui::Rect,
    camera: OrbitCamera,
    scene: Arc<CharacterScene>,
    renderer: Arc<Mutex<Option<ViewportRenderer>>>,
) {
    let callback = egui_glow::CallbackFn::new(move |info, painter| {
        let Ok(mut slot) = renderer.lock() else {
            report_once(&POISONED, "viewport: renderer mutex poisoned; not drawing");
            return;
        };
        if slot.is_none() {
            // SAFETY: a string query on the context current in this callback.
            let name = {
                use eframe::glow::HasContext;
                unsafe { painter.gl().get_parameter_string(eframe::glow::RENDERER) }
            };
            crate::app::graphics::set_renderer(name);
            match ViewportRenderer::new(painter.gl().clone()) {
                Ok(r) => *slot = Some(r),
                Err(e) => {
                    report_once(&NO_CONTEXT, &format!("viewport: no 3D context: {e}"));
                    return;
                }
            }
        }
        if let Some(r) = slot.as_mut() {
            r.paint(&info, &scene, &camera);
        }
    });
    ui.painter().add(egui::PaintCallback {
        rect,
        callback: Arc::new(callback),
    });
}

static POISONED: AtomicBool = AtomicBool::new(false);
static NO_CONTEXT: AtomicBool = AtomicBool::new(false);

/// A failure that would repeat every frame is written to the log only the first time.
fn report_once(flag: &AtomicBool, message: &str) {
    if !flag.swap(true, Ordering::Relaxed) {
        eprintln!("{message}");
    }
}

#[cfg(test)]
mod tests {
    //! The widget's input handling, run headless on a bare `egui::Context`: the paint
    //! callback is queued but never executed, so no GL is needed.

    use super::*;
    use glam::Vec3;

    struct Harness {
        ctx: egui::Context,
        camera: OrbitCamera,
        scene: Arc<CharacterScene>,
        renderer: Arc<Mutex<Option<ViewportRenderer>>>,
        rect: egui::Rect,
        response: ViewportResponse,
        callbacks: usize,
        time: f64,
        gizmo: GizmoState,
        placement: Option<GizmoPlacement>,
        /// Every gizmo turn so far, composed.
        turned: glam::Quat,
    }

    impl Harness {
        fn new() -> Self {
            let scene = CharacterScene {
                joints: vec![Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 1.5, 0.0)],
                bones: vec![(Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 1.5, 0.0))],
                ..Default::default()
            };
            let mut h = Self {
                ctx: egui::Context::default(),
                camera: OrbitCamera::default(),
                scene: Arc::new(scene),
                renderer: Arc::new(Mutex::new(None)),
                rect: egui::Rect::NOTHING,
                response: ViewportResponse::default(),
                callbacks: 0,
                time: 0.0,
                gizmo: GizmoState::default(),
                placement: None,
                turned: glam::Quat::IDENTITY,
            };
            h.frame(vec![]);
            h
        }

        fn frame(&mut self, events: Vec<egui::Event>) {
            self.time += 1.0 / 60.0;
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(800.0, 600.0),
                )),
                time: Some(self.time),
                events,
                ..Default::default()
            };
            let Self {
                ctx,
                camera,
                scene,
                renderer,
                rect,
                response,
                gizmo,
                placement,
                ..
            } = self;
            let out = ctx.run_ui(input, |ui| {
                *rect = ui.available_rect_before_wrap();
                *response = viewport_ui(
                    ui,
                    camera,
                    scene.clone(),
                    renderer.clone(),
                    (gizmo, *placement),
                );
            });
            if let Some(turn) = self.response.gizmo_turn {
                self.turned = turn * self.turned;
            }
            self.callbacks = out
                .shapes
                .iter()
                .filter(|s| matches!(s.shape, egui::Shape::Callback(_)))
                .count();
            // No painter takes the font atlas here; egui insists that is said out loud.
            out.drop_without_applying_deltas();
        }

        fn button(&mut self, pos: egui::Pos2, button: egui::PointerButton, pressed: bool) {
            self.frame(vec![egui::Event::PointerButton {
                pos,
                button,
                pressed,
                modifiers: egui::Modifiers::NONE,
            }]);
        }

        fn drag(&mut self, button: egui::PointerButton, from: egui::Pos2, to: egui::Pos2) {
            self.frame(vec![egui::Event::PointerMoved(from)]);
            self.button(from, button, true);
            self.frame(vec![egui::Event::PointerMoved(from.lerp(to, 0.5))]);
            self.frame(vec![egui::Event::PointerMoved(to)]);
            self.button(to, button, false);
        }

        fn click(&mut self, at: egui::Pos2) -> Option<usize> {
            self.frame(vec![egui::Event::PointerMoved(at)]);
            self.button(at, egui::PointerButton::Primary, true);
            self.button(at, egui::PointerButton::Primary, false);
            self.response.clicked_joint
        }
    }

    #[test]
    fn paints_through_a_callback_over_the_whole_space() {
        let h = Harness::new();
        assert_eq!(h.callbacks, 1);
        assert!(h.rect.width() > 700.0 && h.rect.height() > 500.0);
        // Nothing was drawn headless, so no renderer was made.
        assert!(h.renderer.lock().unwrap().is_none());
    }

    #[test]
    fn left_drag_orbits_and_right_drag_pans() {
        let mut h = Harness::new();
        let (c, before) = (h.rect.center(), h.camera);
        h.drag(egui::PointerButton::Primary, c, c + egui::vec2(60.0, 20.0));
        assert!(h.camera.yaw < before.yaw && h.camera.pitch > before.pitch);
        assert_eq!(h.camera.target, before.target);
        let orbited = h.camera;
        h.drag(egui::PointerButton::Secondary, c, c + egui::vec2(40.0, 0.0));
        assert_eq!(h.camera.yaw, orbited.yaw);
        assert_ne!(h.camera.target, orbited.target);
        let panned = h.camera;
        h.drag(egui::PointerButton::Middle, c, c + egui::vec2(0.0, 40.0));
        assert_ne!(h.camera.target, panned.target);
    }

    #[test]
    fn wheel_zooms_when_hovered() {
        let mut h = Harness::new();
        let d = h.camera.distance;
        h.frame(vec![egui::Event::PointerMoved(h.rect.center())]);
        h.frame(vec![egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, 50.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: egui::Modifiers::NONE,
        }]);
        for _ in 0..30 {
            h.frame(vec![]);
        }
        assert!(h.response.hovered);
        assert!(h.camera.distance < d, "{} !< {d}", h.camera.distance);
    }

    #[test]
    fn click_on_a_joint_picks_it() {
        let mut h = Harness::new();
        let at = h.camera.project(h.scene.joints[1], h.rect).unwrap();
        assert_eq!(h.click(at + egui::vec2(2.0, 2.0)), Some(1));
        let empty = egui::pos2(h.rect.left() + 5.0, h.rect.top() + 5.0);
        assert_eq!(h.click(empty), None);
    }

    #[test]
    fn a_drag_along_a_gizmo_ring_turns_about_its_axis_and_leaves_the_camera() {
        let mut h = Harness::new();
        let placement = GizmoPlacement {
            center: h.scene.joints[0],
            frame: glam::Quat::IDENTITY,
        };
        h.placement = Some(placement);
        h.frame(vec![]);
        let before = h.camera;
        let ring = gizmo::ring_points(&placement, &h.camera, h.rect, 1).unwrap();
        // Grab the Y ring where it moves most on screen and drag along it, in small steps as
        // a hand would, for a quarter turn's worth (70 points of ring radius times pi/2).
        let k = (0..ring.len() - 1)
            .max_by(|&a, &b| {
                let d = |k: usize| ring[k].distance(ring[k + 1]);
                d(a).total_cmp(&d(b))
            })
            .unwrap();
        let along = (ring[k + 1] - ring[k]).normalized();
        let path: Vec<egui::Pos2> = (0..=20)
            .map(|i| ring[k] + along * (70.0 * std::f32::consts::FRAC_PI_2) * (i as f32 / 20.0))
            .collect();
        h.frame(vec![egui::Event::PointerMoved(path[0])]);
        h.button(path[0], egui::PointerButton::Primary, true);
        for p in &path[1..] {
            h.frame(vec![egui::Event::PointerMoved(*p)]);
        }
        h.button(path[20], egui::PointerButton::Primary, false);
        assert_eq!(
            h.camera, before,
            "the camera must not orbit while a ring is held"
        );
        let (axis, angle) = h.turned.to_axis_angle();
        assert!(
            (angle.to_degrees() - 90.0).abs() < 10.0,
            "turned {:.1} degrees",
            angle.to_degrees()
        );
        assert!(axis.dot(Vec3::Y) > 0.99, "turned about {axis}");
        // Without the gizmo the same drag orbits.
        h.placement = None;
        h.drag(egui::PointerButton::Primary, path[0], path[20]);
        assert_ne!(h.camera, before);
    }

    #[test]
    fn f_frames_the_scene_when_hovered() {
        let mut h = Harness::new();
        h.camera.target = Vec3::new(50.0, 0.0, 0.0);
        let key = |pressed| egui::Event::Key {
            key: egui::Key::F,
            physical_key: None,
            pressed,
            repeat: false,
            modifiers: egui::Modifiers::NONE,
        };
        h.frame(vec![egui::Event::PointerMoved(h.rect.center())]);
        h.frame(vec![key(true)]);
        h.frame(vec![key(false)]);
        assert!(h.camera.target.abs_diff_eq(Vec3::new(0.0, 1.25, 0.0), 1e-5));
    }
}
