//! Exporting a session's retargeted clips: what the `retarget` command and the editor's
//! export panel share.

use super::{Session, SessionError};
use crate::core::TranslationMode;
use crate::core::reduce::{Tolerance, reduce_keys};
use crate::io::bvh_export::{BvhExportOptions, export_bvh};
use crate::io::gltf_export::{GlbContent, GlbExportOptions, export_glb};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ExportFormat {
    /// The target file with its meshes, materials and skins, plus the clips.
    #[default]
    GlbWithCharacter,
    /// Skeleton and clips only.
    GlbAnimationOnly,
    /// The target skeleton as BVH, one file per clip.
    Bvh,
}

impl ExportFormat {
    /// From the output's extension, with `animation_only` choosing between the GLB kinds.
    pub fn from_path(path: &Path, animation_only: bool) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "glb" if animation_only => Some(Self::GlbAnimationOnly),
            "glb" => Some(Self::GlbWithCharacter),
            "bvh" => Some(Self::Bvh),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExportJob {
    pub format: ExportFormat,
    /// Source clips by name; `None` is the session's current clip.
    pub clips: Vec<Option<String>>,
    pub fps: Option<f32>,
    pub out: PathBuf,
    /// Drop keys that interpolation reproduces within these (degrees, millimetres).
    pub reduce: Option<KeyReduction>,
    /// How the hips move: `HipsScaled` (default), `Copy` (unscaled) or `InPlace`.
    pub root_motion: Option<TranslationMode>,
    /// Then move the hips' ground path and facing onto the target's root joint
    /// (`core::root_motion`), as engines' root motion wants.
    pub extract_root: bool,
}

/// Key reduction tolerances as the user gives them.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KeyReduction {
    pub degrees: f32,
    pub millimetres: f32,
}

impl Default for KeyReduction {
    fn default() -> Self {
        Self {
            degrees: 0.1,
            millimetres: 0.5,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExportSummary {
    /// Each file written and its size in bytes.
    pub files: Vec<(PathBuf, u64)>,
    pub clips: usize,
    pub keys: usize,
    /// Key counts before and after reduction, when reduction ran.
    pub reduced: Option<(usize, usize)>,
    pub notes: Vec<String>,
}

impl Session {
    /// Retargets the job's clips and writes them (atomically, file by file).
    pub fn export(&self, job: &ExportJob) -> Result<ExportSummary, SessionError> {
        self.export_with_progress(job, &|_| true)
    }

    /// As `export`; `progress(clips_done)` is called after each clip and stops the export
    /// (with `SessionError::Cancelled`, nothing written) when it returns false.
    pub fn export_with_progress(
        &self,
        job: &ExportJob,
        progress: &dyn Fn(usize) -> bool,
    ) -> Result<ExportSummary, SessionError> {
        let map = job.root_motion.map(|mode| self.map_with_root_motion(mode));
        let mut clips = Vec::with_capacity(job.clips.len());
        for (done, name) in job.clips.iter().enumerate() {
            let clip = self.retarget_clip_with(name.as_deref(), job.fps, map.as_ref())?;
            clips.push(match job.extract_root {
                true => self.extracted_to_root(&clip)?,
                false => clip,
            });
            if !progress(done + 1) {
                return Err(SessionError::Cancelled);
            }
        }
        self.write_clips(clips, job)
    }

    /// Writes clips already retargeted in the job's format (reducing keys if it asks); the
    /// job's clip names, frame rate and root motion are not looked at again.
    pub fn write_clips(
        &self,
        mut clips: Vec<crate::core::Clip>,
        job: &ExportJob,
    ) -> Result<ExportSummary, SessionError> {
        let mut summary = ExportSummary {
            clips: clips.len(),
            ..Default::default()
        };
        if let Some(r) = job.reduce {
            let length = r.millimetres / 1000.0 / self.target_metres_per_unit();
            let tolerance = Tolerance {
                degrees: r.degrees,
                length,
            };
            let (mut before, mut after) = (0, 0);
            for clip in &mut clips {
                let (smaller, b, a) = reduce_keys(clip, tolerance);
                *clip = smaller;
                before += b;
                after += a;
            }
            summary.reduced = Some((before, after));
        }
        let t = &self.target;
        match job.format {
            ExportFormat::GlbWithCharacter | ExportFormat::GlbAnimationOnly => {
                let content = if job.format == ExportFormat::GlbAnimationOnly {
                    GlbContent::AnimationOnly
                } else {
                    GlbContent::WithCharacter
                };
                let options = GlbExportOptions {
                    content,
                    keep_existing_animations: false,
                };
                let report = export_glb(
                    &t.path,
                    &t.asset,
                    t.skeleton_index,
                    &clips,
                    &options,
                    &job.out,
                )?;
                summary.files.push((report.path, report.bytes));
                summary.keys = report.keys;
                summary.notes = report.notes;
            }
            ExportFormat::Bvh => {
                for clip in &clips {
                    let file = per_clip_path(&job.out, &clip.name, clips.len());
                    let report = export_bvh(t.skeleton(), clip, &bvh_options(t), &file)?;
                    summary.keys += report.frames * report.joints;
                    summary.files.push((report.path, report.bytes));
                    summary.notes.extend(report.notes);
                }
            }
        }
        Ok(summary)
    }
}

impl Session {
    /// The map with every translating pair (the hips) set to `mode`.
    fn map_with_root_motion(&self, mode: TranslationMode) -> crate::core::BoneMap {
        let mut map = self.map.clone();
        for p in self
            .map
            .pairs()
            .iter()
            .filter(|p| p.translation != TranslationMode::None)
        {
            if let Some(pair) = map.for_target_mut(p.target) {
                pair.translation = mode;
            }
        }
        map
    }

    /// `clip` (retargeted onto the target) with its root motion on the target's root joint.
    fn extracted_to_root(
        &self,
        clip: &crate::core::Clip,
    ) -> Result<crate::core::Clip, SessionError> {
        let hips = self
            .map
            .for_bone(crate::core::HumanBone::Hips)
            .map(|p| p.target)
            .ok_or_else(|| SessionError::RootMotion {
                path: self.target.path.clone(),
                reason: "its hips are not mapped".into(),
            })?;
        let t = &self.target;
        crate::core::root_motion::extract_to_root(t.skeleton(), t.reference.container, clip, hips)
            .map_err(|e| SessionError::RootMotion {
                path: t.path.clone(),
                reason: e.to_string(),
            })
    }

    /// Metres per local length unit of the target's joints (its container's scale).
    fn target_metres_per_unit(&self) -> f32 {
        let (scale, _, _) = self
            .target
            .reference
            .container
            .to_scale_rotation_translation();
        scale.max_element().max(1e-9)
    }
}

/// `out.bvh` for one clip, `out_<clip>.bvh` for several.
fn per_clip_path(out: &Path, clip: &str, count: usize) -> PathBuf {
    if count == 1 {
        return out.to_path_buf();
    }
    let stem = out.file_stem().and_then(|s| s.to_str()).unwrap_or("out");
    let safe: String = clip
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    out.with_file_name(format!("{stem}_{safe}.bvh"))
}

/// A BVH target gets its own unit and up axis back (the same rig gives the same numbers);
/// any other target is written Y-up in centimetres.
fn bvh_options(target: &super::Side) -> BvhExportOptions {
    if target.asset.format == crate::io::asset::Format::Bvh {
        BvhExportOptions {
            unit: target.asset.unit,
            up: target.asset.up,
            ..BvhExportOptions::default()
        }
    } else {
        BvhExportOptions::default()
    }
}
