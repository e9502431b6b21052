//! Edits of a session: every change the editor can make to the map, the reference poses and
//! the export settings, as data. Applying one returns a label for the undo history
//! ("Map LeftHand → hand_l"); `EditState` snapshots what edits can change, for undo.

use super::{Session, SessionError, SideRole};
use crate::core::chains::ChainSkeleton;
use crate::core::mapping::{BonePair, MapMethod, RotationMode, TranslationMode};
use crate::core::{BoneMap, ContainerEdit, PoseSource};
use crate::io::project::{ExportSettings, SideFile, SolveEdits};
use glam::Quat;

#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Map target joint `target` from `source` (or leave it unmapped).
    MapBone {
        target: usize,
        source: Option<usize>,
    },
    SetRotationMode {
        target: usize,
        mode: RotationMode,
    },
    SetTranslationMode {
        target: usize,
        mode: TranslationMode,
    },
    /// Map again from the humanoid labels: everything, or only unmapped target joints.
    AutoMap {
        unmapped_only: bool,
    },
    ClearMap,
    /// Copy the left side's mapping to the right (each pair onto its twins).
    MirrorMap,
    SetReferenceSource {
        side: SideRole,
        source: PoseSource,
    },
    SetContainer {
        side: SideRole,
        container: ContainerEdit,
    },
    /// Scale the target's container so its hips stand as high as the source's.
    MatchHeights,
    /// Set one joint's rotation offset (parent space); identity removes it.
    SetBoneOffset {
        side: SideRole,
        joint: usize,
        rotation: Quat,
    },
    /// Turn the target's limbs to the source's directions.
    AutoAlign,
    /// Back to the side's automatic set-up: facing +Z, in the canonical T-pose.
    ResetPose {
        side: SideRole,
    },
    /// Every pose edit of the side gone, the facing fix too: the file's own pose.
    ClearPose {
        side: SideRole,
    },
    SetExport(ExportSettings),
    /// Replace the whole map (an imported map file).
    ReplaceMap {
        map: BoneMap,
        label: String,
    },
    /// Replace one side's chain skeleton (tags or chain ends edited in the Skeleton tab).
    SetChains {
        side: SideRole,
        chains: ChainSkeleton,
    },
    /// Drive target chain `target_chain` from source chain `source_chain`, joint by joint
    /// along the two chains (the user's override of a limb's source); `None` unmaps it.
    SetChainSource {
        target_chain: usize,
        source_chain: Option<usize>,
    },
    /// Back to the chains built automatically from the side's reference pose.
    RebuildChains {
        side: SideRole,
    },
    /// Every target chain driven by the source chain its tags match best, names ignored
    /// (after tags were edited); pairs whose source stays are kept as they are.
    RemapChains,
    /// The joints a side takes as the body (the skin's or every joint): the side read
    /// again and the map made again.
    SetBodyJoints {
        side: SideRole,
        body: crate::io::project::BodyJoints,
    },
    /// A limb chain read on another side (left, right or the middle: the Reading section),
    /// its twin read on that side swapped to its old one, and the chains mapped again.
    SetLimbSide {
        side: SideRole,
        chain: usize,
        lateral: crate::core::chains::Lateral,
    },
    /// Source curve `source` drives target weight `target` (or nothing).
    SetCurve {
        source: String,
        target: Option<String>,
    },
    /// Read a side again in another unit (a BVH or FBX) or up axis (a BVH) (`None`: as
    /// read), then set its pose up automatically, as on load; the map is kept.
    SetReading {
        side: SideRole,
        unit: Option<crate::core::Unit>,
        up: Option<crate::core::Axis>,
    },
    /// Feet planting, IK, limits and mirroring (the Solve tab).
    SetSolve(crate::core::retarget::SolveSettings),
    /// Solve the chain ending at `joint` (target) to reach its source's end, or not.
    SetReach {
        joint: String,
        on: bool,
    },
    /// Plant the leg ending at target foot `foot` on its contacts, or not (IK on or off).
    SetLegPlanting {
        foot: String,
        on: bool,
    },
    /// IK's limit for target joint `joint`: `Some(None)` unlimited, `None` the default.
    SetJointLimit {
        joint: String,
        limit: Option<Option<crate::core::ik::JointLimit>>,
    },
    /// A twist bone's share of its limb's roll; `None` puts back its place along the limb.
    SetTwistWeight {
        joint: String,
        weight: Option<f32>,
    },
    /// One leg's pole and contact thresholds (by its foot's name); defaults remove it.
    SetLegOptions(crate::core::retarget::LegOptions),
    /// Contacts of `foot` on clip `clip`, drawn by hand in seconds; `None`: detected.
    SetContacts {
        clip: String,
        foot: String,
        spans: Option<Vec<(f32, f32)>>,
    },
    /// Hand contacts of `touch` (its label) on clip `clip`, drawn by hand in seconds;
    /// `None`: detected.
    SetHandContacts {
        clip: String,
        touch: String,
        spans: Option<Vec<(f32, f32)>>,
    },
    /// How clip `clip` covers ground: its path scaled by leg length, or the source's kept.
    SetStride {
        clip: String,
        stride: crate::core::retarget::Stride,
    },
}

/// Everything an `Edit` can change, small enough to snapshot on every edit.
#[derive(Clone, Debug, PartialEq)]
pub struct EditState {
    pub map: BoneMap,
    pub source: SideFile,
    pub target: SideFile,
    pub export: ExportSettings,
    /// The sides' chain skeletons (their files keep them too once edited, but a session
    /// made automatically holds them only here).
    pub source_chains: ChainSkeleton,
    pub target_chains: ChainSkeleton,
    pub solve: SolveEdits,
    pub curve_edits: Vec<crate::core::curve_map::CurvePair>,
}

impl Session {
    pub fn edit_state(&self) -> EditState {
        EditState {
            map: self.map.clone(),
            source: self.source.file.clone(),
            target: self.target.file.clone(),
            export: self.export.clone(),
            source_chains: self.source.chains.clone(),
            target_chains: self.target.chains.clone(),
            solve: self.solve.clone(),
            curve_edits: self.curve_edits.clone(),
        }
    }

    /// Puts a snapshot back (undo/redo); the files stay loaded, but for a side whose
    /// reading (unit, up) the snapshot holds otherwise, which is read again.
    pub fn restore(&mut self, state: EditState) -> Result<(), SessionError> {
        for (role, file) in [
            (SideRole::Source, &state.source),
            (SideRole::Target, &state.target),
        ] {
            let side = self.side_mut(role);
            let read = |f: &crate::io::project::SideFile| (f.unit, f.up, f.body);
            if read(&side.file) != read(file) {
                *side = super::Side::from_file(role, file.clone())?;
            }
        }
        self.map = state.map;
        self.export = state.export;
        self.source.file = state.source;
        self.target.file = state.target;
        self.source.chains = state.source_chains;
        self.target.chains = state.target_chains;
        self.solve = state.solve;
        self.curve_edits = state.curve_edits;
        self.source.rebuild_reference()?;
        self.target.rebuild_reference()
    }

    /// Applies `edit`; on error the session is as it was.
    pub fn apply_edit(&mut self, edit: &Edit) -> Result<String, SessionError> {
        let before = self.edit_state();
        let result = self.apply_edit_inner(edit);
        if result.is_err() {
            let _ = self.restore(before);
        }
        self.refresh_legs();
        result
    }

    pub(super) fn side_mut(&mut self, side: SideRole) -> &mut super::Side {
        match side {
            SideRole::Source => &mut self.source,
            SideRole::Target => &mut self.target,
        }
    }

    fn apply_edit_inner(&mut self, edit: &Edit) -> Result<String, SessionError> {
        let tname = |s: &Session, j: usize| {
            s.target
                .skeleton()
                .names()
                .get(j)
                .cloned()
                .unwrap_or_default()
        };
        match edit {
            Edit::MapBone { target, source } => self.map_bone(*target, *source),
            Edit::SetRotationMode { target, mode } => {
                if let Some(p) = self.map.for_target_mut(*target) {
                    p.rotation = *mode;
                }
                Ok(format!(
                    "{} rotation {}",
                    tname(self, *target),
                    rotation_name(*mode)
                ))
            }
            Edit::SetTranslationMode { target, mode } => {
                if let Some(p) = self.map.for_target_mut(*target) {
                    p.translation = *mode;
                }
                Ok(format!(
                    "{} translation {}",
                    tname(self, *target),
                    translation_name(*mode)
                ))
            }
            Edit::AutoMap { unmapped_only } => Ok(self.auto_map(*unmapped_only)),
            Edit::SetCurve { source, target } => Ok(self.set_curve(source, target.clone())),
            Edit::ClearMap => {
                self.map = BoneMap::default();
                Ok("Clear map".to_owned())
            }
            Edit::MirrorMap => {
                self.mirror_map();
                Ok("Mirror map left -> right".to_owned())
            }
            Edit::SetReferenceSource { side, source } => {
                let s = self.side_mut(*side);
                s.file.reference = source.clone();
                s.rebuild_reference()?;
                Ok(format!(
                    "{} reference pose {}",
                    side.title(),
                    pose_source_name(source)
                ))
            }
            Edit::SetContainer { side, container } => {
                let s = self.side_mut(*side);
                s.file.container = *container;
                s.rebuild_reference()?;
                Ok(format!("{} container", side.title()))
            }
            Edit::MatchHeights => self.match_heights(),
            Edit::SetBoneOffset {
                side,
                joint,
                rotation,
            } => self.set_bone_offset(*side, *joint, *rotation),
            Edit::AutoAlign => {
                // A character left facing backwards (a cleared pose) is turned first: limbs
                // laid into the T-pose while it faces -Z would be 180° off.
                for side in [&mut self.source, &mut self.target] {
                    super::facing::face_side_forward(side, false)?;
                }
                self.auto_align()?;
                self.align_creature_source()?;
                Ok("Auto-align".to_owned())
            }
            Edit::ResetPose { side } => {
                self.automatic_pose(*side)?;
                Ok(format!("Reset {} pose", side.title()))
            }
            Edit::ClearPose { side } => {
                let s = self.side_mut(*side);
                s.file.container = ContainerEdit::default();
                s.file.bone_offsets.clear();
                s.rebuild_reference()?;
                Ok(format!("Clear {} pose edits", side.title()))
            }
            Edit::ReplaceMap { map, label } => {
                self.map = map.clone();
                Ok(label.clone())
            }
            Edit::SetExport(settings) => {
                self.export = settings.clone();
                Ok("Export settings".to_owned())
            }
            Edit::SetChains { side, chains } => self.set_side_chains(*side, chains),
            Edit::SetChainSource {
                target_chain,
                source_chain,
            } => self.set_chain_source(*target_chain, *source_chain),
            Edit::RebuildChains { side } => Ok(self.rebuild_chains(*side)),
            Edit::RemapChains => Ok(self.remap_from_chains()),
            Edit::SetBodyJoints { side, body } => self.set_body_joints(*side, *body),
            Edit::SetLimbSide {
                side,
                chain,
                lateral,
            } => self.set_limb_side(*side, *chain, *lateral),
            Edit::SetReading { side, unit, up } => self.set_reading(*side, *unit, *up),
            Edit::SetSolve(settings) => {
                self.solve.settings = *settings;
                Ok("Solve settings".to_owned())
            }
            Edit::SetReach { joint, on } => {
                self.solve.set_reach(joint, *on);
                Ok(format!("Reach {} {joint}", if *on { "on" } else { "off" }))
            }
            Edit::SetLegPlanting { foot, on } => {
                self.solve.set_planting(foot, *on);
                Ok(format!("Plant {foot} {}", if *on { "on" } else { "off" }))
            }
            Edit::SetJointLimit { joint, limit } => {
                self.solve.set_limit(joint, *limit);
                Ok(format!("Limit of {joint}"))
            }
            Edit::SetTwistWeight { joint, weight } => match self.solve.set_twist(joint, *weight) {
                Some(w) => Ok(format!("Twist share of {joint}: {w:.2}")),
                None => Ok(format!("Twist share of {joint}: by its place")),
            },
            Edit::SetLegOptions(options) => {
                self.solve.set_leg(options);
                Ok(format!("Solve options of {}", options.foot))
            }
            Edit::SetContacts { clip, foot, spans } => {
                self.solve.set_drawn_contacts(clip, foot, spans.clone());
                Ok(match spans {
                    Some(_) => format!("Contacts of {foot}"),
                    None => format!("Detected contacts of {foot}"),
                })
            }
            Edit::SetHandContacts { clip, touch, spans } => {
                self.solve
                    .set_drawn_hand_contacts(clip, touch, spans.clone());
                Ok(match spans {
                    Some(_) => format!("Contacts of {touch}"),
                    None => format!("Detected contacts of {touch}"),
                })
            }
            Edit::SetStride { clip, stride } => {
                self.solve.set_stride(clip, *stride);
                Ok(format!("{clip}: {}", stride.label()))
            }
        }
    }

    /// The automatic map, over everything or only where both bones are still free.
    fn auto_map(&mut self, unmapped_only: bool) -> String {
        let auto = self.automatic_map();
        if !unmapped_only {
            self.map = auto;
            return "Auto-map".to_owned();
        }
        for pair in auto.pairs() {
            let target_free = self.map.for_target(pair.target).is_none();
            let source_free = !self.map.pairs().iter().any(|p| p.source == pair.source);
            if target_free && source_free {
                self.map.insert(pair.clone());
            }
        }
        "Auto-map unmapped bones".to_owned()
    }

    /// A bone's rotation offset from the reference pose; the identity removes it.
    fn set_bone_offset(
        &mut self,
        side: SideRole,
        joint: usize,
        rotation: Quat,
    ) -> Result<String, SessionError> {
        let s = self.side_mut(side);
        let name = s.skeleton().names()[joint].clone();
        s.file.bone_offsets.retain(|(n, _)| *n != name);
        if !rotation.abs_diff_eq(Quat::IDENTITY, 1e-7) {
            s.file.bone_offsets.push((name.clone(), rotation));
        }
        s.rebuild_reference()?;
        Ok(format!("Rotate {name}"))
    }

    fn map_bone(&mut self, target: usize, source: Option<usize>) -> Result<String, SessionError> {
        let tgt = self.target.skeleton().names()[target].clone();
        match source {
            None => {
                self.map.remove_target(target);
                Ok(format!("Unmap {tgt}"))
            }
            Some(s) => {
                let src = self.source.skeleton().names()[s].clone();
                let bone = self
                    .target
                    .labels
                    .get(target)
                    .copied()
                    .flatten()
                    .map(|l| l.bone);
                let translation = match self.map.for_target(target) {
                    Some(p) => p.translation,
                    None if bone == Some(crate::core::HumanBone::Hips) => {
                        TranslationMode::HipsScaled
                    }
                    None => TranslationMode::None,
                };
                self.map.insert(BonePair {
                    translation,
                    bone,
                    method: MapMethod::Hand,
                    confidence: 1.0,
                    ..BonePair::new(s, target)
                });
                Ok(format!("Map {src} -> {tgt}"))
            }
        }
    }

    /// Each left target pair is copied onto the right: target twin ← source twin.
    fn mirror_map(&mut self) {
        let twin_of = |labels: &[Option<crate::core::SideLabel>], j: usize| {
            let bone = labels.get(j).copied().flatten()?.bone;
            if !bone.is_left() {
                return None;
            }
            labels
                .iter()
                .position(|l| l.is_some_and(|l| l.bone == bone.twin()))
        };
        let lefts: Vec<BonePair> = self.map.pairs().to_vec();
        for pair in lefts {
            let Some(t) = twin_of(&self.target.labels, pair.target) else {
                continue;
            };
            let s = self
                .source
                .labels
                .get(pair.source)
                .copied()
                .flatten()
                .and_then(|l| {
                    self.source
                        .labels
                        .iter()
                        .position(|o| o.is_some_and(|o| o.bone == l.bone.twin()))
                });
            let Some(s) = s else { continue };
            self.map.insert(BonePair {
                source: s,
                target: t,
                bone: pair.bone.map(|b| b.twin()),
                ..pair
            });
        }
    }

    fn match_heights(&mut self) -> Result<String, SessionError> {
        let height = |side: &super::Side| {
            let hips = side
                .skeleton()
                .find_humanoid(crate::core::HumanBone::Hips)
                .or_else(|| side.labelled_joint(crate::core::HumanBone::Hips))?;
            let world = side.reference.world_matrices(side.skeleton());
            let ground = world
                .iter()
                .map(|m| m.w_axis.y)
                .fold(f32::INFINITY, f32::min);
            Some(world[hips].w_axis.y - ground)
        };
        if let (Some(hs), Some(ht)) = (height(&self.source), height(&self.target))
            && hs > 1e-6
            && ht > 1e-6
        {
            self.target.file.container.scale *= hs / ht;
            self.target.rebuild_reference()?;
        }
        Ok("Match heights".to_owned())
    }
}

pub fn rotation_name(mode: RotationMode) -> &'static str {
    match mode {
        RotationMode::RestRelative => "rest-relative",
        RotationMode::Absolute => "absolute",
    }
}

pub fn translation_name(mode: TranslationMode) -> &'static str {
    match mode {
        TranslationMode::None => "none",
        TranslationMode::HipsScaled => "hips-scaled",
        TranslationMode::Copy => "copy",
        TranslationMode::InPlace => "in place",
    }
}

fn pose_source_name(source: &PoseSource) -> String {
    match source {
        PoseSource::Bind => "bind".into(),
        PoseSource::Rest => "rest".into(),
        PoseSource::Frame { clip, frame } => format!("{clip} frame {frame}"),
    }
}
