//! One viewport's worth of state: the camera, the GPU renderer handle and the scene the
//! renderer draws, re-posed each frame without reallocating.

use super::viewport::{
    CharacterScene, GizmoPlacement, GizmoState, OrbitCamera, TextureCache, ViewportRenderer,
    viewport_ui,
};
use crate::core::{Pose, Skeleton};
use crate::io::SkinnedMesh;
use eframe::egui;
use glam::Mat4;
use std::sync::{Arc, Mutex};

pub struct CharacterView {
    pub camera: OrbitCamera,
    pub scene: Arc<CharacterScene>,
    renderer: Arc<Mutex<Option<ViewportRenderer>>>,
    world: Vec<Mat4>,
    id_base: u64,
    /// The character's decoded base colour textures, decoded on its first pose.
    textures: TextureCache,
    /// Frame the camera on the next draw (a new character was loaded).
    pub needs_framing: bool,
    gizmo: GizmoState,
    /// Where the viewport was last laid out, for tests and tools that aim at what is drawn.
    pub last_rect: egui::Rect,
    /// Where the followed joint (the hips) was on the last pose: the camera moves by its
    /// horizontal steps, so a walk stays in frame while the user still orbits and pans.
    follow_anchor: Option<glam::Vec3>,
    /// The camera still shows the framing the app chose (not moved by the user since): it is
    /// framed again when the viewport changes size, so a resized panel never crops it.
    auto_frame: bool,
    /// The viewport size the camera was last framed for.
    framed_size: egui::Vec2,
    /// Draw bones that deform nothing (see [`scene::helper_joints`]).
    pub show_helpers: bool,
    /// This character's helper joints, found on its first pose.
    helpers: Vec<bool>,
    /// Joints the bone map pairs: never helpers, whatever they deform.
    mapped: Vec<usize>,
}

impl CharacterView {
    pub fn new(id_base: u64) -> Self {
        Self {
            camera: OrbitCamera::default(),
            scene: Arc::new(CharacterScene::default()),
            renderer: Arc::new(Mutex::new(None)),
            world: Vec::new(),
            id_base,
            textures: TextureCache::default(),
            needs_framing: true,
            gizmo: GizmoState::default(),
            last_rect: egui::Rect::NOTHING,
            follow_anchor: None,
            auto_frame: true,
            framed_size: egui::Vec2::ZERO,
            show_helpers: false,
            helpers: Vec::new(),
            mapped: Vec::new(),
        }
    }

    /// The joints the map pairs on this side: drawn as bones of the body even when they
    /// move no vertex (a VRM's labelled shins, a mapped end bone), so a right retarget never
    /// looks broken for a hidden bone.
    pub fn set_mapped(&mut self, mut joints: Vec<usize>) {
        joints.sort_unstable();
        joints.dedup();
        if joints != self.mapped {
            self.mapped = joints;
            self.helpers.clear();
        }
    }

    /// Moves the camera's target by the horizontal step `joint` took since the last call
    /// when `follow` is on; the anchor is kept either way, so turning following on later
    /// does not jump.
    pub fn follow(&mut self, joint: Option<usize>, follow: bool) {
        let Some(at) = joint
            .and_then(|j| self.world.get(j))
            .map(|m| m.w_axis.truncate())
        else {
            self.follow_anchor = None;
            return;
        };
        if follow && let Some(before) = self.follow_anchor {
            let step = at - before;
            if step.is_finite() {
                self.camera.target += glam::Vec3::new(step.x, 0.0, step.z);
            }
        }
        self.follow_anchor = Some(at);
    }

    /// Sets the floor drawn under the character and where its feet are on the pose last
    /// set, for their contact shadows (see [`CharacterScene::floor`]).
    pub fn set_ground(&mut self, ground: &super::floor::Ground) {
        let scene = Arc::make_mut(&mut self.scene);
        scene.floor = ground.floor;
        scene.ankle_height = ground.ankle_height;
        let at = |j: usize| self.world.get(j).map(|m| m.w_axis.truncate());
        scene.feet.clear();
        scene.feet.extend(
            ground
                .feet
                .iter()
                .filter_map(|&(foot, toes)| Some((at(foot)?, toes.and_then(at)))),
        );
    }

    /// Looks along `direction` and frames the character again on the next draw.
    pub fn look_along(&mut self, direction: super::viewport::ViewDirection) {
        self.camera.look_along(direction);
        self.needs_framing = true;
    }

    /// Forward kinematics under `container` (the side's edited container), then skinning. The
    /// first pose of a character decodes its textures; later ones find them decoded.
    /// `morph_weights` holds each mesh's morph weights, in `meshes` order.
    pub fn set_pose(
        &mut self,
        skeleton: &Skeleton,
        container: Mat4,
        pose: &Pose,
        meshes: &[SkinnedMesh],
        morph_weights: &[Vec<f32>],
    ) {
        self.world.resize(skeleton.len(), Mat4::IDENTITY);
        pose.world_matrices_under(skeleton, container, &mut self.world);
        let decoding = self.textures.decode_time;
        self.textures.prepare(meshes);
        if self.textures.decode_time != decoding
            && std::env::var_os("RETARGET_STUDIO_TIMINGS").is_some()
        {
            let texels: usize = self.textures.decoded().map(|t| t.gpu_bytes()).sum();
            eprintln!(
                "textures: {} decoded in {:.0} ms, {:.1} MiB on the GPU with mipmaps",
                self.textures.decoded().count(),
                self.textures.decode_time.as_secs_f64() * 1e3,
                texels as f64 / (1024.0 * 1024.0)
            );
        }
        if self.helpers.len() != skeleton.len() {
            self.helpers = super::viewport::scene::helper_joints(
                skeleton.parents(),
                meshes,
                skeleton.humanoid(),
            );
            for &j in &self.mapped {
                if let Some(h) = self.helpers.get_mut(j) {
                    *h = false;
                }
            }
        }
        let scene = Arc::make_mut(&mut self.scene);
        if self.show_helpers {
            scene.hidden.clear();
        } else if scene.hidden != self.helpers {
            scene.hidden.clone_from(&self.helpers);
        }
        scene.set_pose(
            self.id_base,
            skeleton.parents(),
            meshes,
            morph_weights,
            &self.world,
            &self.textures,
        );
    }

    /// Textures of this character that could not be decoded, one line each.
    pub fn texture_warnings(&self) -> &[String] {
        &self.textures.warnings
    }

    /// World matrices of the pose last set, as drawn.
    pub fn world(&self) -> &[Mat4] {
        &self.world
    }

    /// Where the rotation gizmo of `joint` sits as drawn: at the joint, in its frame.
    pub fn gizmo_at(&self, joint: usize) -> Option<GizmoPlacement> {
        let (_, rotation, center) = self.world.get(joint)?.to_scale_rotation_translation();
        Some(GizmoPlacement {
            center,
            frame: rotation.normalize(),
        })
    }

    pub fn clear(&mut self) {
        self.scene = Arc::new(CharacterScene::default());
        self.textures.clear();
        self.world.clear();
        self.follow_anchor = None;
        self.helpers.clear();
        self.needs_framing = true;
    }

    /// Draws the viewport, with the rotation gizmo at `gizmo` if given; returns what the user
    /// did in it.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        gizmo: Option<GizmoPlacement>,
    ) -> super::viewport::ViewportResponse {
        let size = ui.available_size();
        // Only a real change of shape (a panel collapsed or dragged, the window resized):
        // a label wrapping differently must not undo the follow camera's moves.
        let change = (size - self.framed_size).abs() / self.framed_size.max(egui::vec2(1.0, 1.0));
        let resized = self.auto_frame && change.max_elem() > 0.05;
        if (self.needs_framing || resized)
            && size.min_elem() >= 1.0
            && let Some((min, max)) = self.scene.bounds()
        {
            let floor = self.scene.floor;
            self.camera.frame_standing(min, max, floor, size.x / size.y);
            Arc::make_mut(&mut self.scene).bone_radius =
                super::viewport::scene::suggested_bone_radius(min, max);
            self.needs_framing = false;
            self.auto_frame = true;
            self.framed_size = size;
        }
        // Until the user moves it, the camera backs off as far as the pose needs.
        if self.auto_frame
            && size.min_elem() >= 1.0
            && let Some((min, max)) = self.scene.bounds()
        {
            self.camera.fit_without_moving(min, max, size.x / size.y);
        }
        let before = self.camera;
        let response = viewport_ui(
            ui,
            &mut self.camera,
            self.scene.clone(),
            self.renderer.clone(),
            (&mut self.gizmo, gizmo),
        );
        let framed = response.hovered
            && ui.input(|i| i.key_pressed(egui::Key::F))
            && !ui.ctx().egui_wants_keyboard_input();
        if framed {
            // F framed it (in `viewport_ui`): the app's framing again, kept through resizes.
            self.auto_frame = true;
            self.framed_size = size;
        } else if self.camera != before {
            self.auto_frame = false;
        }
        self.last_rect = response.rect;
        response
    }
}
