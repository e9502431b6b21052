//! The contact bars under the quality strip: one row per planted target foot, a bar for
//! each source contact that plants it, placed where its frames sit on the scrubber's rail
//! (so they line up with the strip and the handle). A click on a bar goes to its start.
//! The contacts are found in the background (`tasks::keyed`) on every edit; the Solve tab's
//! thresholds widen or narrow them. They can be edited by hand: drag a bar's ends or its
//! body, double-click an empty lane to add one, right-click to delete one or go back to
//! the detected contacts. An edit replaces that foot's contacts on this clip
//! (`Edit::SetContacts`, undoable, saved in the project).

use super::{ClipInfo, Playback};
use crate::core::contacts::FootContact;
use crate::session::FootContacts;
use eframe::egui;

/// Height of one foot's row in points.
const ROW_HEIGHT: f32 = 14.0;

/// The planted feet of a clip and how many output frames their contacts count in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactBars {
    pub frames: usize,
    pub feet: Vec<FootContacts>,
    /// Per hand touch the arms keep, its contacts (`hand_bars`).
    pub hands: Vec<FootContacts>,
    /// Feet whose contacts on this clip were drawn by hand.
    pub drawn: Vec<String>,
    /// The clip's first key and length, in seconds: frame k of `frames` is at
    /// `start_secs + k / (frames - 1) * duration_secs`.
    pub start_secs: f32,
    pub duration_secs: f32,
}

impl ContactBars {
    /// Contacts over this clip's frames as the seconds a project keeps.
    pub fn spans(&self, contacts: &[FootContact]) -> Vec<(f32, f32)> {
        let step = self.duration_secs / (self.frames.max(2) - 1) as f32;
        let times: Vec<f32> = (0..self.frames.max(1))
            .map(|k| self.start_secs + k as f32 * step)
            .collect();
        crate::core::retarget::contacts_to_spans(contacts, &times)
    }
}

/// A foot's contacts as the user left them: `None` goes back to the detected ones.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactChange {
    pub foot: String,
    pub contacts: Option<Vec<FootContact>>,
}

/// One bar as last drawn: its foot, contact and rectangle on screen.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnBar {
    pub foot: String,
    pub contact: FootContact,
    pub rect: egui::Rect,
}

/// The x span of frames `start..=end` of `frames` along `rail`: frame k sits at
/// k/(frames-1) of the clip, and a bar runs half a frame either side of its ends, as the
/// quality strip's slices do.
pub fn bar_span(contact: &FootContact, frames: usize, rail: egui::Rangef) -> egui::Rangef {
    let at = |k: f32| {
        let t = if frames > 1 {
            k / (frames - 1) as f32
        } else {
            0.5
        };
        rail.min + t.clamp(0.0, 1.0) * rail.span()
    };
    egui::Rangef::new(at(contact.start as f32 - 0.5), at(contact.end as f32 + 0.5))
}

/// The seconds from the clip's start of output frame `frame` of `frames`.
pub(super) fn frame_time(frame: usize, frames: usize, clip: &ClipInfo) -> f32 {
    let t = frame as f32 / (frames.max(2) - 1) as f32;
    t.clamp(0.0, 1.0) * clip.duration_secs
}

/// The frame of `frames` under x along `rail` (frame k at k/(frames-1) of the rail).
pub fn frame_at(x: f32, frames: usize, rail: egui::Rangef) -> usize {
    let t = ((x - rail.min) / rail.span().max(1e-3)).clamp(0.0, 1.0);
    (t * (frames.max(1) - 1) as f32).round() as usize
}

/// How a kind of row draws its bars: colours and the hover text of one bar.
pub(super) struct BarLook {
    pub color: egui::Color32,
    pub hovered: egui::Color32,
    /// The hover text of a bar of `name` over `contact`.
    pub tip: fn(name: &str, contact: &FootContact) -> String,
}

/// The feet's bars.
const FEET: BarLook = BarLook {
    color: egui::Color32::from_rgb(70, 130, 210),
    hovered: egui::Color32::from_rgb(110, 170, 240),
    tip: |foot, contact| {
        format!(
            "{foot} planted, frames {}–{}: click to go to its start, drag its ends or body to \
             edit it, right-click to delete it. The Solve tab's contact thresholds widen or \
             narrow the detected contacts.",
            contact.start, contact.end
        )
    },
};

/// Draws one row per foot of `bars` under a rail spanning `rail` (x, in points); a click on
/// a bar moves the time to its start (and pauses). Returns the bars drawn and the edit the
/// user finished this frame, if any.
pub fn contact_bars_ui(
    ui: &mut egui::Ui,
    rail: egui::Rangef,
    bars: &ContactBars,
    playback: &mut Playback,
    clip: &ClipInfo,
) -> (Vec<DrawnBar>, Option<ContactChange>) {
    rows_ui(ui, rail, (&bars.feet, &FEET), bars, playback, clip)
}

/// Draws one editable row per entry of `rows` (a foot or a hand touch and its contacts),
/// each bar as `look` says; the bars drawn and the edit finished this frame, if any.
pub(super) fn rows_ui(
    ui: &mut egui::Ui,
    rail: egui::Rangef,
    (rows, look): (&[FootContacts], &BarLook),
    bars: &ContactBars,
    playback: &mut Playback,
    clip: &ClipInfo,
) -> (Vec<DrawnBar>, Option<ContactChange>) {
    let mut drawn = Vec::new();
    let mut change = None;
    for foot in rows {
        // Named as every panel names joints: without the file's namespace.
        let shown = crate::app::names::without_namespace(&foot.foot);
        let (row, lane_response) = ui.allocate_exact_size(
            egui::vec2(ui.available_width(), ROW_HEIGHT),
            egui::Sense::click(),
        );
        let lane = egui::Rect::from_x_y_ranges(rail, row.y_range().shrink(1.0));
        ui.painter()
            .rect_filled(lane, 2.0, ui.visuals().extreme_bg_color);
        let lane_edit = super::contact_edit::lane_ui(&lane_response, foot, bars, rail);
        for (i, contact) in foot.contacts.iter().enumerate() {
            let rect =
                egui::Rect::from_x_y_ranges(bar_span(contact, bars.frames, rail), lane.y_range());
            let (response, edit) = super::contact_edit::bar_edit_ui(ui, foot, i, rect, bars, rail);
            let response = bar_ui(ui, (shown, i, contact), look, rect, response);
            if response.clicked() {
                playback.time_secs = frame_time(contact.start, bars.frames, clip);
                playback.playing = false;
            }
            change = change.or(edit);
            drawn.push(DrawnBar {
                foot: foot.foot.clone(),
                contact: *contact,
                rect,
            });
        }
        change = change.or(lane_edit);
        name_ui(ui, shown, lane);
        marker_ui(ui, rail, lane, playback, clip);
    }
    if !rows.is_empty() {
        ui.add_space(2.0);
    }
    (drawn, change)
}

/// The current time's line across a row, continuing the strip's marker.
pub(super) fn marker_ui(
    ui: &egui::Ui,
    rail: egui::Rangef,
    lane: egui::Rect,
    playback: &Playback,
    clip: &ClipInfo,
) {
    let t = (playback.time_secs / clip.duration_secs.max(1e-6)).clamp(0.0, 1.0);
    let x = rail.min + t * rail.span();
    let stroke = egui::Stroke::new(2.0, ui.visuals().strong_text_color());
    ui.painter().vline(x, lane.y_range().expand(1.0), stroke);
}

/// One contact's bar: clickable, named for screen readers and tests.
fn bar_ui(
    ui: &mut egui::Ui,
    (name, index, contact): (&str, usize, &FootContact),
    look: &BarLook,
    rect: egui::Rect,
    response: egui::Response,
) -> egui::Response {
    let label = format!("{name} contact {}", index + 1);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
    let color = if response.hovered() {
        look.hovered
    } else {
        look.color
    };
    ui.painter().rect_filled(rect, 2.0, color);
    response.on_hover_text((look.tip)(name, contact))
}

/// The foot's name at the row's left, on a plate so it reads over the bars.
pub(super) fn name_ui(ui: &egui::Ui, name: &str, lane: egui::Rect) {
    let painter = ui.painter();
    let galley = painter.layout_no_wrap(
        name.to_owned(),
        egui::FontId::proportional(11.0),
        ui.visuals().strong_text_color(),
    );
    let at = lane.left_center() + egui::vec2(3.0, -galley.size().y / 2.0);
    let plate = egui::Rect::from_min_size(at, galley.size()).expand(1.5);
    painter.rect_filled(plate, 2.0, ui.visuals().panel_fill.gamma_multiply(0.85));
    painter.galley(at, galley, egui::Color32::PLACEHOLDER);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_sit_on_their_frames_as_the_strip_does() {
        let rail = egui::Rangef::new(100.0, 500.0);
        // 5 frames: frame k is at 100 + k * 100.
        let whole = bar_span(&FootContact { start: 0, end: 4 }, 5, rail);
        assert_eq!((whole.min, whole.max), (100.0, 500.0));
        let middle = bar_span(&FootContact { start: 1, end: 2 }, 5, rail);
        assert!((middle.min - 150.0).abs() < 1e-4 && (middle.max - 350.0).abs() < 1e-4);
    }

    #[test]
    fn a_row_names_its_foot_without_the_namespace() {
        let bars = ContactBars {
            frames: 10,
            feet: vec![FootContacts {
                foot: "mixamorig:LeftFoot".into(),
                contacts: vec![FootContact { start: 2, end: 5 }],
            }],
            duration_secs: 1.0,
            ..Default::default()
        };
        let clip = ClipInfo {
            name: "walk".into(),
            duration_secs: 1.0,
            fps: 10.0,
            all_names: vec![],
        };
        let mut playback = Playback::default();
        let mut drawn = Vec::new();
        let mut h = egui_kittest::Harness::new_ui(|ui| {
            let rail = egui::Rangef::new(10.0, 300.0);
            drawn = contact_bars_ui(ui, rail, &bars, &mut playback, &clip).0;
        });
        h.run();
        use egui_kittest::kittest::Queryable;
        h.get_by_label("LeftFoot contact 1");
        assert!(h.query_by_label("mixamorig:LeftFoot contact 1").is_none());
        drop(h);
        // What the edits and the project keep is the full name.
        assert_eq!(drawn[0].foot, "mixamorig:LeftFoot");
    }

    #[test]
    fn a_bar_starts_at_its_first_frame_s_time() {
        let clip = ClipInfo {
            name: "walk".into(),
            duration_secs: 2.0,
            fps: 30.0,
            all_names: vec![],
        };
        assert_eq!(frame_time(0, 61, &clip), 0.0);
        assert!((frame_time(30, 61, &clip) - 1.0).abs() < 1e-6);
        assert_eq!(frame_time(99, 61, &clip), 2.0);
    }
}
