//! The Reading section (Skeleton tab): how each side's file was read — unit, up, facing,
//! the joints taken as the body, which chain is which limb — with the evidence and the
//! runner-up; another unit or up picked for a BVH, another unit for an FBX (one undoable
//! edit, saved in the project); and a skin bound to joints the map leaves still shown as
//! the problem it is.

use super::quality_tab::FAIL_COLOR;
use crate::app::command::Command;
use crate::app::names::drawable;
use crate::core::chains::{Lateral, lateral_word};
use crate::core::{Axis, Unit};
use crate::io::project::BodyJoints;
use crate::session::{
    Choice, Edit, LimbReading, Session, Side, SideReading, SideRole, first_few, side_reading,
};
use eframe::egui;

pub fn reading_ui(ui: &mut egui::Ui, session: &Session, commands: &mut Vec<Command>) {
    still_skin_ui(ui, session);
    for role in [SideRole::Source, SideRole::Target] {
        let side = match role {
            SideRole::Source => &session.source,
            SideRole::Target => &session.target,
        };
        let file = side.path.file_name().map_or(String::new(), |f| {
            drawable(&f.to_string_lossy()).into_owned()
        });
        let reading = side_reading(side);
        let role_word = role.name();
        let title = format!(
            "Reading: {role_word} ({file}): {}, {} up",
            reading.unit.value, reading.up.value
        );
        // Open where a reading was weighed against another; a declared one needs no look.
        let weighed = reading.unit.runner_up.is_some() || reading.up.runner_up.is_some();
        egui::CollapsingHeader::new(title)
            .id_salt(("reading", role == SideRole::Source))
            .default_open(weighed)
            .show(ui, |ui| {
                side_ui(ui, &reading, side, role, commands);
            });
    }
}

/// The target's skin on joints the map leaves still: the mesh between them and the body
/// tears as soon as the body moves.
fn still_skin_ui(ui: &mut egui::Ui, session: &Session) {
    let still = session.still_skinned_joints();
    if still.is_empty() {
        return;
    }
    let names = session.target.skeleton().names();
    let shown = first_few(still.iter().map(|&j| names[j].clone()), still.len(), 4);
    let text = format!(
        "(!) The target's skin is bound to {} joint(s) the map leaves still ({shown}): the \
         mesh tears between them and the moving body. Map them, or a joint above them.",
        still.len(),
    );
    ui.add(egui::Label::new(egui::RichText::new(drawable(&text)).color(FAIL_COLOR)).wrap());
}

fn side_ui(
    ui: &mut egui::Ui,
    r: &SideReading,
    side: &Side,
    role: SideRole,
    commands: &mut Vec<Command>,
) {
    let picked = (side.file.unit, side.file.up);
    egui::Grid::new(("reading_grid", role == SideRole::Source))
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            ui.label("Unit");
            ui.vertical(|ui| {
                if r.unit_choosable {
                    let units = Unit::ALL.map(|u| (Some(u), u.name()));
                    if let Some(unit) = pick(ui, ("unit", role), picked.0, &r.unit, &units) {
                        commands.push(Command::Edit(Edit::SetReading {
                            side: role,
                            unit,
                            up: picked.1,
                        }));
                    }
                }
                choice_ui(ui, &r.unit);
            });
            ui.end_row();
            ui.label("Up");
            ui.vertical(|ui| {
                if r.up_choosable {
                    let axes = [
                        Axis::PosY,
                        Axis::PosZ,
                        Axis::NegZ,
                        Axis::NegY,
                        Axis::PosX,
                        Axis::NegX,
                    ]
                    .map(|a| (Some(a), a.name()));
                    if let Some(up) = pick(ui, ("up", role), picked.1, &r.up, &axes) {
                        commands.push(Command::Edit(Edit::SetReading {
                            side: role,
                            unit: picked.0,
                            up,
                        }));
                    }
                }
                choice_ui(ui, &r.up);
            });
            ui.end_row();
            ui.label("Facing");
            ui.vertical(|ui| {
                facing_turns(ui, side, role, commands);
                ui.add(egui::Label::new(drawable(&r.facing)).wrap());
            });
            ui.end_row();
            ui.label("Body");
            ui.vertical(|ui| {
                if r.body_choosable {
                    body_pick(ui, r, role, commands);
                }
                ui.label(match r.body_joints {
                    Some(n) if r.body == BodyJoints::Skin => {
                        format!("{n} of {} joints deform the skin", r.joints)
                    }
                    Some(_) => format!("all {} joints, whatever the skin says", r.joints),
                    None => format!("{} joints; no skin says which are the body", r.joints),
                });
            });
            ui.end_row();
            ui.label("Limbs");
            ui.vertical(|ui| {
                if r.limbs.is_empty() {
                    ui.label("none found");
                }
                for limb in &r.limbs {
                    limb_ui(ui, limb, role, commands);
                }
            });
            ui.end_row();
        });
}

/// The facing read picked over: the side turned about up by a quarter or a half turn more
/// (a figure read facing away or sideways), one undoable container edit saved in the
/// project, as the Pose tab's turn.
fn facing_turns(ui: &mut egui::Ui, side: &Side, role: SideRole, commands: &mut Vec<Command>) {
    let word = role.title();
    ui.horizontal(|ui| {
        for (label, degrees) in [
            ("Turn 180°", 180.0f32),
            ("Turn 90° left", 90.0),
            ("Turn 90° right", -90.0),
        ] {
            let b = ui.small_button(label);
            super::bone_map_cells::name_widget(&b, format!("{word} facing: {label}"));
            if b.clicked() {
                let mut container = side.file.container;
                let turn = glam::Quat::from_rotation_y(degrees.to_radians());
                container.rotation = (turn * container.rotation).normalize();
                container.translation = turn * container.translation;
                commands.push(Command::Edit(Edit::SetContainer {
                    side: role,
                    container,
                }));
            }
        }
    });
}

/// The joints taken as the body: the skin's (controls and helpers left out) or every joint
/// (a skin bound to a few joints made helpers of the limbs); picking re-reads the side and
/// makes the map again, one undoable edit.
fn body_pick(ui: &mut egui::Ui, r: &SideReading, role: SideRole, commands: &mut Vec<Command>) {
    let word = |b: BodyJoints| match b {
        BodyJoints::Skin => "the skin's joints",
        BodyJoints::All => "every joint",
    };
    let mut body = r.body;
    let combo = egui::ComboBox::from_id_salt(("body_joints", role == SideRole::Source))
        .selected_text(word(body))
        .show_ui(ui, |ui| {
            for b in [BodyJoints::Skin, BodyJoints::All] {
                ui.selectable_value(&mut body, b, word(b));
            }
        });
    let side = role.title();
    super::bone_map_cells::name_widget(&combo.response, format!("{side} body"));
    if body != r.body {
        commands.push(Command::Edit(Edit::SetBodyJoints { side: role, body }));
    }
}

/// One limb: its side as read, which the user may pick over (its twin read on that side
/// takes its old one, and the map follows the chains), then its name and ends; flagged
/// when another limb of its place and kind is read on the same side.
fn limb_ui(ui: &mut egui::Ui, limb: &LimbReading, role: SideRole, commands: &mut Vec<Command>) {
    ui.horizontal_wrapped(|ui| {
        let word = |l: Lateral| lateral_word(l).unwrap_or("middle");
        let mut lateral = limb.lateral;
        let side = role.title();
        let combo =
            egui::ComboBox::from_id_salt(("limb_side", role == SideRole::Source, limb.chain))
                .selected_text(word(lateral))
                .width(70.0)
                .show_ui(ui, |ui| {
                    for l in [Lateral::Left, Lateral::Center, Lateral::Right] {
                        ui.selectable_value(&mut lateral, l, word(l));
                    }
                });
        super::bone_map_cells::name_widget(
            &combo.response,
            format!("{side} side of {}", limb.name),
        );
        if lateral != limb.lateral {
            commands.push(Command::Edit(Edit::SetLimbSide {
                side: role,
                chain: limb.chain,
                lateral,
            }));
        }
        let text = drawable(&format!("{}: {}", limb.name, limb.ends)).into_owned();
        if limb.shares_side {
            let warn = format!("(!) {text}: another limb is read on this side; pick its side");
            ui.add(egui::Label::new(egui::RichText::new(warn).color(FAIL_COLOR)).wrap());
        } else {
            ui.add(egui::Label::new(text).wrap());
        }
    });
}

/// How a reading was taken, its evidence and its runner-up, each on its own line under the
/// picker (wrapped beside it, a long piece of evidence ran over the next row).
fn choice_ui(ui: &mut egui::Ui, c: &Choice) {
    let mut text = format!("{} ({})", c.value, c.how);
    if let Some(r) = &c.runner_up {
        text.push_str(&format!("; runner-up {r}"));
    }
    let label = ui.add(egui::Label::new(drawable(&text)).wrap());
    if let Some(e) = &c.evidence {
        label.on_hover_text(drawable(e));
        ui.add(egui::Label::new(egui::RichText::new(drawable(e)).weak()).wrap());
    }
}

/// The reading the file gives without a pick: how it was taken and its value ("declared:
/// +Y", "detected: cm"), or, while a pick overrides it, what it was read as before.
fn as_read(reading: &Choice) -> String {
    match (reading.how, &reading.runner_up) {
        ("override", Some(before)) => format!("as read: {before}"),
        (how, _) => format!("{how}: {}", reading.value),
    }
}

/// A combo of the reading as the file gives it and `options`; the new pick when the user changed it.
fn pick<T: Copy + PartialEq>(
    ui: &mut egui::Ui,
    id: (&str, SideRole),
    current: Option<T>,
    reading: &Choice,
    options: &[(Option<T>, &str)],
) -> Option<Option<T>> {
    let shown = options
        .iter()
        .find(|(v, _)| *v == current && current.is_some())
        .map_or_else(|| as_read(reading), |(_, n)| (*n).to_owned());
    let mut chosen = current;
    let combo = egui::ComboBox::from_id_salt((id.0, id.1 == SideRole::Source))
        .selected_text(shown)
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut chosen, None, as_read(reading));
            for (v, name) in options {
                ui.selectable_value(&mut chosen, *v, *name);
            }
        });
    let side = id.1.title();
    super::bone_map_cells::name_widget(&combo.response, format!("{side} {}", id.0));
    (chosen != current).then_some(chosen)
}
