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
        }
    }

    /// Forward kinematics under `container` (the side's edited container), then skinning. The
    /// first pose of a character decodes its textures; later ones find them decoded.
    pub fn set_pose(
        &mut self,
        skeleton: &Skeleton,
        container: Mat4,
        pose: &Pose,
        meshes: &[SkinnedMesh],
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
        let scene = Arc::make_mut(&mut self.scene);
        scene.set_pose(
            self.id_base,
            skeleton.parents(),
            meshes,
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
        self.needs_framing = true;
    }

    /// Draws the viewport, with the rotation gizmo at `gizmo` if given; returns what the user
    /// did in it.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        gizmo: Option<GizmoPlacement>,
    ) -> super::viewport::ViewportResponse {
        if self.needs_framing
            && let Some((min, max)) = self.scene.bounds()
        {
            let size = ui.available_size();
            self.camera.frame_in(min, max, size.x / size.y.max(1.0));
            Arc::make_mut(&mut self.scene).bone_radius =
                super::viewport::scene::suggested_bone_radius(min, max);
            self.needs_framing = false;
        }
        let response = viewport_ui(
            ui,
            &mut self.camera,
            self.scene.clone(),
            self.renderer.clone(),
            (&mut self.gizmo, gizmo),
        );
        self.last_rect = response.rect;
        response
    }
}
