//! The pelvis's path on the floor, drawn in the target viewport while the export extracts
//! root motion to the root joint: where the root will travel.

use super::StudioApp;
use crate::core::retarget::PoseScratch;
use crate::core::{HumanBone, Pose};
use crate::session::Session;
use eframe::egui;
use glam::{Mat4, Vec3};

/// Points along the path: enough for a smooth line on any clip, cheap to solve.
const SAMPLES: usize = 120;

/// The target's pelvis over `clip`, on the floor at `floor` (world, as the viewport draws).
pub fn pelvis_path(session: &Session, clip: &str, floor: f32) -> Option<Vec<Vec3>> {
    let hips = session
        .map
        .pairs()
        .iter()
        .find(|p| p.bone == Some(HumanBone::Hips))?
        .target;
    let clip = session.source_clip(Some(clip)).ok()?;
    let mut retargeter = session.retargeter().ok()?;
    let (src, tgt) = (session.source.skeleton(), session.target.skeleton());
    retargeter.fit_clip(src, clip);
    let mut scratch = PoseScratch::new(&retargeter);
    let (rest, mut source, mut target) = (Pose::rest(src), Pose::rest(src), Pose::rest(tgt));
    let mut world = vec![Mat4::IDENTITY; tgt.len()];
    let container = session.target.reference.container;
    let n = SAMPLES.min(clip.frame_count()).max(2);
    let path = clip
        .even_times(n)
        .map(|t| {
            source.copy_from(&rest);
            clip.sample(t, &mut source);
            retargeter.retarget_pose(&source, &mut target, &mut scratch);
            target.world_matrices_under(tgt, container, &mut world);
            let at = world[hips].w_axis;
            Vec3::new(at.x, floor, at.z)
        })
        .collect();
    Some(path)
}

impl StudioApp {
    /// The path for the current document and clip while the export panel extracts root
    /// motion, made again when either changes; `None` otherwise.
    pub(super) fn update_root_path(&mut self, floor: f32) {
        let (Some(session), Some(clip)) = (&self.doc.session, &self.clip) else {
            self.drawn.root_path = None;
            return;
        };
        if !self.prefs.panel.export.extract_root {
            self.drawn.root_path = None;
            return;
        }
        let key = (self.doc.revision, clip.clone());
        if self
            .drawn
            .root_path
            .as_ref()
            .is_some_and(|(k, _)| *k == key)
        {
            return;
        }
        let path = pelvis_path(session, clip, floor).unwrap_or_default();
        self.drawn.root_path = Some((key, path));
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
