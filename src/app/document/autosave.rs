//! Autosave: while a document has unsaved edits, its state goes to a recovery file
//! (`recovery`) every `interval` (30 s by default), atomically, in the app's data folder.
//! Saving, or closing the window normally, removes the file; a crash leaves it for the next
//! start to offer. The folder and interval are set by the launcher, so tests use a temp
//! folder and a short interval, never the user's data.

use super::Document;
use super::recovery::{RecoveryFile, lock_path};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Where recovery files go and how often they are written.
#[derive(Clone, Debug)]
pub struct AutosaveConfig {
    pub dir: PathBuf,
    pub interval: Duration,
}

impl AutosaveConfig {
    pub const INTERVAL: Duration = Duration::from_secs(30);

    /// `recovery/` in the editor's data folder (~/.local/share/retargetstudio on Linux,
    /// beside the saved window layout).
    /// `RETARGET_STUDIO_STATE_DIR` moves it (see [`crate::app::state_dir`]).
    pub fn standard() -> Option<Self> {
        let dir = crate::app::state_dir().or_else(|| eframe::storage_dir("Retarget Studio"));
        dir.map(|d| Self {
            dir: d.join("recovery"),
            interval: Self::INTERVAL,
        })
    }
}

/// One window's autosave.
pub struct Autosave {
    config: AutosaveConfig,
    /// The file name stem: process and start time, unique to this window.
    key: String,
    /// Held while the window runs: tells the next start this window is not gone.
    lock: Option<std::fs::File>,
    /// The revision in the recovery file, if one is there.
    written: Option<u64>,
    /// Since when the unsaved edits have waited for the next write.
    waiting_since: Option<Instant>,
}

impl Autosave {
    pub fn new(config: AutosaveConfig) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let key = format!("window-{}-{nanos:09}", std::process::id());
        Self {
            config,
            key,
            lock: None,
            written: None,
            waiting_since: None,
        }
    }

    pub fn dir(&self) -> &std::path::Path {
        &self.config.dir
    }

    pub fn interval(&self) -> Duration {
        self.config.interval
    }

    /// This window's recovery file.
    pub fn path(&self) -> PathBuf {
        self.config.dir.join(format!("{}.ron", self.key))
    }

    /// Called every frame: writes the recovery file when edits have waited `interval`, and
    /// removes it once there is nothing unsaved. Returns what a write did, if one was due.
    pub fn tick(&mut self, doc: &Document, now: Instant) -> Option<anyhow::Result<PathBuf>> {
        let Some(session) = doc.session.as_ref().filter(|_| doc.dirty) else {
            self.waiting_since = None;
            if self.written.take().is_some() {
                let _ = std::fs::remove_file(self.path());
            }
            return None;
        };
        if self.written == Some(doc.revision) {
            return None;
        }
        let since = *self.waiting_since.get_or_insert(now);
        if now.duration_since(since) < self.config.interval {
            return None;
        }
        self.waiting_since = Some(now);
        let file = RecoveryFile::new(session.to_project(), doc.project_path.as_deref());
        let result = self.write(&file);
        if result.is_ok() {
            self.written = Some(doc.revision);
        }
        Some(result)
    }

    fn write(&mut self, file: &RecoveryFile) -> anyhow::Result<PathBuf> {
        std::fs::create_dir_all(&self.config.dir)?;
        if self.lock.is_none() {
            let lock = std::fs::File::create(lock_path(&self.path()))?;
            if !crate::io::atomic::try_lock(&lock) {
                anyhow::bail!(
                    "{}: locked by another window",
                    lock_path(&self.path()).display()
                );
            }
            self.lock = Some(lock);
        }
        let text = file.to_ron()?;
        let path = self.path();
        crate::io::atomic::write_atomic(&path, |w| w.write_all(text.as_bytes()))?;
        Ok(path)
    }

    /// A normal close: nothing to recover.
    pub fn finish(&mut self) {
        let _ = std::fs::remove_file(self.path());
        if self.lock.take().is_some() {
            let _ = std::fs::remove_file(lock_path(&self.path()));
        }
        self.written = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> Document {
        let session = crate::session::Session::from_project(&crate::app::demo_project()).unwrap();
        Document {
            opened_as: None,
            loose: [None, None],
            session: Some(session),
            ..Document::default()
        }
    }

    #[test]
    fn writes_after_the_interval_only_while_dirty() {
        let dir = tempfile::tempdir().unwrap();
        let interval = Duration::from_secs(30);
        let mut autosave = Autosave::new(AutosaveConfig {
            dir: dir.path().join("recovery"),
            interval,
        });
        let mut doc = demo();
        let t0 = Instant::now();
        assert!(
            autosave.tick(&doc, t0 + interval * 2).is_none(),
            "clean: nothing"
        );
        doc.touch();
        assert!(autosave.tick(&doc, t0).is_none(), "edits wait");
        assert!(autosave.tick(&doc, t0 + interval / 2).is_none());
        let path = autosave.tick(&doc, t0 + interval).unwrap().unwrap();
        assert!(path.exists());
        assert!(
            crate::app::document::recovery::orphans(autosave.dir()).is_empty(),
            "ours, locked"
        );
        assert!(
            autosave.tick(&doc, t0 + interval * 3).is_none(),
            "unchanged: no rewrite"
        );
        doc.touch();
        assert!(
            autosave.tick(&doc, t0 + interval * 3).is_some(),
            "changed: written again"
        );
        doc.dirty = false;
        assert!(autosave.tick(&doc, t0 + interval * 4).is_none());
        assert!(!path.exists(), "saved: the recovery file goes");
        doc.touch();
        autosave.tick(&doc, t0 + interval * 4);
        autosave.tick(&doc, t0 + interval * 5).unwrap().unwrap();
        autosave.finish();
        let left = std::fs::read_dir(dir.path().join("recovery"))
            .unwrap()
            .count();
        assert_eq!(left, 0, "a normal close leaves nothing");
    }
}
