//! The right-hand tool panel: one tab per tool. Panels read the document and push commands;
//! nothing here changes the session directly.

pub mod bone_map;
mod bone_map_cells;
pub mod bone_tree;
mod chain_editor;
pub mod curves;
mod export;
mod export_size;
pub mod fingers;
mod pose;
pub mod quality_tab;
mod reading;
pub mod skeleton;
mod solve;
mod solve_chains;

pub use export::{ExportRequest, FpsChoice};

use super::command::Command;
use super::document::Document;
use super::document::undo::UndoStack;
use eframe::egui;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tab {
    #[default]
    BoneMap,
    Skeleton,
    Pose,
    Export,
    History,
    Quality,
    Solve,
}

/// UI-only state of the panels (filters, which side the pose tools edit, export form).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PanelState {
    /// The bone map's filter: per document, never saved (a new pair opened with rows hidden
    /// by an old search looks like a broken map).
    #[serde(skip)]
    pub map_filter: String,
    pub problems_only: bool,
    pub sort: bone_map::Sort,
    pub sort_descending: bool,
    #[serde(skip)]
    pub source_search: String,
    /// Scroll the bone map to the selected row on its next draw.
    #[serde(skip)]
    pub reveal_selected: bool,
    /// Target joints whose subtrees are folded in the bone map.
    #[serde(skip)]
    pub folded: std::collections::BTreeSet<usize>,
    pub pose_side_is_source: bool,
    /// The rows a cause in the Quality tab names, shown alone in the bone map until cleared.
    #[serde(skip)]
    pub cause_rows: Vec<usize>,
    /// The chain picked in the Skeleton tab (highlighted in the viewports).
    #[serde(skip)]
    pub chain: Option<skeleton::ChainPick>,
    pub export: export::ExportForm,
}

/// What the panels read.
pub struct Tools<'a> {
    pub doc: &'a Document,
    pub undo: &'a UndoStack,
    pub selected: Option<usize>,
    pub clip: Option<&'a str>,
    /// Clips done and in all, while an export runs.
    pub export_progress: Option<(usize, usize)>,
    /// This project's own export path (`<source>_on_<target>.glb` beside it).
    pub export_path: Option<std::path::PathBuf>,
    pub quality: quality_tab::QualityView<'a>,
    /// The viewports' world matrices (source, target) at the frame shown.
    pub posed: [&'a [glam::Mat4]; 2],
}

pub fn tools_ui(
    ui: &mut egui::Ui,
    tools: &Tools,
    tab: &mut Tab,
    state: &mut PanelState,
    commands: &mut Vec<Command>,
) {
    // Wrapped: in a narrow panel a row wider than it would widen every row below.
    ui.horizontal_wrapped(|ui| {
        ui.selectable_value(tab, Tab::BoneMap, "Bone map");
        ui.selectable_value(tab, Tab::Skeleton, "Skeleton");
        ui.selectable_value(tab, Tab::Pose, "Pose");
        ui.selectable_value(tab, Tab::Solve, "Solve");
        ui.selectable_value(tab, Tab::Export, "Export");
        ui.selectable_value(tab, Tab::History, "History");
        ui.selectable_value(tab, Tab::Quality, "Quality");
    });
    ui.separator();
    let Some(session) = &tools.doc.session else {
        ui.label("Open a project (File > Open project) or load a source and a target.");
        return;
    };
    match tab {
        Tab::BoneMap => {
            let view = bone_map::MapView {
                selected: tools.selected,
                posed: tools.posed,
            };
            bone_map::bone_map_ui(ui, session, view, state, commands);
        }
        Tab::Skeleton => skeleton::skeleton_ui(ui, session, state, commands),
        Tab::Pose => pose::pose_ui(ui, session, tools.selected, state, commands),
        Tab::Solve => scrolled(ui, "solve_tab", |ui| {
            solve::solve_ui(ui, session, tools.doc.revision, commands)
        }),
        Tab::Export => scrolled(ui, "export_tab", |ui| {
            let default = tools.export_path.as_deref();
            export::export_ui(
                ui,
                session,
                tools.clip,
                default,
                &mut state.export,
                commands,
            );
            export::progress_ui(ui, tools.export_progress, commands);
        }),
        Tab::History => history_ui(ui, tools.undo, commands),
        Tab::Quality => match quality_tab::quality_ui(ui, &tools.quality, tools.clip) {
            Some(quality_tab::CauseAction::ShowRows(rows)) => {
                commands.push(Command::SelectTargetJoint(rows.first().copied()));
                state.reveal_selected = true;
                state.cause_rows = rows;
                *tab = Tab::BoneMap;
            }
            Some(quality_tab::CauseAction::Fix(edit)) => {
                state.cause_rows.clear();
                commands.push(Command::Edit(edit));
            }
            None => {}
        },
    }
}

/// A tab of controls in a scroll area: in a short window the last of them (Export's
/// button) scroll into view instead of hiding under the timeline.
fn scrolled(ui: &mut egui::Ui, id: &str, contents: impl FnOnce(&mut egui::Ui)) {
    egui::ScrollArea::vertical()
        .id_salt(id)
        .auto_shrink([false, true])
        .show(ui, contents);
}

/// A widget named by the label before it, so screen readers (and UI tests) can find it.
pub(crate) fn labelled(
    ui: &mut egui::Ui,
    label: &str,
    widget: impl egui::Widget,
) -> egui::Response {
    let label = ui.label(label);
    ui.add(widget).labelled_by(label.id)
}

fn history_ui(ui: &mut egui::Ui, undo: &UndoStack, commands: &mut Vec<Command>) {
    ui.horizontal_wrapped(|ui| {
        if ui
            .add_enabled(undo.undo_label().is_some(), egui::Button::new("Undo"))
            .clicked()
        {
            commands.push(Command::Undo);
        }
        if ui
            .add_enabled(undo.redo_label().is_some(), egui::Button::new("Redo"))
            .clicked()
        {
            commands.push(Command::Redo);
        }
    });
    ui.label("Edits, oldest first; click one to go back to just after it:");
    egui::ScrollArea::vertical()
        .id_salt("history")
        .show(ui, |ui| {
            let now = undo.depth();
            if ui.selectable_label(now == 0, "  0. (as opened)").clicked() && now != 0 {
                commands.push(Command::UndoTo(0));
            }
            let done = undo.history().map(|l| (l, false));
            let undone = undo.redo_history().map(|l| (l, true));
            for (i, (label, redo)) in done.chain(undone).enumerate() {
                let depth = i + 1;
                let text = format!("{depth:3}. {label}");
                let text = if redo {
                    egui::RichText::new(text).weak()
                } else {
                    egui::RichText::new(text)
                };
                let entry = ui
                    .selectable_label(depth == now, text)
                    .on_hover_text(if redo {
                        "Undone: click to redo up to here"
                    } else {
                        "Click to go back to just after this edit"
                    });
                if entry.clicked() && depth != now {
                    commands.push(Command::UndoTo(depth));
                }
            }
        });
}
