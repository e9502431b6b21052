//! FBX import (6.1 to 7.7, binary and ASCII) through ufbx: the skeleton the skin clusters
//! use, every animation stack as a clip at its own times, and the skinned meshes. ufbx
//! converts units and axes to glTF's (metres, +Y up) in the scene root, so the joints keep
//! the file's numbers and the conversion lands in the skeleton's container.

mod body_unit;
mod clips;
mod convert;
mod load;

pub(crate) use load::NODE_DEPTH_LIMIT;
mod meshes;
mod skeleton;
#[cfg(test)]
mod tests;
mod textures;

use crate::asset::{Asset, Format, Provenance};
use crate::error::{ImportError, Problem};
use retarget_core::{Axis, HumanBone, Unit};
use std::path::Path;

pub fn import_fbx(path: &Path) -> Result<Asset, ImportError> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::new(path, Problem::Read(e)))?;
    import_fbx_bytes(path, &bytes)
}

/// Imports from bytes already read; `path` names the file in errors.
pub fn import_fbx_bytes(path: &Path, bytes: &[u8]) -> Result<Asset, ImportError> {
    import(path, bytes).map_err(|p| ImportError::new(path, p))
}

/// Whether `bytes` start like an FBX file (binary magic, or an ASCII header comment).
pub fn looks_like_fbx(bytes: &[u8]) -> bool {
    bytes.starts_with(b"Kaydara FBX Binary") || bytes.starts_with(b"; FBX ")
}

fn import(path: &Path, bytes: &[u8]) -> Result<Asset, Problem> {
    let scene = load::parse(bytes)?;
    let mut warnings: Vec<String> = Vec::new();
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("fbx")
        .to_owned();
    let mut built = skeleton::build(&scene, &name, &mut warnings)?;
    let clips = clips::read_clips(&scene, &built, &mut warnings)?;
    let mut textures = textures::Textures::default();
    let (meshes, morph_names) = meshes::read_meshes(&scene, &built, &mut textures, &mut warnings);
    let curve_targets = meshes::curve_targets(&morph_names);
    built.skeleton.label_unlabelled(HumanBone::from_mixamo);
    let (declared, unit_note) = file_unit(scene.settings.original_unit_meters);
    warnings.extend(unit_note);
    let mut readings = crate::asset::Readings::default();
    // Our own writer says its unit truthfully (a character scaled to 1.7 cm on purpose is
    // written as such): only other files' declared units are weighed against the body.
    let ours = scene.metadata.creator.starts_with("Retarget Studio");
    let by_body = (!ours)
        .then(|| body_unit::read_by_body(&mut built.skeleton, declared))
        .flatten();
    let (unit, unit_source) = match by_body {
        Some((unit, reading)) => {
            warnings.push(format!("unit: {}", reading.evidence));
            readings.unit = Some(reading);
            readings.declared_unit = Some(declared);
            (unit, Provenance::Detected)
        }
        None => (declared, Provenance::Declared),
    };
    Ok(Asset {
        path: path.to_path_buf(),
        format: Format::Fbx,
        skeletons: vec![built.skeleton],
        clips,
        meshes,
        joint_nodes: Vec::new(),
        unit,
        unit_source,
        up: file_up(scene.settings.original_axis_up),
        up_source: Provenance::Declared,
        warnings,
        curve_targets,
        readings,
    })
}

/// The file's length unit (UnitScaleFactor), for the user: the container already scales
/// the joints to metres, whatever the unit.
fn file_unit(metres: f64) -> (Unit, Option<String>) {
    if !(metres.is_finite() && metres > 0.0) {
        return (Unit::Centimetre, None);
    }
    let near = Unit::ALL
        .into_iter()
        .find(|u| (f64::from(u.metres()) / metres - 1.0).abs() < 1e-4);
    match near {
        Some(u) => (u, None),
        None => (
            Unit::guess_from_height(metres as f32 * 1.7),
            Some(format!(
                "the file's unit is {metres} m (UnitScaleFactor {}); joints are scaled to metres \
                 by it exactly, the unit shown is the nearest named one",
                metres * 100.0
            )),
        ),
    }
}

fn file_up(axis: ufbx::CoordinateAxis) -> Axis {
    use ufbx::CoordinateAxis as C;
    match axis {
        C::PositiveX => Axis::PosX,
        C::NegativeX => Axis::NegX,
        C::NegativeY => Axis::NegY,
        C::PositiveZ => Axis::PosZ,
        C::NegativeZ => Axis::NegZ,
        _ => Axis::PosY,
    }
}
