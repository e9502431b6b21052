//! What reaches the app from outside its panels: the menu bar, keyboard shortcuts, dropped
//! files, the close button, and the prompts and messages that answer them.

use super::StudioApp;
use super::parts::Pending;
use super::shortcuts::Action;
use crate::app::command::Command;
use crate::app::viewport::ViewDirection;
use eframe::egui;

/// The view keys, after Blender's numpad: 1 front, 3 side, with Ctrl the opposite ones.
/// Ctrl variants come first: a plain key also matches with extra modifiers held.
const VIEW_KEYS: [(egui::Modifiers, egui::Key, ViewDirection); 4] = [
    (
        egui::Modifiers::COMMAND,
        egui::Key::Num1,
        ViewDirection::Back,
    ),
    (
        egui::Modifiers::COMMAND,
        egui::Key::Num3,
        ViewDirection::OtherSide,
    ),
    (egui::Modifiers::NONE, egui::Key::Num1, ViewDirection::Front),
    (egui::Modifiers::NONE, egui::Key::Num3, ViewDirection::Side),
];

impl StudioApp {
    pub(super) fn menu_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                self.menu_item(ui, "New", Action::Run(Command::New));
                self.menu_item(ui, "Open project…", Action::Run(Command::OpenProjectDialog));
                self.menu_item(ui, "Save", Action::Run(Command::Save));
                self.menu_item(ui, "Save as…", Action::Run(Command::SaveAsDialog));
                self.menu_item(ui, "Export…", Action::Run(Command::ExportDialog));
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
                self.menu_item(ui, "Load source…", Action::Run(Command::LoadSourceDialog));
                self.menu_item(ui, "Load target…", Action::Run(Command::LoadTargetDialog));
                ui.separator();
                self.menu_item(ui, "Quit", Action::Run(Command::Quit));
            });
            ui.menu_button("Edit", |ui| {
                let undo = self.undo.undo_label().map(|l| format!("Undo {l}"));
                let redo = self.undo.redo_label().map(|l| format!("Redo {l}"));
                let ctx = ui.ctx().clone();
                let keys = |a| super::shortcuts::keys_of(&ctx, &a);
                let undo_button = egui::Button::new(undo.as_deref().unwrap_or("Undo"))
                    .shortcut_text(keys(Action::Run(Command::Undo)));
                if ui.add_enabled(undo.is_some(), undo_button).clicked() {
                    self.commands.push(Command::Undo);
                }
                let redo_button = egui::Button::new(redo.as_deref().unwrap_or("Redo"))
                    .shortcut_text(keys(Action::Run(Command::Redo)));
                if ui.add_enabled(redo.is_some(), redo_button).clicked() {
                    self.commands.push(Command::Redo);
                }
            });
            ui.menu_button("View", |ui| {
                for (i, side) in ["Source", "Target"].iter().enumerate() {
                    let show = &mut self.prefs.show[i];
                    ui.checkbox(&mut show.mesh, format!("{side} mesh"));
                    ui.checkbox(&mut show.skeleton, format!("{side} skeleton"));
                    ui.checkbox(&mut show.helpers, format!("{side} helper bones"));
                    ui.checkbox(&mut show.capsules, format!("{side} body capsules"));
                }
                ui.checkbox(&mut self.prefs.overlay, "Target skeleton over the source");
                ui.checkbox(&mut self.prefs.link_cameras, "Link the two cameras");
                ui.checkbox(&mut self.prefs.follow, "Follow the characters");
                ui.separator();
                for (label, shortcut, direction) in [
                    ("Front", "1", ViewDirection::Front),
                    ("Side", "3", ViewDirection::Side),
                    ("Back", "Ctrl+1", ViewDirection::Back),
                    ("Other side", "Ctrl+3", ViewDirection::OtherSide),
                ] {
                    let button = egui::Button::new(label).shortcut_text(shortcut);
                    if ui.add(button).clicked() {
                        self.look_along(direction);
                    }
                }
                self.menu_item(ui, "Frame both", Action::FrameBoth);
                ui.separator();
                let tools = if self.prefs.tools_open {
                    "Hide tool panel"
                } else {
                    "Show tool panel"
                };
                self.menu_item(ui, tools, Action::ToggleTools);
                self.menu_item(ui, "Reset layout", Action::ResetLayout);
            });
            ui.menu_button("Help", |ui| {
                self.menu_item(ui, "User guide", Action::ShowGuide);
                self.menu_item(ui, "Keyboard shortcuts", Action::ShowShortcuts);
            });
            if let Some(status) = &self.status {
                ui.separator();
                // A long notice (a fix taken on open) is cut to the bar; hovering shows it.
                let text = crate::app::names::drawable(status);
                ui.add(egui::Label::new(text.as_ref()).truncate())
                    .on_hover_text(text.as_ref());
            }
            if let Some(verdict) = self.tasks.validation.as_ref().and_then(|v| v.verdict()) {
                ui.separator();
                ui.label(verdict);
            }
        });
    }

    /// The view keys (see [`VIEW_KEYS`]), unless a text field has the keyboard: both
    /// viewports turn.
    pub(super) fn handle_view_keys(&mut self, ctx: &egui::Context) {
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        let picked = ctx.input_mut(|i| {
            VIEW_KEYS
                .iter()
                .find(|(modifiers, key, _)| i.consume_key(*modifiers, *key))
                .map(|(_, _, direction)| *direction)
        });
        if let Some(direction) = picked {
            self.look_along(direction);
        }
    }

    /// Turns both viewports to look along `direction` and frames their characters again.
    pub fn look_along(&mut self, direction: ViewDirection) {
        for view in &mut self.views {
            view.look_along(direction);
        }
    }

    /// A dropped .ron opens; a character file dropped on the source viewport loads as the
    /// source, on the target viewport (or the tools beside it) as the target.
    pub(super) fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let (dropped, pos, width) = ctx.input(|i| {
            (
                i.raw.dropped_files.clone(),
                i.pointer.hover_pos(),
                i.viewport_rect().width(),
            )
        });
        // Left of the line between the two viewports is the source's (the tool panel on
        // the right is the target's side too).
        let split = self.drawn.viewport_split.unwrap_or(width / 2.0);
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
            let left = pos.is_none_or(|p| p.x < split);
            let command = match ext.as_str() {
                "ron" => Command::OpenProject(path),
                "bvh" => Command::LoadSource(path),
                "glb" | "gltf" | "vrm" | "vrma" | "fbx" if left => Command::LoadSource(path),
                "glb" | "gltf" | "vrm" | "fbx" => Command::LoadTarget(path),
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

    pub(super) fn messages_ui(&mut self, ctx: &egui::Context) {
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
        let Some(pending) = self.prompts.pending.clone() else {
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
                    self.prompts.pending = None;
                    self.apply(Command::Save);
                    if !self.doc.dirty {
                        self.resume(pending.clone());
                    }
                }
                if ui.button("Discard").clicked() {
                    self.prompts.pending = None;
                    self.doc.dirty = false;
                    self.resume(pending.clone());
                }
                if ui.button("Cancel").clicked() {
                    self.prompts.pending = None;
                }
            });
        });
    }

    pub(super) fn resume(&mut self, pending: Pending) {
        match pending {
            Pending::Close => self.allow_close = true,
            Pending::Run(c) => self.apply(c),
        }
    }

    pub(super) fn handle_close(&mut self, ctx: &egui::Context) {
        if self.allow_close {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        if ctx.input(|i| i.viewport().close_requested())
            && self.doc.dirty
            && self.screenshot.is_none()
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.prompts.pending = Some(Pending::Close);
        }
    }
}
