//! The bone-map editor: one row per target joint in hierarchy order, the source bone picked
//! from a searchable list, per-bone modes, and a status that names what looks wrong.

use super::bone_map_cells::{hands, mode_combo, source_combo, status_ui, translation_combo};
use super::{PanelState, bone_tree};
use crate::app::command::Command;
use crate::session::{Edit, Session, rotation_name, translation_name};
use eframe::egui;
use egui_extras::{Column, TableBuilder};
use serde::{Deserialize, Serialize};

/// Row order of the table: the hierarchy, or one column's values (a header click).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sort {
    #[default]
    Hierarchy,
    Name,
    Source,
    Humanoid,
    Confidence,
    Mode,
    Translation,
    Status,
}

/// The table's columns: header title and the order a click on it gives.
/// The status column is titled with its icon, `(!)`, to stay narrow; its name is "Status".
const COLUMNS: [(&str, Sort); 7] = [
    ("Target bone", Sort::Name),
    ("Source bone", Sort::Source),
    ("Humanoid", Sort::Humanoid),
    ("How", Sort::Confidence),
    ("Mode", Sort::Mode),
    ("Translation", Sort::Translation),
    ("Status", Sort::Status),
];

/// Orders `rows` (target joints) by `sort`; ties keep hierarchy order.
pub fn sort_rows(session: &Session, rows: &mut [usize], sort: Sort, descending: bool) {
    let (tgt, src) = (session.target.skeleton(), session.source.skeleton());
    let pair = |t: usize| session.map.for_target(t);
    let text_key = |t: usize| -> String {
        match sort {
            Sort::Name => tgt.names()[t].to_lowercase(),
            Sort::Source => pair(t).map_or(String::new(), |p| src.names()[p.source].to_lowercase()),
            Sort::Humanoid => pair(t)
                .and_then(|p| p.bone)
                .or(session
                    .target
                    .labels
                    .get(t)
                    .copied()
                    .flatten()
                    .map(|l| l.bone))
                .map_or(String::new(), |b| b.as_str().to_lowercase()),
            Sort::Mode => pair(t).map_or(String::new(), |p| rotation_name(p.rotation).into()),
            Sort::Translation => {
                pair(t).map_or(String::new(), |p| translation_name(p.translation).into())
            }
            Sort::Hierarchy | Sort::Confidence | Sort::Status => String::new(),
        }
    };
    match sort {
        Sort::Hierarchy => {}
        Sort::Confidence => rows.sort_by(|&a, &b| {
            let c = |t| pair(t).map_or(-1.0, |p| p.confidence);
            c(a).total_cmp(&c(b))
        }),
        // Most problems first reads better than fewest; "descending" flips it.
        Sort::Status => rows.sort_by_key(|&t| std::cmp::Reverse(problems(session, t).len())),
        _ => rows.sort_by_cached_key(|&t| text_key(t)),
    }
    if descending {
        rows.reverse();
    }
}

/// What looks wrong with one target joint's mapping, in words for a tooltip.
pub fn problems(session: &Session, t: usize) -> Vec<String> {
    let mut out = Vec::new();
    let label = session.target.labels.get(t).copied().flatten();
    let Some(pair) = session.map.for_target(t) else {
        if let Some(l) = label {
            out.push(format!(
                "unmapped, though it looks like {}",
                l.bone.as_str()
            ));
        }
        return out;
    };
    if pair.confidence < 0.6 {
        out.push(format!("low confidence ({:.2})", pair.confidence));
    }
    let others = session
        .map
        .pairs()
        .iter()
        .filter(|p| p.source == pair.source && p.target != t)
        .count();
    if others > 0 {
        out.push(
            "its source bone also drives another target bone (both twins on one bone?)".into(),
        );
    }
    if chain_lengths_differ(session, pair.source, t) {
        out.push("chain length differs: joints in between are blended".into());
    }
    out
}

/// The number of joints between this joint and its nearest mapped ancestor differs on the
/// two sides (three source spine bones onto two target bones).
fn chain_lengths_differ(session: &Session, source: usize, target: usize) -> bool {
    let gap = |parents: &[Option<usize>], joint: usize, mapped: &dyn Fn(usize) -> bool| {
        let mut n = 0;
        let mut at = parents[joint];
        while let Some(p) = at {
            if mapped(p) {
                return Some(n);
            }
            n += 1;
            at = parents[p];
        }
        None
    };
    let tgt = gap(session.target.skeleton().parents(), target, &|j| {
        session.map.for_target(j).is_some()
    });
    let src = gap(session.source.skeleton().parents(), source, &|j| {
        session.map.pairs().iter().any(|p| p.source == j)
    });
    matches!((tgt, src), (Some(a), Some(b)) if a != b)
}

fn toolbar_ui(ui: &mut egui::Ui, commands: &mut Vec<Command>) {
    ui.horizontal_wrapped(|ui| {
        let buttons: [(&str, &str, Command); 4] = [
            (
                "Auto-map",
                "Map every bone again from the humanoid labels",
                Command::Edit(Edit::AutoMap {
                    unmapped_only: false,
                }),
            ),
            (
                "Auto-map unmapped",
                "Fill in only the unmapped bones",
                Command::Edit(Edit::AutoMap {
                    unmapped_only: true,
                }),
            ),
            ("Clear", "Unmap every bone", Command::Edit(Edit::ClearMap)),
            (
                "Mirror L->R",
                "Copy the left side's mapping onto the right",
                Command::Edit(Edit::MirrorMap),
            ),
        ];
        for (label, tip, command) in buttons {
            if ui.button(label).on_hover_text(tip).clicked() {
                commands.push(command);
            }
        }
        if ui
            .button("Swap sides")
            .on_hover_text("The target becomes the source")
            .clicked()
        {
            commands.push(Command::SwapSides);
        }
        if ui.button("Import map…").clicked() {
            commands.push(Command::ImportMapDialog);
        }
        if ui.button("Export map…").clicked() {
            commands.push(Command::ExportMapDialog);
        }
    });
}

/// What the tab shows beside the session: the selected target joint and the viewports'
/// world matrices (source, target) at the frame shown.
pub struct MapView<'a> {
    pub selected: Option<usize>,
    pub posed: [&'a [glam::Mat4]; 2],
}

pub fn bone_map_ui(
    ui: &mut egui::Ui,
    session: &Session,
    view: MapView<'_>,
    state: &mut PanelState,
    commands: &mut Vec<Command>,
) {
    let selected = view.selected;
    toolbar_ui(ui, commands);
    super::curves::curves_ui(ui, session, commands);
    super::fingers::fingers_ui(ui, session, view.posed);
    let tgt = session.target.skeleton();
    let src = session.source.skeleton();
    ui.horizontal_wrapped(|ui| {
        super::labelled(
            ui,
            "Filter",
            egui::TextEdit::singleline(&mut state.map_filter).desired_width(120.0),
        );
        ui.checkbox(&mut state.problems_only, "Problems only");
        if state.sort == Sort::Hierarchy {
            if ui
                .button("Fold fingers")
                .on_hover_text("Fold every chain below a hand")
                .clicked()
            {
                state.folded = hands(session);
            }
            if !state.folded.is_empty() && ui.button("Unfold all").clicked() {
                state.folded.clear();
            }
        }
        if state.sort != Sort::Hierarchy && ui.button("Hierarchy order").clicked() {
            state.sort = Sort::Hierarchy;
            state.sort_descending = false;
        }
    });
    if !state.cause_rows.is_empty() {
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(
                super::quality_tab::FAIL_COLOR,
                match state.cause_rows.len() {
                    1 => "Showing the 1 row a cause in Quality names".to_owned(),
                    n => format!("Showing the {n} rows a cause in Quality names"),
                },
            );
            if ui.button("Show all rows").clicked() {
                state.cause_rows.clear();
            }
        });
    }
    let filter = state.map_filter.to_lowercase();
    let mut rows: Vec<usize> = (0..tgt.len())
        .filter(|&t| state.cause_rows.is_empty() || state.cause_rows.contains(&t))
        .filter(|&t| {
            let pair = session.map.for_target(t);
            let text = format!(
                "{} {} {}",
                tgt.names()[t],
                pair.map_or("", |p| src.names()[p.source].as_str()),
                pair.and_then(|p| p.bone).map_or("", |b| b.as_str())
            );
            (filter.is_empty() || text.to_lowercase().contains(&filter))
                && (!state.problems_only || !problems(session, t).is_empty())
        })
        .collect();
    // Folding is the tree's: a search or another order shows every match.
    let tree = state.sort == Sort::Hierarchy
        && filter.is_empty()
        && !state.problems_only
        && state.cause_rows.is_empty();
    if tree {
        rows.retain(|&t| !bone_tree::folded_away(tgt.parents(), &state.folded, t));
    }
    sort_rows(session, &mut rows, state.sort, state.sort_descending);
    ui.label(format!(
        "{} of {} target joints mapped; {} shown",
        session.map.len(),
        tgt.len(),
        rows.len()
    ));
    table_ui(ui, session, &rows, selected, state, commands);
}

fn table_ui(
    ui: &mut egui::Ui,
    session: &Session,
    rows: &[usize],
    selected: Option<usize>,
    state: &mut PanelState,
    commands: &mut Vec<Command>,
) {
    // The names get what the fixed columns leave (a wide panel widens them first); each
    // column is then dragged to taste.
    let widths = remembered_name_widths(ui, session, ui.available_width());
    // Columns dragged wider than the panel scroll sideways here; they never widen it.
    egui::ScrollArea::horizontal()
        .id_salt("bone_map_columns")
        .show(ui, |ui| {
            table_inner(ui, (session, widths), rows, selected, state, commands)
        });
}

/// The width of the columns after the two names (bone, method, modes, status), about,
/// with the spacing between the columns and the table's scroll bar.
const FIXED_COLUMNS: f32 = 100.0 + 64.0 + 72.0 + 72.0 + 34.0 + 7.0 * 8.0 + 14.0;

/// First widths of the target and source name columns: room for the longest name as
/// shown (with the tree's indent, or the picker's arrow), within what the panel leaves
/// after the other columns; never below a readable minimum.
/// [`name_widths`], measured once per pair of files and panel width: the table reads them
/// only when it first lays out, and the panel draws every frame.
fn remembered_name_widths(ui: &egui::Ui, session: &Session, panel: f32) -> (f32, f32) {
    let id = egui::Id::unique((
        "bone_map_name_widths",
        &session.source.path,
        &session.target.path,
    ));
    let panel = panel.round();
    if let Some((at, widths)) = ui.data(|d| d.get_temp::<(f32, (f32, f32))>(id))
        && at == panel
    {
        return widths;
    }
    let widths = name_widths(ui, session, panel);
    ui.data_mut(|d| d.insert_temp(id, (panel, widths)));
    widths
}

fn name_widths(ui: &egui::Ui, session: &Session, panel: f32) -> (f32, f32) {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let longest = |names: &[String]| {
        crate::app::names::shown_names(names)
            .into_iter()
            .map(|n| {
                ui.ctx().fonts_mut(|f| {
                    f.layout_no_wrap(n.to_owned(), font.clone(), egui::Color32::WHITE)
                        .size()
                        .x
                })
            })
            .fold(0.0, f32::max)
    };
    let tgt = session.target.skeleton();
    let depth = (0..tgt.len())
        .map(|j| std::iter::successors(tgt.parents()[j], |&p| tgt.parents()[p]).count())
        .max()
        .unwrap_or(0)
        .min(12);
    let name = longest(tgt.names()) + 6.0 * depth as f32 + 30.0;
    let source = longest(session.source.skeleton().names()) + 36.0;
    split_names(panel, name, source)
}

/// The two name columns' widths in a panel `panel` wide, each wanting as much as given:
/// together never more than the other columns leave (the status column stays in view),
/// the target's name the larger share, and one that wants less gives the other the rest.
/// Never below a readable minimum: a panel too narrow for that scrolls the table sideways.
fn split_names(panel: f32, name: f32, source: f32) -> (f32, f32) {
    let spare = (panel - FIXED_COLUMNS).max(0.0);
    let name = name.min((spare * 0.55).max(spare - source));
    let source = source.min(spare - name);
    (name.max(150.0), source.max(120.0))
}

fn table_inner(
    ui: &mut egui::Ui,
    (session, (name_width, source_width)): (&Session, (f32, f32)),
    rows: &[usize],
    selected: Option<usize>,
    state: &mut PanelState,
    commands: &mut Vec<Command>,
) {
    let tgt = session.target.skeleton();
    let depth = |j: usize| std::iter::successors(tgt.parents()[j], |&p| tgt.parents()[p]).count();
    let indent = state.sort == Sort::Hierarchy;
    let parents_of = bone_tree::with_children(tgt.parents());
    let shown = crate::app::names::shown_names(tgt.names());
    let shown_sources = crate::app::names::shown_names(session.source.skeleton().names());
    ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
    let mut table = TableBuilder::new(ui);
    if std::mem::take(&mut state.reveal_selected)
        && let Some(row) = rows.iter().position(|&t| Some(t) == selected)
    {
        table = table.scroll_to_row(row, Some(egui::Align::Center));
    }
    table
        .striped(true)
        .sense(egui::Sense::click())
        .column(
            Column::initial(name_width)
                .at_least(60.0)
                .resizable(true)
                .clip(true),
        )
        .column(
            Column::initial(source_width)
                .at_least(60.0)
                .resizable(true)
                .clip(true),
        )
        .column(Column::initial(100.0).resizable(true).clip(true))
        .column(Column::initial(64.0).resizable(true).clip(true))
        .column(Column::initial(72.0).resizable(true))
        .column(Column::initial(72.0).resizable(true))
        .column(Column::remainder())
        .header(20.0, |mut header| {
            for (title, sort) in COLUMNS {
                header.col(|ui| header_ui(ui, title, sort, state));
            }
        })
        .body(|body| {
            body.rows(20.0, rows.len(), |mut row| {
                let t = rows[row.index()];
                row.set_selected(selected == Some(t));
                let pair = session.map.for_target(t);
                let mut clicked = false;
                let name_text = tgt.names()[t].as_str();
                row.col(|ui| {
                    ui.horizontal(|ui| {
                        if indent {
                            ui.add_space(6.0 * depth(t).min(12) as f32);
                            if parents_of[t] {
                                let open = !state.folded.contains(&t);
                                if bone_tree::fold_toggle(ui, open, name_text).clicked() {
                                    if open {
                                        state.folded.insert(t);
                                    } else {
                                        state.folded.remove(&t);
                                    }
                                }
                            } else {
                                ui.add_space(12.0 + ui.spacing().item_spacing.x);
                            }
                        }
                        clicked |= bone_tree::name_label(ui, shown[t], name_text).clicked();
                    });
                });
                row.col(|ui| {
                    source_combo(
                        ui,
                        (session, &shown_sources),
                        t,
                        name_text,
                        &mut state.source_search,
                        commands,
                    )
                });
                row.col(|ui| {
                    let bone = pair.and_then(|p| p.bone).or(session
                        .target
                        .labels
                        .get(t)
                        .copied()
                        .flatten()
                        .map(|l| l.bone));
                    ui.label(bone.map_or("", |b| b.as_str()));
                });
                row.col(|ui| {
                    if let Some(p) = pair {
                        ui.label(format!("{} {:.2}", p.method.name(), p.confidence));
                    }
                });
                row.col(|ui| mode_combo(ui, t, name_text, pair.map(|p| p.rotation), commands));
                row.col(|ui| {
                    translation_combo(ui, t, name_text, pair.map(|p| p.translation), commands)
                });
                row.col(|ui| status_ui(ui, session, t));
                if clicked || row.response().clicked() {
                    commands.push(Command::SelectTargetJoint(Some(t)));
                }
            });
        });
}

/// A column title that sorts by its column when clicked, and flips the order when clicked
/// again.
fn header_ui(ui: &mut egui::Ui, title: &str, sort: Sort, state: &mut PanelState) {
    let active = state.sort == sort;
    let mark = match (active, state.sort_descending) {
        (false, _) => "",
        (true, false) => " ^",
        (true, true) => " v",
    };
    let shown = if sort == Sort::Status { "(!)" } else { title };
    let text = egui::RichText::new(format!("{shown}{mark}")).strong();
    let response = ui
        .selectable_label(active, text)
        .on_hover_text(format!("Sort by {}", title.to_lowercase()));
    let name = format!("{title}{mark}");
    response
        .widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, active, name.clone()));
    if response.clicked() {
        if active {
            state.sort_descending = !state.sort_descending;
        } else {
            state.sort = sort;
            state.sort_descending = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_leave_the_status_column_in_view() {
        // A 1920-wide window's panel, names longer than it.
        for panel in [700.0, 900.0, 1200.0] {
            let (name, source) = split_names(panel, 2000.0, 2000.0);
            assert!(
                name + source + FIXED_COLUMNS <= panel + 0.5,
                "{panel}: {name} + {source}"
            );
            assert!(name >= source);
        }
        // One that wants little leaves the rest to the other.
        let (name, source) = split_names(900.0, 2000.0, 130.0);
        assert_eq!(source, 130.0);
        assert!((name + source + FIXED_COLUMNS - 900.0).abs() < 0.5);
        // Short names keep their own width.
        assert_eq!(split_names(1200.0, 160.0, 130.0), (160.0, 130.0));
    }
}
