//! The quality report of the current clip, computed on a copy of the session in a
//! background thread: it retargets the whole clip (10 to 300 ms), which the UI thread must
//! never wait for. One runs at a time; edits made meanwhile are caught up when it ends.

use super::panels::quality::QualityView;
use crate::core::quality::{Report, Thresholds};
use crate::session::Session;
use eframe::egui;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// What a report was computed for: the document's revision and the clip.
pub type QualityKey = (u64, String);

pub type QualityResult = Result<Arc<Report>, String>;

struct Running {
    key: QualityKey,
    receiver: Receiver<QualityResult>,
}

/// The last report finished, and the one being computed.
#[derive(Default)]
pub struct QualityState {
    running: Option<Running>,
    done: Option<(QualityKey, QualityResult)>,
}

impl QualityState {
    /// Starts a report for `key` unless one is running or the last one is for `key`;
    /// true if it started. `inject_panic` is the tests' hook (see `guard::catch`).
    pub fn request(
        &mut self,
        session: &Session,
        key: QualityKey,
        ctx: &egui::Context,
        inject_panic: bool,
    ) -> bool {
        self.poll();
        let current = self.done.as_ref().is_some_and(|(k, _)| *k == key);
        if current || self.running.is_some() {
            return false;
        }
        let (sender, receiver) = channel();
        let (session, clip, ctx) = (session.clone(), key.1.clone(), ctx.clone());
        std::thread::spawn(move || {
            let report = super::guard::catch(super::guard::Job::Quality, inject_panic, || {
                Ok(Arc::new(
                    session.quality(Some(&clip), &Thresholds::default())?,
                ))
            })
            .map_err(|e| super::errors::error_lines(&e));
            // The app may be gone (a closed window); nobody to tell then.
            let _ = sender.send(report);
            ctx.request_repaint();
        });
        self.running = Some(Running { key, receiver });
        true
    }

    /// Takes a finished report, if one has arrived.
    pub fn poll(&mut self) {
        let Some(running) = &self.running else { return };
        let result = match running.receiver.try_recv() {
            Ok(result) => result,
            Err(TryRecvError::Empty) => return,
            Err(TryRecvError::Disconnected) => Err("the quality report stopped".into()),
        };
        if let Some(running) = self.running.take() {
            self.done = Some((running.key, result));
        }
    }

    /// Blocks until the running report (if any) has finished: for tests and screenshots,
    /// which must see the report, not "computing".
    pub fn wait(&mut self) {
        if let Some(running) = self.running.take() {
            let result = running
                .receiver
                .recv()
                .unwrap_or_else(|_| Err("the quality report stopped".into()));
            self.done = Some((running.key, result));
        }
    }

    /// What the Quality tab shows when the report must be for `key`.
    pub fn view(&self, key: Option<&QualityKey>) -> QualityView<'_> {
        let latest = self.latest(key);
        QualityView {
            result: latest.map(|(r, _)| r),
            current: latest.is_some_and(|(_, current)| current),
            busy: self.busy(),
        }
    }

    /// True while a report is being computed.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// The last finished report, with whether it is for `key` (else it is out of date and a
    /// newer one is on its way).
    pub fn latest(&self, key: Option<&QualityKey>) -> Option<(&QualityResult, bool)> {
        self.done
            .as_ref()
            .map(|(k, result)| (result, key.is_some_and(|key| key == k)))
    }

    /// The last report that succeeded for the clip `clip`, even of an earlier revision: the
    /// strip keeps showing it while an edit's report is computed.
    pub fn latest_for_clip(&self, clip: Option<&str>) -> Option<&Report> {
        let ((_, for_clip), result) = self.done.as_ref()?;
        (Some(for_clip.as_str()) == clip)
            .then_some(result.as_deref().ok())
            .flatten()
    }

    /// Forgets everything (another document).
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}
