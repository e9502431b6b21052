//! The pelvis's path on the floor, drawn in the target viewport while the export extracts
//! root motion to the root joint: where the root will travel.

use super::StudioApp;
use crate::core::HumanBone;
use eframe::egui;
use glam::Vec3;

/// Points along the path: enough for a smooth line on any clip, cheap to solve.
const SAMPLES: usize = 120;

impl StudioApp {
    /// The path for the current document and clip while the export panel extracts root
    /// motion, made again when either changes (with the live retarget's solve); `None`
    /// otherwise.
    pub(super) fn update_root_path(&mut self, floor: f32) {
        let (Some(session), Some(clip), Some(live)) =
            (&self.doc.session, &self.clip, self.live.as_mut())
        else {
            self.drawn.root_path = None;
            return;
        };
        if !self.prefs.panel.export.extract_root {
            self.drawn.root_path = None;
            return;
        }
        let revision = self.doc.revision;
        let current = |(r, c): &(u64, String)| *r == revision && c == clip;
        if self
            .drawn
            .root_path
            .as_ref()
            .is_some_and(|(k, _)| current(k))
        {
            return;
        }
        let path = match session.map.for_bone(HumanBone::Hips) {
            Some(hips) => live
                .path_of(session, hips.target, SAMPLES)
                .into_iter()
                .map(|p| Vec3::new(p.x, floor, p.z))
                .collect(),
            None => Vec::new(),
        };
        self.drawn.root_path = Some(((revision, clip.clone()), path));
    }

    /// Draws the path over the target viewport at `rect`.
    pub(super) fn root_path_ui(&self, ui: &egui::Ui, rect: egui::Rect) {
        let Some((_, path)) = &self.drawn.root_path else {
            return;
        };
        let camera = &self.views[1].camera;
        let points: Vec<egui::Pos2> = path
            .iter()
            .filter_map(|p| camera.project(*p, rect))
            .collect();
        let stroke = egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 160, 40));
        ui.painter_at(rect).add(egui::Shape::line(points, stroke));
    }
}
