//! Every keyboard shortcut in one table: the menus show their keys from it, the keys are
//! handled from it, and Help ▸ Shortcuts lists it, so the three never disagree.

use super::StudioApp;
use crate::app::command::Command;
use eframe::egui;
use egui::{Key, KeyboardShortcut, Modifiers};

/// An action a shortcut (or a menu item) runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Run(Command),
    ToggleTools,
    FrameBoth,
    ResetLayout,
    ShowShortcuts,
    ShowGuide,
}

/// Shortcuts the app handles itself, in the order they are checked: with Shift first, as a
/// plain Ctrl+Z would also match Ctrl+Shift+Z.
pub fn table() -> Vec<(KeyboardShortcut, Action, &'static str)> {
    let ctrl = Modifiers::COMMAND;
    let ctrl_shift = Modifiers::COMMAND | Modifiers::SHIFT;
    let k = KeyboardShortcut::new;
    vec![
        (
            k(ctrl_shift, Key::S),
            Action::Run(Command::SaveAsDialog),
            "Save as…",
        ),
        (k(ctrl_shift, Key::Z), Action::Run(Command::Redo), "Redo"),
        (
            k(ctrl_shift, Key::L),
            Action::Run(Command::LoadTargetDialog),
            "Load target…",
        ),
        (k(ctrl_shift, Key::R), Action::ResetLayout, "Reset layout"),
        (k(ctrl, Key::S), Action::Run(Command::Save), "Save"),
        (
            k(ctrl, Key::O),
            Action::Run(Command::OpenProjectDialog),
            "Open project…",
        ),
        (k(ctrl, Key::N), Action::Run(Command::New), "New"),
        (
            k(ctrl, Key::E),
            Action::Run(Command::ExportDialog),
            "Export…",
        ),
        (
            k(ctrl, Key::L),
            Action::Run(Command::LoadSourceDialog),
            "Load source…",
        ),
        (k(ctrl, Key::Y), Action::Run(Command::Redo), "Redo"),
        (k(ctrl, Key::Z), Action::Run(Command::Undo), "Undo"),
        (k(ctrl, Key::Q), Action::Run(Command::Quit), "Quit"),
        (
            k(ctrl, Key::T),
            Action::ToggleTools,
            "Show or hide the tool panel",
        ),
        (k(ctrl, Key::B), Action::FrameBoth, "Frame both characters"),
        (
            k(Modifiers::NONE, Key::F1),
            Action::ShowShortcuts,
            "Keyboard shortcuts",
        ),
    ]
}

/// Keys handled elsewhere (the viewports, the timeline), listed for Help ▸ Shortcuts.
pub const OTHER_KEYS: [(&str, &str); 11] = [
    ("F", "Frame the viewport under the mouse"),
    ("1 / Ctrl+1", "Front / back view"),
    ("3 / Ctrl+3", "Side / other side view"),
    ("Space", "Play or pause"),
    ("Left / Right", "One frame back / forward"),
    ("Home / End", "First / last frame"),
    ("Left-drag", "Orbit"),
    ("Right- or middle-drag", "Pan"),
    ("Wheel", "Zoom"),
    ("Alt+left-drag", "Turn the selected bone"),
    ("Click", "Select a bone"),
];

/// The keys of `action` as the menus show them ("Ctrl+S"), or "" when it has none.
pub fn keys_of(ctx: &egui::Context, action: &Action) -> String {
    table()
        .into_iter()
        .find(|(_, a, _)| a == action)
        .map_or(String::new(), |(k, _, _)| ctx.format_shortcut(&k))
}

impl StudioApp {
    /// Runs the shortcuts of [`table`] pressed this frame.
    pub(super) fn handle_shortcuts(&mut self, ctx: &egui::Context) {
        for (shortcut, action, _) in table() {
            if ctx.input_mut(|i| i.consume_shortcut(&shortcut)) {
                self.act(action);
            }
        }
    }

    /// Does what a shortcut or a menu item asks.
    pub(super) fn act(&mut self, action: Action) {
        match action {
            Action::Run(command) => self.commands.push(command),
            Action::ToggleTools => self.prefs.tools_open = !self.prefs.tools_open,
            Action::FrameBoth => {
                for v in &mut self.views {
                    v.needs_framing = true;
                }
            }
            Action::ResetLayout => self.reset_layout(),
            Action::ShowShortcuts => self.prompts.shortcuts_open = true,
            Action::ShowGuide => self.prompts.guide_open = true,
        }
    }

    /// A menu button for `action` with its keys beside it; runs it when clicked.
    pub(super) fn menu_item(&mut self, ui: &mut egui::Ui, label: &str, action: Action) {
        let keys = keys_of(ui.ctx(), &action);
        if ui
            .add(egui::Button::new(label).shortcut_text(keys))
            .clicked()
        {
            self.act(action);
            ui.close();
        }
    }

    /// Help ▸ Shortcuts (every key) and Help ▸ User guide, each in a window of its own
    /// that opens below the menu bar and scrolls.
    pub(super) fn help_windows_ui(&mut self, ctx: &egui::Context) {
        let area = self.below_menu(ctx);
        let shortcuts = |ui: &mut egui::Ui| shortcut_grid(ui, ctx);
        help_window(
            ctx,
            area,
            ("Keyboard shortcuts", 420.0),
            &mut self.prompts.shortcuts_open,
            shortcuts,
        );
        help_window(
            ctx,
            area,
            ("User guide", 640.0),
            &mut self.prompts.guide_open,
            super::guide::guide_ui,
        );
    }

    /// The window's area under the menu bar: where windows open and stay, so none covers
    /// the menus.
    pub(super) fn below_menu(&self, ctx: &egui::Context) -> egui::Rect {
        let mut area = ctx.content_rect();
        area.min.y = area.min.y.max(self.drawn.menu_bottom);
        area
    }
}

/// A Help window titled `title`, `width` wide and at most `area` high, while `open`.
fn help_window(
    ctx: &egui::Context,
    area: egui::Rect,
    (title, width): (&str, f32),
    open: &mut bool,
    contents: impl FnOnce(&mut egui::Ui),
) {
    if !*open {
        return;
    }
    egui::Window::new(title)
        .open(open)
        .default_width(width)
        .default_height(area.height() * 0.8)
        .default_pos(area.min + egui::vec2(24.0, 12.0))
        .constrain_to(area)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, contents);
        });
}

/// Every key and what it does, two columns.
fn shortcut_grid(ui: &mut egui::Ui, ctx: &egui::Context) {
    egui::Grid::new("shortcuts").striped(true).show(ui, |ui| {
        for (keys, _, what) in table() {
            ui.monospace(ctx.format_shortcut(&keys));
            ui.label(what);
            ui.end_row();
        }
        for (keys, what) in OTHER_KEYS {
            ui.monospace(keys);
            ui.label(what);
            ui.end_row();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_actions_share_a_key() {
        let t = table();
        for (i, (a, _, _)) in t.iter().enumerate() {
            for (b, _, _) in &t[i + 1..] {
                assert!(a != b, "{a:?} twice");
            }
        }
    }
}
