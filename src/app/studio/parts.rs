//! The editor's state beside its document, in named parts: what waits on the user, what runs
//! in the background, how fast frames are drawn, and what was drawn last.

use super::contacts::{ContactsTask, contacts_task};
use super::files::{Overwrite, PathPrompt};
use crate::app::command::Command;
use crate::app::document::locate::Locate;
use crate::app::document::recovery::Orphan;
use crate::app::tasks::check::QualityState;
use crate::app::tasks::export::ExportTask;
use crate::app::tasks::validate::Validation;
use crate::app::timeline::contact_bars::DrawnBar;
use crate::app::timeline::quality_strip::Strip;
use std::path::PathBuf;
use std::time::Instant;

/// An action waiting for the user to decide about unsaved changes.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Pending {
    Close,
    Run(Command),
}

/// Questions and windows waiting on the user.
#[derive(Default)]
pub struct Prompts {
    /// An action held until unsaved changes are saved or dropped.
    pub(super) pending: Option<Pending>,
    /// Which side's import notes are listed in a window.
    pub(super) notes_open: Option<usize>,
    /// Recovery files of windows that crashed, offered one by one at start.
    pub recoveries: Vec<Orphan>,
    /// A project whose file moved, waiting for the user to say where it is.
    pub locate: Option<Locate>,
    /// The typed path shown when no file dialog could open.
    pub path_prompt: Option<PathPrompt>,
    /// A write waiting for "Replace".
    pub overwrite: Option<Overwrite>,
    /// The path the user agreed to write over, for the write that asked.
    pub(super) confirmed_overwrite: Option<PathBuf>,
    /// Help ▸ Shortcuts is open.
    pub shortcuts_open: bool,
}

/// Work that runs off the UI thread, and what it last said.
pub(super) struct Tasks {
    /// The validator's verdict on the last GLB exported, when it has one.
    pub(super) validation: Option<Validation>,
    pub(super) export: Option<ExportTask>,
    /// The current clip's quality report.
    pub(super) quality: QualityState,
    /// The planted feet's contacts of the current clip.
    pub(super) contacts: ContactsTask,
    /// The live retarget that failed for this (revision, clip): not tried again every frame.
    pub(super) live_failed: Option<(u64, String)>,
}

impl Default for Tasks {
    fn default() -> Self {
        Self {
            validation: None,
            export: None,
            quality: QualityState::quality(),
            contacts: contacts_task(),
            live_failed: None,
        }
    }
}

/// Frames drawn and the CPU time each took, for the clock and the frame-time figures.
pub struct FrameStats {
    pub(super) frame: u64,
    last_frame: Option<Instant>,
    pub(super) started: Instant,
    /// CPU time of each `ui` call.
    pub times_ms: Vec<f32>,
}

impl Default for FrameStats {
    fn default() -> Self {
        Self {
            frame: 0,
            last_frame: None,
            started: Instant::now(),
            times_ms: Vec::new(),
        }
    }
}

impl FrameStats {
    /// Counts a new frame; the seconds since the last one, at most 0.1.
    pub(super) fn tick(&mut self) -> f32 {
        self.frame += 1;
        let now = Instant::now();
        let dt = self
            .last_frame
            .map_or(0.0, |t| (now - t).as_secs_f32().min(0.1));
        self.last_frame = Some(now);
        dt
    }

    /// Median and 99th percentile of the CPU time per frame, in ms (the first ten frames
    /// left out: they load and upload).
    pub fn median_and_p99(&self) -> Option<(f32, f32)> {
        let mut t = self.times_ms.iter().skip(10).copied().collect::<Vec<_>>();
        if t.is_empty() {
            return None;
        }
        t.sort_by(f32::total_cmp);
        Some((t[t.len() / 2], t[(t.len() * 99 / 100).min(t.len() - 1)]))
    }
}

/// What the last frame drew that the next one (and the UI tests) read back.
#[derive(Default)]
pub struct Drawn {
    /// The quality strip under the timeline.
    pub strip: Option<Strip>,
    /// The contact bars.
    pub bars: Vec<DrawnBar>,
    /// The tool panel's width.
    pub(super) tools_width: f32,
    /// The window title as last sent.
    pub(super) shown_title: String,
}
