//! The strip under the timeline: one slice per output frame of the quality report, green
//! where the retarget is fine, red where it breaks a limit, with the current frame marked.
//! Slices sit where their frame's time sits on the scrubber's rail above, so the handle and
//! the marker line up; a click or drag on the strip scrubs too. Under it, thinner rows show
//! the feet, reach and penetration measures alone, so a red frame says what broke; a click on
//! a row goes to its worst frame.

use super::{ClipInfo, Playback};
use crate::core::quality::{FrameRow, Measure};
use eframe::egui;

/// Height of the strip in points.
const STRIP_HEIGHT: f32 = 10.0;

/// One frame's slice: its horizontal span on screen and its colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StripCell {
    pub frame: usize,
    pub x: egui::Rangef,
    pub color: egui::Color32,
}

/// The strip as last drawn: one cell per frame of the report, and the current time's x.
#[derive(Clone, Debug, PartialEq)]
pub struct Strip {
    pub cells: Vec<StripCell>,
    pub marker_x: f32,
    pub rect: egui::Rect,
    /// The measure rows drawn under it, each with its rectangle.
    pub rows: Vec<(Measure, egui::Rect)>,
}

/// Height of a measure's row in points.
const ROW_HEIGHT: f32 = 9.0;

/// The measures that get a row of their own: what planting, the floor, reach and the
/// keep-out pass change.
const ROW_MEASURES: [Measure; 4] = [
    Measure::Skate,
    Measure::Ground,
    Measure::Reach,
    Measure::Penetration,
];

/// Green (0, fine) through yellow (close to a limit) for frames within every limit, and red
/// only where a limit is broken (1 and above): a passing frame never reads as a failing one.
pub fn badness_color(badness: f32) -> egui::Color32 {
    let green = egui::Color32::from_rgb(60, 170, 80);
    let yellow = egui::Color32::from_rgb(225, 195, 60);
    let red = egui::Color32::from_rgb(225, 60, 50);
    match badness {
        b if b.is_finite() && b < 1.0 => green.lerp_to_gamma(yellow, b.max(0.0)),
        _ => red,
    }
}

/// One slice per frame along `rail`: frame k of n sits at k/(n-1) of the clip, so its slice
/// runs half a frame either side of that (the first and last are half slices).
pub fn strip_cells(badness: &[f32], rail: egui::Rangef) -> Vec<StripCell> {
    let n = badness.len();
    let at = |k: f32| {
        let t = if n > 1 { k / (n - 1) as f32 } else { 0.5 };
        rail.min + t.clamp(0.0, 1.0) * rail.span()
    };
    badness
        .iter()
        .enumerate()
        .map(|(k, &b)| StripCell {
            frame: k,
            x: egui::Rangef::new(at(k as f32 - 0.5), at(k as f32 + 0.5)),
            color: badness_color(b),
        })
        .collect()
}

/// Draws the strip under a rail spanning `rail` (x, in points): the report's slices, or an
/// empty bar while there is none, and the current time's marker. Clicking or dragging on it
/// moves the time (and pauses).
pub fn strip_ui(
    ui: &mut egui::Ui,
    rail: egui::Rangef,
    badness: Option<&[f32]>,
    playback: &mut Playback,
    clip: &ClipInfo,
) -> Strip {
    let (row, response) = ui.allocate_exact_size(
        egui::vec2(ui.available_width(), STRIP_HEIGHT),
        egui::Sense::click_and_drag(),
    );
    let rect = egui::Rect::from_x_y_ranges(rail, row.y_range());
    let duration = clip.duration_secs.max(1e-6);
    if let Some(p) = response.interact_pointer_pos() {
        let t = ((p.x - rail.min) / rail.span().max(1e-3)).clamp(0.0, 1.0);
        playback.time_secs = t * clip.duration_secs;
        playback.playing = false;
    }
    let cells = badness.map_or_else(Vec::new, |b| strip_cells(b, rail));
    let marker_x = rail.min + (playback.time_secs / duration).clamp(0.0, 1.0) * rail.span();
    let painter = ui.painter_at(row);
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    for cell in &cells {
        let r = egui::Rect::from_x_y_ranges(cell.x, rect.y_range());
        painter.rect_filled(r, 0.0, cell.color);
    }
    let stroke = egui::Stroke::new(2.0, ui.visuals().strong_text_color());
    painter.vline(marker_x, row.y_range().expand(1.0), stroke);
    let bad = cells
        .iter()
        .filter(|c| c.color == badness_color(1.0))
        .count();
    let tip = match badness {
        Some(b) => format!(
            "Quality per frame: {bad} of {} frames break a limit (red); click to go there",
            b.len()
        ),
        None => "Quality per frame: being computed".to_owned(),
    };
    response.on_hover_text(tip);
    Strip {
        cells,
        marker_x,
        rect,
        rows: Vec::new(),
    }
}

/// A measure's row as drawn: the measure and its rectangle.
pub type MeasureRow = (Measure, egui::Rect);

/// A row's worst frame: the first of its highest badness (`None` where all are fine).
pub fn worst_frame(badness: &[f32]) -> Option<usize> {
    let worst = badness.iter().copied().fold(0.0f32, f32::max);
    (worst > 0.0)
        .then(|| badness.iter().position(|&b| b == worst))
        .flatten()
}

/// One thin row per measure of `ROW_MEASURES` that `rows` holds, under the strip, labelled
/// at its left; hovering tells how many frames break that measure's limit, and a click
/// gives its worst frame (the second value, with the row's frame count).
pub fn measure_rows_ui(
    ui: &mut egui::Ui,
    rail: egui::Rangef,
    rows: &[FrameRow],
    marker_x: f32,
) -> (Vec<MeasureRow>, Option<(usize, usize)>) {
    let mut drawn = Vec::new();
    let mut clicked = None;
    for measure in ROW_MEASURES {
        let Some(row) = rows.iter().find(|r| r.measure == measure) else {
            continue;
        };
        ui.add_space(1.0);
        let (line, response) = ui.allocate_exact_size(
            egui::vec2(ui.available_width(), ROW_HEIGHT),
            egui::Sense::click(),
        );
        let rect = egui::Rect::from_x_y_ranges(rail, line.y_range());
        let painter = ui.painter_at(line);
        painter.rect_filled(rect, 1.0, ui.visuals().extreme_bg_color);
        for cell in strip_cells(&row.badness, rail) {
            let r = egui::Rect::from_x_y_ranges(cell.x, rect.y_range());
            painter.rect_filled(r, 0.0, cell.color);
        }
        let stroke = egui::Stroke::new(2.0, ui.visuals().strong_text_color());
        painter.vline(marker_x, line.y_range(), stroke);
        let galley = painter.layout_no_wrap(
            measure.label().to_owned(),
            egui::FontId::proportional(8.5),
            ui.visuals().strong_text_color(),
        );
        let at = egui::pos2(rect.left() + 3.0, rect.center().y - galley.size().y / 2.0);
        let plate = egui::Rect::from_min_size(at, galley.size()).expand(0.5);
        painter.rect_filled(plate, 1.0, ui.visuals().panel_fill.gamma_multiply(0.85));
        painter.galley(at, galley, egui::Color32::PLACEHOLDER);
        let bad = row.badness.iter().filter(|&&b| b >= 1.0).count();
        let label = format!("{} row", measure.label());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
        if response.clicked() {
            clicked = worst_frame(&row.badness).map(|f| (f, row.badness.len()));
        }
        response.on_hover_text(format!(
            "{} per frame: {bad} of {} frames break its limit (red); click to go to its worst",
            measure.label(),
            row.badness.len()
        ));
        drawn.push((measure, rect));
    }
    (drawn, clicked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cell_per_frame_tiling_the_rail() {
        let rail = egui::Rangef::new(100.0, 500.0);
        let cells = strip_cells(&[0.0, 0.2, 1.0, 0.0, 0.6], rail);
        assert_eq!(cells.len(), 5);
        assert_eq!(cells[0].x.min, 100.0);
        assert_eq!(cells[4].x.max, 500.0);
        for pair in cells.windows(2) {
            assert!((pair[0].x.max - pair[1].x.min).abs() < 1e-4);
        }
        // Frame 2 of 5 is the middle of the clip, and so of the rail.
        assert!((cells[2].x.center() - 300.0).abs() < 1e-4);
        assert_eq!(cells[2].color, badness_color(1.0));
    }

    #[test]
    fn a_row_s_worst_frame_is_its_first_highest() {
        assert_eq!(worst_frame(&[0.0, 0.4, 1.0, 0.2, 1.0]), Some(2));
        assert_eq!(worst_frame(&[0.0, 0.0]), None);
        assert_eq!(worst_frame(&[]), None);
    }

    #[test]
    fn colours_go_from_green_to_red() {
        let (g, r) = (badness_color(0.0), badness_color(1.0));
        assert!(g.g() > g.r() && r.r() > r.g());
        assert_eq!(badness_color(7.0), r);
        assert_eq!(badness_color(f32::NAN), r);
        // Just under a limit is yellow, not red: only a broken limit is red.
        let near = badness_color(0.99);
        assert!(near.g() > 150 && near.r() > 200, "{near:?}");
        assert_ne!(near, r);
    }
}
