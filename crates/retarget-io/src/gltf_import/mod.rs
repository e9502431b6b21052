//! glTF 2.0, GLB, VRM 0.x/1.0 and VRM Animation import.

mod clips;
pub(crate) mod compressed;
mod hierarchy;
mod meshes;
mod morphs;
mod skeletons;
mod textures;
pub mod validate;

use self::hierarchy::Hierarchy;
use self::meshes::Binding;
use self::skeletons::{BuiltSkeleton, SkeletonInput};
use crate::asset::{Asset, Format, Provenance};
use crate::error::{ImportError, Problem};
use crate::vrm;
use crate::vrm_expressions::{self, MeshSlot};
use glam::Mat4;
use retarget_core::{Axis, HumanBone, Pose, Unit};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

pub fn import_gltf(path: &Path) -> Result<Asset, ImportError> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::new(path, Problem::Read(e)))?;
    import_gltf_bytes(path, &bytes)
}

/// Imports from bytes already read; `path` names the file in errors and locates external
/// buffers.
pub fn import_gltf_bytes(path: &Path, bytes: &[u8]) -> Result<Asset, ImportError> {
    import(path, bytes).map_err(|p| ImportError::new(path, p))
}

fn import(path: &Path, bytes: &[u8]) -> Result<Asset, Problem> {
    let is_glb = bytes.starts_with(b"glTF");
    let looks_like_json = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if !is_glb && !looks_like_json {
        return Err(Problem::NotGltf(
            "it starts with neither the GLB magic 'glTF' nor a JSON object".into(),
        ));
    }
    if is_glb {
        validate::check_container(bytes)?;
    }
    validate::check_numbers(validate::json_text(bytes))?;
    let gltf = parse(bytes, is_glb)?;
    let mut warnings = Vec::new();
    let (doc, buffers, quantized, draco_morphs) = open(gltf, path.parent(), &mut warnings)?;
    let doc = &doc;
    validate::check_ranges(doc, &buffers)?;
    let h = Hierarchy::new(doc)?;
    let table = vrm::humanoid_table(doc);
    let humanoid = table.as_ref().map(|t| t.bones.clone()).unwrap_or_default();
    if let Some(t) = &table
        && !t.unknown.is_empty()
    {
        warnings.push(format!(
            "humanoid table: entries not understood: {}",
            t.unknown.join(", ")
        ));
    }

    let (skeletons, skin_to_skeleton) = build_skeletons(doc, &buffers, &h, &humanoid, &quantized)?;
    let mut bindings = meshes::rigid_bindings(doc, &h, &skeletons);
    for node in doc.nodes() {
        if let Some(skin) = node.skin() {
            bindings.insert(
                node.index(),
                Binding::Skin {
                    skeleton: skin_to_skeleton[skin.index()],
                    joints: skin.joints().map(|j| j.index()).collect(),
                    inverse_binds: inverse_binds(&skin, &buffers)?,
                },
            );
        }
    }
    let sources = curve_sources(doc, &bindings);
    let clips = clips::read_clips(doc, &buffers, &h, &skeletons, &sources, &mut warnings)?;

    let mut ctx = meshes::MeshContext {
        buffers: &buffers,
        h: &h,
        skeletons: &skeletons,
        images: textures::Images::new(doc, &buffers, path.parent()),
        draco_morphs: &draco_morphs,
    };
    let mut meshes = Vec::new();
    let mut mesh_nodes = Vec::new();
    for node in doc.nodes() {
        if let Some(binding) = bindings.get(&node.index())
            && let Some(mesh) = meshes::read_mesh(&node, binding, &mut ctx, &mut warnings)?
        {
            meshes.push(mesh);
            mesh_nodes.push(node.index());
        }
    }
    let curve_targets = curve_targets(doc, &meshes, &mesh_nodes, &mut warnings);

    let joint_nodes = skeletons.iter().map(|b| b.nodes.clone()).collect();
    let mut skeletons: Vec<_> = skeletons.into_iter().map(|b| b.skeleton).collect();
    for s in &mut skeletons {
        s.label_unlabelled(HumanBone::from_mixamo);
    }
    // glTF fixes metres and +Y up; a figure far from a person's size is worth a word.
    let rest = Pose::rest(&skeletons[0]);
    let heights = rest
        .world_positions(&skeletons[0])
        .iter()
        .map(|p| p.y)
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
    let height = heights.1 - heights.0;
    let guess = Unit::guess_from_height(height);
    if height > 0.0 && guess != Unit::Metre {
        warnings.push(format!(
            "the figure is {height:.3} units tall along +Y; glTF units are metres, so it may be \
             authored in another unit (in {}: {:.2} m)",
            guess.name(),
            height * guess.metres()
        ));
    }
    let format = match &table {
        Some(t) => t.format,
        None if is_glb => Format::Glb,
        None => Format::Gltf,
    };
    Ok(Asset {
        path: path.to_path_buf(),
        format,
        skeletons,
        clips,
        meshes,
        joint_nodes,
        unit: Unit::Metre,
        unit_source: Provenance::Declared,
        up: Axis::PosY,
        up_source: Provenance::Declared,
        warnings,
        curve_targets,
        readings: Default::default(),
    })
}

/// The document and its GLB blob, without the crate's validation: `check_document` runs it,
/// after what it would index unchecked. glTF lets a scene leave out its `nodes` (an empty
/// scene: Blender writes one for an empty collection); the crate's schema wants the list, so
/// such a scene is given an empty one.
pub(crate) fn parse(bytes: &[u8], is_glb: bool) -> Result<gltf::Gltf, Problem> {
    let words = |e: gltf::Error| match e {
        gltf::Error::Binary(b) => Problem::CorruptGlb(binary_words(&b)),
        other => Problem::NotGltf(other.to_string()),
    };
    let Some(json) = scenes_listing_nodes(validate::json_text(bytes)) else {
        return gltf::Gltf::from_slice_without_validation(bytes).map_err(words);
    };
    let root: gltf::json::Root =
        serde_json::from_value(json).map_err(|e| Problem::NotGltf(e.to_string()))?;
    let blob = match is_glb {
        true => gltf::binary::Glb::from_slice(bytes)
            .map_err(words)?
            .bin
            .map(std::borrow::Cow::into_owned),
        false => None,
    };
    Ok(gltf::Gltf {
        document: gltf::Document::from_json_without_validation(root),
        blob,
    })
}

/// The document's JSON with an empty `nodes` list in every scene that has none, or `None`
/// when no scene lacks one (or the text is not JSON: the crate's parse says why).
fn scenes_listing_nodes(json: &[u8]) -> Option<serde_json::Value> {
    let mut value: serde_json::Value = serde_json::from_slice(json).ok()?;
    let scenes = value.get_mut("scenes")?.as_array_mut()?;
    let mut filled = false;
    for scene in scenes.iter_mut().filter_map(|s| s.as_object_mut()) {
        if !scene.contains_key("nodes") {
            scene.insert("nodes".into(), serde_json::Value::Array(Vec::new()));
            filled = true;
        }
    }
    filled.then_some(value)
}

/// The nodes whose morph targets `weights` channels animate, and a VRM Animation's
/// expression nodes.
fn curve_sources(doc: &gltf::Document, bindings: &HashMap<usize, Binding>) -> clips::CurveSources {
    let mut morph_nodes = HashMap::new();
    for node in doc.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        let names = morphs::target_names(&mesh);
        if names.is_empty() {
            continue;
        }
        let skeleton = match bindings.get(&node.index()) {
            Some(Binding::Skin { skeleton, .. } | Binding::Rigid { skeleton, .. }) => *skeleton,
            None => 0,
        };
        morph_nodes.insert(node.index(), (names, skeleton));
    }
    clips::CurveSources {
        morph_nodes,
        expressions: vrm_expressions::animated(doc),
    }
}

/// The morph targets by name across `meshes` (drawn by `nodes`), and a VRM's expressions.
fn curve_targets(
    doc: &gltf::Document,
    meshes: &[crate::asset::SkinnedMesh],
    nodes: &[usize],
    warnings: &mut Vec<String>,
) -> Vec<crate::asset::CurveTarget> {
    let morph_targets = morphs::curve_targets(doc, meshes, nodes);
    let slots: Vec<MeshSlot> = meshes
        .iter()
        .zip(nodes)
        .map(|(m, &node)| MeshSlot {
            node,
            gltf_mesh: doc
                .nodes()
                .nth(node)
                .and_then(|n| n.mesh())
                .map_or(usize::MAX, |m| m.index()),
            morphs: m.morph_weights.len(),
        })
        .collect();
    let expressions = vrm_expressions::curve_targets(doc, &slots, warnings);
    morphs::merge_expressions(morph_targets, expressions)
}

/// The document checked, its buffers, the accessors turned from quantized integers into
/// floats, and the meshes with Draco-compressed morph targets. A compressed one is decoded first (its accessors have no data until then)
/// and checked as the plain file it becomes.
fn open(
    gltf: gltf::Gltf,
    base: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Result<Opened, Problem> {
    let gltf::Gltf { document, blob } = gltf;
    let document = without_unknown_required(document, warnings);
    if !compressed::applies(document.as_json()) {
        validate::check_document(document.as_json())?;
        validate::check_semantics(&document)?;
        check_buffer_uris(&document)?;
        let buffers = gltf::import_buffers(&document, base, blob)
            .map_err(|e| Problem::Buffers(buffer_words(&e)))?;
        return Ok((document, buffers, HashSet::new(), HashSet::new()));
    }
    check_buffer_uris(&document)?;
    let draco_morphs = compressed::draco_morph_meshes(document.as_json());
    let mut buffers = compressed::load_buffers(&document, base, blob)?;
    let mut root = document.into_json();
    warnings.extend(compressed::decode(&mut root, &mut buffers)?);
    let quantized = compressed::prepare_for_reading(&mut root, &mut buffers)?;
    let document = gltf::Document::from_json_without_validation(root);
    validate::check_document(document.as_json())?;
    validate::check_semantics(&document)?;
    Ok((document, buffers, quantized, draco_morphs))
}

/// The document with the extensions it requires but this reader cannot decode (a KTX2
/// texture's `KHR_texture_basisu`, a vendor's mesh format) no longer required, and a
/// warning naming them: the skeleton, skin and animations do not depend on them, and what
/// they carry is left out where it is read (a texture not drawn, a primitive skipped).
pub(crate) fn without_unknown_required(
    document: gltf::Document,
    warnings: &mut Vec<String>,
) -> gltf::Document {
    let decoded = |e: &String| {
        gltf::json::extensions::ENABLED_EXTENSIONS.contains(&e.as_str())
            || compressed::HANDLED.contains(&e.as_str())
    };
    let unknown: Vec<String> = (document.as_json().extensions_required.iter())
        .filter(|e| !decoded(e))
        .cloned()
        .collect();
    if unknown.is_empty() {
        return document;
    }
    warnings.push(format!(
        "the file requires {} that this reader does not decode: read without {}; what \
         depends on {} is left out",
        unknown.join(", "),
        if unknown.len() > 1 { "them" } else { "it" },
        if unknown.len() > 1 { "them" } else { "it" },
    ));
    let mut root = document.into_json();
    root.extensions_required.retain(|e| !unknown.contains(e));
    // A texture whose only image is in such an extension is pointed at that image, which
    // the texture reader then leaves out with a warning (it reads PNG and JPEG).
    for texture in &mut root.textures {
        let image = (texture.extensions.as_ref())
            .and_then(|e| unknown.iter().find_map(|name| e.others.get(name)))
            .and_then(|x| x.get("source")?.as_u64())
            .and_then(|i| u32::try_from(i).ok());
        if texture.source.value() == u32::MAX as usize
            && let Some(image) = image
        {
            texture.source = gltf::json::Index::new(image);
        }
    }
    gltf::Document::from_json_without_validation(root)
}

/// What [`open`] gives: the document, its buffers, the accessors dequantized, and the meshes
/// whose morph targets Draco leaves unreadable.
type Opened = (
    gltf::Document,
    Vec<gltf::buffer::Data>,
    HashSet<usize>,
    HashSet<usize>,
);

/// One skeleton per distinct joint set: RobotExpressive's two skins share one skeleton.
fn build_skeletons(
    doc: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    h: &Hierarchy,
    humanoid: &HashMap<usize, HumanBone>,
    quantized: &HashSet<usize>,
) -> Result<(Vec<BuiltSkeleton>, Vec<usize>), Problem> {
    let mut built: Vec<BuiltSkeleton> = Vec::new();
    let mut keys: Vec<BTreeSet<usize>> = Vec::new();
    let mut skin_to_skeleton = Vec::new();
    for skin in doc.skins() {
        let joints: BTreeSet<usize> = skin.joints().map(|j| j.index()).collect();
        if joints.is_empty() {
            return Err(Problem::BadData {
                what: format!("skin {}", skin.index()),
                reason: "it has no joints".into(),
            });
        }
        if let Some(k) = keys.iter().position(|k| *k == joints) {
            skin_to_skeleton.push(k);
            continue;
        }
        let ibms = inverse_binds(&skin, buffers)?;
        let name = skin
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| h.names[*joints.first().unwrap_or(&0)].clone());
        let input = SkeletonInput {
            name,
            bind_space: bind_space(doc, h, &skin, &ibms, quantized),
            inverse_binds: skin.joints().map(|j| j.index()).zip(ibms).collect(),
            joints: joints.clone(),
            humanoid,
        };
        skin_to_skeleton.push(built.len());
        built.push(skeletons::build(h, input)?);
        keys.push(joints);
    }
    if built.is_empty() {
        // No skin: a VRM Animation's humanoid nodes, or else the animated nodes.
        let mut joints: BTreeSet<usize> = humanoid.keys().copied().collect();
        if joints.is_empty() {
            joints = doc
                .animations()
                .flat_map(|a| {
                    a.channels()
                        .map(|c| c.target().node().index())
                        .collect::<Vec<_>>()
                })
                .collect();
        }
        if joints.is_empty() {
            return Err(Problem::NoJoints);
        }
        let name = h.names[*joints.first().unwrap_or(&0)].clone();
        let input = SkeletonInput {
            name,
            joints,
            inverse_binds: HashMap::new(),
            bind_space: Mat4::IDENTITY,
            humanoid,
        };
        built.push(skeletons::build(h, input)?);
    }
    Ok((built, skin_to_skeleton))
}

/// The skin's inverse bind matrices, each affine (as a node's matrix must be).
fn inverse_binds(skin: &gltf::Skin, buffers: &[gltf::buffer::Data]) -> Result<Vec<Mat4>, Problem> {
    let reader = skin.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let Some(read) = reader.read_inverse_bind_matrices() else {
        return Ok(vec![Mat4::IDENTITY; skin.joints().len()]);
    };
    let ibms: Vec<Mat4> = read.map(|c| Mat4::from_cols_array_2d(&c)).collect();
    match ibms
        .iter()
        .position(|m| m.is_finite() && !hierarchy::is_affine(m))
    {
        Some(k) => Err(Problem::BadData {
            what: format!("skin {}, inverse bind matrix {k}", skin.index()),
            reason: hierarchy::NOT_AFFINE.into(),
        }),
        None => Ok(ibms),
    }
}

/// The space a skin's inverse bind matrices live in. The glTF rule is world space, and
/// Blender writes them so (a Mixamo character under a 0.01-scale `Armature` node); COLLADA2GLTF
/// and three.js read them in the space of the mesh node that uses the skin (CesiumMan's Z-up
/// matrices under its `Z_UP` node). The two differ only when that node has a transform, and
/// then the right one is the one whose bind pose has the joints' own rest scale and place:
/// the wrong one scales the skeleton by the armature's 0.01 twice, or tips it over.
///
/// A skin over quantized positions (`KHR_mesh_quantization`, listed in `quantized`) carries
/// their dequantization in its matrices (glTF-Transform moves it there, as a skinned mesh
/// ignores its node's transform): then the space is the one that puts the skin's top joint
/// at its rest, and the joints below keep their bind relative to it.
fn bind_space(
    doc: &gltf::Document,
    h: &Hierarchy,
    skin: &gltf::Skin,
    ibms: &[Mat4],
    quantized: &HashSet<usize>,
) -> Mat4 {
    let user = doc
        .nodes()
        .find(|n| n.skin().is_some_and(|s| s.index() == skin.index()));
    let quantized_positions = user.as_ref().and_then(|n| n.mesh()).is_some_and(|m| {
        m.primitives().any(|p| {
            p.get(&gltf::Semantic::Positions)
                .is_some_and(|a| quantized.contains(&a.index()))
        })
    });
    if quantized_positions && let Some(space) = top_joint_at_rest(h, skin, ibms) {
        return space;
    }
    let mesh_space = user.map_or(Mat4::IDENTITY, |n| h.worlds[n.index()]);
    if mesh_space.abs_diff_eq(Mat4::IDENTITY, 1e-6) {
        return mesh_space;
    }
    let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    let miss = |space: Mat4| bind_miss(h, &joints, ibms, space);
    if miss(Mat4::IDENTITY) < miss(mesh_space) {
        Mat4::IDENTITY
    } else {
        mesh_space
    }
}

/// The space in which the skin's top joint (the one nearest the scene root) binds at its
/// rest, if its matrix can be inverted.
fn top_joint_at_rest(h: &Hierarchy, skin: &gltf::Skin, ibms: &[Mat4]) -> Option<Mat4> {
    let depth = |mut n: usize| {
        let mut d = 0;
        while let Some(p) = h.parents[n] {
            n = p;
            d += 1;
        }
        d
    };
    let (k, top) = skin
        .joints()
        .map(|j| j.index())
        .enumerate()
        .min_by_key(|&(_, j)| depth(j))?;
    let ibm = ibms.get(k)?;
    let space = h.worlds[top] * *ibm;
    (space.is_finite() && space.determinant().abs() > 1e-30).then_some(space)
}

/// How far the bind pose read in `space` is from the rest pose: log scale ratios plus
/// positions relative to the skeleton's size, summed over joints.
fn bind_miss(h: &Hierarchy, joints: &[usize], ibms: &[Mat4], space: Mat4) -> f32 {
    let rest: Vec<glam::Vec3> = joints
        .iter()
        .map(|&j| h.worlds[j].w_axis.truncate())
        .collect();
    let size = rest
        .iter()
        .map(|p| p.distance(rest[0]))
        .fold(1e-6f32, f32::max);
    let mut total = 0.0;
    for (k, (&j, ibm)) in joints.iter().zip(ibms).enumerate() {
        let det = ibm.determinant();
        if !det.is_finite() || det.abs() < 1e-30 {
            continue;
        }
        let bind = space * ibm.inverse();
        let scale_ratio = (bind.determinant() / h.worlds[j].determinant()).abs();
        if scale_ratio.is_finite() && scale_ratio > 0.0 {
            total += scale_ratio.ln().abs();
        }
        total += bind.w_axis.truncate().distance(rest[k]) / size;
    }
    if total.is_finite() {
        total
    } else {
        f32::INFINITY
    }
}

/// Buffer URIs the `gltf` crate can resolve without panicking (it unwraps the percent-decoding
/// of relative paths).
fn check_buffer_uris(doc: &gltf::Document) -> Result<(), Problem> {
    for buffer in doc.buffers() {
        if let gltf::buffer::Source::Uri(uri) = buffer.source()
            && !textures::percent_decodes_to_utf8(uri)
        {
            return Err(Problem::Buffers(format!(
                "buffer {}: the URI's percent-escapes do not decode to UTF-8",
                buffer.index()
            )));
        }
    }
    Ok(())
}

/// A GLB container error the crate found after `check_container` (it should find none),
/// in words rather than its `Debug` form.
fn binary_words(e: &gltf::binary::Error) -> String {
    use gltf::binary::Error as B;
    match e {
        B::Io(io) => crate::error::io_words(io),
        B::Version(v) => format!("GLB version {v}; only version 2 is read"),
        B::Magic(m) => format!(
            "it starts with {:?}, not 'glTF'",
            String::from_utf8_lossy(m)
        ),
        B::Length {
            length,
            length_read,
        } => format!(
            "the file is truncated: the header says {length} bytes, only {length_read} read"
        ),
        B::ChunkLength {
            ty,
            length,
            length_read,
        } => format!(
            "the file is truncated: the {ty:?} chunk says {length} bytes, only {length_read} read"
        ),
        B::ChunkType(ty) => format!("a {ty:?} chunk where another was expected"),
        B::UnknownChunkType(t) => format!("unknown chunk type {:?}", String::from_utf8_lossy(t)),
    }
}

/// Why the buffers could not be loaded, with I/O errors in words.
fn buffer_words(e: &gltf::Error) -> String {
    match e {
        gltf::Error::Io(io) => crate::error::io_words(io),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod curve_tests;
#[cfg(test)]
mod partial_tests;
