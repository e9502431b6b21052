//! The hand contact bars under the feet's: one row per hand touch the arms keep (hands
//! together, a hand on the hips, chest or head), a bar for each of the source's contacts,
//! on the scrubber's rail as the feet's are. A click on a bar goes to its start; they are
//! found, not drawn by hand (the Solve tab's Hand contacts switch turns them off).

use super::contact_bars::{ContactBars, bar_span, frame_time, marker_ui, name_ui};
use super::{ClipInfo, Playback};
use eframe::egui;

/// Height of one row in points (the feet's).
const ROW_HEIGHT: f32 = 14.0;

/// Draws one row per hand touch of `bars` under a rail spanning `rail` (x, in points).
pub fn hand_bars_ui(
    ui: &mut egui::Ui,
    rail: egui::Rangef,
    bars: &ContactBars,
    playback: &mut Playback,
    clip: &ClipInfo,
) {
    for touch in &bars.hands {
        let (row, _) = ui.allocate_exact_size(
            egui::vec2(ui.available_width(), ROW_HEIGHT),
            egui::Sense::hover(),
        );
        let lane = egui::Rect::from_x_y_ranges(rail, row.y_range().shrink(1.0));
        ui.painter()
            .rect_filled(lane, 2.0, ui.visuals().extreme_bg_color);
        for (i, contact) in touch.contacts.iter().enumerate() {
            let rect =
                egui::Rect::from_x_y_ranges(bar_span(contact, bars.frames, rail), lane.y_range());
            let id = ui.scope_id().with(("hand contact", &touch.foot, i));
            let response = ui.interact(rect, id, egui::Sense::click());
            let label = format!("{} contact {}", touch.foot, i + 1);
            response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
            let color = if response.hovered() {
                egui::Color32::from_rgb(230, 170, 90)
            } else {
                egui::Color32::from_rgb(200, 135, 60)
            };
            ui.painter().rect_filled(rect, 2.0, color);
            let tip = format!(
                "{}, frames {}–{}: kept on the target by arm IK. Click to go to its start.",
                touch.foot, contact.start, contact.end
            );
            if response.on_hover_text(tip).clicked() {
                playback.time_secs = frame_time(contact.start, bars.frames, clip);
                playback.playing = false;
            }
        }
        name_ui(ui, &touch.foot, lane);
        marker_ui(ui, rail, lane, playback, clip);
    }
    if !bars.hands.is_empty() {
        ui.add_space(2.0);
    }
}
