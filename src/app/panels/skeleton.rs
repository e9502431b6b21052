//! The Skeleton tab: both sides' chain skeletons (`core::chains`) as lists — name, kind,
//! joints and tags — with each target chain's source chain, overridable in a combo box, and
//! a `(!)` on target chains no pair reaches. A chain picked in a list is highlighted in the
//! viewports and edited below the toolbar (`chain_editor`). Above the lists, how each
//! file was read (`reading`).

use super::PanelState;
use super::quality_tab::FAIL_COLOR;
use crate::app::command::Command;
use crate::core::chains::{ChainSkeleton, kind_name};
use crate::session::{Edit, Session, SideRole, tags_text};
use eframe::egui;

/// A chain picked in one of the lists.
pub type ChainPick = (SideRole, usize);

pub fn skeleton_ui(
    ui: &mut egui::Ui,
    session: &Session,
    state: &mut PanelState,
    commands: &mut Vec<Command>,
) {
    toolbar_ui(ui, commands);
    // A rebuild may leave fewer chains than the pick pointed at.
    if let Some((side, i)) = state.chain
        && i >= side_of(session, side).chains.len()
    {
        state.chain = None;
    }
    if let Some(pick) = state.chain {
        ui.separator();
        super::chain_editor::chain_editor_ui(ui, session, pick, commands);
    }
    ui.separator();
    // Both ways: long joint names scroll sideways instead of widening the panel for good.
    egui::ScrollArea::both()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            super::reading::reading_ui(ui, session, commands);
            ui.add_space(6.0);
            ui.strong("Target chains");
            chains_grid(ui, session, SideRole::Target, state, commands);
            ui.add_space(6.0);
            ui.strong("Source chains");
            chains_grid(ui, session, SideRole::Source, state, commands);
        });
}

pub(super) fn side_of(session: &Session, side: SideRole) -> &ChainSkeleton {
    match side {
        SideRole::Source => &session.source.chains,
        SideRole::Target => &session.target.chains,
    }
}

fn toolbar_ui(ui: &mut egui::Ui, commands: &mut Vec<Command>) {
    ui.horizontal_wrapped(|ui| {
        let buttons: [(&str, &str, Edit); 3] = [
            (
                "Rebuild source chains",
                "Build the source's chains again from its shape, dropping your edits",
                Edit::RebuildChains {
                    side: SideRole::Source,
                },
            ),
            (
                "Rebuild target chains",
                "Build the target's chains again from its shape, dropping your edits",
                Edit::RebuildChains {
                    side: SideRole::Target,
                },
            ),
            (
                "Re-map from chains",
                "Drive every target chain by the source chain its tags match best, \
                 joint by joint along the chains (names are not looked at)",
                Edit::RemapChains,
            ),
        ];
        for (label, tip, edit) in buttons {
            if ui.button(label).on_hover_text(tip).clicked() {
                commands.push(Command::Edit(edit));
            }
        }
    });
}

/// One row per chain of `side`: name (click to pick), kind, joints, tags; target rows add
/// their source chain and the unmapped mark.
fn chains_grid(
    ui: &mut egui::Ui,
    session: &Session,
    side: SideRole,
    state: &mut PanelState,
    commands: &mut Vec<Command>,
) {
    let chains = side_of(session, side);
    let names = chains.names();
    let joint_names = match side {
        SideRole::Source => session.source.skeleton().names(),
        SideRole::Target => session.target.skeleton().names(),
    };
    let unmapped = match side {
        SideRole::Target => session.unmapped_target_chains(),
        SideRole::Source => Vec::new(),
    };
    let target = side == SideRole::Target;
    egui::Grid::new(("chains", target))
        .striped(true)
        .num_columns(if target { 6 } else { 4 })
        .show(ui, |ui| {
            // What a user acts on first, so a narrow panel scrolls away only the details.
            let titles: &[&str] = if target {
                &["Chain", "Source chain", "", "Kind", "Joints", "Tags"]
            } else {
                &["Chain", "Kind", "Joints", "Tags"]
            };
            for t in titles {
                ui.label(egui::RichText::new(*t).weak());
            }
            ui.end_row();
            for (i, c) in chains.chains.iter().enumerate() {
                let picked = state.chain == Some((side, i));
                if ui.selectable_label(picked, &names[i]).clicked() {
                    state.chain = (!picked).then_some((side, i));
                }
                if target {
                    source_combo(ui, session, i, &names[i], commands);
                    if unmapped.contains(&i) {
                        ui.colored_label(FAIL_COLOR, "(!)").on_hover_text(
                            "No pair reaches this chain: none of its joints is mapped. \
                             Pick a source chain, or map its joints in the Bone map tab.",
                        );
                    } else {
                        ui.label("");
                    }
                }
                ui.label(kind_name(c.kind));
                ui.label(joints_text(joint_names, &c.joints))
                    .on_hover_text(joints_list(joint_names, &c.joints));
                ui.label(tags_text(c));
                ui.end_row();
            }
        });
}

/// "first … last (n)", or the one joint's name.
pub fn joints_text(names: &[String], joints: &[usize]) -> String {
    match joints {
        [] => String::new(),
        [one] => names[*one].clone(),
        [first, .., last] => format!("{} … {} ({})", names[*first], names[*last], joints.len()),
    }
}

fn joints_list(names: &[String], joints: &[usize]) -> String {
    joints
        .iter()
        .map(|&j| names[j].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The source chain driving target chain `t`, or "(none)", with every source chain to
/// pick from; a pick re-pairs the chain's joints along the chosen one.
fn source_combo(
    ui: &mut egui::Ui,
    session: &Session,
    t: usize,
    name: &str,
    commands: &mut Vec<Command>,
) {
    let current = session.chain_source(t);
    let source_names = session.source.chains.names();
    let joint_names = session.source.skeleton().names();
    let text = current.map_or("(none)".to_owned(), |s| source_names[s].clone());
    let mut picked = None;
    let combo = egui::ComboBox::from_id_salt(("chain_source", t))
        .selected_text(text)
        .width(130.0)
        .show_ui(ui, |ui| {
            if ui.selectable_label(current.is_none(), "(none)").clicked() {
                picked = Some(None);
            }
            for (s, c) in session.source.chains.chains.iter().enumerate() {
                let item = format!(
                    "{}: {}",
                    source_names[s],
                    joints_text(joint_names, &c.joints)
                );
                if ui.selectable_label(current == Some(s), item).clicked() {
                    picked = Some(Some(s));
                }
            }
        });
    super::bone_map_cells::name_widget(&combo.response, format!("{name} source chain"));
    if let Some(source_chain) = picked.filter(|p| *p != current) {
        commands.push(Command::Edit(Edit::SetChainSource {
            target_chain: t,
            source_chain,
        }));
    }
}

/// The joints to highlight in the source (0) and target (1) viewports for a pick: the
/// chain itself, and for a target chain also the source chain that drives it.
pub fn highlights(session: &Session, pick: Option<ChainPick>) -> [Vec<usize>; 2] {
    let joints = |chains: &ChainSkeleton, i: usize| {
        chains
            .chains
            .get(i)
            .map_or(Vec::new(), |c| c.joints.clone())
    };
    match pick {
        None => [Vec::new(), Vec::new()],
        Some((SideRole::Source, i)) => [joints(&session.source.chains, i), Vec::new()],
        Some((SideRole::Target, i)) => [
            session
                .chain_source(i)
                .map_or(Vec::new(), |s| joints(&session.source.chains, s)),
            joints(&session.target.chains, i),
        ],
    }
}
