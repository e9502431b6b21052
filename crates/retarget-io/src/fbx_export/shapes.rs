//! A mesh's morph targets as FBX blend shapes: one BlendShape deformer on the geometry, a
//! BlendShapeChannel per morph target with its Shape (the offsets, in the file's space, of
//! the vertices it moves). A take animates a channel's `DeformPercent` (0–100).
//!
//! Blender's importer asserts that a shape's `Indexes`, its `Vertices` (three numbers
//! each) and its channel's `FullWeights` agree in count, one weight allowed for all: a
//! morph that moves no vertex (a viseme left blank on the teeth) is written as one vertex
//! that does not move, as Blender's own exporter does, so the channel and its curve stay.

use super::curves::{Ids, connect};
use super::mesh::Written;
use super::node::{Attr, Node, Props, object_name};
use crate::asset::SkinnedMesh;
use glam::DMat4;

/// Where each primitive's vertices start in the merged geometry (`None`: left out), and
/// each merged vertex's mesh-to-file matrix at the bind pose.
pub(super) struct Placement<'a> {
    pub bases: &'a [Option<usize>],
    pub maps: &'a [DMat4],
}

/// The blend shapes of `mesh` (drawn as `geometry`); returns each written morph's channel.
pub(super) fn push_shapes(
    mesh: &SkinnedMesh,
    names: &[String],
    at: &Placement,
    geometry: i64,
    ids: &mut Ids,
    out: &mut Written,
) -> Vec<(usize, i64)> {
    let count = mesh.morph_count();
    if count == 0 || at.maps.is_empty() {
        return Vec::new();
    }
    let deformer = ids.next();
    out.objects.push(
        Node::new("Deformer")
            .attr(deformer)
            .attr(object_name(&mesh.name, "Deformer"))
            .attr("BlendShape")
            .value("Version", 100),
    );
    out.connections.push(connect(deformer, geometry));
    let mut channels = Vec::with_capacity(count);
    for k in 0..count {
        let (indexes, vertices, normals) = offsets(mesh, k, at);
        let weights = vec![100.0; indexes.len()];
        let (channel, shape) = (ids.next(), ids.next());
        let name = names
            .get(k)
            .cloned()
            .unwrap_or_else(|| format!("{}.{k}", mesh.name));
        let mut props = Props::default();
        props.number("DeformPercent", 0.0);
        out.objects.push(
            Node::new("Deformer")
                .attr(channel)
                .attr(object_name(&name, "SubDeformer"))
                .attr("BlendShapeChannel")
                .value("Version", 100)
                .value("DeformPercent", 0.0)
                .value("FullWeights", Attr::F64s(weights))
                .child(props.node()),
        );
        out.objects.push(
            Node::new("Geometry")
                .attr(shape)
                .attr(object_name(&name, "Geometry"))
                .attr("Shape")
                .value("Version", 100)
                .value("Indexes", Attr::I32s(indexes))
                .value("Vertices", Attr::F64s(vertices))
                .value("Normals", Attr::F64s(normals)),
        );
        out.connections.push(connect(channel, deformer));
        out.connections.push(connect(shape, channel));
        channels.push((k, channel));
    }
    channels
}

/// Morph `k`'s moved vertices: their merged indices, position and normal offsets (at
/// least one vertex).
fn offsets(mesh: &SkinnedMesh, k: usize, at: &Placement) -> (Vec<i32>, Vec<f64>, Vec<f64>) {
    let (mut indexes, mut vertices, mut normals) = (Vec::new(), Vec::new(), Vec::new());
    for (p, base) in mesh.primitives.iter().zip(at.bases) {
        let (Some(base), Some(morph)) = (base, p.morphs.get(k)) else {
            continue;
        };
        for (v, d) in morph.positions.iter().enumerate().take(p.positions.len()) {
            let n = morph.normals.get(v).copied().unwrap_or_default();
            if *d == glam::Vec3::ZERO && n == glam::Vec3::ZERO {
                continue;
            }
            let Some(map) = at.maps.get(base + v) else {
                continue;
            };
            let (dx, dn) = (
                map.transform_vector3(d.as_dvec3()),
                map.transform_vector3(n.as_dvec3()),
            );
            if !dx.is_finite() || !dn.is_finite() {
                continue;
            }
            indexes.push((base + v) as i32);
            vertices.extend(dx.to_array());
            normals.extend(dn.to_array());
        }
    }
    if indexes.is_empty() {
        // Blender refuses a shape with no vertex: one that stays put keeps the channel.
        indexes.push(0);
        vertices.extend([0.0; 3]);
        normals.extend([0.0; 3]);
    }
    (indexes, vertices, normals)
}
