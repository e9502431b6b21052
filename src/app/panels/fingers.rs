//! The finger list, a section of the Bone map tab: each finger both hands have and its curl
//! on both sides at the frame shown (read-only), to see the fingers carried across.

use crate::core::hands::Digit;
use crate::session::Session;
use eframe::egui;
use glam::Mat4;

fn digit_name(d: Digit) -> &'static str {
    match d {
        Digit::Thumb => "thumb",
        Digit::Index => "index",
        Digit::Middle => "middle",
        Digit::Ring => "ring",
        Digit::Little => "little",
    }
}

fn degrees(v: Option<f32>) -> String {
    v.map_or("-".to_owned(), |d| format!("{d:.0}°"))
}

/// The "Fingers" section, closed at first; `posed` holds the two viewports' world matrices
/// (source, target) at the frame shown.
pub fn fingers_ui(ui: &mut egui::Ui, session: &Session, posed: [&[Mat4]; 2]) {
    let curls = session.finger_curls(posed[0], posed[1]);
    if curls.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("Fingers ({})", curls.len()))
        .id_salt("fingers_section")
        .default_open(false)
        .show(ui, |ui| {
            egui::Grid::new("fingers_grid")
                .num_columns(3)
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("Finger");
                    ui.strong("Source curl");
                    ui.strong("Target curl");
                    ui.end_row();
                    for c in &curls {
                        let side = if c.left { "left" } else { "right" };
                        let name = format!("{side} {}", digit_name(c.digit));
                        ui.label(&name);
                        ui.label(degrees(c.source_deg))
                            .on_hover_text(format!("{name}: source curl"));
                        ui.label(degrees(c.target_deg))
                            .on_hover_text(format!("{name}: target curl"));
                        ui.end_row();
                    }
                });
        })
        .header_response
        .on_hover_text(
            "Each finger's curl at the frame shown (the bends between its segments, in the \
             palm's frame): source → target",
        );
}
