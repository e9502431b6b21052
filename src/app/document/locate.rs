//! The "locate file" prompt's state: a project whose files moved waits while the user says
//! where the missing one is now; loading then goes on with the new path, and the document is
//! unsaved so the new path gets saved.

use crate::io::project::ProjectFile;
use crate::session::MissingFile;
use std::path::{Path, PathBuf};

pub struct Locate {
    pub project: ProjectFile,
    pub project_path: Option<PathBuf>,
    /// The file asked for now; the others are found missing again after it is relinked.
    pub missing: MissingFile,
    /// The path typed in the prompt (when no file dialog answers, as under Xvfb).
    pub typed: String,
    /// Why the last path given was not taken.
    pub problem: Option<String>,
}

impl Locate {
    pub fn new(project: ProjectFile, project_path: Option<PathBuf>, missing: MissingFile) -> Self {
        Self {
            project,
            project_path,
            missing,
            typed: String::new(),
            problem: None,
        }
    }

    /// "walk.ron" or "The project".
    pub fn project_name(&self) -> String {
        self.project_path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or("The project".into(), |n| n.to_string_lossy().into_owned())
    }

    /// Points the missing file at `path`; false (and a problem to show) when no file is
    /// there.
    pub fn relink(&mut self, path: &Path) -> bool {
        if !path.is_file() {
            self.problem = Some(format!("There is no file at {}.", path.display()));
            return false;
        }
        self.missing.relink(&mut self.project, path);
        true
    }
}
