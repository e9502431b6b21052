//! Morph targets: their offsets per primitive, their names (`mesh.extras.targetNames`), the
//! mesh's default weights, and the curve targets they make, one per name across meshes.

use crate::asset::{CurveTarget, MorphBind, MorphDelta, SkinnedMesh};
use glam::Vec3;
use gltf::accessor::{DataType, Dimensions};
use serde_json::Value;
use std::collections::HashMap;

/// The most morph targets one primitive may declare: a mutant's million would cost a
/// vertex array each.
const MAX_TARGETS: usize = 4096;

/// The most offsets (targets times vertices) one primitive's morphs may hold.
const MAX_OFFSETS: usize = 1 << 26;

/// How many morph targets `mesh` has (its primitives must agree; the most is taken).
pub(super) fn target_count(mesh: &gltf::Mesh) -> usize {
    mesh.primitives()
        .map(|p| p.morph_targets().len())
        .max()
        .unwrap_or(0)
}

/// The name of each of `mesh`'s morph targets: `extras.targetNames` where it names one (a
/// non-empty string), else `"<mesh name>.<index>"`.
pub(super) fn target_names(mesh: &gltf::Mesh) -> Vec<String> {
    let k = target_count(mesh);
    let listed: Vec<Value> = mesh
        .extras()
        .as_ref()
        .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        .and_then(|v| v.get("targetNames").and_then(Value::as_array).cloned())
        .unwrap_or_default();
    let mesh_name = mesh
        .name()
        .map(str::to_owned)
        .unwrap_or_else(|| format!("mesh_{}", mesh.index()));
    (0..k)
        .map(|t| match listed.get(t).and_then(Value::as_str) {
            Some(name) if !name.is_empty() => name.to_owned(),
            _ => format!("{mesh_name}.{t}"),
        })
        .collect()
}

/// The weights of `k` morphs when nothing animates them: the node's `weights`, else the
/// mesh's, else zeros. A list of the wrong length is left out with a warning; a weight that
/// is not finite reads as 0.
pub(super) fn default_weights(
    node: &gltf::Node,
    mesh: &gltf::Mesh,
    k: usize,
    name: &str,
    warnings: &mut Vec<String>,
) -> Vec<f32> {
    let Some(given) = node.weights().or(mesh.weights()) else {
        return vec![0.0; k];
    };
    if given.len() != k {
        warnings.push(format!(
            "mesh '{name}': {} default morph weight(s) for {k} morph target(s); zeros used",
            given.len()
        ));
        return vec![0.0; k];
    }
    given
        .iter()
        .map(|&w| if w.is_finite() { w } else { 0.0 })
        .collect()
}

/// The morph targets of one primitive of `n` vertices, in its vertex order: a target
/// without POSITION offsets gets zeros, one without NORMAL offsets none. `Err` says why they
/// cannot be read (the caller leaves the mesh's morphs out with a warning).
pub(super) fn read_targets<'a, 's, F>(
    prim: &gltf::Primitive<'a>,
    reader: &gltf::mesh::Reader<'a, 's, F>,
    n: usize,
) -> Result<Vec<MorphDelta>, String>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    let count = prim.morph_targets().len();
    if count > MAX_TARGETS {
        return Err(format!(
            "{count} morph targets, more than the {MAX_TARGETS} read"
        ));
    }
    if count.saturating_mul(n) > MAX_OFFSETS {
        return Err(format!(
            "{count} morph targets of {n} vertices, more offsets than the {MAX_OFFSETS} read"
        ));
    }
    // The crate's readers assume VEC3 of floats (quantized ones are floats by now), and
    // slice every accessor by its count.
    for (t, target) in prim.morph_targets().enumerate() {
        for (what, acc) in [
            ("POSITION", target.positions()),
            ("NORMAL", target.normals()),
        ] {
            let Some(acc) = acc else { continue };
            if acc.dimensions() != Dimensions::Vec3 || acc.data_type() != DataType::F32 {
                return Err(format!(
                    "target {t} {what}: accessor {} is {:?} of {:?}, not VEC3 of floats",
                    acc.index(),
                    acc.dimensions(),
                    acc.data_type()
                ));
            }
            if acc.count() != n {
                return Err(format!(
                    "target {t} {what}: accessor {} has {} elements for {n} vertices",
                    acc.index(),
                    acc.count()
                ));
            }
        }
    }
    let mut out = Vec::with_capacity(count);
    for (t, (positions, normals, _)) in reader.read_morph_targets().enumerate() {
        let positions: Vec<Vec3> = match positions {
            Some(p) => p.map(Vec3::from).collect(),
            None => vec![Vec3::ZERO; n],
        };
        let normals: Vec<Vec3> = match normals {
            Some(v) => v.map(Vec3::from).collect(),
            None => Vec::new(),
        };
        if positions.len() != n || !(normals.is_empty() || normals.len() == n) {
            return Err(format!("target {t}: its offsets cannot be read"));
        }
        if !positions.iter().chain(&normals).all(|v| v.is_finite()) {
            return Err(format!("target {t}: an offset is NaN or infinite"));
        }
        out.push(MorphDelta { positions, normals });
    }
    Ok(out)
}

/// Evens out the primitives' morph lists (glTF has every primitive of a mesh declare the
/// same targets): one short of `k` gets zero offsets. Returns `k`.
pub(super) fn even_out(lists: &mut [Vec<MorphDelta>], vertex_counts: &[usize]) -> usize {
    let k = lists.iter().map(Vec::len).max().unwrap_or(0);
    for (list, &n) in lists.iter_mut().zip(vertex_counts) {
        while list.len() < k {
            list.push(MorphDelta {
                positions: vec![Vec3::ZERO; n],
                normals: Vec::new(),
            });
        }
    }
    k
}

/// One curve target per morph target name over every mesh: a name on several meshes (a
/// body's and its teeth's `jawOpen`) is one target binding each. `nodes[i]` is the glTF node
/// that draws `meshes[i]`.
pub(super) fn curve_targets(
    doc: &gltf::Document,
    meshes: &[SkinnedMesh],
    nodes: &[usize],
) -> Vec<CurveTarget> {
    let mut out: Vec<CurveTarget> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (i, (mesh, &node)) in meshes.iter().zip(nodes).enumerate() {
        let k = mesh.morph_weights.len();
        if k == 0 {
            continue;
        }
        let Some(gltf_mesh) = doc.nodes().nth(node).and_then(|n| n.mesh()) else {
            continue;
        };
        let names = target_names(&gltf_mesh);
        for (morph, name) in names.into_iter().enumerate().take(k) {
            let at = *by_name.entry(name.clone()).or_insert_with(|| {
                out.push(CurveTarget {
                    name,
                    expression: false,
                    binds: Vec::new(),
                });
                out.len() - 1
            });
            out[at].binds.push(MorphBind {
                mesh: i,
                morph,
                node: Some(node),
                weight: 1.0,
            });
        }
    }
    out
}

/// `targets` with `expressions` added: an expression takes the place of a bare morph target
/// of its name (a curve of that name drives the expression).
pub(super) fn merge_expressions(
    mut targets: Vec<CurveTarget>,
    expressions: Vec<CurveTarget>,
) -> Vec<CurveTarget> {
    for e in expressions {
        match targets.iter_mut().find(|t| t.name == e.name) {
            Some(t) if !t.expression => *t = e,
            Some(t) => t.binds.extend(e.binds),
            None => targets.push(e),
        }
    }
    targets
}
