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
use eframe::egui;
use std::collections::VecDeque;
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
    /// Help ▸ User guide is open.
    pub(super) guide_open: bool,
    /// Where the import notes window opens: under the `(!)` button that opened it.
    pub(super) notes_at: Option<egui::Pos2>,
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
    /// CPU time of each `ui` call, the last [`KEPT_FRAMES`].
    pub times_ms: VecDeque<f32>,
    /// Wall time from each frame's start to the next one's (drawing included), the last
    /// [`KEPT_FRAMES`]: what the frame rate is made of.
    pub intervals_ms: VecDeque<f32>,
    /// When the first frame started.
    pub first_frame: Option<Instant>,
    /// Clip seconds played since the first frame (speed included).
    pub played_secs: f32,
}

/// How many frames the figures keep: a long session does not grow them.
pub const KEPT_FRAMES: usize = 600;

/// The longest step the clock takes in one frame. Playback keeps wall time whatever the
/// frame rate (a frame drawn in 0.3 s moves the clip 0.3 s: frames are dropped, the clip
/// is not slowed); only a stall this long (a blocking dialog, a suspended window) is not
/// played through.
pub const MAX_STEP_SECS: f32 = 1.0;

impl Default for FrameStats {
    fn default() -> Self {
        Self {
            frame: 0,
            last_frame: None,
            started: Instant::now(),
            times_ms: VecDeque::new(),
            intervals_ms: VecDeque::new(),
            first_frame: None,
            played_secs: 0.0,
        }
    }
}

fn keep(v: &mut VecDeque<f32>, value: f32) {
    if v.len() == KEPT_FRAMES {
        v.pop_front();
    }
    v.push_back(value);
}

impl FrameStats {
    /// Counts a new frame; the wall seconds since the last one, at most [`MAX_STEP_SECS`].
    pub(super) fn tick(&mut self) -> f32 {
        self.tick_at(Instant::now())
    }

    /// [`tick`](Self::tick) at a given instant (tests step a clock of their own).
    pub fn tick_at(&mut self, now: Instant) -> f32 {
        self.frame += 1;
        self.first_frame.get_or_insert(now);
        let since = self.last_frame.map_or(0.0, |t| (now - t).as_secs_f32());
        if self.last_frame.is_some() {
            keep(&mut self.intervals_ms, since * 1e3);
        }
        self.last_frame = Some(now);
        since.min(MAX_STEP_SECS)
    }

    /// Records the CPU time of the frame just built.
    pub(super) fn record_cpu(&mut self, ms: f32) {
        keep(&mut self.times_ms, ms);
    }

    /// Frames per second over the last second of frames (at least two), as drawn.
    pub fn fps(&self) -> Option<f32> {
        let mut total = 0.0;
        let mut n = 0;
        for ms in self.intervals_ms.iter().rev() {
            total += ms;
            n += 1;
            if total >= 1000.0 {
                break;
            }
        }
        (n >= 2 && total > 0.0).then(|| n as f32 * 1000.0 / total)
    }

    /// Median and 99th percentile of the CPU time per frame, in ms (the first ten frames
    /// left out: they load and upload).
    pub fn median_and_p99(&self) -> Option<(f32, f32)> {
        median_and_p99(self.settled(&self.times_ms))
    }

    /// Median and 99th percentile of the wall time from one frame to the next, in ms.
    pub fn interval_stats(&self) -> Option<(f32, f32)> {
        median_and_p99(self.settled(&self.intervals_ms))
    }

    /// The figures kept, less those of the first ten frames if still kept.
    fn settled(&self, kept: &VecDeque<f32>) -> Vec<f32> {
        let dropped = (self.frame as usize).saturating_sub(kept.len());
        kept.iter()
            .skip(10usize.saturating_sub(dropped))
            .copied()
            .collect()
    }
}

fn median_and_p99(mut t: Vec<f32>) -> Option<(f32, f32)> {
    if t.is_empty() {
        return None;
    }
    t.sort_by(f32::total_cmp);
    Some((t[t.len() / 2], t[(t.len() * 99 / 100).min(t.len() - 1)]))
}

/// What the last frame drew that the next one (and the UI tests) read back.
#[derive(Default)]
pub struct Drawn {
    /// The quality strip under the timeline.
    pub strip: Option<Strip>,
    /// The contact bars.
    pub bars: Vec<DrawnBar>,
    /// The hand contact bars (`DrawnBar::foot` names the touch).
    pub hand_bars: Vec<DrawnBar>,
    /// The tool panel's width.
    pub(super) tools_width: f32,
    /// The tool panel's contents as last drawn: what is outside it cannot be seen.
    pub tools_rect: Option<egui::Rect>,
    /// The width the tool panel and the viewports shared last frame.
    pub(super) window_width: Option<f32>,
    /// The window title as last sent.
    pub(super) shown_title: String,
    /// The playback time the viewports show, in seconds from the clip's start.
    pub posed_at: Option<f32>,
    /// Where the source viewport ends and the target's begins (x, in points): a file
    /// dropped left of it is a source.
    pub viewport_split: Option<f32>,
    /// The menu bar's bottom edge: windows open and stay below it.
    pub(super) menu_bottom: f32,
    /// The target pelvis's path on the floor for (revision, clip), while the export extracts
    /// root motion.
    pub root_path: Option<((u64, String), Vec<glam::Vec3>)>,
    /// Each side's body capsules for a revision, while View shows them.
    pub capsules: [Option<super::capsules_view::CapsuleCache>; 2],
    /// How many capsules each viewport drew last frame.
    pub capsules_drawn: [usize; 2],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::timeline::{ClipInfo, Playback};
    use std::time::Duration;

    #[test]
    fn slow_frames_drop_frames_not_clip_time() {
        let clip = ClipInfo {
            name: "walk".into(),
            duration_secs: 10.0,
            fps: 30.0,
            all_names: vec!["walk".into()],
        };
        let mut frames = FrameStats::default();
        let mut playback = Playback::default();
        let start = Instant::now();
        // Three frames a second, as software GL drew 1920x1080: one second of wall time
        // plays one second of the clip.
        for i in 0..4 {
            let dt = frames.tick_at(start + Duration::from_millis(333 * i));
            playback.advance(dt, &clip);
        }
        assert!(
            (playback.time_secs - 0.999).abs() < 1e-3,
            "{}",
            playback.time_secs
        );
        assert!(
            (frames.fps().unwrap() - 3.0).abs() < 0.05,
            "{:?}",
            frames.fps()
        );
        // A stall (a blocking dialog) is not played through.
        let dt = frames.tick_at(start + Duration::from_secs(60));
        assert_eq!(dt, MAX_STEP_SECS);
    }

    #[test]
    fn frame_figures_keep_a_bounded_window() {
        let mut frames = FrameStats::default();
        let start = Instant::now();
        for i in 0..(KEPT_FRAMES as u64 + 50) {
            frames.tick_at(start + Duration::from_millis(16 * i));
            frames.record_cpu(1.0);
        }
        assert_eq!(frames.times_ms.len(), KEPT_FRAMES);
        assert_eq!(frames.intervals_ms.len(), KEPT_FRAMES);
        let (median, _) = frames.interval_stats().unwrap();
        assert!((median - 16.0).abs() < 0.01, "{median}");
    }
}
