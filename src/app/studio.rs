//! The editor application: layout, the live retarget per frame, commands, prompts.

use super::Launch;
use super::character_view::CharacterView;
use super::command::Command;
use super::document::Document;
use super::live::LiveRetarget;
use super::panels::{self, Tab};
use super::screenshot::ScreenshotJob;
use super::timeline::{ClipInfo, Playback, timeline_ui};
use super::undo::UndoStack;
use eframe::egui;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

const STORAGE_KEY: &str = "retarget-studio";
const MAX_RECENT: usize = 10;

/// UI settings kept between runs (eframe storage); GPU state never is.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct Prefs {
    pub recent: Vec<PathBuf>,
    pub show_mesh: bool,
    pub show_skeleton: bool,
    pub link_cameras: bool,
    pub overlay: bool,
    pub tab: Tab,
    pub panel: panels::PanelState,
}

impl Default for Prefs {
    fn default() -> Self {
        Self {
            recent: Vec::new(),
            show_mesh: true,
            show_skeleton: true,
            link_cameras: false,
            overlay: false,
            tab: Tab::BoneMap,
            panel: panels::PanelState::default(),
        }
    }
}

/// An action waiting for the user to decide about unsaved changes.
#[derive(Clone, Debug, PartialEq)]
enum Pending {
    Close,
    Run(Command),
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
    /// The validator's verdict on the last GLB exported, when it has one.
    validation: Option<super::validate::Validation>,
    export_task: Option<super::export_task::ExportTask>,
    live: Option<LiveRetarget>,
    pending: Option<Pending>,
    commands: Vec<Command>,
    screenshot: Option<ScreenshotJob>,
    frame: u64,
    last_frame: Option<Instant>,
    started: Instant,
    /// CPU time of each `ui` call, for the frame-time figures.
    pub frame_times_ms: Vec<f32>,
    allow_close: bool,
    shown_title: String,
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
            validation: None,
            export_task: None,
            live: None,
            pending: None,
            commands: Vec::new(),
            screenshot: launch.screenshot.clone().map(ScreenshotJob::new),
            frame: 0,
            last_frame: None,
            started: Instant::now(),
            frame_times_ms: Vec::new(),
            allow_close: false,
            shown_title: String::new(),
        };
        let project = launch.project.unwrap_or_else(super::demo_project);
        app.open_project(&project);
        if let (Some(name), Some(session)) = (&launch.select, &app.doc.session) {
            match session.target.skeleton().find(name) {
                Some(j) => app.selected = Some(j),
                None => app.error = Some(format!("The target has no bone named '{name}'.")),
            }
        }
        if let Some(frame) = launch.screenshot.as_ref().and_then(|s| s.frame) {
            app.playback.playing = false;
            if let Some(info) = app.clip_info() {
                app.playback.set_frame(frame, &info);
            }
        }
        app
    }

    fn open_project(&mut self, path: &Path) {
        match Document::open_project(path) {
            Ok(doc) => {
                self.set_document(doc);
                self.remember(path);
            }
            Err(e) => self.error = Some(format!("Could not open the project: {e:#}")),
        }
    }

    fn set_document(&mut self, doc: Document) {
        self.clip = doc
            .session
            .as_ref()
            .and_then(|s| s.source_clip(None).ok().map(|c| c.name.clone()));
        self.doc = doc;
        self.undo.clear();
        self.live = None;
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
        let (Some(session), Some(clip)) = (&self.doc.session, self.clip.clone()) else {
            return;
        };
        let current = self
            .live
            .as_ref()
            .is_some_and(|l| l.is_current(self.doc.revision, &clip));
        if !current {
            match LiveRetarget::build(session, &clip, self.doc.revision) {
                Ok(live) => self.live = Some(live),
                Err(e) => {
                    self.error = Some(format!("Cannot retarget: {e:#}"));
                    self.live = None;
                    return;
                }
            }
        }
        let Some(live) = &mut self.live else { return };
        live.solve(session, self.playback.time_secs);
        let (src, tgt) = (&session.source, &session.target);
        let src_meshes = meshes_of(&src.asset, src.skeleton_index);
        let tgt_meshes = meshes_of(&tgt.asset, tgt.skeleton_index);
        self.views[0].set_pose(
            src.skeleton(),
            src.reference.container,
            &live.source_pose,
            &src_meshes,
        );
        self.views[1].set_pose(
            tgt.skeleton(),
            tgt.reference.container,
            &live.target_pose,
            &tgt_meshes,
        );
        let twin = self
            .selected
            .and_then(|t| session.map.for_target(t))
            .map(|p| p.source);
        let overlay = self.prefs.overlay.then(|| overlay_of(&self.views[1]));
        for (view, selected) in self.views.iter_mut().zip([twin, self.selected]) {
            let scene = Arc::make_mut(&mut view.scene);
            scene.selected_joint = selected;
            scene.show_mesh = self.prefs.show_mesh;
            scene.show_skeleton = self.prefs.show_skeleton;
        }
        Arc::make_mut(&mut self.views[0].scene).overlay = overlay;
    }

    /// Everything the window shows; `eframe::App::ui` and the UI tests both call it.
    pub fn ui_contents(&mut self, ui: &mut egui::Ui) {
        let started = Instant::now();
        let ctx = ui.ctx().clone();
        self.frame += 1;
        let now = Instant::now();
        let dt = self
            .last_frame
            .map_or(0.0, |t| (now - t).as_secs_f32().min(0.1));
        self.last_frame = Some(now);
        if let Some(info) = self.clip_info() {
            self.playback.handle_keys(&ctx, &info);
            self.playback.advance(dt, &info);
        }
        self.handle_shortcuts(&ctx);
        self.handle_dropped_files(&ctx);
        self.poll_export(&ctx);
        self.update_characters();

        egui::Panel::top("menu").show(ui, |ui| self.menu_ui(ui));
        egui::Panel::bottom("timeline")
            .resizable(false)
            .show(ui, |ui| self.timeline_strip(ui));
        egui::Panel::right("tools")
            .resizable(true)
            .default_size(560.0)
            .show(ui, |ui| {
                let tools = panels::Tools {
                    export_progress: self.export_task.as_ref().map(|t| t.progress()),
                    doc: &self.doc,
                    undo: &self.undo,
                    selected: self.selected,
                    clip: self.clip.as_deref(),
                };
                panels::tools_ui(
                    ui,
                    &tools,
                    &mut self.prefs.tab,
                    &mut self.prefs.panel,
                    &mut self.commands,
                );
            });
        egui::CentralPanel::default().show(ui, |ui| self.viewports_ui(ui));
        self.messages_ui(&ctx);
        self.handle_close(&ctx);

        let commands = std::mem::take(&mut self.commands);
        for c in commands {
            self.run(c);
        }
        let title = self.title();
        if title != self.shown_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.shown_title = title;
        }
        if self.playback.playing {
            ctx.request_repaint();
        }
        if let Some(job) = &mut self.screenshot {
            job.drive(&ctx, self.frame);
        }
        self.frame_times_ms
            .push(started.elapsed().as_secs_f32() * 1e3);
        if self.frame == 1 {
            log_startup(self.started);
        }
        if self.frame % 120 == 0 {
            self.log_frame_times();
        }
    }

    fn timeline_strip(&mut self, ui: &mut egui::Ui) {
        match self.clip_info() {
            Some(info) => {
                if let Some(name) = timeline_ui(ui, &mut self.playback, &info) {
                    self.commands.push(Command::SelectClip(name));
                }
            }
            None => {
                ui.label("No clip: load a source with animation.");
            }
        }
    }

    fn viewports_ui(&mut self, ui: &mut egui::Ui) {
        let names = self.doc.session.as_ref().map(|s| {
            let name = |p: &Path| {
                p.file_name()
                    .map_or(String::new(), |n| n.to_string_lossy().into_owned())
            };
            [
                format!("Source: {}", name(&s.source.path)),
                format!("Target: {}", name(&s.target.path)),
            ]
        });
        let mut clicked = [None, None];
        let mut hovered = [false, false];
        let mut rotate = None;
        let mut gizmo_turn = None;
        // The gizmo belongs to the pose tools: shown on the selected target bone while the
        // Pose tab is open, so that orbiting elsewhere never grabs a ring by accident.
        let gizmo = match (self.prefs.tab, self.selected) {
            (Tab::Pose, Some(j)) => self.views[1].gizmo_at(j),
            _ => None,
        };
        ui.columns(2, |cols| {
            for (i, col) in cols.iter_mut().enumerate() {
                let label = names
                    .as_ref()
                    .map_or("Drop a .ron, .glb, .vrm or .bvh here", |n| n[i].as_str());
                col.horizontal(|ui| {
                    ui.strong(label);
                    if i == 1 {
                        ui.checkbox(&mut self.prefs.show_mesh, "Mesh");
                        ui.checkbox(&mut self.prefs.show_skeleton, "Skeleton");
                        ui.checkbox(&mut self.prefs.overlay, "Overlay on source");
                        ui.checkbox(&mut self.prefs.link_cameras, "Link cameras");
                    }
                });
                let response = self.views[i].ui(col, if i == 1 { gizmo } else { None });
                (clicked[i], hovered[i]) = (response.clicked_joint, response.hovered);
                if i == 1
                    && let Some(delta) = response.rotate_drag
                {
                    rotate = Some(delta);
                }
                if i == 1 {
                    gizmo_turn = response.gizmo_turn;
                }
            }
        });
        if let Some(delta) = rotate {
            self.rotate_selected(delta);
        }
        if let Some(turn) = gizmo_turn {
            self.turn_selected(turn);
        }
        if self.prefs.link_cameras {
            let from = usize::from(hovered[1]);
            let (yaw, pitch) = (self.views[from].camera.yaw, self.views[from].camera.pitch);
            let other = &mut self.views[1 - from].camera;
            other.yaw = yaw;
            other.pitch = pitch;
        }
        if let Some(j) = clicked[1] {
            self.commands.push(Command::SelectTargetJoint(Some(j)));
        }
        if let (Some(s), Some(session)) = (clicked[0], &self.doc.session) {
            let t = session
                .map
                .pairs()
                .iter()
                .find(|p| p.source == s)
                .map(|p| p.target);
            self.commands.push(Command::SelectTargetJoint(t));
        }
    }

    /// Alt+drag in the target viewport turns the selected bone's reference offset: sideways
    /// about the camera's up axis, up and down about its right axis.
    fn rotate_selected(&mut self, delta: egui::Vec2) {
        if self.selected.is_none() || self.doc.session.is_none() {
            self.status = Some("Select a bone first, then Alt+drag to rotate it.".into());
            return;
        }
        let camera = &self.views[1].camera;
        let view = camera.view_from_world();
        let world_from_view = glam::Quat::from_mat4(&view.inverse()).normalize();
        let (right, up) = (
            world_from_view * glam::Vec3::X,
            world_from_view * glam::Vec3::Y,
        );
        const RADIANS_PER_POINT: f32 = 0.01;
        let turn = glam::Quat::from_axis_angle(up, delta.x * RADIANS_PER_POINT)
            * glam::Quat::from_axis_angle(right, delta.y * RADIANS_PER_POINT);
        self.turn_selected(turn);
    }

    /// Turns the selected target bone by `turn`, a world rotation of the bone *as drawn*
    /// (animated). The edit is a reference-pose offset, so the turn is carried back through
    /// the bone's animated-from-reference rotation: the drawn bone then turns by `turn`.
    fn turn_selected(&mut self, turn: glam::Quat) {
        let (Some(joint), Some(session)) = (self.selected, &self.doc.session) else {
            return;
        };
        let side = &session.target;
        let world = side.reference.world_matrices(side.skeleton());
        let drawn = self.views[1]
            .world()
            .get(joint)
            .map_or(glam::Quat::IDENTITY, |m| {
                crate::core::reference::rotation_of(*m)
            });
        let reference = crate::core::reference::rotation_of(world[joint]);
        let to_reference = (reference * drawn.inverse()).normalize();
        let turn_world = (to_reference * turn * to_reference.inverse()).normalize();
        let parent = side.skeleton().parents()[joint].map_or(
            crate::core::reference::rotation_of(side.reference.container),
            |p| crate::core::reference::rotation_of(world[p]),
        );
        let in_parent = (parent.inverse() * turn_world * parent).normalize();
        let name = &side.skeleton().names()[joint];
        let old = side
            .file
            .bone_offsets
            .iter()
            .find(|(n, _)| n == name)
            .map_or(glam::Quat::IDENTITY, |(_, q)| *q);
        let rotation = (in_parent * old).normalize();
        self.commands
            .push(Command::Edit(crate::session::Edit::SetBoneOffset {
                side: crate::session::SideRole::Target,
                joint,
                rotation,
            }));
    }

    fn menu_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                let items: [(&str, &str, Command); 5] = [
                    ("New", "Ctrl+N", Command::New),
                    ("Open project…", "Ctrl+O", Command::OpenProjectDialog),
                    ("Save", "Ctrl+S", Command::Save),
                    ("Save as…", "Ctrl+Shift+S", Command::SaveAsDialog),
                    ("Export…", "Ctrl+E", Command::ExportDialog),
                ];
                for (label, shortcut, command) in items {
                    if ui
                        .add(egui::Button::new(label).shortcut_text(shortcut))
                        .clicked()
                    {
                        self.commands.push(command);
                    }
                }
                ui.menu_button("Open recent", |ui| {
                    if self.prefs.recent.is_empty() {
                        ui.label("(none)");
                    }
                    for path in self.prefs.recent.clone() {
                        if ui.button(path.display().to_string()).clicked() {
                            self.commands.push(Command::OpenProject(path));
                        }
                    }
                });
                ui.separator();
                if ui.button("Load source…").clicked() {
                    self.commands.push(Command::LoadSourceDialog);
                }
                if ui.button("Load target…").clicked() {
                    self.commands.push(Command::LoadTargetDialog);
                }
                ui.separator();
                if ui.button("Quit").clicked() {
                    self.commands.push(Command::Quit);
                }
            });
            ui.menu_button("Edit", |ui| {
                let undo = self.undo.undo_label().map(|l| format!("Undo {l}"));
                let redo = self.undo.redo_label().map(|l| format!("Redo {l}"));
                let undo_button =
                    egui::Button::new(undo.as_deref().unwrap_or("Undo")).shortcut_text("Ctrl+Z");
                if ui.add_enabled(undo.is_some(), undo_button).clicked() {
                    self.commands.push(Command::Undo);
                }
                let redo_button = egui::Button::new(redo.as_deref().unwrap_or("Redo"))
                    .shortcut_text("Ctrl+Shift+Z");
                if ui.add_enabled(redo.is_some(), redo_button).clicked() {
                    self.commands.push(Command::Redo);
                }
            });
            ui.menu_button("View", |ui| {
                ui.checkbox(&mut self.prefs.show_mesh, "Meshes");
                ui.checkbox(&mut self.prefs.show_skeleton, "Skeletons");
                ui.checkbox(&mut self.prefs.overlay, "Target skeleton over the source");
                ui.checkbox(&mut self.prefs.link_cameras, "Link the two cameras");
                if ui.button("Frame both (F)").clicked() {
                    for v in &mut self.views {
                        v.needs_framing = true;
                    }
                }
            });
            if let Some(status) = &self.status {
                ui.separator();
                ui.label(status);
            }
            if let Some(verdict) = self.validation.as_ref().and_then(|v| v.verdict()) {
                ui.separator();
                ui.label(verdict);
            }
        });
    }

    fn handle_shortcuts(&mut self, ctx: &egui::Context) {
        use egui::{Key, KeyboardShortcut, Modifiers};
        let shortcuts = [
            (
                KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::S),
                Command::SaveAsDialog,
            ),
            (
                KeyboardShortcut::new(Modifiers::COMMAND, Key::S),
                Command::Save,
            ),
            (
                KeyboardShortcut::new(Modifiers::COMMAND, Key::O),
                Command::OpenProjectDialog,
            ),
            (
                KeyboardShortcut::new(Modifiers::COMMAND, Key::N),
                Command::New,
            ),
            (
                KeyboardShortcut::new(Modifiers::COMMAND, Key::E),
                Command::ExportDialog,
            ),
            (
                KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z),
                Command::Redo,
            ),
            (
                KeyboardShortcut::new(Modifiers::COMMAND, Key::Y),
                Command::Redo,
            ),
            (
                KeyboardShortcut::new(Modifiers::COMMAND, Key::Z),
                Command::Undo,
            ),
        ];
        for (shortcut, command) in shortcuts {
            if ctx.input_mut(|i| i.consume_shortcut(&shortcut)) {
                self.commands.push(command);
            }
        }
    }

    /// A dropped .ron opens; a character file dropped on the left half loads as the source,
    /// on the right half as the target.
    fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let (dropped, pos, width) = ctx.input(|i| {
            (
                i.raw.dropped_files.clone(),
                i.pointer.hover_pos(),
                i.viewport_rect().width(),
            )
        });
        for file in dropped {
            let path = file.path().to_path_buf();
            if path.as_os_str().is_empty() {
                continue;
            }
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase();
            let left = pos.is_none_or(|p| p.x < width / 2.0);
            let command = match ext.as_str() {
                "ron" => Command::OpenProject(path),
                "bvh" => Command::LoadSource(path),
                "glb" | "gltf" | "vrm" | "vrma" if left => Command::LoadSource(path),
                "glb" | "gltf" | "vrm" => Command::LoadTarget(path),
                _ => {
                    self.error = Some(format!(
                        "{}: not a file Retarget Studio opens",
                        path.display()
                    ));
                    continue;
                }
            };
            self.commands.push(command);
        }
    }

    /// Runs a command, asking first when it would drop unsaved changes.
    pub fn run(&mut self, command: Command) {
        let discards = matches!(
            command,
            Command::New | Command::OpenProject(_) | Command::OpenProjectDialog
        );
        if discards && self.doc.dirty && self.pending.is_none() {
            self.pending = Some(Pending::Run(command));
            return;
        }
        self.apply(command);
    }

    fn apply(&mut self, command: Command) {
        match command {
            Command::New => self.set_document(Document::default()),
            Command::OpenProject(path) => self.open_project(&path),
            Command::OpenProjectDialog => {
                if let Some(p) = pick(&["ron"], "Retarget Studio project") {
                    self.open_project(&p);
                }
            }
            Command::Save => match self.doc.project_path.clone() {
                Some(p) => self.save(&p),
                None => self.apply(Command::SaveAsDialog),
            },
            Command::SaveAs(p) => self.save(&p),
            Command::SaveAsDialog => {
                if let Some(p) = rfd::FileDialog::new()
                    .add_filter("project", &["ron"])
                    .set_file_name("project.ron")
                    .save_file()
                {
                    self.save(&p);
                }
            }
            Command::LoadSource(p) => self.load_side(Some(p), None),
            Command::LoadTarget(p) => self.load_side(None, Some(p)),
            Command::LoadSourceDialog => {
                if let Some(p) = pick(&["glb", "gltf", "vrm", "vrma", "bvh"], "animation") {
                    self.load_side(Some(p), None);
                }
            }
            Command::LoadTargetDialog => {
                if let Some(p) = pick(&["glb", "gltf", "vrm"], "character") {
                    self.load_side(None, Some(p));
                }
            }
            Command::ExportDialog => {
                if let Some(p) = rfd::FileDialog::new()
                    .add_filter("GLB or BVH", &["glb", "bvh"])
                    .set_file_name("retargeted.glb")
                    .save_file()
                {
                    self.apply(Command::Export(p));
                }
            }
            Command::Export(p) => self.export(&p),
            Command::SelectTargetJoint(j) => self.selected = j,
            Command::SelectClip(name) => {
                self.clip = Some(name);
                self.playback.time_secs = 0.0;
            }
            Command::Edit(edit) => self.edit(edit),
            Command::Undo => self.undo_redo(true),
            Command::Redo => self.undo_redo(false),
            Command::ExportWith(request) => self.export_with(request),
            Command::CancelExport => {
                if let Some(task) = &self.export_task {
                    task.cancel();
                }
            }
            Command::SwapSides => self.swap_sides(),
            Command::ImportMapDialog => self.import_map(),
            Command::ExportMapDialog => self.export_map(),
            Command::Quit => {
                self.pending = self.doc.dirty.then_some(Pending::Close);
                self.allow_close = !self.doc.dirty;
            }
        }
    }

    /// Applies an edit to the session and records it for undo.
    fn edit(&mut self, edit: crate::session::Edit) {
        let Some(session) = &mut self.doc.session else {
            return;
        };
        let before = session.edit_state();
        match session.apply_edit(&edit) {
            Ok(label) => {
                self.undo.record(label, before);
                self.doc.touch();
            }
            Err(e) => self.error = Some(format!("Could not apply the change: {e}")),
        }
    }

    fn undo_redo(&mut self, undo: bool) {
        let Some(session) = &mut self.doc.session else {
            return;
        };
        let current = session.edit_state();
        let step = if undo {
            self.undo.undo(current)
        } else {
            self.undo.redo(current)
        };
        let Some((label, state)) = step else { return };
        match session.restore(state) {
            Ok(()) => {
                self.status = Some(format!("{} {label}", if undo { "Undid" } else { "Redid" }));
                self.doc.touch();
            }
            Err(e) => self.error = Some(format!("Could not restore: {e}")),
        }
    }

    fn save(&mut self, path: &Path) {
        match self.doc.save(path) {
            Ok(bytes) => {
                self.status = Some(format!("Saved {} ({bytes} bytes)", path.display()));
                self.remember(path);
            }
            Err(e) => self.error = Some(format!("Could not save: {e:#}")),
        }
    }

    /// Replaces one side; the map is made anew (automatically) for the new pair.
    fn load_side(&mut self, source: Option<PathBuf>, target: Option<PathBuf>) {
        let current = self
            .doc
            .session
            .as_ref()
            .map(|s| (s.source.path.clone(), s.target.path.clone()));
        let (Some(src), Some(tgt)) = (
            source
                .clone()
                .or_else(|| current.as_ref().map(|c| c.0.clone())),
            target
                .clone()
                .or_else(|| current.as_ref().map(|c| c.1.clone())),
        ) else {
            self.error =
                Some("Load a source and a target: the other side is still missing.".into());
            return;
        };
        match Document::from_files(&src, &tgt) {
            Ok(doc) => self.set_document(doc),
            Err(e) => self.error = Some(format!("Could not load: {e:#}")),
        }
    }

    fn export(&mut self, path: &Path) {
        let Some(format) = crate::session::ExportFormat::from_path(path, false) else {
            self.error = Some(format!("{}: export to .glb or .bvh", path.display()));
            return;
        };
        let job = crate::session::ExportJob {
            format,
            clips: vec![self.clip.clone()],
            fps: None,
            out: path.to_path_buf(),
            reduce: None,
            root_motion: None,
        };
        self.export_with(job);
    }

    /// Starts writing the job's files in the background; `poll_export` reports them.
    fn export_with(&mut self, job: crate::session::ExportJob) {
        let Some(session) = &self.doc.session else {
            return;
        };
        if self.export_task.is_some() {
            self.error = Some("An export is already running.".into());
            return;
        }
        self.status = Some(format!("Exporting {}…", job.out.display()));
        self.export_task = Some(super::export_task::ExportTask::start(session.clone(), job));
    }

    /// Reports a finished export; GLBs are then checked by the Khronos validator in the
    /// background when it is installed.
    fn poll_export(&mut self, ctx: &egui::Context) {
        let Some(task) = &self.export_task else {
            return;
        };
        let Some(result) = task.finished() else {
            ctx.request_repaint();
            return;
        };
        let job = task.job.clone();
        self.export_task = None;
        match result {
            Ok(summary) => {
                let files: Vec<String> = summary
                    .files
                    .iter()
                    .map(|(p, bytes)| format!("{} ({:.1} kB)", p.display(), *bytes as f64 / 1024.0))
                    .collect();
                let reduced = summary.reduced.map_or(String::new(), |(before, _)| {
                    format!(" (reduced from {before})")
                });
                self.status = Some(format!(
                    "Exported {} clip(s), {} keys{reduced}: {}",
                    summary.clips,
                    summary.keys,
                    files.join(", ")
                ));
                if job.format != crate::session::ExportFormat::Bvh
                    && let Some((path, _)) = summary.files.first()
                {
                    self.validation = super::validate::spawn(path.clone());
                }
            }
            Err(e) if e == "cancelled" => {
                self.status = Some("Export cancelled; nothing was written.".into())
            }
            Err(e) => self.error = Some(format!("Export failed: {e}")),
        }
    }

    /// True while an export is running in the background.
    /// The source (0) or target (1) viewport, as last drawn.
    pub fn view(&self, side: usize) -> &CharacterView {
        &self.views[side]
    }

    pub fn exporting(&self) -> bool {
        self.export_task.is_some()
    }

    /// Swaps source and target (the map turned around); the new source needs clips.
    fn swap_sides(&mut self) {
        let Some(session) = &self.doc.session else {
            return;
        };
        let mut project = session.to_project();
        std::mem::swap(&mut project.source, &mut project.target);
        for pair in &mut project.map {
            std::mem::swap(&mut pair.source, &mut pair.target);
        }
        project.source.clip = None;
        match crate::session::Session::from_project_file(project) {
            Ok(swapped) if swapped.source_clip(None).is_ok() => {
                let doc = Document {
                    session: Some(swapped),
                    project_path: self.doc.project_path.clone(),
                    dirty: true,
                    revision: self.doc.revision + 1,
                };
                self.set_document(doc);
            }
            Ok(_) => {
                self.error = Some("Cannot swap: the target has no clip to play as a source.".into())
            }
            Err(e) => self.error = Some(format!("Cannot swap: {e}")),
        }
    }

    fn import_map(&mut self) {
        let Some(path) = pick(&["ron"], "bone map") else {
            return;
        };
        let Some(session) = &self.doc.session else {
            return;
        };
        match crate::io::project::MapFile::load(&path) {
            Ok(file) => {
                let (map, missing) = session.map_from_pairs(&file.pairs);
                if !missing.is_empty() {
                    self.error = Some(format!(
                        "{} pair(s) name joints these files lack and were skipped: {}",
                        missing.len(),
                        missing.join(", ")
                    ));
                }
                let label = format!(
                    "Import map {}",
                    path.file_name()
                        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
                );
                self.edit(crate::session::Edit::ReplaceMap { map, label });
            }
            Err(e) => self.error = Some(format!("Could not import the map: {e}")),
        }
    }

    fn export_map(&mut self) {
        let Some(session) = &self.doc.session else {
            return;
        };
        let Some(path) = rfd::FileDialog::new()
            .add_filter("bone map", &["ron"])
            .set_file_name("map.ron")
            .save_file()
        else {
            return;
        };
        let file = crate::io::project::MapFile {
            version: crate::io::project::PROJECT_VERSION,
            pairs: session.map_pairs(),
        };
        match file.save(&path) {
            Ok(bytes) => {
                self.status = Some(format!(
                    "Saved the map to {} ({bytes} bytes)",
                    path.display()
                ))
            }
            Err(e) => self.error = Some(format!("Could not save the map: {e}")),
        }
    }

    fn messages_ui(&mut self, ctx: &egui::Context) {
        if let Some(message) = self.error.clone() {
            egui::Window::new("Problem")
                .collapsible(false)
                .resizable(false)
                .anchor(egui::Align2::CENTER_TOP, [0.0, 60.0])
                .show(ctx, |ui| {
                    ui.label(&message);
                    if ui.button("OK").clicked() {
                        self.error = None;
                    }
                });
        }
        let Some(pending) = self.pending.clone() else {
            return;
        };
        egui::Modal::new(egui::Id::unique("unsaved")).show(ctx, |ui| {
            ui.heading("Unsaved changes");
            ui.label(format!(
                "{} has changes that are not saved.",
                self.title().trim_end_matches(" — Retarget Studio")
            ));
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    self.pending = None;
                    self.apply(Command::Save);
                    if !self.doc.dirty {
                        self.resume(pending.clone());
                    }
                }
                if ui.button("Discard").clicked() {
                    self.pending = None;
                    self.doc.dirty = false;
                    self.resume(pending.clone());
                }
                if ui.button("Cancel").clicked() {
                    self.pending = None;
                }
            });
        });
    }

    fn resume(&mut self, pending: Pending) {
        match pending {
            Pending::Close => self.allow_close = true,
            Pending::Run(c) => self.apply(c),
        }
    }

    fn handle_close(&mut self, ctx: &egui::Context) {
        if self.allow_close {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        if ctx.input(|i| i.viewport().close_requested())
            && self.doc.dirty
            && self.screenshot.is_none()
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.pending = Some(Pending::Close);
        }
    }

    /// With `RETARGET_STUDIO_TIMINGS` set, prints the CPU time per frame so far.
    fn log_frame_times(&self) {
        if std::env::var_os("RETARGET_STUDIO_TIMINGS").is_some()
            && let Some((median, p99)) = self.frame_time_stats()
        {
            eprintln!(
                "CPU per frame over {} frames: median {median:.2} ms, p99 {p99:.2} ms",
                self.frame_times_ms.len()
            );
        }
    }

    /// Median and 99th percentile of the CPU time per frame, in ms.
    pub fn frame_time_stats(&self) -> Option<(f32, f32)> {
        let mut t = self
            .frame_times_ms
            .iter()
            .skip(10)
            .copied()
            .collect::<Vec<_>>();
        if t.is_empty() {
            return None;
        }
        t.sort_by(f32::total_cmp);
        Some((t[t.len() / 2], t[(t.len() * 99 / 100).min(t.len() - 1)]))
    }
}

/// The meshes bound to `skeleton`: borrowed as they are in the usual one-skeleton file, so
/// the per-frame path copies no vertex data.
fn meshes_of(
    asset: &crate::io::Asset,
    skeleton: usize,
) -> std::borrow::Cow<'_, [crate::io::SkinnedMesh]> {
    if asset.meshes.iter().all(|m| m.skeleton == skeleton) {
        return std::borrow::Cow::Borrowed(&asset.meshes);
    }
    std::borrow::Cow::Owned(
        asset
            .meshes
            .iter()
            .filter(|m| m.skeleton == skeleton)
            .cloned()
            .collect(),
    )
}

fn overlay_of(view: &CharacterView) -> super::viewport::SkeletonOverlay {
    super::viewport::SkeletonOverlay {
        joints: view.scene.joints.clone(),
        bones: view.scene.bones.clone(),
        color: [0.3, 0.8, 1.0, 1.0],
    }
}

fn pick(extensions: &[&str], what: &str) -> Option<PathBuf> {
    rfd::FileDialog::new()
        .add_filter(what, extensions)
        .pick_file()
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
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.ui_contents(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.prefs);
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.log_frame_times();
    }
}
