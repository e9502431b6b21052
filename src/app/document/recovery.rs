//! Recovery files: the unsaved state of a document, written by `autosave` while a window has
//! unsaved edits. Each window writes its own (`<key>.ron`) and holds a lock on `<key>.lock`
//! while it runs, so the next start tells a crashed window's work (lock free) from that of a
//! window still open (lock held) and offers only the first.

use crate::io::project::ProjectFile;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const RECOVERY_VERSION: u32 = 1;

/// What a recovery file holds: the project (side paths absolute) and where it was saved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecoveryFile {
    pub version: u32,
    /// The project file the document was opened from or saved to; `None` if never saved.
    pub project_path: Option<PathBuf>,
    /// When it was written, in seconds since 1970.
    pub written_unix_secs: u64,
    pub project: ProjectFile,
}

impl RecoveryFile {
    pub fn new(mut project: ProjectFile, project_path: Option<&Path>) -> Self {
        // Absolute: the next start may run from another folder.
        for side in [&mut project.source, &mut project.target] {
            side.path = std::path::absolute(&side.path).unwrap_or_else(|_| side.path.clone());
        }
        Self {
            version: RECOVERY_VERSION,
            project_path: project_path.map(|p| std::path::absolute(p).unwrap_or(p.to_path_buf())),
            written_unix_secs: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            project,
        }
    }

    pub fn to_ron(&self) -> anyhow::Result<String> {
        Ok(ron::ser::to_string_pretty(
            self,
            ron::ser::PrettyConfig::new().depth_limit(5),
        )?)
    }

    /// "walk.ron" or "an unsaved project".
    pub fn name(&self) -> String {
        self.project_path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or("an unsaved project".into(), |n| {
                n.to_string_lossy().into_owned()
            })
    }

    /// "3 min ago", for the prompt.
    pub fn age(&self) -> String {
        let written = UNIX_EPOCH + Duration::from_secs(self.written_unix_secs);
        let secs = SystemTime::now()
            .duration_since(written)
            .map_or(0, |d| d.as_secs());
        match secs {
            0..60 => format!("{secs} s ago"),
            60..7200 => format!("{} min ago", secs / 60),
            _ => format!("{} h ago", secs / 3600),
        }
    }
}

/// A recovery file left by a window that is gone.
#[derive(Clone, Debug)]
pub struct Orphan {
    pub path: PathBuf,
    pub file: RecoveryFile,
}

impl Orphan {
    /// Removes the recovery file and its lock file (restored or discarded).
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_file(lock_path(&self.path));
    }
}

pub fn lock_path(recovery: &Path) -> PathBuf {
    recovery.with_extension("lock")
}

/// The recovery files in `dir` whose windows are gone, newest first. Unreadable ones are
/// skipped (and left for a person to look at).
pub fn orphans(dir: &Path) -> Vec<Orphan> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<Orphan> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron") && !held(&lock_path(p)))
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let file: RecoveryFile = ron::from_str(&text).ok()?;
            Some(Orphan { path, file })
        })
        .collect();
    found.sort_by_key(|o| std::cmp::Reverse(o.file.written_unix_secs));
    found
}

/// Whether a running window holds the lock file.
fn held(lock: &Path) -> bool {
    match std::fs::File::open(lock) {
        Ok(file) => !crate::io::atomic::try_lock(&file),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::project::SideFile;

    fn project() -> ProjectFile {
        ProjectFile::of_sides(
            SideFile::new("/data/walk.bvh"),
            SideFile::new("/data/robot.glb"),
        )
    }

    #[test]
    fn only_files_of_closed_windows_are_offered() {
        let dir = tempfile::tempdir().unwrap();
        let file = RecoveryFile::new(project(), Some(Path::new("/data/walk.ron")));
        for key in ["crashed", "running"] {
            let path = dir.path().join(format!("{key}.ron"));
            std::fs::write(&path, file.to_ron().unwrap()).unwrap();
            std::fs::write(lock_path(&path), "").unwrap();
        }
        let running = std::fs::File::open(dir.path().join("running.lock")).unwrap();
        assert!(crate::io::atomic::try_lock(&running));
        std::fs::write(dir.path().join("garbage.ron"), "(version: ").unwrap();
        let found = orphans(dir.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].path.ends_with("crashed.ron"));
        assert_eq!(found[0].file, file);
        assert_eq!(found[0].file.name(), "walk.ron");
        assert!(found[0].file.age().ends_with("s ago"));
        found[0].remove();
        assert!(orphans(dir.path()).is_empty());
        assert!(!dir.path().join("crashed.lock").exists());
    }
}
