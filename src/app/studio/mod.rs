//! The editor application: layout, the live retarget per frame, commands, prompts.

use super::Launch;
use super::character_view::CharacterView;
use super::command::Command;
use super::document::Document;
use super::document::autosave::Autosave;
use super::document::locate::Locate;
use super::document::undo::UndoStack;
use super::guard::{Job, catch};
use super::live::LiveRetarget;
use super::panels::{self, Tab};
use super::screenshot::ScreenshotJob;
use super::tasks::keyed::Gate;
use super::timeline::{ClipInfo, Playback, timeline_ui};
use eframe::egui;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

mod actions;
mod capsules_view;
mod contacts;
pub mod files;
mod guide;
mod input;
pub mod layout;
mod live_check;
pub mod parts;
mod prompts;
mod root_path;
mod shortcuts;
mod viewports;

use viewports::{meshes_of, overlay_of};

const STORAGE_KEY: &str = "retarget-studio";
const MAX_RECENT: usize = 10;

/// UI settings kept between runs (eframe storage); GPU state never is.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct Prefs {
    pub recent: Vec<PathBuf>,
    /// What each viewport (source, target) draws.
    pub show: [Show; 2],
    pub link_cameras: bool,
    pub overlay: bool,
    /// The cameras move with the characters' hips (sideways only), so a walk stays in frame.
    pub follow: bool,
    pub tab: Tab,
    pub panel: panels::PanelState,
    /// The tool panel is shown (Ctrl+T hides it, giving the viewports the whole width).
    pub tools_open: bool,
    /// Bumped by View ▸ Reset layout: the panel gets a new id, so egui forgets its width.
    pub layout_generation: u32,
    /// Window and open tool panel widths last drawn: a narrower next window narrows the panel.
    pub last_layout: Option<[f32; 2]>,
}

/// One viewport's show toggles.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Show {
    pub mesh: bool,
    /// A side without a mesh draws its skeleton whatever this says: it has nothing else.
    pub skeleton: bool,
    /// Bones that deform no vertex (IK targets, helpers) on a side that has a mesh.
    pub helpers: bool,
    /// The body capsules the penetration measure holds limbs out of.
    pub capsules: bool,
}

impl Default for Show {
    fn default() -> Self {
        Self {
            mesh: true,
            skeleton: true,
            helpers: false,
            capsules: false,
        }
    }
}

impl Default for Prefs {
    fn default() -> Self {
        Self {
            recent: Vec::new(),
            show: [Show::default(); 2],
            link_cameras: false,
            overlay: false,
            follow: true,
            tab: Tab::BoneMap,
            panel: panels::PanelState::default(),
            tools_open: true,
            layout_generation: 0,
            last_layout: None,
        }
    }
}

pub struct StudioApp {
    pub doc: Document,
    pub prefs: Prefs,
    pub playback: Playback,
    pub clip: Option<String>,
    pub selected: Option<usize>,
    pub error: Option<String>,
    pub status: Option<String>,
    views: [CharacterView; 2],
    pub undo: UndoStack,
    live: Option<LiveRetarget>,
    commands: Vec<Command>,
    screenshot: Option<ScreenshotJob>,
    allow_close: bool,
    /// Questions and windows waiting on the user.
    pub prompts: parts::Prompts,
    /// Work running off the UI thread.
    tasks: parts::Tasks,
    /// Frames drawn and their CPU time.
    pub frames: parts::FrameStats,
    /// What the last frame drew (tests read it).
    pub drawn: parts::Drawn,
    /// Writes the unsaved document to a recovery file now and then; `None` in tests and
    /// screenshots unless they ask for it.
    autosave: Option<Autosave>,
    /// Never open a file dialog: go straight to the typed path (tests;
    /// `RETARGET_STUDIO_NO_DIALOGS`).
    pub no_dialogs: bool,
    /// Test hook: the next job of this kind panics (see `guard`).
    #[doc(hidden)]
    pub inject_panic: Option<Job>,
    /// Test hook: the searches for a report's causes wait at this gate until the test
    /// opens it, so that it sees the report while its causes are pending.
    #[doc(hidden)]
    pub hold_causes: Option<Gate>,
}

impl StudioApp {
    pub fn new(
        cc: &eframe::CreationContext<'_>,
        launch: Launch,
        outcome: Arc<Mutex<Option<Result<(), String>>>>,
    ) -> Self {
        let prefs = cc
            .storage
            .and_then(|s| eframe::get_value(s, STORAGE_KEY))
            .unwrap_or_default();
        let mut app = Self::with_launch(launch, prefs);
        if let Some(job) = &mut app.screenshot {
            job.outcome = outcome;
        }
        app
    }

    /// Builds the app without a window (tests drive it through egui_kittest).
    pub fn with_launch(launch: Launch, mut prefs: Prefs) -> Self {
        if let Some(tab) = launch.tab {
            prefs.tab = tab;
        }
        if launch.hide_tools {
            prefs.tools_open = false;
        }
        if launch.extract_root {
            prefs.panel.export.extract_root = true;
        }
        let mut app = Self {
            doc: Document::default(),
            prefs,
            playback: Playback::default(),
            clip: None,
            selected: None,
            error: None,
            status: None,
            views: [CharacterView::new(1 << 32), CharacterView::new(2 << 32)],
            undo: UndoStack::default(),
            live: None,
            commands: Vec::new(),
            screenshot: launch.screenshot.clone().map(ScreenshotJob::new),
            allow_close: false,
            prompts: parts::Prompts {
                recoveries: launch
                    .recovery
                    .as_ref()
                    .map_or(Vec::new(), |c| super::document::recovery::orphans(&c.dir)),
                ..Default::default()
            },
            tasks: parts::Tasks::default(),
            frames: parts::FrameStats::default(),
            drawn: parts::Drawn::default(),
            autosave: launch.recovery.clone().map(Autosave::new),
            inject_panic: None,
            hold_causes: None,
            no_dialogs: std::env::var_os("RETARGET_STUDIO_NO_DIALOGS").is_some(),
        };
        app.open_launch_files(&launch);
        if let (Some(name), Some(session)) = (&launch.select, &app.doc.session) {
            match session.target.skeleton().find(name) {
                Some(j) => {
                    app.selected = Some(j);
                    app.prefs.panel.chain = session
                        .target
                        .chains
                        .chain_of(j)
                        .map(|c| (crate::session::SideRole::Target, c));
                }
                None => app.error = Some(format!("The target has no bone named '{name}'.")),
            }
        }
        if let Some(direction) = launch.view {
            app.look_along(direction);
        }
        if let Some(frame) = launch.screenshot.as_ref().and_then(|s| s.frame) {
            app.playback.playing = false;
            if let Some(info) = app.clip_info() {
                app.playback.set_frame(frame, &info);
            }
        }
        app
    }

    pub(super) fn open_project(&mut self, path: &Path) {
        let inject = self.take_injected(Job::Load);
        let loaded = catch(Job::Load, inject, || {
            Ok(crate::io::project::ProjectFile::load(path)?)
        });
        match loaded {
            Ok(project) => {
                self.load_project(project, Some(path.to_path_buf()), false);
            }
            Err(e) => self.fail("Could not open the project", &e),
        }
    }

    /// Loads a project's files into a new document, `dirty` when it differs from the file
    /// on disk. A file that is not where the project says opens the "locate file" prompt.
    /// False when the project could not be loaded (the error is shown).
    pub(super) fn load_project(
        &mut self,
        project: crate::io::project::ProjectFile,
        path: Option<PathBuf>,
        dirty: bool,
    ) -> bool {
        let inject = self.take_injected(Job::Load);
        let attempt = project.clone();
        let loaded = catch(Job::Load, inject, || {
            Ok(crate::session::Session::from_project_file(attempt)?)
        });
        match loaded {
            Ok(session) => {
                if let Some(p) = &path {
                    self.remember(p);
                }
                self.set_document(Document::loaded(session, path, dirty));
                true
            }
            Err(e) => match e.downcast_ref::<crate::session::SessionError>() {
                // A screenshot has nobody to ask: it shows the error instead.
                Some(crate::session::SessionError::FilesMissing(missing))
                    if self.screenshot.is_none() =>
                {
                    self.prompts.locate = Some(Locate::new(project, path, missing[0].clone()));
                    true
                }
                _ => {
                    self.fail("Could not open the project", &e);
                    false
                }
            },
        }
    }

    /// Shows an error in the problem window, one line per cause.
    pub(super) fn fail(&mut self, what: &str, e: &anyhow::Error) {
        self.error = Some(super::errors::describe(what, e));
    }

    /// Whether the test hook asks `job` to panic (once).
    pub(super) fn take_injected(&mut self, job: Job) -> bool {
        self.inject_panic.take_if(|j| *j == job).is_some()
    }

    fn set_document(&mut self, doc: Document) {
        self.clip = doc
            .session
            .as_ref()
            .and_then(|s| s.source_clip(None).ok().map(|c| c.name.clone()));
        self.undo.clear(!doc.dirty);
        // Folds name joints of the old skeleton; the filter searched its names.
        self.prefs.panel.folded.clear();
        self.prefs.panel.map_filter.clear();
        self.doc = doc;
        self.live = None;
        self.tasks.live_failed = None;
        self.tasks.quality.clear();
        self.drawn.strip = None;
        self.tasks.contacts.clear();
        self.drawn.bars.clear();
        self.drawn.hand_bars.clear();
        self.selected = None;
        self.playback.time_secs = 0.0;
        for v in &mut self.views {
            v.clear();
        }
    }

    fn remember(&mut self, path: &Path) {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        self.prefs.recent.retain(|p| *p != path);
        self.prefs.recent.insert(0, path);
        self.prefs.recent.truncate(MAX_RECENT);
    }

    pub fn clip_info(&self) -> Option<ClipInfo> {
        let session = self.doc.session.as_ref()?;
        let clip = session.source_clip(self.clip.as_deref()).ok()?;
        Some(ClipInfo {
            name: clip.name.clone(),
            duration_secs: clip.duration_secs(),
            fps: clip.fps().unwrap_or(30.0),
            all_names: session
                .source
                .clips()
                .iter()
                .map(|c| c.name.clone())
                .collect(),
        })
    }

    pub fn title(&self) -> String {
        self.doc.title()
    }

    /// Poses both characters at the playback time (the target through the live retarget).
    fn update_characters(&mut self) {
        let Some(session) = &self.doc.session else {
            return;
        };
        // A source without animation plays nothing: both characters stand at rest (the live
        // retarget finds no clip of that name and leaves both poses at rest).
        let clip = self.clip.clone().unwrap_or_default();
        let current = self
            .live
            .as_ref()
            .is_some_and(|l| l.is_current(self.doc.revision, &clip));
        let key = (self.doc.revision, clip.clone());
        if self.tasks.live_failed.as_ref() == Some(&key) {
            return;
        }
        let inject = self.inject_panic.take_if(|j| *j == Job::Retarget).is_some();
        let (live, time) = (&mut self.live, self.playback.time_secs);
        let solved = catch(Job::Retarget, inject, || {
            if !current {
                *live = None;
                *live = Some(LiveRetarget::build(session, &clip, key.0)?);
            }
            if let Some(live) = live.as_mut() {
                live.solve(session, time);
            }
            Ok(())
        });
        if let Err(e) = solved {
            self.live = None;
            self.tasks.live_failed = Some(key);
            self.error = Some(super::errors::describe("Cannot retarget", &e));
            return;
        }
        let Some(live) = &self.live else { return };
        if !current {
            let pairs = session.map.pairs();
            self.views[0].set_mapped(pairs.iter().map(|p| p.source).collect());
            self.views[1].set_mapped(pairs.iter().map(|p| p.target).collect());
        }
        self.drawn.posed_at = Some(time);
        let (src, tgt) = (&session.source, &session.target);
        let src_meshes = meshes_of(&src.asset, src.skeleton_index);
        let tgt_meshes = meshes_of(&tgt.asset, tgt.skeleton_index);
        for (view, show) in self.views.iter_mut().zip(self.prefs.show) {
            view.show_helpers = show.helpers;
        }
        self.views[0].set_pose(
            src.skeleton(),
            src.reference.container,
            &live.source_pose,
            &src_meshes,
            &live.morphs[0],
        );
        self.views[1].set_pose(
            tgt.skeleton(),
            tgt.reference.container,
            &live.target_pose,
            &tgt_meshes,
            &live.morphs[1],
        );
        let twin = self
            .selected
            .and_then(|t| session.map.for_target(t))
            .map(|p| p.source);
        let target_floor = live.grounds[1].floor.unwrap_or(0.0);
        for (i, view) in self.views.iter_mut().enumerate() {
            view.set_ground(&live.grounds[i]);
            view.follow(Some(live.followed[i]), self.prefs.follow);
        }
        let overlay = self
            .prefs
            .overlay
            .then(|| overlay_of(&self.views[1], &self.views[0], live.followed));
        let pick = (self.prefs.tab == Tab::Skeleton)
            .then_some(self.prefs.panel.chain)
            .flatten();
        let chains = panels::skeleton::highlights(session, pick);
        let has_mesh = [!src_meshes.is_empty(), !tgt_meshes.is_empty()];
        let selected = [twin, self.selected];
        viewports::dress(&mut self.views, self.prefs.show, selected, chains, has_mesh);
        Arc::make_mut(&mut self.views[0].scene).overlay = overlay;
        self.update_root_path(target_floor);
    }

    /// Everything the window shows; `eframe::App::ui` and the UI tests both call it.
    pub fn ui_contents(&mut self, ui: &mut egui::Ui) {
        let started = Instant::now();
        let ctx = ui.ctx().clone();
        let dt = self.frames.tick();
        if let Some(info) = self.clip_info() {
            self.playback.handle_keys(&ctx, &info);
            if self.playback.playing {
                self.frames.played_secs += dt * self.playback.speed;
            }
            self.playback.advance(dt, &info);
        }
        self.handle_shortcuts(&ctx);
        self.handle_view_keys(&ctx);
        self.handle_dropped_files(&ctx);
        self.poll_export(&ctx);
        self.update_quality(&ctx);
        self.update_contacts(&ctx);
        self.autosave_now(&ctx);

        let bar = layout::unfilled(egui::Frame::side_top_panel(ui.style()));
        let menu = egui::Panel::top("menu")
            .frame(bar)
            .show(ui, |ui| self.menu_ui(ui));
        self.drawn.menu_bottom = menu.response.rect.bottom();
        egui::Panel::bottom("timeline")
            .frame(bar)
            .resizable(false)
            .show(ui, |ui| self.timeline_strip(ui));
        self.tools_panel_ui(ui);
        // Posed after the timeline and the tools had their say this frame: a scrub while
        // paused shows the frame under the handle now, not on the next repaint.
        self.update_characters();
        egui::CentralPanel::default()
            .frame(layout::unfilled(egui::Frame::central_panel(ui.style())))
            .show(ui, |ui| self.viewports_ui(ui));
        self.messages_ui(&ctx);
        self.prompts_ui(&ctx);
        self.file_prompts_ui(&ctx);
        self.help_windows_ui(&ctx);
        self.notes_ui(&ctx);
        self.handle_close(&ctx);

        let commands = std::mem::take(&mut self.commands);
        for c in commands {
            self.run(c);
        }
        let title = self.title();
        if title != self.drawn.shown_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.drawn.shown_title = title;
        }
        if self.playback.playing {
            ctx.request_repaint();
        }
        if let Some(job) = &mut self.screenshot {
            job.drive(&ctx, self.frames.frame, self.error.as_deref());
        }
        self.frames
            .record_cpu(started.elapsed().as_secs_f32() * 1e3);
        if self.frames.frame == 1 {
            log_startup(self.frames.started);
        }
        if self.frames.frame % 120 == 0 {
            self.log_frame_times();
        }
        self.end_timed_run(&ctx);
    }

    fn timeline_strip(&mut self, ui: &mut egui::Ui) {
        match self.clip_info() {
            Some(info) => {
                // Paused, frames are drawn only when something moves: no rate to show.
                let fps = self.frames.fps().filter(|_| self.playback.playing);
                let timeline = timeline_ui(ui, &mut self.playback, &info, fps);
                if let Some(name) = timeline.picked {
                    self.commands.push(Command::SelectClip(name));
                }
                self.quality_strip_ui(ui, timeline.rail);
                self.contact_bars_ui(ui, timeline.rail);
            }
            None => {
                ui.label("No clip: load a source with animation.");
            }
        }
    }

    /// The source (0) or target (1) viewport, as last drawn.
    pub fn view(&self, side: usize) -> &CharacterView {
        &self.views[side]
    }

    /// True while an export is running in the background.
    pub fn exporting(&self) -> bool {
        self.tasks.export.is_some()
    }

    /// With `RETARGET_STUDIO_TIMINGS` set, prints the CPU time per frame and the wall time
    /// from frame to frame (drawing included) over the frames kept.
    fn log_frame_times(&self) {
        if std::env::var_os("RETARGET_STUDIO_TIMINGS").is_some()
            && let Some((median, p99)) = self.frame_time_stats()
        {
            let (wall, wall_p99) = self.frames.interval_stats().unwrap_or_default();
            eprintln!(
                "CPU per frame over {} frames: median {median:.2} ms, p99 {p99:.2} ms; \
                 frame to frame: median {wall:.1} ms, p99 {wall_p99:.1} ms ({:.1} fps)",
                self.frames.times_ms.len(),
                1000.0 / wall.max(1e-3)
            );
        }
    }

    /// With `RETARGET_STUDIO_PLAY_SECONDS=N`, plays N wall seconds, prints the frame figures
    /// and how much clip time played in that wall time, and closes (scripts/frame-time.sh).
    fn end_timed_run(&mut self, ctx: &egui::Context) {
        static LIMIT: std::sync::OnceLock<Option<f32>> = std::sync::OnceLock::new();
        let limit = LIMIT.get_or_init(|| {
            std::env::var("RETARGET_STUDIO_PLAY_SECONDS")
                .ok()
                .and_then(|v| v.parse::<f32>().ok())
        });
        let Some(limit) = *limit else {
            return;
        };
        let Some(first) = self.frames.first_frame else {
            return;
        };
        let wall = first.elapsed().as_secs_f32();
        if wall < limit || self.allow_close {
            return;
        }
        let (cpu, _) = self.frame_time_stats().unwrap_or_default();
        let (median, p99) = self.frames.interval_stats().unwrap_or_default();
        println!(
            "{} frames in {wall:.1} s ({:.1} fps): frame to frame median {median:.1} ms, p99 \
             {p99:.1} ms, CPU {cpu:.2} ms; {:.2} s of clip played ({:.2}x real time); renderer {}",
            self.frames.frame,
            self.frames.frame as f32 / wall,
            self.frames.played_secs,
            self.frames.played_secs / wall,
            super::graphics::renderer().unwrap_or("unknown"),
        );
        self.allow_close = true;
        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
    }

    /// Median and 99th percentile of the CPU time per frame, in ms.
    pub fn frame_time_stats(&self) -> Option<(f32, f32)> {
        self.frames.median_and_p99()
    }
}

fn log_startup(app_created: Instant) {
    if std::env::var_os("RETARGET_STUDIO_TIMINGS").is_some() {
        let launched = super::LAUNCHED.get().copied().unwrap_or(app_created);
        eprintln!(
            "first frame {:.0} ms after launch ({:.0} ms after the project loaded)",
            launched.elapsed().as_secs_f32() * 1e3,
            app_created.elapsed().as_secs_f32() * 1e3
        );
    }
}

impl eframe::App for StudioApp {
    /// The panels' colour: the panels then need no fill of their own (see
    /// [`layout::unfilled`]).
    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        visuals.panel_fill.to_normalized_gamma_f32()
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.ui_contents(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.prefs);
    }

    /// A normal close: the recovery file goes (a crash never gets here and leaves it).
    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        if let Some(autosave) = &mut self.autosave {
            autosave.finish();
        }
        self.log_frame_times();
    }
}
