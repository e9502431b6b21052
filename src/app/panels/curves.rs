//! The curve list, a section of the Bone map tab: every curve of the source's clips (morph
//! weights, expressions), the target weight it drives, picked like a bone (one undoable
//! edit), whether the name matched it or the user chose it, and what the map cannot honour.

use crate::app::command::Command;
use crate::session::{Edit, Session};
use eframe::egui;

/// What the target-weight combo shows for a curve that drives nothing.
pub const NONE: &str = "— none —";

/// The section's rows are scrolled past this height, so a face rig's fifty curves never push
/// the bone table out of the panel.
const MAX_LIST_HEIGHT: f32 = 220.0;

/// How a curve came by its target weight, in the list's "How" column.
pub fn how(manual: bool, target: Option<&str>) -> &'static str {
    match (manual, target) {
        (true, _) => "by hand",
        (false, Some(_)) => "automatic",
        (false, None) => "unmatched",
    }
}

/// The "Curves" section, closed at first (the bone table keeps the panel): its title counts
/// the source's curves.
pub fn curves_ui(ui: &mut egui::Ui, session: &Session, commands: &mut Vec<Command>) {
    let sources = session.source_curve_names();
    egui::CollapsingHeader::new(format!("Curves ({})", sources.len()))
        .id_salt("curves_section")
        .default_open(false)
        .show(ui, |ui| body_ui(ui, session, &sources, commands))
        .header_response
        .on_hover_text(
            "The source's morph weights and expressions, and the target weight each one drives",
        );
}

fn body_ui(ui: &mut egui::Ui, session: &Session, sources: &[String], commands: &mut Vec<Command>) {
    if sources.is_empty() {
        ui.label("The source's clips have no curves (morph weights or expressions).");
        return;
    }
    let targets = session.target_curve_names();
    if targets.is_empty() {
        ui.label(
            "The target has no morph targets or expressions: the source's curves will be \
             dropped.",
        );
    }
    let (map, problems) = session.curve_map();
    egui::ScrollArea::vertical()
        .id_salt("curves_list")
        .max_height(MAX_LIST_HEIGHT)
        .show(ui, |ui| {
            egui::Grid::new("curves_grid")
                .num_columns(3)
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("Source curve");
                    ui.strong("Target weight");
                    ui.strong("How");
                    ui.end_row();
                    for (i, pair) in map.pairs().iter().enumerate() {
                        ui.label(&pair.source);
                        let current = pair.target.as_deref();
                        if targets.is_empty() {
                            ui.weak(NONE);
                        } else if let Some(picked) =
                            target_combo(ui, i, &pair.source, current, &targets)
                        {
                            commands.push(Command::Edit(Edit::SetCurve {
                                source: pair.source.clone(),
                                target: picked,
                            }));
                        }
                        let tip = match how(pair.manual, current) {
                            "by hand" => "Chosen by hand (saved with the project)",
                            "automatic" => {
                                "Matched by name (case, separators, VRM and ARKit names)"
                            }
                            _ => "No target weight has a matching name: the curve is dropped",
                        };
                        ui.label(how(pair.manual, current)).on_hover_text(tip);
                        ui.end_row();
                    }
                });
        });
    for p in &problems {
        ui.colored_label(ui.visuals().warn_fg_color, format!("(!) {p}"));
    }
}

/// The combo of the target's weights for curve `source`; `Some(choice)` when the user picked
/// another one (`Some(None)`: none).
fn target_combo(
    ui: &mut egui::Ui,
    row: usize,
    source: &str,
    current: Option<&str>,
    targets: &[String],
) -> Option<Option<String>> {
    let mut picked = None;
    let combo = egui::ComboBox::from_id_salt(("curve_target", row))
        .selected_text(current.unwrap_or(NONE))
        .width(160.0)
        .show_ui(ui, |ui| {
            if ui.selectable_label(current.is_none(), NONE).clicked() && current.is_some() {
                picked = Some(None);
            }
            for t in targets {
                let on = current == Some(t.as_str());
                if ui.selectable_label(on, t).clicked() && !on {
                    picked = Some(Some(t.clone()));
                }
            }
        });
    let response = combo
        .response
        .on_hover_text("The target weight this curve drives; — none — drops it");
    // Named by the curve for screen readers and UI tests, with the weight it drives.
    let name = format!("{source} target weight");
    let shown = current.unwrap_or(NONE).to_owned();
    response.widget_info(move || {
        let mut info = egui::WidgetInfo::labeled(egui::accesskit::Role::ComboBox, true, &name);
        info.current_text_value = Some(shown.clone());
        info
    });
    picked
}
