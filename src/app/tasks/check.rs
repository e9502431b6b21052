//! The quality report of the current clip, computed on a copy of the session in a
//! background thread (`tasks::keyed`): it retargets the whole clip, which the UI thread must
//! never wait for.

use super::keyed::{KeyedTask, TaskKey, TaskResult};
use crate::app::panels::quality_tab::QualityView;
use crate::core::quality::{Report, Thresholds};
use crate::session::{Cause, Session};
use eframe::egui;

/// What a report was computed for: the document's revision and the clip.
pub type QualityKey = TaskKey;

/// A report and, when it fails, its likeliest causes with their tested fixes.
#[derive(Debug)]
pub struct Judged {
    pub report: Report,
    pub causes: Vec<Cause>,
}

pub type QualityResult = TaskResult<Judged>;

/// The last report finished, and the one being computed.
pub type QualityState = KeyedTask<Judged>;

impl QualityState {
    pub fn quality() -> Self {
        Self::new(crate::app::guard::Job::Quality)
    }

    /// Starts a report for `key` unless one is running or the last one is for `key`;
    /// true if it started. `inject_panic` is the tests' hook (see `guard::catch`).
    pub fn request_for(
        &mut self,
        session: &Session,
        key: QualityKey,
        ctx: &egui::Context,
        inject_panic: bool,
    ) -> bool {
        let (session, clip) = (session.clone(), key.1.clone());
        self.request(key, ctx, inject_panic, move || {
            let limits = Thresholds::default();
            let report = session.quality(Some(&clip), &limits)?;
            let causes = session.causes(Some(&clip), &report, &limits)?;
            Ok(Judged { report, causes })
        })
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
}
