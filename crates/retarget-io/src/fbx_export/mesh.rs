//! The target's meshes as FBX geometry skinned to the joints' models: a Geometry and a
//! Mesh model per mesh, a Skin deformer with one Cluster per weighted joint, a BindPose,
//! and the base colour as a material with its embedded texture.
//!
//! Vertices are written where the skin puts them at the bind pose (in the file's space), so
//! a reader that skins with the clusters, and one that shows the mesh as it lies, agree.

#[path = "mesh_material.rs"]
mod material;

use super::curves::{Ids, connect};
use super::frames::FileFrame;
use super::node::{Attr, Node, Props, object_name};
use super::shapes;
use crate::asset::{Asset, MeshPrimitive, SkinnedMesh};
use glam::{DMat4, DVec3, Vec3};
use retarget_core::{Pose, Skeleton};
use std::borrow::Cow;

/// What the meshes added to the file.
#[derive(Default)]
pub(super) struct Written {
    pub objects: Vec<Node>,
    pub connections: Vec<Node>,
    pub notes: Vec<String>,
    /// Each blend shape channel written: the mesh (index into `Asset::meshes`), its morph,
    /// and the channel's id (what a take's `DeformPercent` curve drives).
    pub channels: Vec<(usize, usize, i64)>,
}

/// The skeleton's bind pose as the file holds it, shared by every mesh.
struct Binding<'a> {
    skeleton: &'a Skeleton,
    models: &'a [i64],
    file_from_world: DMat4,
    /// Each joint's bind world in our world (container included).
    bind_worlds: Vec<DMat4>,
    /// Each joint's bind world as the file composes its models' locals: lengths are in
    /// file units through the translations, not a scale, so it is not `file_from_world *
    /// bind_worlds[j]` (TransformLink and the BindPose need the file's own).
    links: Vec<DMat4>,
    /// Unweighted vertices go to it: the first top joint.
    fallback: usize,
}

/// One mesh's primitives merged into the file's single vertex list.
#[derive(Default)]
struct Merged<'a> {
    /// The first primitive of each distinct look: one material each, in the order the
    /// per-triangle material indices count them.
    looks: Vec<&'a MeshPrimitive>,
    /// Skinned bind-pose positions and normals in file space, xyz after xyz.
    positions: Vec<f64>,
    normals: Vec<f64>,
    /// FBX's way round (origin bottom-left); `None` when no primitive has UVs.
    uvs: Option<Vec<f64>>,
    /// Vertex indices, three per triangle.
    corners: Vec<i32>,
    /// Material index per triangle.
    materials: Vec<i32>,
    /// Per joint: the vertices it moves and their weights.
    clusters: Vec<(Vec<i32>, Vec<f64>)>,
    unweighted: usize,
    /// Vertices whose weights did not sum to 1.
    renormalised: usize,
    /// Indices past the last whole triangle of a primitive.
    ragged: usize,
    /// Primitives whose normals were missing and are made from their faces.
    made_normals: usize,
    /// Where each primitive's vertices start (`None`: left out, no material).
    bases: Vec<Option<usize>>,
    /// Each vertex's mesh-to-file matrix at the bind pose, kept when the mesh has morphs.
    maps: Vec<DMat4>,
}

/// `asset.meshes[i]` for each `i` of `meshes` are drawn by `skeleton`, whose joint `j` is
/// the model `models[j]`.
pub(super) fn push_meshes(
    asset: &Asset,
    meshes: &[usize],
    skeleton: &Skeleton,
    frame: &FileFrame,
    models: &[i64],
    ids: &mut Ids,
) -> Result<Written, String> {
    let mut written = Written::default();
    if meshes.is_empty() {
        return Ok(written);
    }
    let links = bind_links(skeleton, frame)?;
    let binding = Binding {
        skeleton,
        models,
        file_from_world: frame.file_from_world().as_dmat4(),
        bind_worlds: Pose::bind(skeleton)
            .world_matrices(skeleton)
            .iter()
            .map(|m| m.as_dmat4())
            .collect(),
        links,
        fallback: skeleton
            .parents()
            .iter()
            .position(Option::is_none)
            .unwrap_or(0),
    };
    let mut images = material::Images::default();
    let (mut count, mut vertices, mut triangles) = (0, 0, 0);
    for &index in meshes {
        let mesh = &asset.meshes[index];
        let merged = merge(mesh, &binding)?;
        if merged.corners.is_empty() {
            written.notes.push(format!(
                "mesh '{}' has no triangles; not written",
                mesh.name
            ));
            continue;
        }
        count += 1;
        vertices += merged.positions.len() / 3;
        triangles += merged.corners.len() / 3;
        mesh_notes(mesh, &merged, &binding, &mut written.notes);
        let geometry = push_mesh(mesh, &merged, &binding, ids, &mut images, &mut written);
        let placement = shapes::Placement {
            bases: &merged.bases,
            maps: &merged.maps,
        };
        let names = asset.morph_names(index);
        let channels = shapes::push_shapes(mesh, &names, &placement, geometry, ids, &mut written);
        written
            .channels
            .extend(channels.into_iter().map(|(k, id)| (index, k, id)));
    }
    if count > 0 {
        written.notes.push(format!(
            "{count} mesh(es) written skinned ({vertices} vertices, {triangles} triangles): \
             bind-pose positions, normals, UVs, joint weights, base colour and its texture; \
             other material properties (metalness, roughness, normal and emissive maps, alpha \
             cutoff) are not"
        ));
    }
    Ok(written)
}

/// What was repaired in a mesh, in words.
fn mesh_notes(mesh: &SkinnedMesh, merged: &Merged, b: &Binding, notes: &mut Vec<String>) {
    let name = &mesh.name;
    if merged.unweighted > 0 {
        notes.push(format!(
            "mesh '{name}': {} vertices had no joint weight; they follow the root joint '{}'",
            merged.unweighted,
            b.skeleton.names()[b.fallback]
        ));
    }
    if merged.renormalised > 0 {
        notes.push(format!(
            "mesh '{name}': the weights of {} vertices did not sum to 1; they were rescaled",
            merged.renormalised
        ));
    }
    if merged.ragged > 0 {
        notes.push(format!(
            "mesh '{name}': {} indices past the last whole triangle were left out",
            merged.ragged
        ));
    }
    if merged.made_normals > 0 {
        notes.push(format!(
            "mesh '{name}': {} primitive(s) had no normals; they were made from the faces",
            merged.made_normals
        ));
    }
}

/// The mesh's objects and connections: model, geometry, skin, bind pose, materials;
/// returns the geometry's id.
fn push_mesh(
    mesh: &SkinnedMesh,
    merged: &Merged,
    binding: &Binding,
    ids: &mut Ids,
    images: &mut material::Images,
    out: &mut Written,
) -> i64 {
    let (geometry, model, skin, pose) = (ids.next(), ids.next(), ids.next(), ids.next());
    out.objects
        .push(geometry_node(geometry, &mesh.name, merged));
    let mut props = Props::default();
    props.enumeration("DefaultAttributeIndex", 0);
    out.objects.push(
        Node::new("Model")
            .attr(model)
            .attr(object_name(&mesh.name, "Model"))
            .attr("Mesh")
            .value("Version", 232)
            .child(props.node())
            .value("Shading", Attr::Bool(true))
            .value("Culling", "CullingOff"),
    );
    out.connections.push(connect(geometry, model));
    out.connections.push(connect(model, 0));
    out.objects.push(
        Node::new("Deformer")
            .attr(skin)
            .attr(object_name(&mesh.name, "Deformer"))
            .attr("Skin")
            .value("Version", 101)
            .value("Link_DeformAcuracy", 50.0),
    );
    out.connections.push(connect(skin, geometry));
    push_clusters(merged, binding, skin, ids, out);
    out.objects
        .push(bind_pose(pose, &mesh.name, model, binding));
    for (k, p) in merged.looks.iter().enumerate() {
        let name = format!("{}_{k}", mesh.name);
        let id = images.push_material(p, &name, ids, out);
        out.connections.push(connect(id, model));
    }
    geometry
}

/// One cluster per weighted joint, each linked to the joint's model.
fn push_clusters(merged: &Merged, binding: &Binding, skin: i64, ids: &mut Ids, out: &mut Written) {
    for (j, (indexes, weights)) in merged.clusters.iter().enumerate() {
        if indexes.is_empty() {
            continue;
        }
        let cluster = ids.next();
        let link = binding.links[j];
        let name = &binding.skeleton.names()[j];
        out.objects.push(
            Node::new("Deformer")
                .attr(cluster)
                .attr(object_name(name, "SubDeformer"))
                .attr("Cluster")
                .value("Version", 100)
                .child(Node::new("UserData").attr("").attr(""))
                .value("Indexes", Attr::I32s(indexes.clone()))
                .value("Weights", Attr::F64s(weights.clone()))
                .value("Transform", matrix(link.inverse()))
                .value("TransformLink", matrix(link)),
        );
        out.connections.push(connect(cluster, skin));
        out.connections.push(connect(binding.models[j], cluster));
    }
}

/// The mesh model at identity and every joint at its bind world: what FBX SDK-based tools
/// take the skeleton's bind from.
fn bind_pose(id: i64, name: &str, model: i64, binding: &Binding) -> Node {
    let mut node = Node::new("Pose")
        .attr(id)
        .attr(object_name(name, "Pose"))
        .attr("BindPose")
        .value("Type", "BindPose")
        .value("Version", 100)
        .value("NbPoseNodes", binding.models.len() as i32 + 1);
    let entries = std::iter::once((model, DMat4::IDENTITY)).chain(
        binding
            .models
            .iter()
            .zip(&binding.links)
            .map(|(&m, w)| (m, *w)),
    );
    for (node_id, m) in entries {
        node.push(
            Node::new("PoseNode")
                .value("Node", node_id)
                .value("Matrix", matrix(m)),
        );
    }
    node
}

/// The joints' bind worlds in the file. The bind pose and every cluster hold them and their
/// inverses, and a reader refuses a joint it cannot invert (a zero scale): no file is
/// written with one.
fn bind_links(skeleton: &Skeleton, frame: &FileFrame) -> Result<Vec<DMat4>, String> {
    let links = file_worlds(skeleton, frame);
    for (j, link) in links.iter().enumerate() {
        let det = link.determinant();
        if !det.is_finite() || det.abs() < 1e-30 {
            return Err(format!(
                "joint '{}' has a bind pose that cannot be inverted (zero scale)",
                skeleton.names()[j]
            ));
        }
    }
    Ok(links)
}

/// A BindPose of the joints alone, for a file without meshes: readers take the skeleton's
/// bind from it, not from its rest (which may hide a joint at zero scale).
pub(super) fn skeleton_bind_pose(
    skeleton: &Skeleton,
    frame: &FileFrame,
    models: &[i64],
    ids: &mut Ids,
) -> Result<Node, String> {
    let links = bind_links(skeleton, frame)?;
    let mut node = Node::new("Pose")
        .attr(ids.next())
        .attr(object_name(&skeleton.name, "Pose"))
        .attr("BindPose")
        .value("Type", "BindPose")
        .value("Version", 100)
        .value("NbPoseNodes", models.len() as i32);
    for (&m, link) in models.iter().zip(&links) {
        node.push(
            Node::new("PoseNode")
                .value("Node", m)
                .value("Matrix", matrix(*link)),
        );
    }
    Ok(node)
}

/// The joints' bind worlds in the file, composed from their locals as written.
fn file_worlds(skeleton: &Skeleton, frame: &FileFrame) -> Vec<DMat4> {
    let mut worlds: Vec<DMat4> = Vec::with_capacity(skeleton.len());
    for (j, bind) in skeleton.bind().iter().enumerate() {
        let parent = skeleton.parents()[j];
        let local = frame.local(j, bind).to_mat4().as_dmat4();
        worlds.push(parent.map_or(local, |p| worlds[p] * local));
    }
    worlds
}

/// 16 numbers, column after column (translation last), as FBX stores a matrix.
fn matrix(m: DMat4) -> Attr {
    Attr::F64s(m.to_cols_array().to_vec())
}

/// The Geometry: vertices, triangles, and its normal, UV and material layers.
fn geometry_node(id: i64, name: &str, m: &Merged) -> Node {
    let polygons: Vec<i32> = m
        .corners
        .chunks_exact(3)
        .flat_map(|t| [t[0], t[1], !t[2]])
        .collect();
    let mut node = Node::new("Geometry")
        .attr(id)
        .attr(object_name(name, "Geometry"))
        .attr("Mesh")
        .value("Vertices", Attr::F64s(m.positions.clone()))
        .value("PolygonVertexIndex", Attr::I32s(polygons))
        .value("GeometryVersion", 124);
    // Per corner through an index (the corner's vertex): Blender and FBX SDK read it, and
    // corners of one vertex stay one vertex in ufbx.
    let per_corner = |element: &'static str, layer: &str, data: &'static str, values: &[f64]| {
        let index = if data == "UV" {
            "UVIndex"
        } else {
            "NormalsIndex"
        };
        Node::new(element)
            .attr(0)
            .value("Version", 101)
            .value("Name", layer)
            .value("MappingInformationType", "ByPolygonVertex")
            .value("ReferenceInformationType", "IndexToDirect")
            .value(data, Attr::F64s(values.to_vec()))
            .value(index, Attr::I32s(m.corners.clone()))
    };
    node.push(per_corner("LayerElementNormal", "", "Normals", &m.normals));
    let mut layer = Node::new("Layer").attr(0).value("Version", 100);
    layer.push(layer_element("LayerElementNormal"));
    if let Some(uvs) = &m.uvs {
        node.push(per_corner("LayerElementUV", "UVMap", "UV", uvs));
        layer.push(layer_element("LayerElementUV"));
    }
    let all_same = m.materials.iter().all(|&k| k == m.materials[0]);
    let (mapping, materials) = match all_same {
        true => ("AllSame", vec![m.materials[0]]),
        false => ("ByPolygon", m.materials.clone()),
    };
    node.push(
        Node::new("LayerElementMaterial")
            .attr(0)
            .value("Version", 101)
            .value("Name", "")
            .value("MappingInformationType", mapping)
            .value("ReferenceInformationType", "IndexToDirect")
            .value("Materials", Attr::I32s(materials)),
    );
    layer.push(layer_element("LayerElementMaterial"));
    node.child(layer)
}

fn layer_element(ty: &'static str) -> Node {
    Node::new("LayerElement")
        .value("Type", ty)
        .value("TypedIndex", 0)
}

/// The mesh's primitives with triangles as one vertex list, skinned at the bind pose.
fn merge<'a>(mesh: &'a SkinnedMesh, b: &Binding) -> Result<Merged<'a>, String> {
    let joints = b.skeleton.len();
    let mut skins = vec![None; joints];
    let mut m = Merged {
        clusters: vec![(Vec::new(), Vec::new()); joints],
        ..Default::default()
    };
    let (materials, looks) = material::looks(mesh);
    m.looks = looks;
    if mesh
        .primitives
        .iter()
        .any(|p| p.uvs.len() == p.positions.len())
    {
        m.uvs = Some(Vec::new());
    }
    let morphs = mesh.primitives.iter().any(|p| !p.morphs.is_empty());
    for (pi, p) in mesh.primitives.iter().enumerate() {
        let Some(material) = materials[pi] else {
            m.bases.push(None);
            continue;
        };
        m.bases.push(Some(m.positions.len() / 3));
        let at = |v: usize| format!("mesh '{}' primitive {pi} vertex {v}", mesh.name);
        let base = m.positions.len() / 3;
        if base + p.positions.len() > i32::MAX as usize {
            return Err(format!(
                "mesh '{}' has too many vertices for FBX",
                mesh.name
            ));
        }
        let normals = match p.normals.len() == p.positions.len() {
            true => Cow::Borrowed(&p.normals),
            false => {
                m.made_normals += 1;
                Cow::Owned(face_normals(p))
            }
        };
        for (v, position) in p.positions.iter().enumerate() {
            let (mut weights, total) =
                influences(p, v, joints).map_err(|e| format!("{}: {e}", at(v)))?;
            m.renormalised += usize::from(total > 0.0 && (total - 1.0).abs() > 1e-3);
            if weights.is_empty() {
                m.unweighted += 1;
                weights.push((b.fallback, 1.0));
            }
            let mut skin = DMat4::ZERO;
            for &(j, w) in &weights {
                skin += skin_of(mesh, b, j, &mut skins)? * w;
                m.clusters[j].0.push((base + v) as i32);
                m.clusters[j].1.push(w);
            }
            let file = b.file_from_world * skin;
            if morphs {
                m.maps.push(file);
            }
            let x = file.transform_point3(position.as_dvec3());
            let n = file
                .transform_vector3(normals[v].as_dvec3())
                .normalize_or(DVec3::Y);
            if !x.is_finite() || !n.is_finite() {
                return Err(format!("{}: position or normal is not finite", at(v)));
            }
            m.positions.extend(x.to_array());
            m.normals.extend(n.to_array());
            if let Some(uvs) = &mut m.uvs {
                let uv = p.uvs.get(v).copied().unwrap_or([0.0; 2]);
                if !uv.iter().all(|c| c.is_finite()) {
                    return Err(format!("{}: UV is not finite", at(v)));
                }
                uvs.extend([uv[0] as f64, 1.0 - uv[1] as f64]);
            }
        }
        m.push_triangles(p, base, material).map_err(|i| {
            format!(
                "mesh '{}' primitive {pi} has index {i} past its {} vertices",
                mesh.name,
                p.positions.len()
            )
        })?;
    }
    Ok(m)
}

impl Merged<'_> {
    /// `p`'s whole triangles, its vertices starting at `base`; `Err` with an index past them.
    fn push_triangles(
        &mut self,
        p: &MeshPrimitive,
        base: usize,
        material: usize,
    ) -> Result<(), u32> {
        let whole = p.indices.len() / 3 * 3;
        self.ragged += p.indices.len() - whole;
        for &i in &p.indices[..whole] {
            if i as usize >= p.positions.len() {
                return Err(i);
            }
            self.corners.push((base + i as usize) as i32);
        }
        self.materials
            .extend(std::iter::repeat_n(material as i32, whole / 3));
        Ok(())
    }
}

/// `world_from_mesh` of joint `j` at the bind pose, checked once.
fn skin_of(
    mesh: &SkinnedMesh,
    b: &Binding,
    j: usize,
    skins: &mut [Option<DMat4>],
) -> Result<DMat4, String> {
    if let Some(s) = skins[j] {
        return Ok(s);
    }
    let Some(ibm) = mesh.inverse_bind.get(j) else {
        return Err(format!(
            "mesh '{}' weights joint {j} but has {} inverse bind matrices",
            mesh.name,
            mesh.inverse_bind.len()
        ));
    };
    let s = b.bind_worlds[j] * ibm.as_dmat4();
    if !s.is_finite() {
        return Err(format!(
            "mesh '{}': the bind matrix of joint '{}' is not finite",
            mesh.name,
            b.skeleton.names()[j]
        ));
    }
    skins[j] = Some(s);
    Ok(s)
}

/// A vertex's joints with positive weight, each once, summing to 1 (empty when it has
/// none), and what they summed to.
fn influences(
    p: &MeshPrimitive,
    v: usize,
    joints: usize,
) -> Result<(Vec<(usize, f64)>, f64), String> {
    let (Some(js), Some(ws)) = (p.joints.get(v), p.weights.get(v)) else {
        return Ok((Vec::new(), 0.0));
    };
    let mut out: Vec<(usize, f64)> = Vec::with_capacity(4);
    for (&j, &w) in js.iter().zip(ws) {
        if !w.is_finite() {
            return Err(format!("weight {w} is not finite"));
        }
        if w <= 0.0 {
            continue;
        }
        let j = j as usize;
        if j >= joints {
            return Err(format!(
                "weighted to joint {j}, past the skeleton's {joints}"
            ));
        }
        match out.iter_mut().find(|(k, _)| *k == j) {
            Some((_, sum)) => *sum += w as f64,
            None => out.push((j, w as f64)),
        }
    }
    let total: f64 = out.iter().map(|(_, w)| w).sum();
    for (_, w) in &mut out {
        *w /= total;
    }
    Ok((out, total))
}

/// Area-weighted vertex normals of a primitive that has none (+Y where no face touches).
fn face_normals(p: &MeshPrimitive) -> Vec<Vec3> {
    let mut sums = vec![Vec3::ZERO; p.positions.len()];
    for t in p.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
        let (Some(pa), Some(pb), Some(pc)) =
            (p.positions.get(a), p.positions.get(b), p.positions.get(c))
        else {
            continue;
        };
        let n = (*pb - *pa).cross(*pc - *pa);
        for i in [a, b, c] {
            sums[i] += n;
        }
    }
    sums.iter().map(|n| n.normalize_or(Vec3::Y)).collect()
}

#[cfg(test)]
#[path = "mesh_tests.rs"]
mod tests;
