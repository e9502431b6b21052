//! GLB export: the target character with clips added (`WithCharacter`), or the skeleton
//! and clips alone (`AnimationOnly`). Every file written must pass the Khronos glTF
//! validator without errors, so the writer repairs what it carries over from the source
//! and says what it repaired. Files are written atomically: an error leaves no half file.

mod anim;
mod bin;
mod character;
mod copies;
mod embed;
mod meshes;
mod pack;
mod repair;
mod rig;
mod weights;

use crate::asset::Asset;
use crate::atomic::write_atomic;
use crate::error::{ExportError, ExportProblem};
use gltf::binary::{Glb, Header};
use gltf::json::Root;
use retarget_core::Clip;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// What goes into the GLB besides the clips.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GlbContent {
    /// The whole target file (meshes, materials, textures, skins, extensions).
    #[default]
    WithCharacter,
    /// The skeleton as nodes with a skin over them, no mesh.
    AnimationOnly,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GlbExportOptions {
    pub content: GlbContent,
    /// `WithCharacter` only: keep the file's own animations beside the new ones.
    pub keep_existing_animations: bool,
}

/// What was written, and what had to be changed on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportReport {
    pub path: PathBuf,
    pub bytes: u64,
    /// Animations added (clips without any track are left out).
    pub clips: usize,
    /// Keys written over all tracks.
    pub keys: usize,
    /// Keys before the writer's own key reduction (an FBX's curves); `keys` when it reduced
    /// none.
    pub keys_before: usize,
    /// Vertices whose skin weights were normalised so the file validates.
    pub repaired_vertices: usize,
    /// Repairs and adjustments, in words for the user.
    pub notes: Vec<String>,
}

/// A finished document and its BIN chunk.
struct Built {
    root: Root,
    bin: Vec<u8>,
    clips: usize,
    keys: usize,
    repaired_vertices: usize,
    notes: Vec<String>,
}

/// Writes `clips` (each with one track set per joint of `target.skeletons[skeleton]`) to
/// the GLB `out`. `target_path` is the file `target` was loaded from; `WithCharacter`
/// re-reads it to carry over what the importer does not keep.
pub fn export_glb(
    target_path: &Path,
    target: &Asset,
    skeleton: usize,
    clips: &[Clip],
    options: &GlbExportOptions,
    out: &Path,
) -> Result<ExportReport, ExportError> {
    let fail = |problem| ExportError::new(out, problem);
    let Some(s) = target.skeletons.get(skeleton) else {
        return Err(fail(ExportProblem::Invalid(format!(
            "skeleton {skeleton} does not exist ({} in the target)",
            target.skeletons.len()
        ))));
    };
    let mut notes = Vec::new();
    let built = match options.content {
        // A character read from another format (FBX): its meshes as the importer read them.
        GlbContent::WithCharacter if target.joint_nodes.is_empty() && !target.meshes.is_empty() => {
            let meshes: Vec<usize> = (0..target.meshes.len())
                .filter(|&m| target.meshes[m].skeleton == skeleton)
                .collect();
            rig::build(s, Some((target, &meshes)), clips)
        }
        GlbContent::WithCharacter => {
            let nodes = joint_nodes(target, skeleton).map_err(fail)?;
            let copies = copies::of(target, skeleton, clips);
            let morphs: Vec<_> = clips
                .iter()
                .map(|c| weights::morph_channels(c, target))
                .collect();
            character::build(
                target_path,
                (skeleton, nodes),
                (clips, &morphs),
                &copies,
                options.keep_existing_animations,
            )
            .map(|mut built| {
                note_copies(target, skeleton, &copies, &mut built.notes);
                built
            })
        }
        GlbContent::AnimationOnly => {
            note_unwritten_curves(clips, &mut notes);
            rig::build(s, None, clips)
        }
    }
    .map_err(fail)?;
    let mut built = built;
    built.notes.splice(0..0, notes);
    let json = json_bytes(&built.root).map_err(|e| {
        fail(ExportProblem::Invalid(format!(
            "cannot encode the JSON: {e}"
        )))
    })?;
    let bytes = write_glb(out, &json, &built.bin).map_err(|e| fail(ExportProblem::Write(e)))?;
    Ok(ExportReport {
        path: out.to_path_buf(),
        bytes,
        clips: built.clips,
        keys: built.keys,
        keys_before: built.keys,
        repaired_vertices: built.repaired_vertices,
        notes: built.notes,
    })
}

/// The document's JSON with no `null` member: glTF's schema allows none, and gltf-json writes
/// some for absent options (`KHR_texture_transform`'s `texCoord`), which Blender's importer
/// and the Khronos validator refuse. A `null` inside an array is a number that was not finite
/// (serde_json writes NaN so): refused, so no file is written that no reader reads back.
fn json_bytes(root: &gltf::json::Root) -> Result<Vec<u8>, String> {
    fn drop_nulls(value: &mut serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(map) => {
                map.retain(|_, v| !v.is_null());
                map.values_mut().all(drop_nulls)
            }
            serde_json::Value::Array(items) => {
                items.iter().all(|v| !v.is_null()) && items.iter_mut().all(drop_nulls)
            }
            _ => true,
        }
    }
    let mut value = serde_json::to_value(root).map_err(|e| e.to_string())?;
    if !drop_nulls(&mut value) {
        return Err("a number in it is not finite".into());
    }
    serde_json::to_vec(&value).map_err(|e| e.to_string())
}

/// Curves need the target's meshes and their morph targets.
fn note_unwritten_curves(clips: &[Clip], notes: &mut Vec<String>) {
    let names: Vec<String> = clips
        .iter()
        .flat_map(|c| c.curves())
        .map(|c| format!("'{}'", c.name))
        .collect();
    if !names.is_empty() {
        notes.push(format!(
            "curves are written only with the target's meshes; not written: {}",
            names.join(", ")
        ));
    }
}

fn note_copies(target: &Asset, skeleton: usize, copies: &[copies::Copy], notes: &mut Vec<String>) {
    let name = |s: usize| &target.skeletons[s].name;
    for c in copies {
        notes.push(format!(
            "the clips also drive skeleton {} ('{}'), a copy of skeleton {skeleton} ('{}') in \
             the same file",
            c.skeleton,
            name(c.skeleton),
            name(skeleton)
        ));
    }
}

/// The glTF node of every joint; a target read from BVH has none to put clips on (and no
/// meshes to write in their place).
fn joint_nodes(target: &Asset, skeleton: usize) -> Result<&[usize], ExportProblem> {
    let joints = target.skeletons.get(skeleton).map_or(0, |s| s.len());
    match target.joint_nodes.get(skeleton) {
        Some(nodes) if nodes.len() == joints => Ok(nodes),
        _ => Err(ExportProblem::Invalid(format!(
            "the target ({}) has no glTF nodes for its joints and no meshes; only a character \
             read from glTF, GLB, VRM or FBX can be written with its character (use \
             AnimationOnly)",
            target.format.name()
        ))),
    }
}

/// The GLB container (header, JSON chunk, BIN chunk, each padded to four bytes) written
/// through `write_atomic`.
fn write_glb(out: &Path, json: &[u8], bin: &[u8]) -> std::io::Result<u64> {
    let glb = Glb {
        header: Header {
            magic: *b"glTF",
            version: 2,
            // `to_writer` computes the real length.
            length: 0,
        },
        json: Cow::Borrowed(json),
        bin: (!bin.is_empty()).then_some(Cow::Borrowed(bin)),
    };
    write_atomic(out, |w| glb.to_writer(w).map_err(std::io::Error::other))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gltf::json::material::PbrBaseColorFactor;

    #[test]
    fn a_number_that_is_not_finite_is_refused_and_absent_options_are_dropped() {
        let mut root = gltf::json::Root::default();
        root.materials.push(gltf::json::Material::default());
        let text = String::from_utf8(json_bytes(&root).unwrap()).unwrap();
        assert!(!text.contains("null"), "{text}");
        root.materials[0].pbr_metallic_roughness.base_color_factor =
            PbrBaseColorFactor([0.5, f32::NAN, 0.5, 1.0]);
        assert_eq!(
            json_bytes(&root).unwrap_err(),
            "a number in it is not finite"
        );
    }
}
