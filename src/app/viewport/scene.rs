//! What a viewport draws, as plain data: skinned triangles, joint positions, bones. The app
//! builds it from the document; the renderer only reads it; picking and the grid are pure
//! functions of it, so all of this is testable without a GL context.

use super::camera::OrbitCamera;
use super::skinning::{bounds, skin_primitive_into};
use super::texture::{DrawTexture, TextureCache};
use crate::io::{AlphaMode, SkinnedMesh};
use eframe::egui;
use glam::{Mat4, Vec3};
use std::sync::Arc;

/// How close (in points) the pointer must come to a joint to pick it.
pub const PICK_RADIUS_POINTS: f32 = 12.0;

/// One skinned primitive, already in world space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshDraw {
    /// Stable for the life of the mesh, so the renderer keeps its GPU buffers and only
    /// refills the vertex data.
    pub id: u64,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    /// Shared with the previous frames' scenes: the topology never changes under animation.
    pub indices: Arc<Vec<u32>>,
    /// Linear RGBA (glTF `baseColorFactor`).
    pub color: [f32; 4],
    /// Texture coordinates (glTF's: v runs down the image), one per vertex, or empty. Static,
    /// so shared from frame to frame like `indices`.
    pub uvs: Arc<Vec<[f32; 2]>>,
    /// The decoded base colour texture, multiplied by `color`; only with `uvs`.
    pub texture: Option<DrawTexture>,
    pub alpha_mode: AlphaMode,
}

/// A second skeleton drawn in another colour (the source over the target, a reference pose).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkeletonOverlay {
    pub joints: Vec<Vec3>,
    pub bones: Vec<(Vec3, Vec3)>,
    /// Linear RGBA.
    pub color: [f32; 4],
}

#[derive(Clone, Debug, PartialEq)]
pub struct CharacterScene {
    pub meshes: Vec<MeshDraw>,
    /// World positions of the joints, in skeleton order (what `selected_joint` indexes).
    pub joints: Vec<Vec3>,
    /// Parent → child segments.
    pub bones: Vec<(Vec3, Vec3)>,
    pub selected_joint: Option<usize>,
    /// The chain selected in the Skeleton tab: joints in skeleton order, each the parent of
    /// the next, drawn in [`super::instances::CHAIN_COLOR`].
    pub highlighted_chain: Vec<usize>,
    pub show_mesh: bool,
    pub show_skeleton: bool,
    /// Joints not drawn, not picked and not framed: bones that deform nothing (IK targets,
    /// helpers) while those are hidden. Empty: every joint is shown.
    pub hidden: Vec<bool>,
    pub overlay: Option<SkeletonOverlay>,
    /// In world units; joints are drawn at twice this.
    pub bone_radius: f32,
    /// Height the character's soles stand at, where its floor is drawn; `None`: not known,
    /// the glTF ground (y = 0) unless the character is nowhere near it.
    pub floor: Option<f32>,
    /// How high a planted ankle stands above the floor (see `app::floor`).
    pub ankle_height: f32,
    /// Each foot's ankle, with its toes when known, as posed: where contact shadows fall.
    pub feet: Vec<(Vec3, Option<Vec3>)>,
}

impl Default for CharacterScene {
    fn default() -> Self {
        Self {
            meshes: Vec::new(),
            joints: Vec::new(),
            bones: Vec::new(),
            selected_joint: None,
            highlighted_chain: Vec::new(),
            show_mesh: true,
            show_skeleton: true,
            hidden: Vec::new(),
            overlay: None,
            bone_radius: 0.01,
            floor: None,
            ankle_height: 0.0,
            feet: Vec::new(),
        }
    }
}

impl CharacterScene {
    /// Skins `meshes` and places the skeleton for one pose, reusing this scene's vectors and
    /// index buffers. `id_base` tells characters apart (mesh ids are derived from it), so two
    /// characters drawn by one renderer never share GPU buffers. `textures` holds the decoded
    /// images of `meshes` (after [`TextureCache::prepare`]). `morph_weights` holds each
    /// mesh's morph weights, in `meshes` order (`io::morph_weights::morph_weights`); a mesh
    /// past its end is drawn without morphs.
    pub fn set_pose(
        &mut self,
        id_base: u64,
        parents: &[Option<usize>],
        meshes: &[SkinnedMesh],
        morph_weights: &[Vec<f32>],
        world_from_joint: &[Mat4],
        textures: &TextureCache,
    ) {
        self.joints.clear();
        self.joints
            .extend(world_from_joint.iter().map(|m| m.w_axis.truncate()));
        bones_into(parents, &self.joints, &mut self.bones);
        if self.hidden.iter().any(|h| *h) {
            self.bones.clear();
            for (child, parent) in parents.iter().enumerate() {
                if let Some(p) = *parent
                    && !self.is_hidden(child)
                    && !self.is_hidden(p)
                    && let (Some(a), Some(b)) = (self.joints.get(p), self.joints.get(child))
                {
                    self.bones.push((*a, *b));
                }
            }
        }
        let prims = meshes.iter().enumerate().flat_map(|(m, mesh)| {
            mesh.primitives
                .iter()
                .enumerate()
                .map(move |(p, prim)| (mesh_id(id_base, m, p), m, mesh, prim))
        });
        let mut count = 0;
        for (k, (id, m, mesh, prim)) in prims.enumerate() {
            if self.meshes.len() <= k {
                self.meshes.push(MeshDraw::default());
            }
            let draw = &mut self.meshes[k];
            if draw.id != id || draw.indices.len() != prim.indices.len() {
                draw.id = id;
                draw.indices = Arc::new(prim.indices.clone());
                draw.uvs = Arc::new(prim.uvs.clone());
            }
            draw.color = prim.base_color;
            draw.texture = textures
                .texture_for(prim)
                .filter(|_| draw.uvs.len() == prim.positions.len());
            draw.alpha_mode = prim.alpha_mode;
            skin_primitive_into(
                prim,
                &mesh.inverse_bind,
                world_from_joint,
                morph_weights.get(m).map_or(&[][..], Vec::as_slice),
                &mut draw.positions,
                &mut draw.normals,
            );
            count = k + 1;
        }
        self.meshes.truncate(count);
    }

    /// Whether joint `j` is left out of drawing, picking and framing.
    pub fn is_hidden(&self, j: usize) -> bool {
        self.hidden.get(j).copied().unwrap_or(false)
    }

    /// Bounds of what is shown (mesh when visible, joints, overlay), or `None` when empty.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        let mut acc: Option<(Vec3, Vec3)> = None;
        let mut add = |points: &[Vec3]| {
            if points.is_empty() {
                return;
            }
            let (lo, hi) = bounds(points);
            acc = Some(acc.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
        };
        if self.show_mesh {
            self.meshes.iter().for_each(|m| add(&m.positions));
        }
        let shown: Vec<Vec3> = (0..self.joints.len())
            .filter(|&j| !self.is_hidden(j))
            .map(|j| self.joints[j])
            .collect();
        add(&shown);
        if let Some(o) = &self.overlay {
            add(&o.joints);
        }
        acc
    }
}

/// A mesh id that stays the same for the same primitive of the same character.
pub fn mesh_id(id_base: u64, mesh: usize, primitive: usize) -> u64 {
    (id_base << 32) ^ ((mesh as u64) << 16) ^ primitive as u64
}

/// One segment per joint with a parent, from the parent's position to the joint's.
pub fn bones_into(parents: &[Option<usize>], joints: &[Vec3], out: &mut Vec<(Vec3, Vec3)>) {
    out.clear();
    for (child, parent) in parents.iter().enumerate() {
        if let (Some(p), Some(c)) = (parent.and_then(|p| joints.get(p)), joints.get(child)) {
            out.push((*p, *c));
        }
    }
}

/// A bone radius that reads well at any scale: a small fraction of the character's size.
pub fn suggested_bone_radius(min: Vec3, max: Vec3) -> f32 {
    ((max - min).max_element() * 0.006).max(1e-5)
}

/// The joint under `pointer`: the nearest projected joint within [`PICK_RADIUS_POINTS`], and
/// of joints equally near on screen, the one nearer the camera. Hidden skeletons pick nothing.
pub fn pick_joint(
    scene: &CharacterScene,
    camera: &OrbitCamera,
    rect: egui::Rect,
    pointer: egui::Pos2,
) -> Option<usize> {
    if !scene.show_skeleton {
        return None;
    }
    let eye = camera.eye();
    let mut best: Option<(f32, f32, usize)> = None;
    for (i, joint) in scene.joints.iter().enumerate() {
        if scene.is_hidden(i) {
            continue;
        }
        let Some(at) = camera.project(*joint, rect) else {
            continue;
        };
        let d = at.distance(pointer);
        if d > PICK_RADIUS_POINTS {
            continue;
        }
        let depth = joint.distance(eye);
        let better = best.is_none_or(|(bd, bz, _)| d < bd - 0.5 || (d <= bd + 0.5 && depth < bz));
        if better {
            best = Some((d, depth, i));
        }
    }
    best.map(|(_, _, i)| i)
}

/// Joints that are helpers to `meshes`: no vertex weighs on them, and they do not link two
/// joints that do (IK targets and their roots, controls, end sites). A root left at the
/// origin drew a line to each foot across the floor as the character walked away. A
/// skeleton without a mesh has no helpers: it is all there is; and a joint with a humanoid
/// label (`labels`, one per joint) is never one: a VRM humanoid of bare nodes with a mesh on
/// its head alone showed only the head.
pub fn helper_joints(
    parents: &[Option<usize>],
    meshes: &[SkinnedMesh],
    labels: &[Option<crate::core::HumanBone>],
) -> Vec<bool> {
    let mut deforms = vec![false; parents.len()];
    if meshes.is_empty() {
        return vec![false; parents.len()];
    }
    for prim in meshes.iter().flat_map(|m| &m.primitives) {
        for (joints, weights) in prim.joints.iter().zip(&prim.weights) {
            for (j, w) in joints.iter().zip(weights) {
                if *w > 0.0
                    && let Some(d) = deforms.get_mut(*j as usize)
                {
                    *d = true;
                }
            }
        }
    }
    // Joints with a deforming joint at or below them.
    let mut below = vec![false; parents.len()];
    for j in (0..parents.len()).filter(|&j| deforms[j]) {
        let mut at = Some(j);
        while let Some(k) = at {
            if below[k] {
                break;
            }
            below[k] = true;
            at = parents.get(k).copied().flatten();
        }
    }
    (0..parents.len())
        .map(|j| {
            let mut above = false;
            let mut at = parents[j];
            while let Some(k) = at {
                if deforms[k] {
                    above = true;
                    break;
                }
                at = parents.get(k).copied().flatten();
            }
            let labelled = labels.get(j).is_some_and(Option::is_some);
            !(deforms[j] || labelled || (above && below[j]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::MeshPrimitive;

    fn rect() -> egui::Rect {
        egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(800.0, 600.0))
    }

    fn scene_with_joints(joints: Vec<Vec3>) -> CharacterScene {
        CharacterScene {
            joints,
            ..Default::default()
        }
    }

    #[test]
    fn picks_the_nearest_joint_on_screen() {
        let cam = OrbitCamera::default();
        let scene = scene_with_joints(vec![cam.target, cam.target + Vec3::new(0.3, 0.0, 0.0)]);
        let at = cam.project(scene.joints[1], rect()).unwrap();
        let got = pick_joint(&scene, &cam, rect(), at + egui::vec2(3.0, -4.0));
        assert_eq!(got, Some(1));
        let centre = cam.project(scene.joints[0], rect()).unwrap();
        assert_eq!(pick_joint(&scene, &cam, rect(), centre), Some(0));
    }

    #[test]
    fn nothing_picked_far_away_or_hidden() {
        let cam = OrbitCamera::default();
        let mut scene = scene_with_joints(vec![cam.target]);
        let centre = rect().center();
        assert_eq!(
            pick_joint(&scene, &cam, rect(), centre + egui::vec2(20.0, 0.0)),
            None
        );
        scene.show_skeleton = false;
        assert_eq!(pick_joint(&scene, &cam, rect(), centre), None);
    }

    #[test]
    fn overlapping_joints_pick_the_front_one() {
        let cam = OrbitCamera::default();
        let towards_eye = (cam.eye() - cam.target).normalize();
        let scene = scene_with_joints(vec![cam.target, cam.target + towards_eye * 0.5]);
        assert_eq!(pick_joint(&scene, &cam, rect(), rect().center()), Some(1));
    }

    #[test]
    fn bones_follow_parents() {
        let joints = [Vec3::ZERO, Vec3::Y, Vec3::X];
        let mut bones = Vec::new();
        bones_into(&[None, Some(0), Some(0)], &joints, &mut bones);
        assert_eq!(bones, vec![(Vec3::ZERO, Vec3::Y), (Vec3::ZERO, Vec3::X)]);
        // A parent past the end is skipped rather than panicking.
        bones_into(&[None, Some(7)], &joints, &mut bones);
        assert!(bones.is_empty());
    }

    #[test]
    fn helpers_are_the_joints_that_neither_deform_nor_link_deforming_ones() {
        // 0 root (IK root at the origin) - 1 hips (weighted) - 2 twist (unweighted) -
        // 3 knee (weighted) - 4 end site; 0 - 5 an IK target.
        let parents = [None, Some(0), Some(1), Some(2), Some(3), Some(0)];
        let mut mesh = one_triangle_mesh();
        mesh.inverse_bind = vec![Mat4::IDENTITY; 6];
        mesh.primitives[0].joints = vec![[1, 3, 0, 0]; 3];
        mesh.primitives[0].weights = vec![[0.5, 0.5, 0.0, 0.0]; 3];
        let helpers = helper_joints(&parents, &[mesh.clone()], &[]);
        assert_eq!(helpers, [true, false, false, false, true, true]);
        assert!(
            helper_joints(&parents, &[], &[]).iter().all(|h| !h),
            "no mesh, no helpers"
        );
        // A labelled joint is shown, weighted or not (the end site labelled a toe here).
        let mut labels = vec![None; 6];
        labels[4] = Some(crate::core::HumanBone::LeftToes);
        let helpers = helper_joints(&parents, &[mesh], &labels);
        assert_eq!(helpers, [true, false, false, false, false, true]);
    }

    fn one_triangle_mesh() -> SkinnedMesh {
        SkinnedMesh {
            name: "tri".into(),
            skeleton: 0,
            inverse_bind: vec![Mat4::IDENTITY; 2],
            primitives: vec![MeshPrimitive {
                positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
                normals: vec![Vec3::Z; 3],
                indices: vec![0, 1, 2],
                joints: vec![[1, 0, 0, 0]; 3],
                weights: vec![[1.0, 0.0, 0.0, 0.0]; 3],
                base_color: [0.5, 0.5, 0.5, 1.0],
                uvs: vec![[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]],
                base_color_texture: None,
                alpha_mode: AlphaMode::Opaque,
                morphs: Vec::new(),
            }],
            morph_weights: Vec::new(),
        }
    }

    #[test]
    fn set_pose_applies_each_meshs_morph_weights_before_skinning() {
        let mut mesh = one_triangle_mesh();
        mesh.primitives[0].morphs = vec![crate::io::MorphDelta {
            positions: vec![Vec3::Z, Vec3::ZERO, Vec3::ZERO],
            normals: Vec::new(),
        }];
        let meshes = [mesh.clone(), mesh];
        let worlds = [Mat4::IDENTITY, Mat4::from_translation(Vec3::Y)];
        let mut scene = CharacterScene::default();
        let textures = TextureCache::default();
        let parents = [None, Some(0)];
        // The first mesh at half its morph, the second left without weights.
        let weights = [vec![0.5]];
        scene.set_pose(7, &parents, &meshes, &weights, &worlds, &textures);
        assert_eq!(scene.meshes[0].positions[0], Vec3::new(0.0, 1.0, 0.5));
        assert_eq!(scene.meshes[1].positions[0], Vec3::new(0.0, 1.0, 0.0));
        assert_eq!(scene.meshes[0].positions[1], Vec3::new(1.0, 1.0, 0.0));
    }

    #[test]
    fn set_pose_skins_and_keeps_ids_and_indices() {
        let meshes = [one_triangle_mesh()];
        let worlds = [
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0)),
        ];
        let mut scene = CharacterScene::default();
        let textures = TextureCache::default();
        scene.set_pose(7, &[None, Some(0)], &meshes, &[], &worlds, &textures);
        assert_eq!(scene.meshes.len(), 1);
        assert_eq!(scene.meshes[0].positions[1], Vec3::new(1.0, 2.0, 0.0));
        assert_eq!(scene.joints, vec![Vec3::ZERO, Vec3::new(0.0, 2.0, 0.0)]);
        assert_eq!(scene.bones.len(), 1);
        let (id, indices) = (scene.meshes[0].id, scene.meshes[0].indices.clone());
        let uvs = scene.meshes[0].uvs.clone();
        assert_eq!(uvs.len(), 3);
        scene.set_pose(
            7,
            &[None, Some(0)],
            &meshes,
            &[],
            &[Mat4::IDENTITY; 2],
            &textures,
        );
        assert_eq!(scene.meshes[0].id, id);
        assert!(Arc::ptr_eq(&scene.meshes[0].indices, &indices));
        assert!(
            Arc::ptr_eq(&scene.meshes[0].uvs, &uvs),
            "UVs are uploaded once"
        );
        assert!(scene.meshes[0].texture.is_none());
        assert_ne!(mesh_id(8, 0, 0), id);
        let (lo, hi) = scene.bounds().unwrap();
        assert_eq!((lo, hi), (Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0)));
    }
}
