//! Reference-pose tools for either side: which pose, the container (rotation, scale,
//! translation), per-bone offsets, auto-align, reset, and how well the two poses agree.

use super::PanelState;
use crate::app::command::Command;
use crate::core::{ContainerEdit, PoseSource};
use crate::session::{Edit, Session, SideRole};
use eframe::egui;
use glam::{EulerRot, Quat};

pub fn pose_ui(
    ui: &mut egui::Ui,
    session: &Session,
    selected: Option<usize>,
    state: &mut PanelState,
    commands: &mut Vec<Command>,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Edit:");
        ui.radio_value(&mut state.pose_side_is_source, true, "Source");
        ui.radio_value(&mut state.pose_side_is_source, false, "Target");
    });
    let role = if state.pose_side_is_source {
        SideRole::Source
    } else {
        SideRole::Target
    };
    let side = if state.pose_side_is_source {
        &session.source
    } else {
        &session.target
    };
    reference_source_ui(ui, side, role, commands);
    ui.separator();
    container_ui(ui, side.file.container, role, commands);
    ui.separator();
    let joint = match role {
        SideRole::Target => selected,
        SideRole::Source => selected
            .and_then(|t| session.map.for_target(t))
            .map(|p| p.source),
    };
    bone_offset_ui(ui, side, role, joint, commands);
    ui.separator();
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Auto-align")
            .on_hover_text("Turn the target's limbs to the source's directions")
            .clicked()
        {
            commands.push(Command::Edit(Edit::AutoAlign));
        }
        if ui
            .button("Match heights")
            .on_hover_text("Scale the target so its hips stand as high as the source's")
            .clicked()
        {
            commands.push(Command::Edit(Edit::MatchHeights));
        }
        if ui
            .button("Reset")
            .on_hover_text(
                "Back to the automatic set-up of this side: turned to face +Z, limbs in the T-pose",
            )
            .clicked()
        {
            commands.push(Command::Edit(Edit::ResetPose { side: role }));
        }
        if ui
            .button("Clear all edits")
            .on_hover_text(
                "The file's own pose on this side: no container edit, no bone offsets, no facing fix",
            )
            .clicked()
        {
            commands.push(Command::Edit(Edit::ClearPose { side: role }));
        }
    });
    ui.separator();
    agreement_ui(ui, session);
}

fn reference_source_ui(
    ui: &mut egui::Ui,
    side: &crate::session::Side,
    role: SideRole,
    commands: &mut Vec<Command>,
) {
    let current = side.file.reference.clone();
    ui.horizontal_wrapped(|ui| {
        ui.label("Reference pose:");
        let mut pick = |ui: &mut egui::Ui, source: PoseSource, label: &str| {
            if ui.selectable_label(current == source, label).clicked() && current != source {
                commands.push(Command::Edit(Edit::SetReferenceSource {
                    side: role,
                    source,
                }));
            }
        };
        pick(ui, PoseSource::Bind, "Bind");
        pick(ui, PoseSource::Rest, "Rest");
        if let Some(clip) = side.clips().first() {
            let frame = match &current {
                PoseSource::Frame { frame, .. } => *frame,
                _ => 0,
            };
            pick(
                ui,
                PoseSource::Frame {
                    clip: clip.name.clone(),
                    frame,
                },
                "Clip frame",
            );
            if let PoseSource::Frame { clip, frame } = &current {
                let mut f = *frame;
                let field = egui::DragValue::new(&mut f).range(0..=100_000);
                if super::labelled(ui, "frame", field).changed() {
                    let source = PoseSource::Frame {
                        clip: clip.clone(),
                        frame: f,
                    };
                    commands.push(Command::Edit(Edit::SetReferenceSource {
                        side: role,
                        source,
                    }));
                }
            }
        }
    });
}

/// The fields' order: Y (the turn about up, what a character's facing needs) first and over
/// the full circle, so a half turn reads Y 180 rather than X −180, Z −180.
const ORDER: EulerRot = EulerRot::YXZ;

/// X, Y, Z degrees of `q` in a stable decomposition: rounded to 0.01°, with no −0 and no −180.
pub fn euler_degrees(q: Quat) -> [f32; 3] {
    let (y, x, z) = q.to_euler(ORDER);
    [x, y, z].map(|a| clean_degrees(a.to_degrees()))
}

pub fn from_degrees(d: [f32; 3]) -> Quat {
    Quat::from_euler(
        ORDER,
        d[1].to_radians(),
        d[0].to_radians(),
        d[2].to_radians(),
    )
}

/// Rounded to 0.01°, in (−180, 180], never −0.
pub fn clean_degrees(a: f32) -> f32 {
    let mut a = (a / 0.01).round() * 0.01;
    if a <= -180.0 {
        a += 360.0;
    }
    if a > 180.0 {
        a -= 360.0;
    }
    if a == 0.0 { 0.0 } else { a }
}

/// Three angle fields, with quarter-turn buttons when `quarters`; returns the new rotation
/// when one changed. The degrees the user last typed are kept (per `key`) and shown while
/// they still give the rotation, so +90° twice reads 180, not a decomposition of it.
fn angles_ui(
    ui: &mut egui::Ui,
    key: (&str, usize),
    rotation: Quat,
    quarters: bool,
) -> Option<Quat> {
    let id = ui.make_persistent_id(("typed_angles", key.0, key.1));
    let typed = ui
        .data(|d| d.get_temp::<[f32; 3]>(id))
        .filter(|d| from_degrees(*d).angle_between(rotation) < 1e-3);
    let mut deg = typed.unwrap_or_else(|| euler_degrees(rotation));
    let mut changed = false;
    ui.horizontal_wrapped(|ui| {
        for (axis, value) in ["X", "Y", "Z"].iter().zip(deg.iter_mut()) {
            let field = egui::DragValue::new(value)
                .speed(0.5)
                .range(-180.0..=180.0)
                .suffix("°");
            changed |= super::labelled(ui, axis, field).changed();
        }
    });
    if quarters {
        ui.horizontal_wrapped(|ui| {
            for (i, label) in ["+90° X", "+90° Y", "+90° Z"].into_iter().enumerate() {
                if ui.button(label).clicked() {
                    deg[i] = clean_degrees(deg[i] + 90.0);
                    changed = true;
                }
            }
        });
    }
    if !changed {
        return None;
    }
    let deg = deg.map(clean_degrees);
    ui.data_mut(|d| d.insert_temp(id, deg));
    Some(from_degrees(deg))
}

fn container_ui(
    ui: &mut egui::Ui,
    container: ContainerEdit,
    role: SideRole,
    commands: &mut Vec<Command>,
) {
    let mut edit = container;
    let mut changed = false;
    ui.label("Container (the whole character):");
    ui.label("Rotation");
    let key = (side_key(role), usize::MAX);
    if let Some(q) = angles_ui(ui, key, edit.rotation, true) {
        edit.rotation = q;
        changed = true;
    }
    ui.horizontal_wrapped(|ui| {
        let scale = egui::DragValue::new(&mut edit.scale)
            .speed(0.01)
            .range(0.001..=1000.0);
        changed |= super::labelled(ui, "Scale", scale).changed();
        ui.label("Move");
        let t = &mut edit.translation;
        for (axis, v) in [("x", &mut t.x), ("y", &mut t.y), ("z", &mut t.z)] {
            changed |= super::labelled(ui, axis, egui::DragValue::new(v).speed(0.01)).changed();
        }
    });
    if changed {
        commands.push(Command::Edit(Edit::SetContainer {
            side: role,
            container: edit,
        }));
    }
}

fn bone_offset_ui(
    ui: &mut egui::Ui,
    side: &crate::session::Side,
    role: SideRole,
    joint: Option<usize>,
    commands: &mut Vec<Command>,
) {
    let Some(joint) = joint else {
        ui.label("Select a bone (click it in a viewport or the bone map) to rotate it.");
        return;
    };
    let name = &side.skeleton().names()[joint];
    let offset = side.bone_offset(joint);
    ui.label(format!("Rotate {name}:"));
    ui.horizontal_wrapped(|ui| {
        if let Some(q) = angles_ui(ui, (side_key(role), joint), offset, false) {
            commands.push(Command::Edit(Edit::SetBoneOffset {
                side: role,
                joint,
                rotation: q,
            }));
        }
        if ui.button("Clear").clicked() {
            commands.push(Command::Edit(Edit::SetBoneOffset {
                side: role,
                joint,
                rotation: Quat::IDENTITY,
            }));
        }
    });
    if role == SideRole::Target {
        ui.weak("Or drag a ring around it in the target viewport (X red, Y green, Z blue).");
    }
}

fn side_key(role: SideRole) -> &'static str {
    role.name()
}

fn agreement_ui(ui: &mut egui::Ui, session: &Session) {
    let mut rows = session.reference_agreement();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mean = rows.iter().map(|r| r.1).sum::<f32>() / rows.len().max(1) as f32;
    ui.label(format!(
        "Reference poses agree: worst {:.1}°, mean {mean:.1}° over {} mapped bones. Worst first:",
        rows.first().map_or(0.0, |r| r.1),
        rows.len()
    ));
    egui::ScrollArea::vertical()
        .id_salt("agreement")
        .show(ui, |ui| {
            egui::Grid::new("agreement").striped(true).show(ui, |ui| {
                for (joint, angle) in rows.iter().take(30) {
                    ui.label(&session.target.skeleton().names()[*joint]);
                    ui.monospace(format!("{angle:6.1}°"));
                    ui.end_row();
                }
            });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_half_turn_reads_as_one_and_nothing_reads_minus_zero() {
        let half = Quat::from_rotation_y(std::f32::consts::PI);
        assert_eq!(euler_degrees(half), [0.0, 180.0, 0.0]);
        let quarter = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        assert_eq!(euler_degrees(quarter), [0.0, 90.0, 0.0]);
        let tiny = Quat::from_rotation_x(-1e-7) * Quat::from_rotation_z(-1e-7);
        for a in euler_degrees(tiny) {
            assert!(a == 0.0 && a.is_sign_positive(), "{a}");
        }
        assert_eq!(clean_degrees(-180.0), 180.0);
        assert_eq!(clean_degrees(270.0), -90.0);
        for d in [[10.0, 170.0, -30.0], [0.0, -90.0, 45.0], [80.0, 0.0, 0.0]] {
            let back = euler_degrees(from_degrees(d));
            for (a, b) in back.iter().zip(d) {
                assert!((a - b).abs() < 0.02, "{d:?} -> {back:?}");
            }
        }
    }
}
