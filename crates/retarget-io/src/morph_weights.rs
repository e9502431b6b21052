//! The morph weights a set of named curve values gives an asset's meshes: what a viewer
//! applies to the vertices before skinning.

use crate::asset::{Asset, MorphBind};

/// Per `asset.meshes[i]`, one weight per morph: the mesh's defaults (`morph_weights`), with
/// the morphs a curve moves set instead to the sum of each such curve's weight × its bind's
/// weight. `curves` pairs a [`crate::CurveTarget`] name with its value; a name the asset has
/// no weight for, or a value that is not finite, moves nothing. Binds naming a mesh or a
/// morph the asset lacks are skipped. Each mesh's list is as long as its primitives have
/// morphs (defaults past them are dropped, missing defaults read 0).
pub fn morph_weights(asset: &Asset, curves: &[(&str, f32)]) -> Vec<Vec<f32>> {
    let mut out = Vec::new();
    morph_weights_into(asset, curves.iter().copied(), &mut out);
    out
}

/// As [`morph_weights`], into `out`, reusing its vectors (a viewer's per-frame path);
/// `curves` is walked twice.
pub fn morph_weights_into<'a>(
    asset: &Asset,
    curves: impl Iterator<Item = (&'a str, f32)> + Clone,
    out: &mut Vec<Vec<f32>>,
) {
    out.resize_with(asset.meshes.len(), Vec::new);
    for (mesh, weights) in out.iter_mut().enumerate() {
        mesh_weights(asset, mesh, curves.clone(), weights);
    }
}

/// One mesh's weights (see [`morph_weights`]) into `out`.
fn mesh_weights<'a>(
    asset: &Asset,
    mesh: usize,
    curves: impl Iterator<Item = (&'a str, f32)> + Clone,
    out: &mut Vec<f32>,
) {
    let m = &asset.meshes[mesh];
    out.clear();
    out.extend((0..m.morph_count()).map(|i| {
        m.morph_weights
            .get(i)
            .copied()
            .filter(|w| w.is_finite())
            .unwrap_or(0.0)
    }));
    let on_mesh = |name| binds(asset, name).filter(move |b| b.mesh == mesh);
    // A morph some curve drives starts from 0, not from its default: the curves replace it.
    for (name, _) in curves.clone() {
        for b in on_mesh(name) {
            if let Some(w) = out.get_mut(b.morph) {
                *w = 0.0;
            }
        }
    }
    for (name, value) in curves {
        if !value.is_finite() {
            continue;
        }
        for b in on_mesh(name) {
            if let Some(w) = out.get_mut(b.morph)
                && b.weight.is_finite()
            {
                *w += value * b.weight;
            }
        }
    }
}

/// A mesh's weights over time, as `curves` move them: what a writer keys.
#[derive(Clone, Debug, PartialEq)]
pub struct MorphTrack {
    /// Index into `Asset::meshes`.
    pub mesh: usize,
    /// The key times of the curves that move the mesh, together.
    pub times: Vec<f32>,
    /// The mesh's weights (as [`morph_weights`]) at each time, one row of `moved.len()`
    /// after another.
    pub weights: Vec<f32>,
    /// The morphs some curve moves (the others keep their defaults).
    pub moved: Vec<bool>,
}

/// For each mesh of `asset` that `curves` move, its weights keyed at those curves' key times.
pub fn morph_tracks(asset: &Asset, curves: &[retarget_core::Curve]) -> Vec<MorphTrack> {
    let mut out = Vec::new();
    let mut values = Vec::with_capacity(curves.len());
    let mut row = Vec::new();
    for (mesh, m) in asset.meshes.iter().enumerate() {
        let count = m.morph_count();
        let mut moved = vec![false; count];
        let mut times = Vec::new();
        for c in curves {
            let mut moves = false;
            for b in binds(asset, &c.name).filter(|b| b.mesh == mesh && b.morph < count) {
                moved[b.morph] = true;
                moves = true;
            }
            if moves {
                times.extend_from_slice(c.track.times());
            }
        }
        if times.is_empty() {
            continue;
        }
        times.sort_by(f32::total_cmp);
        times.dedup_by(|b, a| (*b - *a).abs() < 1e-6);
        let mut weights = Vec::with_capacity(times.len() * count);
        for &t in &times {
            values.clear();
            values.extend(curves.iter().map(|c| c.sample(t)));
            let named = curves
                .iter()
                .map(|c| c.name.as_str())
                .zip(values.iter().copied());
            mesh_weights(asset, mesh, named, &mut row);
            weights.extend_from_slice(&row);
        }
        out.push(MorphTrack {
            mesh,
            times,
            weights,
            moved,
        });
    }
    out
}

/// The binds of every curve target named `name`.
fn binds<'a>(asset: &'a Asset, name: &'a str) -> impl Iterator<Item = &'a MorphBind> + 'a {
    asset
        .curve_targets
        .iter()
        .filter(move |t| t.name == name)
        .flat_map(|t| &t.binds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::{
        AlphaMode, CurveTarget, Format, MeshPrimitive, MorphDelta, Provenance, SkinnedMesh,
    };
    use glam::{Mat4, Vec3};

    fn mesh(morphs: usize, defaults: Vec<f32>) -> SkinnedMesh {
        SkinnedMesh {
            name: "m".into(),
            skeleton: 0,
            inverse_bind: vec![Mat4::IDENTITY],
            primitives: vec![MeshPrimitive {
                positions: vec![Vec3::ZERO],
                normals: Vec::new(),
                indices: Vec::new(),
                joints: Vec::new(),
                weights: Vec::new(),
                base_color: [1.0; 4],
                uvs: Vec::new(),
                base_color_texture: None,
                alpha_mode: AlphaMode::Opaque,
                morphs: vec![MorphDelta::default(); morphs],
            }],
            morph_weights: defaults,
        }
    }

    fn bind(mesh: usize, morph: usize, weight: f32) -> MorphBind {
        MorphBind {
            mesh,
            morph,
            node: None,
            weight,
        }
    }

    fn target(name: &str, binds: Vec<MorphBind>) -> CurveTarget {
        CurveTarget {
            name: name.into(),
            expression: binds.len() > 1,
            binds,
        }
    }

    fn asset(meshes: Vec<SkinnedMesh>, curve_targets: Vec<CurveTarget>) -> Asset {
        Asset {
            path: "face.glb".into(),
            format: Format::Gltf,
            skeletons: Vec::new(),
            clips: Vec::new(),
            meshes,
            joint_nodes: Vec::new(),
            unit: retarget_core::Unit::Metre,
            unit_source: Provenance::Declared,
            up: retarget_core::Axis::PosY,
            up_source: Provenance::Declared,
            warnings: Vec::new(),
            curve_targets,
            readings: Default::default(),
        }
    }

    #[test]
    fn without_curves_every_mesh_keeps_its_defaults() {
        let a = asset(
            vec![mesh(3, vec![0.25, 0.0, 1.0]), mesh(0, Vec::new())],
            vec![target("happy", vec![bind(0, 1, 1.0)])],
        );
        assert_eq!(morph_weights(&a, &[]), vec![vec![0.25, 0.0, 1.0], vec![]]);
    }

    #[test]
    fn a_curve_scales_each_bind_and_curves_on_one_morph_add_up() {
        let a = asset(
            vec![mesh(3, vec![0.5, 0.5, 0.5]), mesh(2, vec![0.0, 0.0])],
            vec![
                // An expression moving two meshes, one at half weight.
                target("happy", vec![bind(0, 0, 1.0), bind(1, 1, 0.5)]),
                target("aa", vec![bind(0, 0, 1.0)]),
            ],
        );
        let w = morph_weights(&a, &[("happy", 0.5), ("aa", 0.25)]);
        // Morph 0 of mesh 0: its default replaced by 0.5·1 + 0.25·1; the others keep theirs.
        assert_eq!(w[0], vec![0.75, 0.5, 0.5]);
        assert_eq!(w[1], vec![0.0, 0.25]);
    }

    #[test]
    fn a_curve_at_zero_sets_its_morph_to_zero_over_the_default() {
        let a = asset(
            vec![mesh(2, vec![1.0, 1.0])],
            vec![target("blink", vec![bind(0, 1, 1.0)])],
        );
        assert_eq!(morph_weights(&a, &[("blink", 0.0)]), vec![vec![1.0, 0.0]]);
    }

    #[test]
    fn unknown_names_bad_binds_and_non_finite_values_move_nothing() {
        let a = asset(
            vec![mesh(2, vec![0.1])],
            vec![
                target("oops", vec![bind(4, 0, 1.0), bind(0, 9, 1.0)]),
                target("ok", vec![bind(0, 1, 2.0)]),
            ],
        );
        let w = morph_weights(&a, &[("nobody", 1.0), ("oops", 1.0), ("ok", f32::NAN)]);
        // The missing default reads 0; the NaN curve still claims its morph (at 0).
        assert_eq!(w, vec![vec![0.1, 0.0]]);
        assert_eq!(morph_weights(&a, &[("ok", 0.5)]), vec![vec![0.1, 1.0]]);
    }
}
