//! Exporting a session's retargeted clips: what the `retarget` command and the editor's
//! export panel share.

use super::{Session, SessionError};
use crate::core::TranslationMode;
use crate::core::reduce::{Tolerance, reduce_keys};
use crate::io::bvh_export::{BvhExportOptions, export_bvh};
use crate::io::fbx_export::{FbxContent, FbxExportOptions, export_fbx};
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
    /// Binary FBX 7.4: the skeleton and one take per clip.
    Fbx(FbxSettings),
}

/// How an FBX is written; `None` keeps what the target came in with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FbxSettings {
    /// The skeleton and takes without the meshes (what an engine imports onto its own
    /// skeleton asset).
    pub animation_only: bool,
    pub unit: Option<crate::core::Unit>,
    /// +Y or +Z.
    pub up: Option<crate::core::Axis>,
}

impl ExportFormat {
    /// From the output's extension, with `animation_only` choosing between the GLB kinds.
    pub fn from_path(path: &Path, animation_only: bool) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "glb" if animation_only => Some(Self::GlbAnimationOnly),
            "glb" => Some(Self::GlbWithCharacter),
            // A VRM is a GLB with its extensions: the target file itself, clips added.
            "vrm" if !animation_only => Some(Self::GlbWithCharacter),
            "bvh" => Some(Self::Bvh),
            "fbx" => Some(Self::Fbx(FbxSettings {
                animation_only,
                ..FbxSettings::default()
            })),
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
    /// With `extract_root`, on a rig whose hips are its top joint: add a root joint at the
    /// origin to carry the motion (the files then hold the skeleton with it).
    pub add_root: bool,
}

impl ExportJob {
    /// The session's current clip to `out` in `format`, at its own rate, keys as solved,
    /// root motion as mapped.
    pub fn to(format: ExportFormat, out: impl Into<PathBuf>) -> Self {
        Self {
            format,
            clips: vec![None],
            fps: None,
            out: out.into(),
            reduce: None,
            root_motion: None,
            extract_root: false,
            add_root: false,
        }
    }
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
        check_writable(&job.out)?;
        self.check_vrm_output(&job.out)?;
        let map = job.root_motion.map(|mode| self.map_with_root_motion(mode));
        let rooted = self.rooted_target(job)?;
        let mut clips = Vec::with_capacity(job.clips.len());
        let mut curve_notes = Vec::new();
        for (done, name) in job.clips.iter().enumerate() {
            let clip =
                self.retarget_clip_noted(name.as_deref(), job.fps, map.as_ref(), &mut curve_notes)?;
            let clip = match (job.extract_root, &rooted) {
                (true, Some(asset)) => self.extracted_to_added_root(&clip, asset)?,
                (true, None) => self.extracted_to_root(&clip)?,
                (false, _) => clip,
            };
            clips.push(self.upright_in_file(clip, rooted.as_ref()));
            if !progress(done + 1) {
                return Err(SessionError::Cancelled);
            }
        }
        let mut summary = match &rooted {
            Some(asset) => self.write_clips_on(clips, job, asset)?,
            None => self.write_clips(clips, job)?,
        };
        summary.notes.splice(0..0, curve_notes);
        if let Some(asset) = &rooted {
            let s = &asset.skeletons[self.target.skeleton_index];
            summary.notes.push(format!(
                "a root joint '{}' was added at the origin above '{}' to carry the root \
                 motion; the meshes are written as they were read",
                s.names()[0],
                s.names()[1]
            ));
        }
        Ok(summary)
    }

    /// Writes clips already retargeted in the job's format (reducing keys if it asks); the
    /// job's clip names, frame rate and root motion are not looked at again.
    pub fn write_clips(
        &self,
        clips: Vec<crate::core::Clip>,
        job: &ExportJob,
    ) -> Result<ExportSummary, SessionError> {
        self.write_clips_on(clips, job, &self.target.asset)
    }

    /// As `write_clips`, onto `target` in place of the target's own asset (the target
    /// with a root joint added).
    fn write_clips_on(
        &self,
        mut clips: Vec<crate::core::Clip>,
        job: &ExportJob,
        target: &crate::io::Asset,
    ) -> Result<ExportSummary, SessionError> {
        let mut summary = ExportSummary {
            clips: clips.len(),
            ..Default::default()
        };
        let tolerance = job.reduce.map(|r| Tolerance {
            degrees: r.degrees,
            length: r.millimetres / 1000.0 / self.target_metres_per_unit(),
        });
        // An FBX reduces its own curves, angle by angle as the file interpolates them.
        if let Some(tolerance) = tolerance.filter(|_| !matches!(job.format, ExportFormat::Fbx(_))) {
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
        let skeleton = &target.skeletons[t.skeleton_index];
        let as_target = FbxExportOptions::as_target(target);
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
                    target,
                    t.skeleton_index,
                    &clips,
                    &options,
                    &job.out,
                )?;
                summary.files.push((report.path, report.bytes));
                summary.keys = report.keys;
                summary.notes = report.notes;
            }
            ExportFormat::Fbx(settings) => {
                let options = FbxExportOptions {
                    content: match settings.animation_only {
                        true => FbxContent::AnimationOnly,
                        false => FbxContent::WithCharacter,
                    },
                    unit: settings.unit.unwrap_or(as_target.unit),
                    // A unit the user chose is declared as it is.
                    declared_unit: as_target.declared_unit.filter(|_| settings.unit.is_none()),
                    up: settings.up.unwrap_or(as_target.up),
                    fps: job.fps,
                    reduce: tolerance,
                };
                let report = export_fbx(target, t.skeleton_index, &clips, &options, &job.out)?;
                summary.files.push((report.path, report.bytes));
                summary.keys = report.keys;
                if tolerance.is_some() {
                    summary.reduced = Some((report.keys_before, report.keys));
                }
                summary.notes = report.notes;
            }
            ExportFormat::Bvh => {
                for clip in &clips {
                    let file = per_clip_path(&job.out, &clip.name, clips.len());
                    let report = export_bvh(skeleton, clip, &bvh_options(target), &file)?;
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

    /// A `.vrm` output needs a VRM target: any other would be a GLB under a VRM's name.
    fn check_vrm_output(&self, out: &Path) -> Result<(), SessionError> {
        let vrm = out
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("vrm"));
        let target_vrm = matches!(
            self.target.asset.format,
            crate::io::asset::Format::Vrm0 | crate::io::asset::Format::Vrm1
        );
        if vrm && !target_vrm {
            return Err(SessionError::Export(crate::io::ExportError::new(
                out,
                crate::io::ExportProblem::Invalid(format!(
                    "a .vrm output needs a VRM target ({} is {}); write .glb",
                    self.target.path.display(),
                    self.target.asset.format.name()
                )),
            )));
        }
        Ok(())
    }

    /// The target with a root joint added, when the job extracts root motion onto one the
    /// rig lacks and asks for it.
    fn rooted_target(&self, job: &ExportJob) -> Result<Option<crate::io::Asset>, SessionError> {
        if !(job.extract_root && job.add_root) {
            return Ok(None);
        }
        let t = &self.target;
        let hips = self.hips_target()?;
        if crate::core::root_motion::root_of(t.skeleton(), hips).is_some() {
            return Ok(None);
        }
        crate::io::added_root::with_root_joint(&t.asset, t.skeleton_index)
            .map(Some)
            .map_err(|reason| SessionError::RootMotion {
                path: t.path.clone(),
                reason,
            })
    }

    /// `clip` stood up in the target file's world where the target's rest lies tilted there
    /// (`Side::upright_in_file`); as it is otherwise. `rooted`: the target with a root added.
    fn upright_in_file(
        &self,
        clip: crate::core::Clip,
        rooted: Option<&crate::io::Asset>,
    ) -> crate::core::Clip {
        let t = &self.target;
        let Some(moved) = t.upright_in_file(&self.map, |p| p.target) else {
            return clip;
        };
        let asset = rooted.unwrap_or(&t.asset);
        let skeleton = &asset.skeletons[t.skeleton_index];
        crate::core::root_motion::moved_by(skeleton, skeleton.container(), &clip, moved)
    }

    /// The target joint the hips are mapped to.
    fn hips_target(&self) -> Result<usize, SessionError> {
        self.map
            .for_bone(crate::core::HumanBone::Hips)
            .map(|p| p.target)
            .ok_or_else(|| SessionError::RootMotion {
                path: self.target.path.clone(),
                reason: "its hips are not mapped".into(),
            })
    }

    /// `clip` with a track for `rooted`'s added root, its root motion moved onto it.
    fn extracted_to_added_root(
        &self,
        clip: &crate::core::Clip,
        rooted: &crate::io::Asset,
    ) -> Result<crate::core::Clip, SessionError> {
        let hips = self.hips_target()? + 1;
        let skeleton = &rooted.skeletons[self.target.skeleton_index];
        let clip = crate::core::root_motion::clip_with_added_root(clip);
        crate::core::root_motion::extract_to_root(
            skeleton,
            self.target.reference.container,
            &clip,
            hips,
        )
        .map_err(|e| SessionError::RootMotion {
            path: self.target.path.clone(),
            reason: e.to_string(),
        })
    }

    /// `clip` (retargeted onto the target) with its root motion on the target's root joint.
    fn extracted_to_root(
        &self,
        clip: &crate::core::Clip,
    ) -> Result<crate::core::Clip, SessionError> {
        let hips = self.hips_target()?;
        let t = &self.target;
        crate::core::root_motion::extract_to_root(t.skeleton(), t.reference.container, clip, hips)
            .map_err(|e| SessionError::RootMotion {
                path: t.path.clone(),
                reason: match e {
                    crate::core::root_motion::RootMotionError::NoRootAboveHips { .. } => {
                        format!(
                            "{e}; one can be added at the origin (Add a root joint, --add-root)"
                        )
                    }
                    e => e.to_string(),
                },
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

/// The output's folder exists and takes a new file, and the output is no folder: checked
/// before any clip is retargeted, so a long export does not fail at its end.
pub fn check_writable(out: &Path) -> Result<(), SessionError> {
    let fail = |e: std::io::Error| {
        SessionError::Export(crate::io::ExportError::new(
            out,
            crate::io::ExportProblem::Write(e),
        ))
    };
    if out.is_dir() {
        return Err(fail(std::io::Error::from(std::io::ErrorKind::IsADirectory)));
    }
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(".retarget-check")
        .tempfile_in(dir)
        .map(drop)
        .map_err(fail)
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
fn bvh_options(target: &crate::io::Asset) -> BvhExportOptions {
    if target.format == crate::io::asset::Format::Bvh {
        BvhExportOptions {
            unit: target.unit,
            up: target.up,
            ..BvhExportOptions::default()
        }
    } else {
        BvhExportOptions::default()
    }
}
