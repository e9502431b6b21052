//! Readers and writers. Depends on core, never on the app.

pub mod added_root;
pub mod asset;
pub mod atomic;
pub mod bvh_export;
pub mod bvh_import;
pub mod error;
pub mod fbx;
pub mod fbx_export;
pub mod gltf_export;
pub mod gltf_import;
pub mod morph_weights;
pub mod project;
pub mod solve_edits;
pub mod vrm;
pub mod vrm_expressions;

pub use asset::{
    AlphaMode, Asset, AssetClip, BaseColorTexture, CurveTarget, EncodedImage, Format, ImageMime,
    MeshPrimitive, MorphBind, MorphDelta, Provenance, SkinnedMesh, TextureWrap,
};
pub use error::{ExportError, ExportProblem, ImportError, Problem};

use std::path::Path;

/// Options a caller can force on an import where the file leaves room to guess.
#[derive(Clone, Copy, Debug, Default)]
pub struct ImportOptions {
    /// The length unit of the file: a BVH's (its format states none), or an FBX's over
    /// the one it declares (or its body said) when both mislead.
    pub unit: Option<retarget_core::Unit>,
    /// Which file axis points up: a BVH's (its format states none), or an FBX's over the
    /// one it declares.
    pub up: Option<retarget_core::Axis>,
}

/// Loads any supported file, choosing the reader by extension (then by content).
pub fn load(path: &Path, options: &ImportOptions) -> Result<Asset, ImportError> {
    let mut asset = load_any(path, options)?;
    if let Some(unit) = options.unit {
        read_in_unit(&mut asset, unit);
    }
    if let Some(up) = options.up {
        read_with_up(&mut asset, up);
    }
    check_containers(&asset.skeletons).map_err(|p| ImportError::new(path, p))?;
    check_clip_extent(&asset).map_err(|p| ImportError::new(path, p))?;
    Ok(asset)
}

/// An FBX read in the unit the caller picked: its figures scaled from the unit it was read
/// in, which stays as the runner-up; the unit it declared is kept, so a file written for
/// it declares the same over the same numbers. A BVH reads its unit itself.
fn read_in_unit(asset: &mut Asset, unit: retarget_core::Unit) {
    if asset.format != Format::Fbx || asset.unit_source == Provenance::Override {
        return;
    }
    let read = asset.unit;
    let factor = unit.metres() / read.metres();
    for s in &mut asset.skeletons {
        s.set_container(s.container() * glam::Mat4::from_scale(glam::Vec3::splat(factor)));
    }
    asset.readings.declared_unit.get_or_insert(read);
    asset.readings.unit = Some(asset::Reading {
        evidence: format!("picked by the user; read as {} before", read.name()),
        runner_up: Some(read.name().to_owned()),
    });
    asset.unit = unit;
    asset.unit_source = Provenance::Override;
}

/// An FBX read with the up axis the caller picked: every skeleton turned from the frame its
/// declared axis set up to the picked one's, the declared axis kept as the runner-up. A
/// BVH reads its up axis itself.
fn read_with_up(asset: &mut Asset, up: retarget_core::Axis) {
    if asset.format != Format::Fbx || asset.up_source == Provenance::Override || asset.up == up {
        return;
    }
    let read = asset.up;
    let to_y = |a: retarget_core::Axis| glam::Quat::from_rotation_arc(a.vector(), glam::Vec3::Y);
    let turn = glam::Mat4::from_quat(to_y(up) * to_y(read).inverse());
    for s in &mut asset.skeletons {
        s.set_container(turn * s.container());
    }
    asset.readings.up = Some(asset::Reading {
        evidence: format!("picked by the user; read as {} before", read.name()),
        runner_up: Some(read.name().to_owned()),
    });
    asset.up = up;
    asset.up_source = Provenance::Override;
}

/// The most one axis of a skeleton's container may be stretched against another, and the
/// least volume its axes may keep of their lengths' product: past either it is no figure's
/// frame (real files scale by 100 at most, or mirror), and a joint under it cannot be
/// inverted back out of a written file in `f32` (a mutant's 65535 in one matrix entry).
const CONTAINER_STRETCH: f32 = 1e4;

/// Every skeleton's container keeps its three axes apart ([`CONTAINER_STRETCH`]).
fn check_containers(skeletons: &[retarget_core::Skeleton]) -> Result<(), Problem> {
    for s in skeletons {
        let m = glam::Mat3::from_mat4(s.container());
        let lengths = [m.x_axis.length(), m.y_axis.length(), m.z_axis.length()];
        let (lo, hi) = lengths
            .iter()
            .fold((f32::INFINITY, 0.0f32), |(lo, hi), &l| {
                (lo.min(l), hi.max(l))
            });
        let volume =
            m.determinant().abs() / (lengths.iter().product::<f32>()).max(f32::MIN_POSITIVE);
        if hi > CONTAINER_STRETCH * lo || volume < 1.0 / CONTAINER_STRETCH {
            return Err(Problem::BadData {
                what: format!("the transform above skeleton '{}'", s.name),
                reason: format!(
                    "it stretches one axis {:.0} times another, or folds them onto a plane: \
                     no figure stands in such a frame",
                    hi / lo.max(f32::MIN_POSITIVE)
                ),
            });
        }
    }
    Ok(())
}

/// Every clip, posed at each of its key times, keeps its joints finite and within
/// [`retarget_core::skeleton::MAX_EXTENT`]: finite keys can still compose past the `f32`
/// range (a scale of 1e30 under another), and the viewer and the solver would get NaN.
fn check_clip_extent(asset: &Asset) -> Result<(), Problem> {
    use retarget_core::skeleton::MAX_EXTENT;
    for c in &asset.clips {
        let Some(skeleton) = asset.skeletons.get(c.skeleton) else {
            continue;
        };
        let mut times: Vec<f32> = c.clip.tracks().iter().flat_map(key_times).collect();
        times.sort_by(f32::total_cmp);
        times.dedup();
        let rest = retarget_core::Pose::rest(skeleton);
        let mut pose = rest.clone();
        let mut worlds = vec![glam::Mat4::IDENTITY; skeleton.len()];
        for t in times {
            pose.copy_from(&rest);
            c.clip.sample(t, &mut pose);
            pose.world_matrices_into(skeleton, &mut worlds);
            let within = |m: &glam::Mat4| m.to_cols_array().iter().all(|v| v.abs() <= MAX_EXTENT);
            if let Some(j) = worlds.iter().position(|m| !within(m)) {
                return Err(Problem::BadData {
                    what: format!("clip '{}' at {t} s", c.clip.name),
                    reason: format!(
                        "joint '{}' is carried beyond {MAX_EXTENT:e} units: the clip's numbers \
                         are too large",
                        skeleton.names()[j]
                    ),
                });
            }
        }
    }
    Ok(())
}

fn key_times(t: &retarget_core::JointTracks) -> impl Iterator<Item = f32> + '_ {
    let tr = t.translation.iter().flat_map(|k| k.times());
    let ro = t.rotation.iter().flat_map(|k| k.times());
    let sc = t.scale.iter().flat_map(|k| k.times());
    tr.chain(ro).chain(sc).copied()
}

fn load_any(path: &Path, options: &ImportOptions) -> Result<Asset, ImportError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "bvh" => bvh_import::import_bvh(path, options),
        "gltf" | "glb" | "vrm" | "vrma" => gltf_import::import_gltf(path),
        "fbx" => fbx::import_fbx(path),
        _ => {
            let bytes =
                std::fs::read(path).map_err(|e| ImportError::new(path, Problem::Read(e)))?;
            if bytes.starts_with(b"HIERARCHY") {
                bvh_import::import_bvh_bytes(path, &bytes, options)
            } else if bytes.starts_with(b"glTF") {
                gltf_import::import_gltf_bytes(path, &bytes)
            } else if fbx::looks_like_fbx(&bytes) {
                fbx::import_fbx_bytes(path, &bytes)
            } else {
                Err(ImportError::new(path, Problem::UnknownFormat))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Vec3};
    use retarget_core::{JointDef, Skeleton, Transform};

    fn under(container: Mat4) -> Skeleton {
        let joint = JointDef::new("hips", None, Transform::IDENTITY);
        Skeleton::new("rig", container, vec![joint]).unwrap()
    }

    /// Scale by 100 or 0.01, mirror or turn: a figure's frame. One axis stretched 65535
    /// times (a mutant's matrix entry), or two axes folded together: refused at load, as
    /// no file written under it reads back.
    #[test]
    fn a_container_that_stretches_or_folds_its_axes_is_refused() {
        let turn = Mat4::from_rotation_x(-std::f32::consts::FRAC_PI_2);
        for ok in [
            turn * Mat4::from_scale(Vec3::splat(100.0)),
            Mat4::from_scale(Vec3::new(0.01, 0.01, -0.01)),
            Mat4::from_scale(Vec3::new(1.0, 1.0, 50.0)),
        ] {
            assert!(check_containers(&[under(ok)]).is_ok(), "{ok}");
        }
        let mut sheared = turn;
        sheared.y_axis.x = 65535.0;
        let flat = Mat4::from_cols(
            Vec3::X.extend(0.0),
            Vec3::X.extend(0.0),
            Vec3::Z.extend(0.0),
            glam::Vec4::W,
        );
        for bad in [sheared, Mat4::from_scale(Vec3::new(1.0, 1e5, 1.0)), flat] {
            let err = check_containers(&[under(bad)]).unwrap_err().to_string();
            assert!(err.contains("skeleton 'rig'"), "{err}");
        }
    }
}
