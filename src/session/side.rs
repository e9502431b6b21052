//! One side of a session: the loaded file, the chosen skeleton, its labels and its
//! reference pose with the user's edits.

use super::SessionError;
use crate::core::{Clip, MapMethod, PoseSource, ReferencePose, SideLabel, Skeleton};
use crate::io::project::SideFile;
use crate::io::{Asset, ImportOptions};
use glam::Quat;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideRole {
    Source,
    Target,
}

#[derive(Clone)]
pub struct Side {
    pub role: SideRole,
    pub path: PathBuf,
    pub asset: Asset,
    /// Index into `asset.skeletons`.
    pub skeleton_index: usize,
    /// The settings that a project saves for this side.
    pub file: SideFile,
    pub reference: ReferencePose,
    pub labels: Vec<Option<SideLabel>>,
}

/// Humanoid labels of a skeleton, as the map builder takes them: the file's own table,
/// then names, then the skeleton's shape (`core::profile`).
pub fn side_labels(skeleton: &Skeleton, reference: &ReferencePose) -> Vec<Option<SideLabel>> {
    use crate::core::profile::{LabelMethod, auto_label};
    auto_label(skeleton, &reference.locals)
        .into_iter()
        .map(|l| {
            l.map(|l| SideLabel {
                bone: l.bone,
                method: match l.method {
                    LabelMethod::Table => MapMethod::Table,
                    LabelMethod::Name => MapMethod::Name,
                    LabelMethod::Topology => MapMethod::Topology,
                    LabelMethod::Hand => MapMethod::Hand,
                },
                confidence: l.confidence,
            })
        })
        .collect()
}

impl Side {
    pub fn load(
        role: SideRole,
        path: &Path,
        options: &ImportOptions,
    ) -> Result<Self, SessionError> {
        let file = SideFile {
            unit: options.unit,
            up: options.up,
            ..SideFile::new(path)
        };
        Self::from_file(role, file)
    }

    /// Loads the side a project describes; bone offsets name joints that must exist.
    pub fn from_file(role: SideRole, file: SideFile) -> Result<Self, SessionError> {
        let options = ImportOptions {
            unit: file.unit,
            up: file.up,
        };
        let asset = crate::io::load(&file.path, &options)?;
        // The skeleton with the most humanoid labels is the character (others: props).
        let skeleton_index = (0..asset.skeletons.len())
            .max_by_key(|&i| asset.skeletons[i].humanoid().iter().flatten().count())
            .unwrap_or(0);
        for (name, _) in &file.bone_offsets {
            if asset.skeletons[skeleton_index].find(name).is_none() {
                return Err(SessionError::JointMissing {
                    path: file.path.clone(),
                    role: "bone offset",
                    joint: name.clone(),
                });
            }
        }
        let skeleton = &asset.skeletons[skeleton_index];
        let reference = ReferencePose::new(
            skeleton,
            crate::core::Pose::bind(skeleton),
            &file.container,
            &[],
        );
        let mut side = Side {
            role,
            path: file.path.clone(),
            labels: Vec::new(),
            asset,
            skeleton_index,
            file,
            reference,
        };
        side.rebuild_reference()?;
        side.labels = side_labels(side.skeleton(), &side.reference);
        Ok(side)
    }

    pub fn skeleton(&self) -> &Skeleton {
        &self.asset.skeletons[self.skeleton_index]
    }

    pub fn clips(&self) -> Vec<&Clip> {
        self.asset.clips_of(self.skeleton_index).collect()
    }

    /// The clip `name`, or the first. Allocates only to report a missing clip: the editor
    /// looks its clip up every frame.
    pub fn clip(&self, name: Option<&str>) -> Result<&Clip, SessionError> {
        let mut clips = self.asset.clips_of(self.skeleton_index);
        match name {
            None => clips.next().ok_or_else(|| SessionError::NoClips {
                path: self.path.clone(),
            }),
            Some(n) => clips
                .find(|c| c.name == n)
                .ok_or_else(|| SessionError::ClipMissing {
                    path: self.path.clone(),
                    name: n.to_owned(),
                    available: self
                        .asset
                        .clips_of(self.skeleton_index)
                        .map(|c| format!("'{}'", c.name))
                        .collect::<Vec<_>>()
                        .join(", "),
                }),
        }
    }

    /// Recomputes the reference pose from the side's settings (after any edit).
    pub fn rebuild_reference(&mut self) -> Result<(), SessionError> {
        let skeleton = self.skeleton();
        let base = ReferencePose::base_pose(skeleton, &self.file.reference, &self.clips())
            .ok_or_else(|| match &self.file.reference {
                PoseSource::Frame { clip, frame } => SessionError::ReferenceClipMissing {
                    path: self.path.clone(),
                    clip: clip.clone(),
                    frame: *frame,
                },
                _ => unreachable!("bind and rest poses always exist"),
            })?;
        let offsets: Vec<(usize, Quat)> = self
            .file
            .bone_offsets
            .iter()
            .filter_map(|(name, q)| Some((skeleton.find(name)?, *q)))
            .collect();
        self.reference = ReferencePose::new(skeleton, base, &self.file.container, &offsets);
        Ok(())
    }

    /// The joint's rotation offset from the reference pose (in its parent's space).
    pub fn bone_offset(&self, joint: usize) -> Quat {
        let name = &self.skeleton().names()[joint];
        self.file
            .bone_offsets
            .iter()
            .find(|(n, _)| n == name)
            .map_or(Quat::IDENTITY, |(_, q)| *q)
    }

    /// Adds a rotation (in the parent's space) on top of the joint's existing offset.
    pub fn add_bone_offset(&mut self, joint: usize, rotation: Quat) {
        let name = self.skeleton().names()[joint].clone();
        match self.file.bone_offsets.iter_mut().find(|(n, _)| *n == name) {
            Some((_, q)) => *q = (rotation * *q).normalize(),
            None => self.file.bone_offsets.push((name, rotation)),
        }
    }
}
