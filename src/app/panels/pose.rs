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
    ui.horizontal(|ui| {
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
    ui.horizontal(|ui| {
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
            .on_hover_text("No container edit, no bone offsets on this side")
            .clicked()
        {
            commands.push(Command::Edit(Edit::ResetPose { side: role }));
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
    ui.horizontal(|ui| {
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

fn euler_degrees(q: Quat) -> [f32; 3] {
    let (x, y, z) = q.to_euler(EulerRot::XYZ);
    [x.to_degrees(), y.to_degrees(), z.to_degrees()]
}

fn from_degrees(d: [f32; 3]) -> Quat {
    Quat::from_euler(
        EulerRot::XYZ,
        d[0].to_radians(),
        d[1].to_radians(),
        d[2].to_radians(),
    )
}

/// Three angle fields; returns the new rotation when one changed.
fn angles_ui(ui: &mut egui::Ui, rotation: Quat) -> Option<Quat> {
    let mut deg = euler_degrees(rotation);
    let mut changed = false;
    for (axis, value) in ["X", "Y", "Z"].iter().zip(deg.iter_mut()) {
        let field = egui::DragValue::new(value)
            .speed(0.5)
            .range(-180.0..=180.0)
            .suffix("°");
        changed |= super::labelled(ui, axis, field).changed();
    }
    changed.then(|| from_degrees(deg))
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
    ui.horizontal(|ui| {
        ui.label("Rotation");
        if let Some(q) = angles_ui(ui, edit.rotation) {
            edit.rotation = q;
            changed = true;
        }
    });
    ui.horizontal(|ui| {
        for (label, axis) in [
            ("+90° X", glam::Vec3::X),
            ("+90° Y", glam::Vec3::Y),
            ("+90° Z", glam::Vec3::Z),
        ] {
            if ui.button(label).clicked() {
                edit.rotation = (Quat::from_axis_angle(axis, std::f32::consts::FRAC_PI_2)
                    * edit.rotation)
                    .normalize();
                changed = true;
            }
        }
    });
    ui.horizontal(|ui| {
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
    ui.horizontal(|ui| {
        ui.label(format!("Rotate {name}:"));
        if let Some(q) = angles_ui(ui, offset) {
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
