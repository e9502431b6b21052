//! The quality report of the current clip and its likeliest causes, each computed on a copy
//! of the session in a background thread (`tasks::keyed`): the report retargets the whole
//! clip, and the causes judge it again once per fix they test (up to about 7 more solves),
//! which the UI thread must never wait for. Two jobs, so that the report is shown as soon as
//! it is computed and the causes follow; both are keyed by the document's revision and the
//! clip, and causes are only ever shown beside the report they were computed with.

use super::keyed::{Gate, KeyedTask, TaskKey, TaskResult};
use crate::app::guard::Job;
use crate::app::panels::quality_tab::{CausesView, QualityView};
use crate::core::quality::{Report, Thresholds};
use crate::session::{Cause, Session, TakenFix};
use eframe::egui;

/// What a report was computed for: the document's revision and the clip.
pub type QualityKey = TaskKey;

pub type QualityResult = TaskResult<Report>;

/// The report and the causes: the last finished of each, and the ones being computed.
pub struct QualityState {
    pub(crate) report: KeyedTask<Report>,
    causes: KeyedTask<Vec<Cause>>,
    /// A freshly opened pair's report: when it fails and a cause's fix passes, the editor
    /// takes that fix once, as `check` does.
    take_fix_for: Option<QualityKey>,
}

impl QualityState {
    pub fn quality() -> Self {
        Self {
            report: KeyedTask::new(Job::Quality),
            causes: KeyedTask::new(Job::Causes),
            take_fix_for: None,
        }
    }

    /// The report for `key` (a pair just opened) takes a passing fix when it fails.
    pub fn take_fix_once(&mut self, key: QualityKey) {
        self.take_fix_for = Some(key);
    }

    /// The passing fix to take for `key` once its causes are in; then, or as soon as the
    /// pair was edited, passes, or no fix passes, never again.
    pub fn fix_to_take(&mut self, key: &QualityKey) -> Option<TakenFix> {
        if self.take_fix_for.as_ref()? != key {
            self.take_fix_for = None;
            return None;
        }
        let report = match self.report.result_for(key)? {
            Ok(r) if !r.passed => r.clone(),
            _ => {
                self.take_fix_for = None;
                return None;
            }
        };
        let causes = self.causes.result_for(key)?.clone();
        self.take_fix_for = None;
        let cause = causes.ok()?.iter().find(|c| c.passes_after)?.clone();
        Some(TakenFix {
            cause,
            before: (*report).clone(),
        })
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
        self.report.request(key, ctx, inject_panic, move || {
            Ok(session.quality(Some(&clip), &Thresholds::default())?)
        })
    }

    /// Once `key`'s report is in and fails, starts looking for its causes, unless that is
    /// running or done; a search for another key is told to stop, its result being stale.
    /// `hold` is the tests' hook: the search waits at it once it has counted its fixes.
    pub fn request_causes(
        &mut self,
        session: &Session,
        key: &QualityKey,
        ctx: &egui::Context,
        hold: Option<Gate>,
    ) {
        self.report.poll();
        self.causes.supersede(Some(key));
        let Some(Ok(report)) = self.report.result_for(key) else {
            return;
        };
        // Checked before the copy of the session, which would be made every frame else.
        if report.passed || !self.causes.needs(key) {
            return;
        }
        let (session, clip, report) = (session.clone(), key.1.clone(), report.clone());
        self.causes
            .request_with_progress(key.clone(), ctx, false, move |progress| {
                let tested = |done, all| {
                    if let Some(gate) = hold.as_ref().filter(|_| done == 0) {
                        progress.step(done, all);
                        gate.pass();
                    }
                    progress.step(done, all)
                };
                let limits = Thresholds::default();
                Ok(session.causes_with_progress(Some(&clip), &report, &limits, &tested)?)
            });
    }

    /// Blocks until the causes being looked for are found (tests and screenshots).
    pub fn wait_for_causes(&mut self) {
        self.causes.wait();
    }

    /// What the Quality tab shows when the report must be for `key`.
    pub fn view(&self, key: Option<&QualityKey>) -> QualityView<'_> {
        let last = self.report.last();
        QualityView {
            result: last.map(|(_, r)| r),
            current: last.is_some_and(|(k, _)| Some(k) == key),
            busy: self.report.busy(),
            causes: last.map_or(CausesView::Looking(0, 0), |(k, _)| self.causes_view(k)),
        }
    }

    /// The causes of the report for `key`: found, failed, or being looked for (with the
    /// fixes tested so far when the search for them runs).
    fn causes_view(&self, key: &QualityKey) -> CausesView<'_> {
        match self.causes.result_for(key) {
            Some(Ok(causes)) => CausesView::Found(causes),
            Some(Err(e)) => CausesView::Failed(e),
            None => {
                let running = self.causes.running().filter(|(k, _)| *k == key);
                let (tested, all) = running.map_or((0, 0), |(_, steps)| steps);
                CausesView::Looking(tested, all)
            }
        }
    }

    /// Forgets everything (another document).
    pub fn clear(&mut self) {
        self.report.clear();
        self.causes.clear();
        self.take_fix_for = None;
    }
}
