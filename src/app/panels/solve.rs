//! The Solve tab: how the clip-level solve plants feet, keeps them above the floor, lowers
//! the hips, limits joints and mirrors the clip. The panel edits a copy of the settings and
//! pushes one `Edit::SetSolve` when it differs, so every change is undoable, marks the
//! project unsaved, and the live view, quality strip and contact bars follow it.

use crate::app::command::Command;
use crate::core::contacts::ContactThresholds;
use crate::core::retarget::{SolveSettings, Stride};
use crate::session::{Edit, Session};
use eframe::egui;

pub fn solve_ui(ui: &mut egui::Ui, session: &Session, revision: u64, commands: &mut Vec<Command>) {
    let mut s = session.solve.settings;
    switches_ui(ui, &mut s);
    if s.mirror {
        mirror_ui(ui, &mut s.mirror_plane);
    }
    stride_ui(ui, session, commands);
    ui.separator();
    egui::Grid::new("solve_numbers")
        .num_columns(2)
        .spacing([12.0, 6.0])
        .show(ui, |ui| {
            numbers_ui(ui, &mut s);
            ui.end_row();
            contacts_ui(ui, &mut s.contacts);
        });
    ui.separator();
    let defaults = SolveSettings::default();
    let button = egui::Button::new("Defaults");
    if ui
        .add_enabled(s != defaults, button)
        .on_hover_text("Back to the product's solve settings (undoable)")
        .clicked()
    {
        s = defaults;
    }
    if s != session.solve.settings {
        commands.push(Command::Edit(Edit::SetSolve(s)));
    }
    ui.separator();
    super::solve_chains::chains_ui(ui, session, revision, commands);
}

/// How the current clip covers ground on legs of another length (per clip, undoable): its
/// path scaled by leg length, or the source's path kept with the strides warped.
fn stride_ui(ui: &mut egui::Ui, session: &Session, commands: &mut Vec<Command>) {
    let Ok(clip) = session.source_clip(None) else {
        return;
    };
    let current = session.solve.stride(&clip.name);
    let mut kept = current == Stride::SourcePath;
    let tip = format!(
        "On: '{}' travels the source's path in metres, the strides stretched to cover it \
         (plants give way before the hips sink). Off: every step as long as the target's \
         legs make it, the path scaled by leg length",
        clip.name
    );
    if ui
        .checkbox(&mut kept, KEEP_PATH)
        .on_hover_text(tip)
        .changed()
    {
        let stride = if kept {
            Stride::SourcePath
        } else {
            Stride::ScaledByLegs
        };
        commands.push(Command::Edit(Edit::SetStride {
            clip: clip.name.clone(),
            stride,
        }));
    }
}

/// The stride switch's label.
const KEEP_PATH: &str = "Keep the source's path (this clip)";

/// The on/off switches, each with what it does in a tooltip.
fn switches_ui(ui: &mut egui::Ui, s: &mut SolveSettings) {
    let switches: [(&mut bool, &str, &str); 7] = [
        (
            &mut s.plant_feet,
            "Plant feet",
            "Hold the target's feet still where the source's feet are planted",
        ),
        (
            &mut s.floor,
            "Floor",
            "Keep every foot above the target's floor",
        ),
        (
            &mut s.lower_hips,
            "Lower hips",
            "Lower the pelvis where a planted leg cannot reach its foot",
        ),
        (
            &mut s.hand_contacts,
            "Hand contacts",
            "Keep the source's hands together or on one prop, and on the hips, chest or head, \
             where they touch, with arm IK",
        ),
        (
            &mut s.limits,
            "Joint limits",
            "Keep the legs' IK within the humanoid profile's joint limits",
        ),
        (
            &mut s.ik_cache,
            "IK cache",
            "Solve longer legs from the 51-sample IK cache (faster) rather than FABRIK \
             from the solved shape (keeps the source's bends)",
        ),
        (
            &mut s.mirror,
            "Mirror",
            "Mirror the retargeted clip left to right on the target",
        ),
    ];
    // Side by side, wrapped: the legs' and limbs' rows below stay in view.
    ui.horizontal_wrapped(|ui| {
        for (value, label, tip) in switches {
            ui.checkbox(value, label).on_hover_text(tip);
        }
        ui.checkbox(&mut s.keep_out, "Keep limbs out of the body")
            .on_hover_text(
                "Push forearms and hands out of the torso, and a thigh out of the other, \
                 where they go in deeper than the source's own",
            );
    });
}

/// The mirror's plane (found from the rig's symmetry, or a world axis), the hips' own
/// plane, and whether the root's path mirrors too.
fn mirror_ui(ui: &mut egui::Ui, m: &mut crate::core::mirror::MirrorSettings) {
    ui.indent("mirror plane", |ui| {
        axis_ui(ui, "Mirror plane", "From the rig's symmetry", &mut m.axis).on_hover_text(
            "The plane's normal: found from which joints mirror which, or a world axis",
        );
        axis_ui(ui, "Hips plane", "Same as the mirror's", &mut m.hips_axis)
            .on_hover_text("The plane the hips' own turn mirrors in, set apart");
        ui.checkbox(&mut m.hips_translation, "Mirror the path")
            .on_hover_text("A walk curving left curves right; off keeps the root's path");
    });
}

/// An optional axis: automatic, or X, Y or Z of the target's world.
fn axis_ui(
    ui: &mut egui::Ui,
    label: &str,
    auto: &str,
    axis: &mut Option<glam::Vec3>,
) -> egui::Response {
    let named = [
        ("X", glam::Vec3::X),
        ("Y", glam::Vec3::Y),
        ("Z", glam::Vec3::Z),
    ];
    let text = match axis {
        None => auto.to_owned(),
        Some(a) => named
            .iter()
            .find(|(_, v)| a.normalize_or_zero().abs_diff_eq(*v, 1e-4))
            .map_or_else(
                || format!("{:.2} {:.2} {:.2}", a.x, a.y, a.z),
                |(n, _)| (*n).to_owned(),
            ),
    };
    egui::ComboBox::from_label(label)
        .selected_text(text)
        .show_ui(ui, |ui| {
            ui.selectable_value(axis, None, auto);
            for (name, v) in named {
                ui.selectable_value(axis, Some(v), name);
            }
        })
        .response
}

/// Blend time and reach, in the grid.
fn numbers_ui(ui: &mut egui::Ui, s: &mut SolveSettings) {
    let blend = egui::DragValue::new(&mut s.blend_secs)
        .speed(0.005)
        .range(0.0..=1.0)
        .suffix(" s");
    super::labelled(ui, "Blend", blend)
        .on_hover_text("Seconds over which a planted foot eases in and out");
    ui.end_row();
    let mut reach = s.max_extension * 100.0;
    let field = egui::DragValue::new(&mut reach)
        .speed(0.05)
        .range(80.0..=100.0)
        .suffix(" %");
    if super::labelled(ui, "Max extension", field)
        .on_hover_text("How much of a leg's straight length IK may use before the hips lower")
        .changed()
    {
        s.max_extension = reach / 100.0;
    }
}

/// The contact detection's thresholds, shown as percentages of the source's height.
pub(super) fn contacts_ui(ui: &mut egui::Ui, c: &mut ContactThresholds) {
    ui.strong("Contacts");
    ui.end_row();
    let rows: [(&mut f32, &str, &str, &str); 4] = [
        (
            &mut c.enter_height,
            "Enter height",
            " %",
            "A foot plants when it is this low above its lowest point (share of the height)",
        ),
        (
            &mut c.exit_height,
            "Exit height",
            " %",
            "A planted foot lifts only once this high (keep it above the enter height)",
        ),
        (
            &mut c.enter_speed,
            "Enter speed",
            " %/s",
            "A foot plants when it moves slower than this (share of the height per second)",
        ),
        (
            &mut c.exit_speed,
            "Exit speed",
            " %/s",
            "A planted foot lifts only once faster than this",
        ),
    ];
    for (value, label, suffix, tip) in rows {
        percent_ui(ui, value, label, suffix, tip);
        ui.end_row();
    }
    let frames = egui::DragValue::new(&mut c.min_frames).range(1..=60);
    super::labelled(ui, "Min frames", frames)
        .on_hover_text("Shorter runs are passing touches, not contacts");
    ui.end_row();
}

/// A share edited as a percentage.
fn percent_ui(ui: &mut egui::Ui, share: &mut f32, label: &str, suffix: &str, tip: &str) {
    let mut percent = *share * 100.0;
    let field = egui::DragValue::new(&mut percent)
        .speed(0.05)
        .range(0.0..=100.0)
        .max_decimals(2)
        .suffix(suffix);
    if super::labelled(ui, label, field)
        .on_hover_text(tip)
        .changed()
    {
        *share = percent / 100.0;
    }
}
