//! CPU linear-blend skinning for the viewport. A few thousand vertices per character are
//! cheaper to skin on the CPU than to teach three-d's stock materials a skinning shader, and
//! the skinned positions are needed on the CPU anyway (bounds for framing and the grid).
//! Morph targets (blend shapes) are added to the rest vertices first, as glTF orders them.

use crate::io::{MeshPrimitive, SkinnedMesh};
use glam::{Mat4, Vec3};

/// Skins every primitive of `mesh` into `out_positions`/`out_normals`, one after the other
/// in primitive order. `world_from_joint` holds one matrix per skeleton joint (as
/// `Pose::world_matrices` gives). The outputs are resized, so once they have grown to the
/// mesh's vertex count this allocates nothing. `morph_weights` holds one weight per morph
/// of the mesh (see [`skin_primitive_into`]).
pub fn skin_into(
    mesh: &SkinnedMesh,
    world_from_joint: &[Mat4],
    morph_weights: &[f32],
    out_positions: &mut Vec<Vec3>,
    out_normals: &mut Vec<Vec3>,
) {
    let n = mesh.vertex_count();
    out_positions.resize(n, Vec3::ZERO);
    out_normals.resize(n, Vec3::ZERO);
    let mut start = 0;
    for prim in &mesh.primitives {
        let end = start + prim.positions.len();
        skin_primitive(
            prim,
            &mesh.inverse_bind,
            world_from_joint,
            morph_weights,
            &mut out_positions[start..end],
            &mut out_normals[start..end],
        );
        start = end;
    }
}

/// Skins one primitive (one material) into vectors of its own, as the viewport draws each
/// primitive with its own colour. Resizes the outputs like [`skin_into`].
///
/// `morph_weights` holds one weight per morph of the primitive (`io::morph_weights` gives
/// them): each vertex first moves by `Σ w_m · morphs[m].positions[v]` (its normal likewise
/// where the morph has normals, renormalised), then is skinned. Zero weights cost nothing;
/// an empty slice (or all zeros) skins the rest vertices.
pub fn skin_primitive_into(
    prim: &MeshPrimitive,
    inverse_bind: &[Mat4],
    world_from_joint: &[Mat4],
    morph_weights: &[f32],
    out_positions: &mut Vec<Vec3>,
    out_normals: &mut Vec<Vec3>,
) {
    let n = prim.positions.len();
    out_positions.resize(n, Vec3::ZERO);
    out_normals.resize(n, Vec3::ZERO);
    skin_primitive(
        prim,
        inverse_bind,
        world_from_joint,
        morph_weights,
        out_positions,
        out_normals,
    );
}

/// The blend itself, into slices of exactly the primitive's vertex count.
///
/// Each influence costs one matrix product (`world_from_joint * inverse_bind`) rather than a
/// per-joint table, so no scratch buffer is needed; rigid parts (one influence) pay one.
/// Weights are renormalised; a vertex with no usable influence keeps its bind position.
/// Normals use the blended matrix's linear part and are renormalised, which is exact for
/// rotations and uniform scale, the cases skinned rigs use.
fn skin_primitive(
    prim: &MeshPrimitive,
    inverse_bind: &[Mat4],
    world_from_joint: &[Mat4],
    morph_weights: &[f32],
    out_positions: &mut [Vec3],
    out_normals: &mut [Vec3],
) {
    // Only the morphs this primitive has, and only when one of them is moved at all.
    let weights = &morph_weights[..morph_weights.len().min(prim.morphs.len())];
    let morphed = weights.iter().any(|w| moves(*w));
    for (v, (pos_out, nrm_out)) in out_positions
        .iter_mut()
        .zip(out_normals.iter_mut())
        .enumerate()
    {
        let mut position = prim.positions[v];
        let mut normal = prim.normals.get(v).copied().unwrap_or(Vec3::Y);
        if morphed {
            morph_vertex(prim, weights, v, &mut position, &mut normal);
        }
        let joints = prim.joints.get(v).copied().unwrap_or([0; 4]);
        let weights = prim.weights.get(v).copied().unwrap_or([0.0; 4]);
        match blend(joints, weights, inverse_bind, world_from_joint) {
            Some(world_from_mesh) => {
                *pos_out = world_from_mesh.transform_point3(position);
                *nrm_out = world_from_mesh
                    .transform_vector3(normal)
                    .normalize_or(normal);
            }
            None => {
                *pos_out = position;
                *nrm_out = normal;
            }
        }
    }
}

/// Whether a morph weight moves anything: zero and non-finite weights are skipped.
fn moves(w: f32) -> bool {
    w != 0.0 && w.is_finite()
}

/// Adds the weighted morph offsets of vertex `v` to its rest position and normal (the normal
/// only when the primitive has normals and a moved morph has some, then renormalised).
fn morph_vertex(
    prim: &MeshPrimitive,
    weights: &[f32],
    v: usize,
    position: &mut Vec3,
    normal: &mut Vec3,
) {
    let mut dn = Vec3::ZERO;
    for (morph, &w) in prim.morphs.iter().zip(weights) {
        if !moves(w) {
            continue;
        }
        if let Some(d) = morph.positions.get(v) {
            *position += w * *d;
        }
        if let Some(d) = morph.normals.get(v) {
            dn += w * *d;
        }
    }
    if dn != Vec3::ZERO && v < prim.normals.len() {
        *normal = (*normal + dn).normalize_or(*normal);
    }
}

/// `Σ wᵢ · world_from_joint[jᵢ] · inverse_bind[jᵢ] / Σ wᵢ` over the influences that name a
/// joint both tables know; `None` when there are none.
fn blend(
    joints: [u16; 4],
    weights: [f32; 4],
    inverse_bind: &[Mat4],
    world_from_joint: &[Mat4],
) -> Option<Mat4> {
    let mut sum = Mat4::ZERO;
    let mut total = 0.0;
    for (&j, &w) in joints.iter().zip(&weights) {
        if w <= 0.0 {
            continue;
        }
        let j = j as usize;
        let (Some(world), Some(ib)) = (world_from_joint.get(j), inverse_bind.get(j)) else {
            continue;
        };
        sum += (*world * *ib) * w;
        total += w;
    }
    (total > 1e-8).then(|| sum * (1.0 / total))
}

/// Axis-aligned bounds of `points`; `(ZERO, ZERO)` for none, so callers never see infinities.
pub fn bounds(points: &[Vec3]) -> (Vec3, Vec3) {
    if points.is_empty() {
        return (Vec3::ZERO, Vec3::ZERO);
    }
    points.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| {
        (lo.min(*p), hi.max(*p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    fn prim(positions: Vec<Vec3>, joints: Vec<[u16; 4]>, weights: Vec<[f32; 4]>) -> MeshPrimitive {
        let n = positions.len();
        MeshPrimitive {
            normals: vec![Vec3::Y; n],
            indices: (0..n as u32).collect(),
            positions,
            joints,
            weights,
            base_color: [1.0; 4],
            uvs: Vec::new(),
            base_color_texture: None,
            alpha_mode: crate::io::AlphaMode::Opaque,
            morphs: Vec::new(),
        }
    }

    fn mesh(primitives: Vec<MeshPrimitive>, inverse_bind: Vec<Mat4>) -> SkinnedMesh {
        SkinnedMesh {
            name: "m".into(),
            skeleton: 0,
            inverse_bind,
            primitives,
            morph_weights: Vec::new(),
        }
    }

    #[test]
    fn half_and_half_between_two_joints_lands_midway() {
        let p = prim(
            vec![Vec3::new(1.0, 0.0, 0.0)],
            vec![[0, 1, 0, 0]],
            vec![[0.5, 0.5, 0.0, 0.0]],
        );
        let m = mesh(vec![p], vec![Mat4::IDENTITY; 2]);
        let worlds = [
            Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0)),
            Mat4::from_translation(Vec3::new(0.0, 0.0, 4.0)),
        ];
        let (mut pos, mut nrm) = (Vec::new(), Vec::new());
        skin_into(&m, &worlds, &[], &mut pos, &mut nrm);
        assert!(
            pos[0].abs_diff_eq(Vec3::new(1.0, 1.0, 2.0), 1e-6),
            "{}",
            pos[0]
        );
        assert!(nrm[0].abs_diff_eq(Vec3::Y, 1e-6));
    }

    #[test]
    fn bind_pose_reproduces_bind_positions() {
        let binds = [
            Mat4::from_rotation_translation(Quat::from_rotation_z(0.7), Vec3::new(0.0, 1.0, 0.0)),
            Mat4::from_scale_rotation_translation(
                Vec3::splat(0.01),
                Quat::from_rotation_y(-1.2),
                Vec3::new(0.3, 1.4, -0.2),
            ),
        ];
        let inverse_bind: Vec<Mat4> = binds.iter().map(|m| m.inverse()).collect();
        let positions = vec![Vec3::new(0.2, 1.1, 0.0), Vec3::new(-0.4, 1.5, 0.3)];
        let p = prim(
            positions.clone(),
            vec![[0, 1, 0, 0], [1, 0, 0, 0]],
            vec![[0.3, 0.7, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
        );
        let m = mesh(vec![p.clone(), p], inverse_bind);
        let (mut pos, mut nrm) = (Vec::new(), Vec::new());
        skin_into(&m, &binds, &[], &mut pos, &mut nrm);
        assert_eq!(pos.len(), 4);
        for (got, want) in pos.iter().zip(positions.iter().cycle()) {
            assert!(got.abs_diff_eq(*want, 1e-4), "{got} vs {want}");
        }
        for n in &nrm {
            assert!(n.abs_diff_eq(Vec3::Y, 1e-4), "{n}");
        }
    }

    #[test]
    fn weights_are_renormalised_and_bad_joints_skipped() {
        let p = prim(
            vec![Vec3::ZERO, Vec3::ONE],
            vec![[0, 9, 0, 0], [9, 9, 9, 9]],
            vec![[0.2, 0.8, 0.0, 0.0], [0.25; 4]],
        );
        let m = mesh(vec![p], vec![Mat4::IDENTITY]);
        let worlds = [Mat4::from_translation(Vec3::X)];
        let (mut pos, mut nrm) = (Vec::new(), Vec::new());
        skin_into(&m, &worlds, &[], &mut pos, &mut nrm);
        assert!(pos[0].abs_diff_eq(Vec3::X, 1e-6), "{}", pos[0]);
        // No known joint at all: the bind position stays.
        assert_eq!(pos[1], Vec3::ONE);
    }

    #[test]
    fn sized_outputs_are_reused() {
        let p = prim(
            vec![Vec3::ZERO; 3],
            vec![[0; 4]; 3],
            vec![[1.0, 0.0, 0.0, 0.0]; 3],
        );
        let (mut pos, mut nrm) = (Vec::new(), Vec::new());
        skin_primitive_into(
            &p,
            &[Mat4::IDENTITY],
            &[Mat4::IDENTITY],
            &[],
            &mut pos,
            &mut nrm,
        );
        let ptr = pos.as_ptr();
        skin_primitive_into(
            &p,
            &[Mat4::IDENTITY],
            &[Mat4::IDENTITY],
            &[],
            &mut pos,
            &mut nrm,
        );
        assert_eq!(ptr, pos.as_ptr());
        assert_eq!(pos.len(), 3);
    }

    /// Two morphs on a two-vertex primitive: the first lifts vertex 0 and tilts its normal,
    /// the second pushes vertex 1 along X.
    fn morphed() -> MeshPrimitive {
        let mut p = prim(
            vec![Vec3::ZERO, Vec3::X],
            vec![[0; 4]; 2],
            vec![[1.0, 0.0, 0.0, 0.0]; 2],
        );
        p.morphs = vec![
            crate::io::MorphDelta {
                positions: vec![Vec3::new(0.0, 0.5, 0.0), Vec3::ZERO],
                normals: vec![Vec3::new(1.0, -1.0, 0.0), Vec3::ZERO],
            },
            crate::io::MorphDelta {
                positions: vec![Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0)],
                normals: Vec::new(),
            },
        ];
        p
    }

    #[test]
    fn morphs_move_the_rest_vertices_before_skinning() {
        let p = morphed();
        let turn = Mat4::from_rotation_translation(
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            Vec3::new(0.0, 0.0, 3.0),
        );
        let (mut pos, mut nrm) = (Vec::new(), Vec::new());
        skin_primitive_into(
            &p,
            &[Mat4::IDENTITY],
            &[turn],
            &[1.0, 0.25],
            &mut pos,
            &mut nrm,
        );
        // Vertex 0 lifted by 0.5 then turned a quarter about Z: (0, 0.5, 0) → (-0.5, 0, 3).
        assert!(
            pos[0].abs_diff_eq(Vec3::new(-0.5, 0.0, 3.0), 1e-5),
            "{}",
            pos[0]
        );
        // Vertex 1 pushed by 0.25 · 2 along X: (1.5, 0, 0) → (0, 1.5, 3).
        assert!(
            pos[1].abs_diff_eq(Vec3::new(0.0, 1.5, 3.0), 1e-5),
            "{}",
            pos[1]
        );
        // The normal Y + (1, -1, 0) = X, renormalised, then turned: Y.
        assert!(nrm[0].abs_diff_eq(Vec3::Y, 1e-5), "{}", nrm[0]);
        // No normal offsets on vertex 1: its normal only turns.
        assert!(nrm[1].abs_diff_eq(Vec3::NEG_X, 1e-5), "{}", nrm[1]);
    }

    #[test]
    fn zero_missing_and_extra_weights_leave_the_rest_vertices() {
        let p = morphed();
        let (mut pos, mut nrm) = (Vec::new(), Vec::new());
        for weights in [&[][..], &[0.0, 0.0], &[f32::NAN, 0.0], &[0.0, 0.0, 7.0]] {
            skin_primitive_into(
                &p,
                &[Mat4::IDENTITY],
                &[Mat4::IDENTITY],
                weights,
                &mut pos,
                &mut nrm,
            );
            assert_eq!(pos, p.positions, "{weights:?}");
            assert_eq!(nrm, p.normals, "{weights:?}");
        }
        // Half a morph moves half as far; a negative weight the other way.
        skin_primitive_into(
            &p,
            &[Mat4::IDENTITY],
            &[Mat4::IDENTITY],
            &[0.5, -1.0],
            &mut pos,
            &mut nrm,
        );
        assert!(pos[0].abs_diff_eq(Vec3::new(0.0, 0.25, 0.0), 1e-6));
        assert!(pos[1].abs_diff_eq(Vec3::new(-1.0, 0.0, 0.0), 1e-6));
    }

    #[test]
    fn a_whole_mesh_takes_one_weight_list_for_all_its_primitives() {
        let m = mesh(vec![morphed(), morphed()], vec![Mat4::IDENTITY]);
        let (mut pos, mut nrm) = (Vec::new(), Vec::new());
        skin_into(&m, &[Mat4::IDENTITY], &[0.0, 1.0], &mut pos, &mut nrm);
        assert_eq!(pos[1], Vec3::new(3.0, 0.0, 0.0));
        assert_eq!(pos[3], Vec3::new(3.0, 0.0, 0.0));
        let ptr = pos.as_ptr();
        skin_into(&m, &[Mat4::IDENTITY], &[1.0, 0.0], &mut pos, &mut nrm);
        assert_eq!(ptr, pos.as_ptr(), "the outputs are reused");
        assert_eq!(pos[2], Vec3::new(0.0, 0.5, 0.0));
    }

    #[test]
    fn bounds_of_points_and_of_nothing() {
        let (lo, hi) = bounds(&[Vec3::new(1.0, -2.0, 3.0), Vec3::new(-1.0, 5.0, 0.0)]);
        assert_eq!(lo, Vec3::new(-1.0, -2.0, 0.0));
        assert_eq!(hi, Vec3::new(1.0, 5.0, 3.0));
        assert_eq!(bounds(&[]), (Vec3::ZERO, Vec3::ZERO));
    }
}
