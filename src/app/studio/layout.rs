//! The window's layout: the tool panel beside the two viewports. The viewports come first:
//! the panel collapses (Ctrl+T or its button), resizes freely within what the window leaves
//! after two usable viewports, and its contents scroll rather than widen it, so neither a
//! wide bone-map column nor a stale saved width can squeeze a viewport away.

use super::StudioApp;
use crate::app::panels;
use eframe::egui;

/// The narrowest a viewport may be squeezed by the tool panel, in points.
pub const MIN_VIEWPORT: f32 = 180.0;
/// The narrowest the open tool panel may be dragged.
pub const MIN_PANEL: f32 = 240.0;
/// The central area's margins and the gap between the viewports.
const MARGINS: f32 = 24.0;
/// The open panel's share of the window until the user drags it.
const DEFAULT_SHARE: f32 = 0.38;

/// A panel's frame without its fill: the window is cleared to the panels' colour already,
/// and a fill would shade every pixel of the window once more, which on software GL
/// (llvmpipe) is a large share of a frame.
pub fn unfilled(frame: egui::Frame) -> egui::Frame {
    frame.fill(egui::Color32::TRANSPARENT)
}

/// The tool panel's allowed widths in a window `width` wide: at most what leaves two
/// viewports of [`MIN_VIEWPORT`], and never a range that is empty or negative.
pub fn panel_range(width: f32) -> (f32, f32) {
    let max = (width - 2.0 * MIN_VIEWPORT - MARGINS).max(0.0);
    (MIN_PANEL.min(max), max)
}

/// Width of the open panel before the user has dragged it, within [`panel_range`].
pub fn default_panel_width(width: f32) -> f32 {
    let (min, max) = panel_range(width);
    (width * DEFAULT_SHARE).clamp(min, max)
}

impl StudioApp {
    /// The tool panel on the right (or, collapsed, a narrow strip with a button to open it).
    pub(super) fn tools_panel_ui(&mut self, ui: &mut egui::Ui) {
        let width = ui.available_width();
        let generation = self.prefs.layout_generation;
        if !self.prefs.tools_open {
            egui::Panel::right(("tools_collapsed", generation))
                .frame(unfilled(egui::Frame::side_top_panel(ui.style())))
                .resizable(false)
                .exact_size(28.0)
                .show(ui, |ui| {
                    let open = ui.button("«").on_hover_text("Show the tool panel (Ctrl+T)");
                    open.widget_info(|| {
                        egui::WidgetInfo::labeled(egui::accesskit::Role::Button, true, "Show tools")
                    });
                    if open.clicked() {
                        self.prefs.tools_open = true;
                    }
                });
            return;
        }
        let (min, mut max) = panel_range(width);
        // A window made narrower takes the width from the panel first: the viewports keep
        // theirs until the panel is at its narrowest. So does a window opened narrower than
        // the last session's (whose panel width egui kept).
        let before = match self.drawn.window_width {
            Some(w) => Some((w, self.drawn.tools_width)),
            None => self.prefs.last_layout.map(|[w, panel]| (w, panel)),
        };
        if let Some((before, panel)) = before
            && width < before
            && panel > 0.0
        {
            max = max.min((panel - (before - width)).max(min));
        }
        self.drawn.window_width = Some(width);
        let shown = egui::Panel::right(("tools", generation))
            .frame(unfilled(egui::Frame::side_top_panel(ui.style())))
            .resizable(true)
            .size_range(min..=max)
            .default_size(default_panel_width(width).min(max))
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    let hide = ui.small_button("»").on_hover_text(
                        "Hide the tool panel: all the width to the viewports (Ctrl+T)",
                    );
                    hide.widget_info(|| {
                        egui::WidgetInfo::labeled(egui::accesskit::Role::Button, true, "Hide tools")
                    });
                    if hide.clicked() {
                        self.prefs.tools_open = false;
                    }
                    ui.weak("Tools");
                });
                // The contents get the panel's rect and no more: a child that does not grow
                // its parent, clipped. A widened column (which scrolls in its own table)
                // never widens the panel, and, saved, never starves a viewport next time.
                let rect = ui.available_rect_before_wrap();
                let mut contents = ui.new_child(
                    egui::UiBuilder::new()
                        .max_rect(rect)
                        .layout(egui::Layout::top_down(egui::Align::Min)),
                );
                contents.set_clip_rect(rect.intersect(ui.clip_rect()));
                self.drawn.tools_rect = Some(contents.clip_rect());
                self.tools_contents(&mut contents);
                ui.advance_cursor_after_rect(rect);
            });
        self.drawn.tools_width = shown.response.rect.width();
        self.prefs.last_layout = Some([width, self.drawn.tools_width]);
    }

    fn tools_contents(&mut self, ui: &mut egui::Ui) {
        let key = self.quality_key();
        let tools = panels::Tools {
            export_progress: self.tasks.export.as_ref().map(|t| t.progress()),
            export_path: self.export_path("glb"),
            doc: &self.doc,
            undo: &self.undo,
            selected: self.selected,
            clip: self.clip.as_deref(),
            quality: self.tasks.quality.view(key.as_ref()),
            posed: [self.views[0].world(), self.views[1].world()],
        };
        panels::tools_ui(
            ui,
            &tools,
            &mut self.prefs.tab,
            &mut self.prefs.panel,
            &mut self.commands,
        );
    }

    /// View ▸ Reset layout: the panel open at its default width (a new panel id forgets the
    /// dragged one), both cameras framed again.
    pub fn reset_layout(&mut self) {
        self.prefs.tools_open = true;
        self.prefs.last_layout = None;
        self.prefs.layout_generation = self.prefs.layout_generation.wrapping_add(1);
        for v in &mut self.views {
            v.needs_framing = true;
        }
        self.status = Some("Layout reset.".into());
    }

    /// Width of the tool panel as last drawn (0 when collapsed).
    pub fn tools_width(&self) -> f32 {
        if self.prefs.tools_open {
            self.drawn.tools_width
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panel_always_leaves_two_viewports() {
        for width in [300.0, 600.0, 1000.0, 1440.0, 1920.0, 4000.0] {
            let (min, max) = panel_range(width);
            assert!(min <= max, "{width}: {min}..{max}");
            assert!(width - max >= 2.0 * MIN_VIEWPORT - 1e-3 || max == 0.0);
            let d = default_panel_width(width);
            assert!((min..=max).contains(&d), "{width}: default {d}");
        }
        // At 1000 px the viewports get most of the window by default.
        assert!(default_panel_width(1000.0) < 400.0);
    }
}
