//! The only module that touches three-d (and its cgmath): draws a [`CharacterScene`] into the
//! part of egui's framebuffer that a paint callback owns. `material` holds the skinned
//! meshes' materials and the texture upload.
//!
//! Everything it draws is worked out elsewhere in glam (camera, skinning, instances); here it
//! is only converted and uploaded. GPU objects live as long as the renderer, which the caller
//! keeps in an `Arc<Mutex<Option<_>>>` and creates lazily from the callback's glow context,
//! because that context only exists inside the paint callback.

mod material;
mod scaled;
mod viewer;

use self::material::{MeshMaterial, gl_uvs, mesh_material, upload_texture};
use self::viewer::{GlamViewer, lights};
use super::camera::OrbitCamera;
use super::instances::{
    FLOOR_COLOR, Instance, floor_transform, grid_for, grid_instances, shadow_instances,
    skeleton_instances,
};
use super::scene::{CharacterScene, MeshDraw};
use super::texture::{DrawTexture, RgbaImage};
use crate::io::{AlphaMode, TextureWrap};
use eframe::{egui, glow};
use std::collections::HashMap;
use std::sync::{Arc, Weak};
use three_d::{
    ClearState, ColorMaterial, Context, CpuMaterial, CpuMesh, Gm, Indices, InstancedMesh,
    Instances, Light, Mesh, Object, PhysicalMaterial, Positions, RenderTarget, ScissorBox, Srgba,
    Texture2DRef, Viewport,
};

/// Background of a viewport, straight into the (non-sRGB) framebuffer.
const BACKGROUND: [f32; 3] = [0.075, 0.078, 0.09];
/// GPU meshes not drawn for this many paints are dropped (a closed character).
const EVICT_AFTER_PAINTS: u64 = 600;

/// A skinned primitive on the GPU, with what it was built from to know when to rebuild.
struct GpuMesh {
    object: Gm<Mesh, MeshMaterial>,
    indices: Arc<Vec<u32>>,
    uvs: Arc<Vec<[f32; 2]>>,
    texture: Option<DrawTexture>,
    alpha_mode: AlphaMode,
    vertex_count: usize,
    /// False for a MASK mesh whose alpha is below its cutoff everywhere.
    visible: bool,
    last_used: u64,
}

impl GpuMesh {
    /// Whether this was built from `draw`'s topology, UVs, texture and alpha mode, so that
    /// only the skinned vertices need refilling.
    fn built_from(&self, draw: &MeshDraw) -> bool {
        let same_texture = match (&self.texture, &draw.texture) {
            (Some(a), Some(b)) => a.same_as(b),
            (None, None) => true,
            _ => false,
        };
        Arc::ptr_eq(&self.indices, &draw.indices)
            && Arc::ptr_eq(&self.uvs, &draw.uvs)
            && same_texture
            && self.alpha_mode == draw.alpha_mode
            && self.vertex_count == draw.positions.len()
    }
}

/// Which GL texture an image becomes: one per decoded image (by pointer) and wrap modes.
type TextureKey = (usize, TextureWrap, TextureWrap);

/// An uploaded image; `image` keeps the pointer in its key from being reused.
struct GpuTexture {
    _image: Arc<RgbaImage>,
    texture: Texture2DRef,
}

/// Instanced unit shapes plus the instances they hold, to upload only on change.
struct Shapes {
    joints: Gm<InstancedMesh, PhysicalMaterial>,
    bones: Gm<InstancedMesh, PhysicalMaterial>,
    grid: Gm<InstancedMesh, ColorMaterial>,
    /// The unit square laid under the grid; drawn only while there is a grid.
    floor: Gm<Mesh, PhysicalMaterial>,
    /// Contact shadows under the feet, on the floor.
    shadows: Gm<InstancedMesh, PhysicalMaterial>,
    joint_instances: Vec<Instance>,
    shadow_instances: Vec<Instance>,
    bone_instances: Vec<Instance>,
    grid_instances: Vec<Instance>,
}

pub struct ViewportRenderer {
    context: Context,
    meshes: HashMap<u64, GpuMesh>,
    /// Shared by the meshes that use them; dropped with the last such mesh.
    textures: HashMap<TextureKey, GpuTexture>,
    shapes: Shapes,
    /// The scene drawn last: if the next one is the same `Arc`, nothing needs uploading.
    last_scene: Weak<CharacterScene>,
    /// Reused conversion buffers (glam → cgmath), so steady frames allocate nothing.
    scratch_positions: Vec<three_d::Vec3>,
    scratch_normals: Vec<three_d::Vec3>,
    paints: u64,
    last_error: Option<String>,
    /// Where the scene is drawn first when it is drawn below the viewport's resolution.
    scaled: Option<scaled::Scaled>,
}

impl ViewportRenderer {
    /// Builds the renderer on egui's GL context; fails only if GL cannot give a vertex array.
    pub fn new(gl: Arc<glow::Context>) -> Result<Self, String> {
        let context = Context::from_gl_context(gl).map_err(|e| e.to_string())?;
        let shapes = Shapes::new(&context);
        Ok(Self {
            context,
            meshes: HashMap::new(),
            textures: HashMap::new(),
            shapes,
            last_scene: Weak::new(),
            scratch_positions: Vec::new(),
            scratch_normals: Vec::new(),
            paints: 0,
            last_error: None,
            scaled: None,
        })
    }

    /// Draws `scene` seen by `camera` into the callback's rect, clipped to its clip rect.
    pub fn paint(
        &mut self,
        info: &egui::PaintCallbackInfo,
        scene: &Arc<CharacterScene>,
        camera: &OrbitCamera,
    ) {
        let Some((viewport, scissor)) = viewport_and_scissor(info) else {
            return;
        };
        self.paints += 1;
        let changed = !Weak::ptr_eq(&self.last_scene, &Arc::downgrade(scene));
        if changed {
            self.sync_meshes(scene);
            self.sync_shapes(scene);
            self.last_scene = Arc::downgrade(scene);
        }
        self.touch_meshes(scene);
        self.evict_unused();

        let viewer = GlamViewer::new(camera, viewport);
        let screen = RenderTarget::screen(
            &self.context,
            info.screen_size_px[0],
            info.screen_size_px[1],
        );
        let scale = crate::app::graphics::render_scale();
        if scale < 1.0 {
            self.paint_scaled(&screen, (scissor, &viewer), scene, camera, scale);
            return;
        }
        let (ambient, sun) = lights(&self.context, camera);
        let lights: [&dyn Light; 2] = [&ambient, &sun];
        let [r, g, b] = BACKGROUND;
        screen.clear_partially(scissor, ClearState::color_and_depth(r, g, b, 1.0, 1.0));
        screen.render_partially(scissor, &viewer, self.ground_and_meshes(scene), &lights);
        if scene.show_skeleton {
            // A fresh depth buffer: the skeleton shows through the mesh, yet bones and
            // joints still hide each other correctly.
            screen.clear_partially(scissor, ClearState::depth(1.0));
            screen.render_partially(scissor, &viewer, self.skeleton(), &lights);
        }
    }

    /// The objects of the first pass: floor and grid, then the visible meshes.
    fn ground_and_meshes<'a>(&'a self, scene: &'a CharacterScene) -> Vec<&'a dyn Object> {
        let mut out: Vec<&dyn Object> = Vec::new();
        if self.shapes.grid.geometry.instance_count() > 0 {
            out.push(&self.shapes.floor);
            if self.shapes.shadows.geometry.instance_count() > 0 {
                out.push(&self.shapes.shadows);
            }
            out.push(&self.shapes.grid);
        }
        if scene.show_mesh {
            out.extend(
                scene
                    .meshes
                    .iter()
                    .filter_map(|m| self.meshes.get(&m.id))
                    .filter(|g| g.visible)
                    .map(|g| &g.object as &dyn Object),
            );
        }
        out
    }

    fn skeleton(&self) -> Vec<&dyn Object> {
        [&self.shapes.bones, &self.shapes.joints]
            .into_iter()
            .filter(|s| s.geometry.instance_count() > 0)
            .map(|s| s as &dyn Object)
            .collect()
    }

    /// Creates or refills the GPU mesh of every scene mesh.
    fn sync_meshes(&mut self, scene: &CharacterScene) {
        if !scene.show_mesh {
            return;
        }
        for draw in &scene.meshes {
            if draw.positions.is_empty() || draw.indices.is_empty() {
                continue;
            }
            to_cgmath(&draw.positions, &mut self.scratch_positions);
            to_cgmath(&draw.normals, &mut self.scratch_normals);
            let reusable = self.meshes.get(&draw.id).is_some_and(|g| {
                g.built_from(draw) && fits_partial_update(&g.object.geometry, draw.positions.len())
            });
            if !reusable {
                let gpu = self.new_gpu_mesh(draw);
                self.meshes.insert(draw.id, gpu);
                continue;
            }
            if let Err(e) = self.refill(draw) {
                self.report(format!("viewport: cannot update mesh {}: {e}", draw.id));
            }
        }
    }

    /// Uploads the scratch buffers into an existing GPU mesh.
    ///
    /// three-d 0.19's `Mesh::set_positions`/`set_normals` compare the length with the
    /// *index* count of an indexed mesh and refuse every real mesh, so this goes through the
    /// `_partially` variants at offset 0 (checked by [`fits_partial_update`]). Their bounding
    /// box only grows, which merely makes frustum culling conservative.
    fn refill(&mut self, draw: &MeshDraw) -> Result<(), three_d::RendererError> {
        let Some(gpu) = self.meshes.get_mut(&draw.id) else {
            return Ok(());
        };
        let geometry = &mut gpu.object.geometry;
        geometry.set_positions_partially(0, &self.scratch_positions)?;
        if self.scratch_normals.len() == self.scratch_positions.len() {
            geometry.set_normals_partially(0, &self.scratch_normals)?;
        }
        gpu.object.material.inner.albedo = srgba(draw.color);
        Ok(())
    }

    /// A GPU mesh from the scratch buffers (already converted from `draw`). UVs go up here,
    /// once: skinning moves vertices, never texture coordinates.
    fn new_gpu_mesh(&mut self, draw: &MeshDraw) -> GpuMesh {
        let texture = draw
            .texture
            .as_ref()
            .filter(|_| draw.uvs.len() == draw.positions.len())
            .map(|t| self.texture(t));
        let normals = (self.scratch_normals.len() == self.scratch_positions.len())
            .then(|| self.scratch_normals.clone());
        let cpu = CpuMesh {
            positions: Positions::F32(self.scratch_positions.clone()),
            indices: Indices::U32(draw.indices.as_ref().clone()),
            normals,
            uvs: texture.is_some().then(|| gl_uvs(&draw.uvs)),
            ..Default::default()
        };
        let (material, visible) = mesh_material(&self.context, draw, texture);
        GpuMesh {
            object: Gm::new(Mesh::new(&self.context, &cpu), material),
            indices: draw.indices.clone(),
            uvs: draw.uvs.clone(),
            texture: draw.texture.clone(),
            alpha_mode: draw.alpha_mode,
            vertex_count: draw.positions.len(),
            visible,
            last_used: self.paints,
        }
    }

    /// The GL texture of `t`, uploaded on first use.
    fn texture(&mut self, t: &DrawTexture) -> Texture2DRef {
        let key = (Arc::as_ptr(&t.image) as usize, t.wrap_s, t.wrap_t);
        let context = &self.context;
        self.textures
            .entry(key)
            .or_insert_with(|| GpuTexture {
                _image: t.image.clone(),
                texture: upload_texture(context, &t.image, t.wrap_s, t.wrap_t),
            })
            .texture
            .clone()
    }

    /// Re-uploads joint, bone and grid instances where they differ from what is on the GPU,
    /// and lays the floor under the grid.
    fn sync_shapes(&mut self, scene: &CharacterScene) {
        let (joints, bones) = skeleton_instances(scene);
        let bounds = scene.bounds();
        let grid = bounds.map(|(lo, hi)| (grid_for(lo, hi, scene.floor), (hi - lo).max_element()));
        let s = &mut self.shapes;
        if let Some((grid, _)) = &grid {
            s.floor
                .geometry
                .set_transformation(to_cgmath_mat4(floor_transform(grid)));
        }
        let shadows = grid
            .as_ref()
            .map(|(g, size)| shadow_instances(scene, g, *size))
            .unwrap_or_default();
        update_instances(&mut s.shadows.geometry, &mut s.shadow_instances, shadows);
        let grid = grid.map(|(g, _)| grid_instances(&g)).unwrap_or_default();
        update_instances(&mut s.joints.geometry, &mut s.joint_instances, joints);
        update_instances(&mut s.bones.geometry, &mut s.bone_instances, bones);
        update_instances(&mut s.grid.geometry, &mut s.grid_instances, grid);
    }

    fn touch_meshes(&mut self, scene: &CharacterScene) {
        for draw in &scene.meshes {
            if let Some(gpu) = self.meshes.get_mut(&draw.id) {
                gpu.last_used = self.paints;
            }
        }
    }

    fn evict_unused(&mut self) {
        let now = self.paints;
        self.meshes
            .retain(|_, g| now.saturating_sub(g.last_used) < EVICT_AFTER_PAINTS);
        // A texture that only this map still holds belongs to no mesh any more.
        self.textures
            .retain(|_, t| Arc::strong_count(&t.texture.texture) > 1);
    }

    /// Logs a problem once, not once per frame.
    fn report(&mut self, message: String) {
        if self.last_error.as_ref() != Some(&message) {
            eprintln!("{message}");
            self.last_error = Some(message);
        }
    }
}

impl Shapes {
    fn new(context: &Context) -> Self {
        let lit = |c: &Context| {
            let white = CpuMaterial {
                albedo: Srgba::WHITE,
                roughness: 0.6,
                ..Default::default()
            };
            PhysicalMaterial::new_opaque(c, &white)
        };
        let empty = Instances::default();
        let grid_material = ColorMaterial {
            color: Srgba::WHITE,
            ..Default::default()
        };
        let floor_material = CpuMaterial {
            albedo: srgba(FLOOR_COLOR),
            roughness: FLOOR_ROUGHNESS,
            ..Default::default()
        };
        Self {
            joints: Gm::new(
                InstancedMesh::new(context, &empty, &CpuMesh::sphere(12)),
                lit(context),
            ),
            bones: Gm::new(
                InstancedMesh::new(context, &empty, &CpuMesh::cylinder(10)),
                lit(context),
            ),
            grid: Gm::new(
                InstancedMesh::new(context, &empty, &CpuMesh::cylinder(4)),
                grid_material,
            ),
            floor: Gm::new(
                Mesh::new(context, &CpuMesh::square()),
                PhysicalMaterial::new_opaque(context, &floor_material),
            ),
            shadows: Gm::new(
                InstancedMesh::new(context, &empty, &CpuMesh::circle(32)),
                lit_like_the_floor(context),
            ),
            shadow_instances: Vec::new(),
            joint_instances: Vec::new(),
            bone_instances: Vec::new(),
            grid_instances: Vec::new(),
        }
    }
}

/// The floor's material, matte: no highlight that would read as a wet patch.
const FLOOR_ROUGHNESS: f32 = 0.9;

/// White and as matte as the floor: contact shadows are floor-coloured instances (darker),
/// so a faint one blends into the floor around it.
fn lit_like_the_floor(context: &Context) -> PhysicalMaterial {
    let white = CpuMaterial {
        albedo: Srgba::WHITE,
        roughness: FLOOR_ROUGHNESS,
        ..Default::default()
    };
    PhysicalMaterial::new_opaque(context, &white)
}

/// Whether [`ViewportRenderer::refill`] can update `vertices` vertices in place: three-d
/// bounds partial updates by the index count, which is below the vertex count only for a mesh
/// with unreferenced vertices; such a mesh is rebuilt instead.
fn fits_partial_update(mesh: &Mesh, vertices: usize) -> bool {
    vertices <= mesh.vertex_count() as usize
}

/// Uploads `next` unless it equals what the mesh already holds (`current`).
fn update_instances(mesh: &mut InstancedMesh, current: &mut Vec<Instance>, next: Vec<Instance>) {
    if *current == next {
        return;
    }
    let instances = Instances {
        transformations: next
            .iter()
            .map(|i| to_cgmath_mat4(i.world_from_shape))
            .collect(),
        colors: Some(next.iter().map(|i| srgba(i.color)).collect()),
        ..Default::default()
    };
    mesh.set_instances(&instances);
    *current = next;
}

/// The callback's viewport (for `glViewport`) and the scissor box that keeps drawing inside
/// both the viewport and the clip rect; `None` when that box is empty, because three-d
/// treats an empty scissor as "no scissor" and would clear the whole window.
fn viewport_and_scissor(info: &egui::PaintCallbackInfo) -> Option<(Viewport, ScissorBox)> {
    let vp = info.viewport_in_pixels();
    let clip = info.clip_rect_in_pixels();
    if vp.width_px <= 0 || vp.height_px <= 0 {
        return None;
    }
    let viewport = Viewport {
        x: vp.left_px,
        y: vp.from_bottom_px,
        width: vp.width_px as u32,
        height: vp.height_px as u32,
    };
    let clip_box = ScissorBox {
        x: clip.left_px,
        y: clip.from_bottom_px,
        width: clip.width_px.max(0) as u32,
        height: clip.height_px.max(0) as u32,
    };
    let scissor = ScissorBox::from(viewport).intersection(clip_box);
    (scissor.width > 0 && scissor.height > 0).then_some((viewport, scissor))
}

fn to_cgmath_vec3(v: glam::Vec3) -> three_d::Vec3 {
    three_d::vec3(v.x, v.y, v.z)
}

fn to_cgmath_mat4(m: glam::Mat4) -> three_d::Mat4 {
    three_d::Mat4::from(m.to_cols_array_2d())
}

/// Converts into a reused buffer: after the first frame this allocates nothing.
fn to_cgmath(src: &[glam::Vec3], dst: &mut Vec<three_d::Vec3>) {
    dst.clear();
    dst.extend(src.iter().map(|v| to_cgmath_vec3(*v)));
}

/// Linear RGBA (glTF's colour space) to the 8-bit sRGB that three-d's colours are in.
fn srgba(linear: [f32; 4]) -> Srgba {
    let encode = |c: f32| {
        let c = c.clamp(0.0, 1.0);
        let s = if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        };
        (s * 255.0).round() as u8
    };
    Srgba::new(
        encode(linear[0]),
        encode(linear[1]),
        encode(linear[2]),
        (linear[3].clamp(0.0, 1.0) * 255.0).round() as u8,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(viewport: egui::Rect, clip: egui::Rect) -> egui::PaintCallbackInfo {
        egui::PaintCallbackInfo {
            viewport,
            clip_rect: clip,
            pixels_per_point: 1.0,
            screen_size_px: [1000, 800],
        }
    }

    fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> egui::Rect {
        egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1))
    }

    #[test]
    fn scissor_is_the_viewport_inside_the_clip_rect() {
        // The right half of the window under a clip rect that covers the whole panel.
        let (vp, sc) = viewport_and_scissor(&info(
            rect(500.0, 100.0, 1000.0, 800.0),
            rect(0.0, 0.0, 1000.0, 800.0),
        ))
        .unwrap();
        assert_eq!((vp.x, vp.y, vp.width, vp.height), (500, 0, 500, 700));
        assert_eq!((sc.x, sc.y, sc.width, sc.height), (500, 0, 500, 700));
        // Half scrolled out at the top: GL's y runs up, so the box loses its upper part.
        let (_, sc) = viewport_and_scissor(&info(
            rect(0.0, 0.0, 400.0, 400.0),
            rect(0.0, 200.0, 1000.0, 800.0),
        ))
        .unwrap();
        assert_eq!((sc.x, sc.y, sc.width, sc.height), (0, 400, 400, 200));
    }

    #[test]
    fn nothing_to_draw_outside_the_clip_rect() {
        let hidden = info(
            rect(0.0, 0.0, 400.0, 400.0),
            rect(500.0, 0.0, 1000.0, 800.0),
        );
        assert!(viewport_and_scissor(&hidden).is_none());
    }

    #[test]
    fn linear_colours_become_srgb_bytes() {
        assert_eq!(srgba([0.0, 1.0, 0.5, 1.0]), Srgba::new(0, 255, 188, 255));
        assert_eq!(srgba([2.0, -1.0, 0.0, 0.5]), Srgba::new(255, 0, 0, 128));
    }
}
