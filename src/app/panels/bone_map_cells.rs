//! The bone map table's cells: the source picker, the rotation and translation mode
//! combos, and the status that names what looks wrong with a row.

use super::bone_map::problems;
use super::bone_tree;
use crate::app::command::Command;
use crate::core::{RotationMode, TranslationMode};
use crate::session::{Edit, Session, rotation_name, translation_name};
use eframe::egui;

/// The source picker of target joint `t`: names shown as `shown` has them, searched in
/// full.
pub(super) fn source_combo(
    ui: &mut egui::Ui,
    (session, shown): (&Session, &[&str]),
    t: usize,
    row_label: &str,
    search: &mut String,
    commands: &mut Vec<Command>,
) {
    let src = session.source.skeleton();
    let current = session.map.for_target(t).map(|p| p.source);
    let width = (ui.available_width() - 8.0).max(60.0);
    let full = current.map_or("—".to_owned(), |s| src.names()[s].clone());
    let short = current.map_or("—", |s| shown[s]);
    let text = bone_tree::elide_middle(ui, short, width - 20.0).unwrap_or_else(|| short.to_owned());
    let combo = egui::ComboBox::from_id_salt(("source_of", t))
        .selected_text(text)
        .width(width)
        .height(420.0)
        .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside)
        .show_ui(ui, |ui| {
            ui.set_min_width(220.0);
            let field = super::labelled(ui, "Search", egui::TextEdit::singleline(search));
            // Enter picks the one match (or the one named exactly): no click needed. Asked
            // before the field takes the keyboard back, which would hide that Enter left it.
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            // The search has the keyboard as the list opens: typing filters at once.
            if ui.memory(|m| m.focused().is_none()) {
                field.request_focus();
            }
            let needle = search.to_lowercase();
            let matches = matching(src.names(), &needle);
            if entered && let Some(s) = only_match(src.names(), &matches, &needle) {
                if current != Some(s) {
                    commands.push(Command::Edit(Edit::MapBone {
                        target: t,
                        source: Some(s),
                    }));
                }
                ui.close();
            }
            if matches.is_empty() {
                ui.weak(format!("no source joint holds \"{search}\""));
            }
            if ui.selectable_label(current.is_none(), "(none)").clicked() {
                if current.is_some() {
                    commands.push(Command::Edit(Edit::MapBone {
                        target: t,
                        source: None,
                    }));
                }
                ui.close();
            }
            for &s in &matches {
                let name = &src.names()[s];
                let label = ui
                    .selectable_label(current == Some(s), shown[s])
                    .on_hover_text(name);
                if label.clicked() {
                    if current != Some(s) {
                        commands.push(Command::Edit(Edit::MapBone {
                            target: t,
                            source: Some(s),
                        }));
                    }
                    ui.close();
                }
            }
        });
    // Each opening starts a new search: another row's text, or a search that matched
    // nothing, never greets the next list.
    if combo.response.clicked() {
        search.clear();
    }
    let combo_response = if full.chars().count() > 12 || short != full {
        combo.response.on_hover_text(&full)
    } else {
        combo.response
    };
    let name = format!("{row_label} source");
    let shown = short.to_owned();
    combo_response.widget_info(move || {
        let mut info = egui::WidgetInfo::labeled(egui::accesskit::Role::ComboBox, true, &name);
        info.current_text_value = Some(shown.clone());
        info
    });
}

/// The source joints whose names hold `needle` (lowercase), in skeleton order.
fn matching(names: &[String], needle: &str) -> Vec<usize> {
    (0..names.len())
        .filter(|&s| needle.is_empty() || names[s].to_lowercase().contains(needle))
        .collect()
}

/// The joint Enter picks: the only match, or the one match named exactly as typed.
fn only_match(names: &[String], matches: &[usize], needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    match matches {
        [one] => Some(*one),
        _ => {
            let mut exact = matches
                .iter()
                .filter(|&&s| names[s].to_lowercase() == needle);
            exact.next().filter(|_| exact.next().is_none()).copied()
        }
    }
}

/// The joints below either hand, and the hands: what "Fold fingers" folds.
pub(super) fn hands(session: &Session) -> std::collections::BTreeSet<usize> {
    use crate::core::HumanBone;
    let labels = &session.target.labels;
    labels
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.is_some_and(|l| matches!(l.bone, HumanBone::LeftHand | HumanBone::RightHand))
        })
        .map(|(j, _)| j)
        .collect()
}

/// A small picker of one of `options`, named by the row's bone for screen readers.
pub(super) fn mode_picker<T: Copy + PartialEq>(
    ui: &mut egui::Ui,
    id: (&str, usize),
    row_label: &str,
    current: T,
    options: &[T],
    name: fn(T) -> &'static str,
) -> Option<T> {
    let mut picked = None;
    let combo = egui::ComboBox::from_id_salt(id)
        .selected_text(name(current))
        .width(75.0)
        .show_ui(ui, |ui| {
            for &m in options {
                if ui.selectable_label(m == current, name(m)).clicked() && m != current {
                    picked = Some(m);
                }
            }
        });
    name_widget(&combo.response, format!("{row_label} {}", id.0));
    picked
}

/// Gives a table cell's combo an accessible name ("Left elbow source") for screen readers
/// and UI tests; the row's bone name alone would be ambiguous.
pub(super) fn name_widget(response: &egui::Response, name: String) {
    response.widget_info(move || {
        egui::WidgetInfo::labeled(egui::accesskit::Role::ComboBox, true, &name)
    });
}

pub(super) fn mode_combo(
    ui: &mut egui::Ui,
    t: usize,
    row_label: &str,
    mode: Option<RotationMode>,
    commands: &mut Vec<Command>,
) {
    let Some(mode) = mode else { return };
    let options = [RotationMode::RestRelative, RotationMode::Absolute];
    if let Some(m) = mode_picker(
        ui,
        ("rotation", t),
        row_label,
        mode,
        &options,
        rotation_name,
    ) {
        commands.push(Command::Edit(Edit::SetRotationMode { target: t, mode: m }));
    }
}

pub(super) fn translation_combo(
    ui: &mut egui::Ui,
    t: usize,
    row_label: &str,
    mode: Option<TranslationMode>,
    commands: &mut Vec<Command>,
) {
    let Some(mode) = mode else { return };
    let options = [
        TranslationMode::None,
        TranslationMode::HipsScaled,
        TranslationMode::Copy,
        TranslationMode::InPlace,
    ];
    if let Some(m) = mode_picker(
        ui,
        ("translation", t),
        row_label,
        mode,
        &options,
        translation_name,
    ) {
        commands.push(Command::Edit(Edit::SetTranslationMode {
            target: t,
            mode: m,
        }));
    }
}

pub(super) fn status_ui(ui: &mut egui::Ui, session: &Session, t: usize) {
    let problems = problems(session, t);
    if problems.is_empty() {
        return;
    }
    let color = if session.map.for_target(t).is_none() {
        egui::Color32::GRAY
    } else {
        egui::Color32::from_rgb(240, 180, 60)
    };
    ui.label(egui::RichText::new("(!)").color(color).strong())
        .on_hover_text(problems.join("\n"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enter_picks_the_only_match_or_the_exact_name() {
        let names: Vec<String> = ["Hips", "Spine", "Spine1", "LeftHand", "RightHand"]
            .map(String::from)
            .into();
        let pick = |typed: &str| only_match(&names, &matching(&names, typed), typed);
        assert_eq!(pick("lefth"), Some(3));
        assert_eq!(pick("spine"), Some(1), "exact among two");
        assert_eq!(pick("hand"), None, "two matches, neither exact");
        assert_eq!(pick("zzz"), None);
        assert_eq!(pick(""), None);
    }
}
