//! A retargeting session: a source and a target loaded, their reference poses, the bone map.
//! The CLI and the editor both work through it; it knows files, never windows.

mod body;
mod body_memo;
mod causes;
#[cfg(test)]
mod chain_edit_tests;
mod chain_edits;
mod chains;
mod curves;
mod drawn_hands;
mod edit;
mod export;
mod facing;
mod grip_report;
mod hands;
mod missing;
mod quality_report;
mod reading;
mod self_check;
mod side;
mod solve;

pub use causes::Cause;
pub(crate) use causes::first_few;
pub use chain_edits::{check_chains, end_choices, start_choices, tags_text, with_end, with_start};
pub use edit::{Edit, EditState, rotation_name, translation_name};
pub use export::{
    ExportFormat, ExportJob, ExportSummary, FbxSettings, KeyReduction, check_writable,
};
use facing::face_side_forward;
pub use facing::{FacingReading, read_facing};
pub use hands::{FingerCurl, FingerTipPair, JudgedHand};
pub use missing::{MissingFile, missing_files};
pub use quality_report::{JUDGED_SEGMENTS, JudgedJoints};
pub use reading::{Choice, LimbReading, SideReading, side_reading};
pub use solve::FootContacts;

pub use self_check::TakenFix;
pub use side::{Side, SideRole};

use crate::core::align::bone_direction_errors;
use crate::core::{
    BoneMap, BonePair, Clip, HumanBone, PoseSource, RetargetClipOptions, RetargetError,
    RetargetedClip, Retargeter,
};
use crate::io::project::{ExportSettings, PairFile, ProjectError, ProjectFile, SolveEdits};
use crate::io::{ImportError, ImportOptions};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    Project(#[from] ProjectError),
    /// Files the project names that are not there; the editor asks where each one went.
    #[error("{}", missing::describe(.0))]
    FilesMissing(Vec<MissingFile>),
    #[error("no joint of {} could be mapped from {}: no names in common and no limbs found on both", target_file.display(), source_file.display())]
    NothingMapped {
        source_file: PathBuf,
        target_file: PathBuf,
    },
    #[error("the hips cannot be mapped: source {} and target {} have no hips in common", source_file.display(), target_file.display())]
    UnmappableHips {
        source_file: PathBuf,
        target_file: PathBuf,
    },
    #[error("{}: no clip named '{name}' (clips: {available})", path.display())]
    ClipMissing {
        path: PathBuf,
        name: String,
        available: String,
    },
    #[error("{}: the file has no clip to retarget", path.display())]
    NoClips { path: PathBuf },
    #[error("{}: the project's {role} joint '{joint}' is not in this file", path.display())]
    JointMissing {
        path: PathBuf,
        role: &'static str,
        joint: String,
    },
    #[error("{}: reference frame {frame} of clip '{clip}' cannot be used: the clip is missing", path.display())]
    ReferenceClipMissing {
        path: PathBuf,
        clip: String,
        frame: usize,
    },
    #[error(transparent)]
    Retarget(#[from] RetargetError),
    /// A clip that cannot be retargeted: either file's numbers may be the cause.
    #[error("{} onto {}: clip '{clip}': {source}", source_file.display(), target_file.display())]
    Solve {
        source_file: PathBuf,
        target_file: PathBuf,
        clip: String,
        #[source]
        source: RetargetError,
    },
    #[error(transparent)]
    Export(#[from] crate::io::ExportError),
    #[error("{}: cannot extract root motion: {reason}", path.display())]
    RootMotion { path: PathBuf, reason: String },
    #[error("cancelled")]
    Cancelled,
    #[error("{}: {problem}", path.display())]
    Quality { path: PathBuf, problem: String },
    #[error("the {side} chains cannot be used: {problem}")]
    BadChains { side: &'static str, problem: String },
    #[error("{}: all {joints} joints sit at one point (every offset is zero): there is no body to retarget", path.display())]
    Collapsed { path: PathBuf, joints: usize },
}

/// Cloneable so long work (export) can run on a copy in the background.
#[derive(Clone)]
pub struct Session {
    pub source: Side,
    pub target: Side,
    pub map: BoneMap,
    pub export: ExportSettings,
    /// How the pair is solved, as the user set it (saved in the project).
    pub solve: SolveEdits,
    /// The user's choices of which target weight each source curve drives (the rest are
    /// matched by name: `curve_map`).
    pub curve_edits: Vec<crate::core::curve_map::CurvePair>,
}

impl Session {
    /// Loads both files, maps them from their humanoid labels, turns both to face +Z and
    /// lays both into the canonical T-pose (`core::characterize`), so their limbs agree.
    pub fn automatic(
        source: &Path,
        target: &Path,
        options: &ImportOptions,
    ) -> Result<Self, SessionError> {
        let source = Side::load(SideRole::Source, source, options)?;
        let target = Side::load(SideRole::Target, target, &ImportOptions::default())?;
        Self::automatic_of(source, target)
    }

    /// As `automatic`, on sides already loaded: a batch loads each file once and pairs it
    /// with many others.
    pub fn automatic_of(source: Side, target: Side) -> Result<Self, SessionError> {
        let mut session = Session {
            source,
            target,
            map: BoneMap::default(),
            export: ExportSettings::default(),
            solve: SolveEdits::default(),
            curve_edits: Vec::new(),
        };
        session.refuse_collapsed()?;
        session.face_forward()?;
        session.auto_align()?;
        for side in [&mut session.source, &mut session.target] {
            side.chains = side.auto_chains();
        }
        session.map = session.automatic_map();
        session.check_map()?;
        session.align_hands()?;
        session.align_creature_source()?;
        if session.same_rig() {
            session.copy_translations();
        }
        Ok(session)
    }

    /// One character on both sides: every joint also takes the source's translation, so
    /// keyed bone translations (CesiumMan keys T on every joint) come back unchanged. One
    /// file's skeleton on both sides copies its pelvis's too, where the root solve would
    /// place it by the hip point (a Rigify rig's pelvis came back 1.6 % of a leg higher).
    fn copy_translations(&mut self) {
        use crate::core::TranslationMode;
        let identical = self.identical_rig();
        let pairs: Vec<BonePair> = self.map.pairs().to_vec();
        for pair in pairs {
            let copied = pair.translation == TranslationMode::Copy;
            if !copied && (identical || pair.translation == TranslationMode::None) {
                self.map.insert(BonePair {
                    translation: crate::core::TranslationMode::Copy,
                    ..pair
                });
            }
        }
    }

    /// The map must move a body: where both sides are humanoids, their hips are mapped;
    /// otherwise some joint is mapped and the pelvis carries the root motion. A fox or a
    /// robot maps by names and chains; two rigs with nothing in common are refused.
    fn check_map(&self) -> Result<(), SessionError> {
        let humanoid = |side: &Side| side.is_humanoid();
        let hips_mapped = self
            .map
            .pairs()
            .iter()
            .any(|p| p.bone == Some(HumanBone::Hips));
        if humanoid(&self.source) && humanoid(&self.target) && !hips_mapped {
            return Err(SessionError::UnmappableHips {
                source_file: self.source.path.clone(),
                target_file: self.target.path.clone(),
            });
        }
        if self.map.is_empty() {
            return Err(SessionError::NothingMapped {
                source_file: self.source.path.clone(),
                target_file: self.target.path.clone(),
            });
        }
        Ok(())
    }

    /// Turns each side's container so it faces +Z with +Y up.
    pub fn face_forward(&mut self) -> Result<(), SessionError> {
        for side in [&mut self.source, &mut self.target] {
            face_side_forward(side, true)?;
        }
        Ok(())
    }

    /// Auto-align ("characterize"): both sides laid into the canonical T-pose of the
    /// humanoid profile, so every mapped limb points where its source points whatever the
    /// two rest poses were (A-pose, T-pose, mocap along +X).
    pub fn auto_align(&mut self) -> Result<(), SessionError> {
        for side in [&mut self.source, &mut self.target] {
            characterize_side(side)?;
        }
        Ok(())
    }

    /// A creature source whose reference is a frame of its motion (its zero pose says
    /// nothing) is laid into the target's own pose, limb by mapped limb: caught mid-stride
    /// it would carry its stride onto the target as an offset (a fox's walk from its BVH
    /// with a zero pose along +X: limbs 20.9° off). Humanoids meet in the canonical T-pose.
    pub fn align_creature_source(&mut self) -> Result<(), SessionError> {
        use crate::core::chains::ChainKind;
        let source = &mut self.source;
        if source.is_humanoid() || !matches!(source.file.reference, PoseSource::Frame { .. }) {
            return Ok(());
        }
        let chains = &self.target.chains;
        let body = |t: usize| {
            chains.chain_of(t).is_some_and(|c| {
                matches!(chains.chains[c].kind, ChainKind::Spine | ChainKind::Limb)
            })
        };
        let mut reference = source.reference.clone();
        let offsets = crate::core::align::align_source_to_target(
            source.skeleton(),
            &mut reference,
            self.target.skeleton(),
            &self.target.reference,
            &self.map,
            body,
        );
        for (joint, offset) in offsets {
            source.add_bone_offset(joint, offset);
        }
        source.rebuild_reference()
    }

    /// One side back to what [`Session::automatic`] made of it: no edits, then turned to
    /// face +Z and laid into the canonical T-pose. (The facing fix is part of the set-up,
    /// not an edit: without it a character that faces -Z plays backwards.)
    pub fn automatic_pose(&mut self, role: SideRole) -> Result<(), SessionError> {
        let side = match role {
            SideRole::Source => &mut self.source,
            SideRole::Target => &mut self.target,
        };
        side.file.container = crate::core::ContainerEdit::default();
        side.file.bone_offsets.clear();
        side.rebuild_reference()?;
        face_side_forward(side, false)?;
        characterize_side(side)?;
        match role {
            SideRole::Source => self.align_creature_source(),
            SideRole::Target => self.align_hands(),
        }
    }

    /// Per mapped target bone, the angle (degrees) between it and its source bone in the
    /// reference poses.
    pub fn reference_agreement(&self) -> Vec<(usize, f32)> {
        let pos = |side: &Side| -> Vec<glam::Vec3> {
            side.reference
                .world_matrices(side.skeleton())
                .iter()
                .map(|m| m.w_axis.truncate())
                .collect()
        };
        bone_direction_errors(
            &pos(&self.source),
            self.target.skeleton(),
            &pos(&self.target),
            &self.map,
        )
    }

    pub fn retargeter(&self) -> Result<Retargeter, SessionError> {
        self.retargeter_with(&self.map)
    }

    /// A retargeter of this session's sides and reference poses under `map`.
    fn retargeter_with(&self, map: &BoneMap) -> Result<Retargeter, SessionError> {
        let mut r = Retargeter::new(
            self.source.skeleton(),
            &self.source.reference,
            self.target.skeleton(),
            &self.target.reference,
            map,
        )?;
        // The target stands where its feet are in its own pose, before the reference pose
        // straightened its legs.
        if let Some(floor) = self.target.floor(map, |p| p.target) {
            r.set_target_floor(floor);
        }
        r.set_same_rig(self.same_rig());
        r.set_solve(self.solve.settings);
        r.set_mirror_twins(self.target.twins());
        r.set_reach(self.reach_chains(map));
        let t = self.target.skeleton();
        for foot in self.solve.unplanted.iter().filter_map(|n| t.find(n)) {
            r.set_leg_planting(foot, false);
        }
        for (name, limit) in &self.solve.limits {
            if let Some(j) = t.find(name) {
                r.set_joint_limit(j, *limit);
            }
        }
        for (name, weight) in &self.solve.twists {
            if let Some(j) = t.find(name) {
                r.set_twist_weight(j, *weight);
            }
        }
        for leg in &self.solve.legs {
            if let Some(foot) = t.find(&leg.foot) {
                r.set_leg_pole(foot, self.pole_at(&leg.pole));
                r.set_leg_contacts(foot, leg.contacts);
            }
        }
        if self.source.stance_from_motion() {
            r.set_source_spot(0.0, 0.0);
        }
        if self.target.stance_from_motion() {
            r.set_target_spot(0.0, 0.0);
        }
        self.set_body(&mut r);
        Ok(r)
    }

    /// Whether both sides are one character: the same joints, parents and bind pose; or the
    /// same body under other names, bone axes, scale or an extra node on top (every joint
    /// paired automatically, one to one, parent to parent, bone lengths in one proportion).
    pub fn same_rig(&self) -> bool {
        self.identical_rig() || self.same_body()
    }

    /// A side whose joints all sit at one point has no body to retarget, unless one rig is
    /// on both sides (its joints' own turns and offsets are copied).
    fn refuse_collapsed(&self) -> Result<(), SessionError> {
        if self.identical_rig() {
            return Ok(());
        }
        self.source.refuse_collapsed()?;
        self.target.refuse_collapsed()
    }

    /// The same joints, parents, container and bind translations on both sides.
    fn identical_rig(&self) -> bool {
        let (s, t) = (self.source.skeleton(), self.target.skeleton());
        s.names() == t.names()
            && s.parents() == t.parents()
            && s.container().abs_diff_eq(t.container(), 1e-4)
            && s.bind().iter().zip(t.bind()).all(|(a, b)| {
                a.translation
                    .abs_diff_eq(b.translation, 1e-4 * (1.0 + a.translation.length()))
            })
    }

    fn same_body(&self) -> bool {
        let (s, t) = (self.source.skeleton(), self.target.skeleton());
        if s.len() != t.len() || self.map.len() != t.len() {
            return false;
        }
        let mut source_of = vec![usize::MAX; t.len()];
        for p in self.map.pairs() {
            // Automatic pairs only: a pair set by hand says the user wants something else.
            if p.method == crate::core::MapMethod::Hand {
                return false;
            }
            source_of[p.target] = p.source;
        }
        let mut seen = vec![false; s.len()];
        for &src in &source_of {
            if std::mem::replace(&mut seen[src], true) {
                return false;
            }
        }
        let parents_agree =
            (0..t.len()).all(|j| t.parents()[j].map(|p| source_of[p]) == s.parents()[source_of[j]]);
        // Bone lengths in world units, in one proportion (the containers may scale).
        let (ws, wt) = (
            crate::core::Pose::bind(s).world_positions(s),
            crate::core::Pose::bind(t).world_positions(t),
        );
        let lengths = |w: &[glam::Vec3], parents: &[Option<usize>], j: usize| {
            parents[j].map_or(0.0, |p| w[j].distance(w[p]))
        };
        let total_s: f32 = (0..s.len()).map(|j| lengths(&ws, s.parents(), j)).sum();
        let total_t: f32 = (0..t.len()).map(|j| lengths(&wt, t.parents(), j)).sum();
        if total_s <= 0.0 || total_t <= 0.0 {
            return false;
        }
        parents_agree
            && (0..t.len()).all(|j| {
                let a = lengths(&ws, s.parents(), source_of[j]) / total_s;
                let b = lengths(&wt, t.parents(), j) / total_t;
                (a - b).abs() < 1e-4
            })
    }

    /// The source clip `name` (or the side's chosen clip, or the first).
    pub fn source_clip(&self, name: Option<&str>) -> Result<&Clip, SessionError> {
        self.source.clip(name.or(self.source.file.clip.as_deref()))
    }

    pub fn retarget_clip(
        &self,
        name: Option<&str>,
        fps: Option<f32>,
    ) -> Result<Clip, SessionError> {
        self.retarget_clip_with(name, fps, None)
    }

    /// As `retarget_clip`, with another map in place of the session's (export options).
    pub fn retarget_clip_with(
        &self,
        name: Option<&str>,
        fps: Option<f32>,
        map: Option<&BoneMap>,
    ) -> Result<Clip, SessionError> {
        self.retarget_clip_noted(name, fps, map, &mut Vec::new())
    }

    /// As `retarget_clip_with`, adding to `notes` what the curves' transfer dropped (once
    /// per note).
    pub(super) fn retarget_clip_noted(
        &self,
        name: Option<&str>,
        fps: Option<f32>,
        map: Option<&BoneMap>,
        notes: &mut Vec<String>,
    ) -> Result<Clip, SessionError> {
        let mut r = self.retargeter_with(map.unwrap_or(&self.map))?;
        let solved = self.retarget_clip_by(&mut r, name, fps)?.clip;
        let (curves, dropped) = self.target_curves_of(self.source_clip(name)?);
        for n in dropped {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
        Ok(solved.with_curves(curves))
    }

    /// Retargets clip `name` with `r` (given the contacts drawn for it), with what its
    /// planting did.
    pub(super) fn retarget_clip_by(
        &self,
        r: &mut Retargeter,
        name: Option<&str>,
        fps: Option<f32>,
    ) -> Result<RetargetedClip, SessionError> {
        let clip = self.source_clip(name)?;
        self.set_clip_contacts(r, &clip.name);
        self.set_clip_stride(r, &clip.name);
        let options = RetargetClipOptions {
            fps: fps.or(self.export.fps),
        };
        r.retarget_clip(
            self.source.skeleton(),
            clip,
            self.target.skeleton(),
            &options,
        )
        .map_err(|source| SessionError::Solve {
            source_file: self.source.path.clone(),
            target_file: self.target.path.clone(),
            clip: clip.name.clone(),
            source,
        })
    }

    /// The map with joints by name, as project and map files store it.
    pub fn map_pairs(&self) -> Vec<PairFile> {
        let (src, tgt) = (self.source.skeleton(), self.target.skeleton());
        self.map
            .pairs()
            .iter()
            .map(|p| PairFile {
                source: src.names()[p.source].clone(),
                target: tgt.names()[p.target].clone(),
                bone: p.bone,
                rotation: p.rotation,
                translation: p.translation,
                method: p.method,
                confidence: p.confidence,
            })
            .collect()
    }

    /// A map from named pairs; pairs naming joints these files lack are returned apart.
    pub fn map_from_pairs(&self, pairs: &[PairFile]) -> (BoneMap, Vec<String>) {
        let (src, tgt) = (self.source.skeleton(), self.target.skeleton());
        let mut missing = Vec::new();
        let mut out = Vec::new();
        for p in pairs {
            match (src.find(&p.source), tgt.find(&p.target)) {
                (Some(s), Some(t)) => out.push(BonePair {
                    rotation: p.rotation,
                    translation: p.translation,
                    bone: p.bone,
                    method: p.method,
                    confidence: p.confidence,
                    ..BonePair::new(s, t)
                }),
                _ => missing.push(format!("{} -> {}", p.source, p.target)),
            }
        }
        (BoneMap::new(out), missing)
    }

    pub fn to_project(&self) -> ProjectFile {
        ProjectFile {
            version: crate::io::project::PROJECT_VERSION,
            source: self.source.file_with_chains(),
            target: self.target.file_with_chains(),
            map: self.map_pairs(),
            export: self.export.clone(),
            solve: self.solve.clone(),
            curves: self.curve_edits.clone(),
            hands_aligned: true,
        }
    }

    /// Opens a project file: both sides loaded from its paths, its map and edits applied.
    pub fn from_project(path: &Path) -> Result<Self, SessionError> {
        let project = ProjectFile::load(path)?;
        Self::from_project_file(project)
    }

    pub fn from_project_file(project: ProjectFile) -> Result<Self, SessionError> {
        let missing = missing_files(&project);
        if !missing.is_empty() {
            return Err(SessionError::FilesMissing(missing));
        }
        let source = Side::from_file(SideRole::Source, project.source)?;
        let target = Side::from_file(SideRole::Target, project.target)?;
        let mut pairs = Vec::with_capacity(project.map.len());
        for p in &project.map {
            let find = |side: &Side, role, name: &str| {
                side.skeleton()
                    .find(name)
                    .ok_or_else(|| SessionError::JointMissing {
                        path: side.path.clone(),
                        role,
                        joint: name.to_owned(),
                    })
            };
            pairs.push(BonePair {
                rotation: p.rotation,
                translation: p.translation,
                bone: p.bone,
                method: p.method,
                confidence: p.confidence,
                ..BonePair::new(
                    find(&source, "source", &p.source)?,
                    find(&target, "target", &p.target)?,
                )
            });
        }
        let mut session = Session {
            source,
            target,
            map: BoneMap::new(pairs),
            export: project.export,
            solve: project.solve,
            curve_edits: project.curves,
        };
        session.refuse_collapsed()?;
        if !project.hands_aligned {
            // Saved before fingers were lined up: they are now, on the saved pose.
            session.align_hands()?;
        }
        session.refresh_legs();
        Ok(session)
    }
}

/// Lays one side into the canonical T-pose of the humanoid profile (see `auto_align`).
fn characterize_side(side: &mut Side) -> Result<(), SessionError> {
    if !side.is_humanoid() {
        return Ok(());
    }
    let labels = side.bone_labels();
    let mut reference = side.reference.clone();
    let offsets =
        crate::core::characterize::canonical_offsets(side.skeleton(), &labels, &mut reference);
    for (joint, offset) in offsets {
        side.add_bone_offset(joint, offset);
    }
    side.rebuild_reference()
}

/// [`walk_on_cesium`] with the target's `bone` driven by the source's `from` (a crossed
/// row, as found in the wild: a toe named like a finger): the session and that row.
#[cfg(test)]
pub(crate) fn crossed_walk_on_cesium(
    bone: crate::core::HumanBone,
    from: crate::core::HumanBone,
) -> (Session, usize) {
    let mut s = walk_on_cesium();
    let row = s.target.labelled_joint(bone).unwrap();
    let source = s.source.labelled_joint(from);
    s.apply_edit(&Edit::MapBone {
        target: row,
        source,
    })
    .unwrap();
    (s, row)
}

/// The bundled CMU walk on CesiumMan, set up automatically (it passes every measure): the
/// session the unit tests of the session and the panels start from.
#[cfg(test)]
pub(crate) fn walk_on_cesium() -> Session {
    walk_onto("gltf/CesiumMan.glb")
}

/// The bundled CMU walk on the bundled asset `target` (a path under `assets/`), set up
/// automatically.
#[cfg(test)]
pub(crate) fn walk_onto(target: &str) -> Session {
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    Session::automatic(
        &assets.join("bvh/02_01.bvh"),
        &assets.join(target),
        &crate::io::ImportOptions::default(),
    )
    .unwrap()
}
