//! The quality report of the current clip in the editor: kept up to date in the background
//! as the document and clip change, shown by the Quality tab and the strip under the
//! timeline.

use super::StudioApp;
use crate::app::command::Command;
use crate::app::tasks::check::QualityKey;
use crate::app::timeline::quality_strip::{measure_rows_ui, strip_ui};
use crate::core::quality::Report;
use eframe::egui;

impl StudioApp {
    /// The document revision and clip the report must be for now.
    pub(super) fn quality_key(&self) -> Option<QualityKey> {
        self.doc.session.as_ref()?;
        Some((self.doc.revision, self.clip.clone()?))
    }

    /// Starts a report when the document or the clip changed (one at a time: an edit made
    /// while one runs is caught up when it ends), then, once it is in and fails, the search
    /// for its causes; a pair just opened whose report fails takes the fix that passes, as
    /// `check` does. A screenshot waits for both, so that the image shows the report and
    /// its causes and not "computing".
    pub(super) fn update_quality(&mut self, ctx: &egui::Context) {
        let (Some(key), Some(session)) = (self.quality_key(), &self.doc.session) else {
            return;
        };
        let inject = self.inject_panic == Some(crate::app::guard::Job::Quality);
        if self
            .tasks
            .quality
            .request_for(session, key.clone(), ctx, inject)
            && inject
        {
            self.inject_panic = None;
        }
        let hold = self.hold_causes.clone();
        self.tasks.quality.request_causes(session, &key, ctx, hold);
        if self.screenshot.is_some() {
            let quality = &mut self.tasks.quality;
            quality.report.wait();
            // The report may have been for an older key; ask again, and wait again.
            quality.request_for(session, key.clone(), ctx, false);
            quality.report.wait();
            // A search for an older key stops; the one for this report follows it.
            quality.wait_for_causes();
            quality.request_causes(session, &key, ctx, None);
            quality.wait_for_causes();
            // A screenshot shows the pair as set up automatically, its causes offered.
            return;
        }
        if let Some(taken) = self.tasks.quality.fix_to_take(&key) {
            self.run(Command::Edit(taken.cause.fix.clone()));
            // Opening the two files again takes it again: nothing to lose on quit.
            if self.undo.depth() == 1 {
                self.undo.mark_saved();
                self.doc.dirty = false;
            }
            let mut said = taken.sentence();
            said[..1].make_ascii_uppercase();
            self.status = Some(format!(
                "{said}. Edit ▸ Undo puts the automatic set-up back."
            ));
        }
    }

    /// The last report finished (possibly for an earlier revision, while a newer one is
    /// being computed); `None` before the first or when it failed.
    pub fn quality_report(&self) -> Option<&Report> {
        let (result, _) = self.tasks.quality.report.latest(None)?;
        result.as_deref().ok()
    }

    /// True while a report is being computed in the background (its causes not counted).
    pub fn quality_busy(&self) -> bool {
        self.tasks.quality.report.busy()
    }

    /// Blocks until the report being computed is done (tests).
    pub fn wait_for_quality(&mut self) {
        self.tasks.quality.report.wait();
    }

    /// Blocks until the causes being looked for are found (tests): the search starts on
    /// the frame after its failing report arrived.
    pub fn wait_for_causes(&mut self) {
        self.tasks.quality.wait_for_causes();
    }

    /// The strip under the timeline's rail, from the last report for this clip.
    pub(super) fn quality_strip_ui(&mut self, ui: &mut egui::Ui, rail: egui::Rangef) {
        let Some(info) = self.clip_info() else { return };
        let report = (self.tasks.quality.report).latest_for_clip(self.clip.as_deref());
        let badness = report.map(|r| r.frame_badness.as_slice());
        let mut strip = strip_ui(ui, rail, badness, &mut self.playback, &info);
        if let Some(r) = report {
            let (rows, clicked) = measure_rows_ui(ui, rail, &r.frame_rows, strip.marker_x);
            strip.rows = rows;
            if let Some((frame, frames)) = clicked {
                let share = frame as f32 / frames.saturating_sub(1).max(1) as f32;
                self.playback.time_secs = share * info.duration_secs;
                self.playback.playing = false;
            }
        }
        self.drawn.strip = Some(strip);
    }
}
