//! The document being edited: a session (source, target, map, reference poses) plus where it
//! is saved and whether it changed. The UI reads it; commands change it. Beside it, what
//! keeps it safe: undo, autosave and crash recovery, and the prompt for a moved file.

pub mod autosave;
pub mod locate;
pub mod recovery;
pub(crate) mod undo;

use crate::io::ImportOptions;
use crate::io::project::ProjectFile;
use crate::session::Session;
use std::path::{Path, PathBuf};

pub struct Document {
    pub session: Option<Session>,
    pub project_path: Option<PathBuf>,
    pub dirty: bool,
    /// Bumped on every change; caches (the retargeter) key on it.
    pub revision: u64,
    /// How a file named on its own was opened ("walk.bvh as the source"), for the title.
    pub opened_as: Option<String>,
    /// Without a session: the side (source, target) opened so far, waiting for the other.
    pub loose: [Option<PathBuf>; 2],
}

impl Default for Document {
    fn default() -> Self {
        Self {
            session: None,
            project_path: None,
            dirty: false,
            revision: 1,
            opened_as: None,
            loose: [None, None],
        }
    }
}

impl Document {
    /// A document of a loaded project; `dirty` when what was loaded differs from the file
    /// (a relinked path, a recovered edit).
    pub fn loaded(session: Session, project_path: Option<PathBuf>, dirty: bool) -> Self {
        Self {
            session: Some(session),
            project_path,
            dirty,
            revision: 1,
            opened_as: None,
            loose: [None, None],
        }
    }

    /// A new, unsaved document that maps `source` onto `target` automatically. Not dirty:
    /// until an edit it holds nothing that opening the two files again would not give, so
    /// quitting or File ▸ New has nothing to ask about.
    pub fn from_files(source: &Path, target: &Path) -> anyhow::Result<Self> {
        let session = Session::automatic(source, target, &ImportOptions::default())?;
        Ok(Self {
            session: Some(session),
            project_path: None,
            dirty: false,
            revision: 1,
            opened_as: None,
            loose: [None, None],
        })
    }

    pub fn save(&mut self, path: &Path) -> anyhow::Result<u64> {
        let session = self
            .session
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("nothing to save: load a source and a target first"))?;
        let bytes = session.to_project().save(path)?;
        self.project_path = Some(path.to_path_buf());
        self.dirty = false;
        Ok(bytes)
    }

    pub fn project(&self) -> Option<ProjectFile> {
        self.session.as_ref().map(Session::to_project)
    }

    /// Marks an edit: unsaved, and every cache out of date.
    pub fn touch(&mut self) {
        self.dirty = true;
        self.revision += 1;
    }

    /// "walk.ron* — Retarget Studio": the project's name, a star while unsaved.
    pub fn title(&self) -> String {
        let name = match (&self.project_path, &self.session) {
            (Some(p), _) => p
                .file_name()
                .map_or("project".into(), |n| n.to_string_lossy().into_owned()),
            (None, Some(_)) => match &self.opened_as {
                Some(how) => format!("untitled: {how}"),
                None => "untitled".to_owned(),
            },
            (None, None) => "no project".to_owned(),
        };
        let star = if self.dirty { "*" } else { "" };
        format!("{name}{star} — Retarget Studio")
    }
}
