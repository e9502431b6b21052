//! The files a project names that are no longer there (moved, renamed, on an unplugged
//! drive): found before loading, so the editor can ask where each one went and the CLI can
//! say which one it is, rather than failing on the first read.

use super::SideRole;
use crate::io::project::ProjectFile;
use std::path::{Path, PathBuf};

/// A side's file that a project names and that does not exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingFile {
    pub role: SideRole,
    pub path: PathBuf,
}

impl std::fmt::Display for MissingFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the {} file {} is not there (moved or deleted?)",
            self.role_name(),
            self.path.display()
        )
    }
}

impl MissingFile {
    /// "source" or "target".
    pub fn role_name(&self) -> &'static str {
        self.role.name()
    }

    /// Points the project's side at `path`, where the file is now.
    pub fn relink(&self, project: &mut ProjectFile, path: &Path) {
        let side = match self.role {
            SideRole::Source => &mut project.source,
            SideRole::Target => &mut project.target,
        };
        side.path = path.to_path_buf();
    }
}

/// The project's side files that do not exist, source first.
pub fn missing_files(project: &ProjectFile) -> Vec<MissingFile> {
    [
        (SideRole::Source, &project.source.path),
        (SideRole::Target, &project.target.path),
    ]
    .into_iter()
    // An unreadable folder is not "moved": the reader then says what is wrong.
    .filter(|(_, path)| matches!(path.try_exists(), Ok(false)))
    .map(|(role, path)| MissingFile {
        role,
        path: path.clone(),
    })
    .collect()
}

/// "the source file … is not there (…); the target file …": every missing file, one message.
pub(super) fn describe(missing: &[MissingFile]) -> String {
    missing
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::project::SideFile;

    #[test]
    fn names_each_missing_side_and_relinks_it() {
        let dir = tempfile::tempdir().unwrap();
        let here = dir.path().join("walk.bvh");
        std::fs::write(&here, "").unwrap();
        let mut project = ProjectFile::of_sides(
            SideFile::new(dir.path().join("gone/walk.bvh")),
            SideFile::new(dir.path().join("gone/robot.glb")),
        );
        let missing = missing_files(&project);
        assert_eq!(missing.len(), 2);
        assert_eq!(missing[0].role, SideRole::Source);
        let text = describe(&missing);
        assert!(
            text.contains("source file") && text.contains("gone/walk.bvh"),
            "{text}"
        );
        assert!(
            text.contains("target file") && text.contains("robot.glb"),
            "{text}"
        );
        missing[0].relink(&mut project, &here);
        assert_eq!(project.source.path, here);
        assert_eq!(missing_files(&project), missing[1..]);
    }
}
