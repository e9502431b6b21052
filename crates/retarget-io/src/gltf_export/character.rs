//! `WithCharacter`: the target file itself, re-read so that everything the importer does
//! not model (materials, textures, morph targets, extensions such as VRM) is carried over
//! untouched, with the new clips added as animations on the file's own joint nodes.

use super::anim::{self, Written};
use super::bin::Extra;
use super::weights::MorphChannel;
use super::{Built, embed, pack, repair};
use crate::error::ExportProblem;
use crate::gltf_import::import_gltf_bytes;
use gltf::json::Root;
use retarget_core::Clip;
use std::path::Path;

/// Extensions known to hold no accessor or buffer view index of their own, so that unused
/// accessors and views can be dropped without breaking them. Any other extension keeps
/// every accessor and view where it was.
const SAFE_EXTENSIONS: &[&str] = &[
    "KHR_texture_transform",
    "KHR_lights_punctual",
    "KHR_texture_basisu",
    "KHR_mesh_quantization",
    "KHR_xmp_json_ld",
    "EXT_texture_webp",
    "EXT_texture_avif",
    "VRM",
    "VRMC_vrm",
    "VRMC_springBone",
    "VRMC_springBone_extended_collider",
    "VRMC_node_constraint",
    "VRMC_materials_mtoon",
    "VRMC_materials_hdr_emissiveMultiplier",
];

fn is_safe_extension(name: &str) -> bool {
    name.starts_with("KHR_materials_") || SAFE_EXTENSIONS.contains(&name)
}

/// `target`: the skeleton the clips are for and its joint nodes; `copies`: other skeletons
/// of the file the clips drive as well; `morphs[i]`: clip `i`'s `weights` channels.
pub(super) fn build(
    path: &Path,
    (skeleton, joint_nodes): (usize, &[usize]),
    (clips, morphs): (&[Clip], &[Vec<MorphChannel>]),
    copies: &[super::copies::Copy],
    keep_existing_animations: bool,
) -> Result<Built, ExportProblem> {
    let (doc, buffers) = read_source(path, skeleton, joint_nodes)?;
    let base = path.parent();
    let nodes: Vec<u32> = joint_nodes.iter().map(|&n| n as u32).collect();

    let mut notes = Vec::new();
    let weight_fixes = repair::plan_weights(&doc, &buffers);
    let bounds_fixes = repair::plan_position_bounds(&doc, &buffers);
    let images = embed::read_images(&doc, base)?;
    let collect_garbage = doc.extensions_used().all(is_safe_extension);
    let mut root = doc.into_json();
    drop_animations(&mut root, keep_existing_animations, &mut notes);

    let mut extra = Extra::new(&mut root);
    let repaired_vertices = repair::apply_weights(&mut root, &mut extra, weight_fixes, &mut notes);
    repair::apply_position_bounds(&mut root, bounds_fixes, &mut notes);
    let embedded = embed::embed_images(&mut root, &mut extra, images);
    if embedded > 0 {
        notes.push(format!(
            "{embedded} image(s) given by URI embedded in the GLB"
        ));
    }
    let Written { clips, keys } = anim::push_clips(
        &mut root,
        &mut extra,
        &driven(clips, morphs, &nodes, copies),
        &mut notes,
    )?;
    repair::split_animated_matrices(&mut root, &mut notes);

    let mut sources: Vec<&[u8]> = buffers.iter().map(|b| &b.0[..]).collect();
    sources.push(&extra.data);
    let bin = pack::pack(&mut root, &sources, collect_garbage)?;
    if !collect_garbage {
        notes.push(
            "the file uses extensions this writer does not know, so unused accessors and \
             buffer views were kept"
                .into(),
        );
    }
    stamp_generator(&mut root);
    Ok(Built {
        root,
        bin,
        clips,
        keys,
        repaired_vertices,
        notes,
    })
}

fn driven<'a>(
    clips: &'a [Clip],
    morphs: &'a [Vec<MorphChannel>],
    nodes: &'a [u32],
    copies: &'a [super::copies::Copy],
) -> Vec<anim::Driven<'a>> {
    let copies = copies.iter().map(|c| anim::Driven {
        clips: &c.clips,
        nodes: &c.nodes,
        morphs: &[],
    });
    std::iter::once(anim::Driven {
        clips,
        nodes,
        morphs,
    })
    .chain(copies)
    .collect()
}

/// Re-reads the target. The importer runs over the bytes first: its checks (accessors
/// inside their buffers, no node cycles) keep the `gltf` readers used below from
/// panicking, and its joint nodes must be those the caller's asset was built with.
fn read_source(
    path: &Path,
    skeleton: usize,
    joint_nodes: &[usize],
) -> Result<(gltf::Document, Vec<gltf::buffer::Data>), ExportProblem> {
    let source = |why: String| ExportProblem::Source(format!("{}: {why}", path.display()));
    let bytes = std::fs::read(path).map_err(|e| source(e.to_string()))?;
    let fresh = import_gltf_bytes(path, &bytes).map_err(|e| source(e.problem.to_string()))?;
    if fresh.joint_nodes.get(skeleton).map(Vec::as_slice) != Some(joint_nodes) {
        return Err(source(
            "its joints are not the nodes they were when it was loaded; has the file changed?"
                .into(),
        ));
    }
    crate::gltf_import::compressed::open_plain(&bytes, path.parent()).map_err(source)
}

fn drop_animations(root: &mut Root, keep: bool, notes: &mut Vec<String>) {
    if keep || root.animations.is_empty() {
        return;
    }
    let names: Vec<String> = root
        .animations
        .iter()
        .enumerate()
        .map(|(i, a)| a.name.clone().unwrap_or_else(|| format!("animation_{i}")))
        .collect();
    notes.push(format!(
        "the file's own {} animation(s) were dropped: {}",
        names.len(),
        names.join(", ")
    ));
    root.animations.clear();
}

/// Says who wrote the file last, keeping the name of the tool that made the character.
fn stamp_generator(root: &mut Root) {
    let ours = format!("Retarget Studio {}", env!("CARGO_PKG_VERSION"));
    root.asset.generator = Some(match root.asset.generator.take() {
        Some(old) if !old.is_empty() => format!("{ours} (from {old})"),
        _ => ours,
    });
}
