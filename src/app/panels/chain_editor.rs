//! The chain picked in the Skeleton tab, edited: its four tags and where it starts and
//! ends. Every change is one `Edit::SetChains` (one undo step) with the side's chains as
//! they would be after it; the ends offer only the moves `session::start_choices` and
//! `session::end_choices` allow.

use super::skeleton::{ChainPick, side_of};
use crate::app::command::Command;
use crate::core::chains::{
    Chain, ChainSkeleton, Depth, Height, Lateral, LimbType, depth_word, height_word, lateral_word,
};
use crate::session::{Edit, Session, SideRole, end_choices, start_choices, with_end, with_start};
use eframe::egui;

pub fn chain_editor_ui(
    ui: &mut egui::Ui,
    session: &Session,
    (side, i): ChainPick,
    commands: &mut Vec<Command>,
) {
    let chains = side_of(session, side);
    let Some(chain) = chains.chains.get(i) else {
        return;
    };
    let skeleton = match side {
        SideRole::Source => session.source.skeleton(),
        SideRole::Target => session.target.skeleton(),
    };
    let side_word = side.title();
    ui.horizontal_wrapped(|ui| {
        ui.strong(format!("{side_word} chain: {}", chains.names()[i]));
        ui.label(format!(
            "({}, highlighted in the viewport)",
            crate::core::chains::kind_name(chain.kind)
        ));
    });
    let mut edited: Option<ChainSkeleton> = None;
    egui::Grid::new("chain_editor")
        .num_columns(4)
        .spacing([8.0, 4.0])
        .show(ui, |ui| {
            if let Some(tags) = tags_ui(ui, chain) {
                let mut c = chains.clone();
                c.chains[i].tags = tags;
                edited = Some(c);
            }
            let (parents, names) = (skeleton.parents(), skeleton.names());
            ui.label("Start");
            let starts = start_choices(chains, parents, i);
            if let Some(j) = joint_combo(ui, "Start", chain.start(), &starts, names) {
                edited = with_start(chains, parents, i, j);
            }
            ui.label("End");
            let ends = end_choices(chains, parents, i);
            if let Some(j) = joint_combo(ui, "End", chain.end(), &ends, names) {
                edited = with_end(chains, parents, i, j);
            }
            ui.end_row();
        });
    if let Some(chains) = edited {
        commands.push(Command::Edit(Edit::SetChains { side, chains }));
    }
}

/// The four tag pickers, two to a row; the tags as picked when one changed.
fn tags_ui(ui: &mut egui::Ui, chain: &Chain) -> Option<crate::core::chains::Tags> {
    let mut tags = chain.tags;
    let before = tags;
    ui.label("Depth");
    pick(
        ui,
        "Depth",
        &mut tags.depth,
        &[Depth::Front, Depth::Center, Depth::Back],
        |d| depth_word(d).unwrap_or("center"),
    );
    ui.label("Height");
    pick(
        ui,
        "Height",
        &mut tags.height,
        &[Height::Bottom, Height::Center, Height::Up],
        |h| height_word(h).unwrap_or("center"),
    );
    ui.end_row();
    ui.label("Lateral");
    pick(
        ui,
        "Lateral",
        &mut tags.lateral,
        &[Lateral::Left, Lateral::Center, Lateral::Right],
        |l| lateral_word(l).unwrap_or("center"),
    );
    ui.label("Limb type");
    pick(
        ui,
        "Limb type",
        &mut tags.limb,
        &[LimbType::Leg, LimbType::Grasper, LimbType::Generic],
        |l| match l {
            LimbType::Leg => "leg",
            LimbType::Grasper => "grasper",
            LimbType::Generic => "generic",
        },
    );
    ui.end_row();
    (tags != before).then_some(tags)
}

/// A combo over `options`, named `name` for screen readers and tests.
fn pick<T: Copy + PartialEq>(
    ui: &mut egui::Ui,
    name: &str,
    value: &mut T,
    options: &[T],
    word: fn(T) -> &'static str,
) {
    let combo = egui::ComboBox::from_id_salt(("chain_tag", name))
        .selected_text(word(*value))
        .width(90.0)
        .show_ui(ui, |ui| {
            for &o in options {
                ui.selectable_value(value, o, word(o));
            }
        });
    super::bone_map_cells::name_widget(&combo.response, format!("Chain {}", name.to_lowercase()));
}

/// A combo over the joints a chain end may move to; the joint picked, if another.
fn joint_combo(
    ui: &mut egui::Ui,
    name: &str,
    current: usize,
    options: &[usize],
    names: &[String],
) -> Option<usize> {
    let mut picked = None;
    let combo = egui::ComboBox::from_id_salt(("chain_end", name))
        .selected_text(&names[current])
        .width(130.0)
        .show_ui(ui, |ui| {
            for &j in options {
                if ui.selectable_label(j == current, &names[j]).clicked() && j != current {
                    picked = Some(j);
                }
            }
        });
    super::bone_map_cells::name_widget(&combo.response, format!("Chain {}", name.to_lowercase()));
    picked
}
