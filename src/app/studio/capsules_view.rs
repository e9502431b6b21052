//! The body capsules drawn over a viewport on demand (View ▸ Source/Target body capsules):
//! the volumes the penetration measure and the keep-out pass hold limbs out of.

use super::StudioApp;
use crate::core::Pose;
use crate::core::body::{BodyCapsules, BodyPart};
use eframe::egui;
use glam::Vec3;

/// A side's capsules for a document revision, with each capsule's axis length in the bind
/// pose (the scale the viewport's world draws them at follows from it).
pub struct CapsuleCache {
    pub revision: u64,
    pub body: BodyCapsules,
    pub bind_lengths: Vec<f32>,
}

fn color(part: BodyPart) -> egui::Color32 {
    match part {
        BodyPart::Torso => egui::Color32::from_rgba_unmultiplied(80, 140, 255, 70),
        BodyPart::LeftThigh | BodyPart::RightThigh => {
            egui::Color32::from_rgba_unmultiplied(80, 220, 160, 70)
        }
        _ => egui::Color32::from_rgba_unmultiplied(255, 170, 60, 80),
    }
}

impl StudioApp {
    /// Side `i`'s capsules, fitted again when the document changed.
    fn capsules_of(&mut self, i: usize) -> Option<&CapsuleCache> {
        let session = self.doc.session.as_ref()?;
        let revision = self.doc.revision;
        let stale = self.drawn.capsules[i]
            .as_ref()
            .is_none_or(|c| c.revision != revision);
        if stale {
            let side = if i == 0 {
                &session.source
            } else {
                &session.target
            };
            let body = side.body_capsules();
            let s = side.skeleton();
            let bind = Pose::bind(s).world_positions(s);
            let bind_lengths = (0..body.len())
                .map(|j| {
                    body.capsule(j, &bind, 1.0)
                        .map_or(0.0, |(a, b, _)| a.distance(b))
                })
                .collect();
            self.drawn.capsules[i] = Some(CapsuleCache {
                revision,
                body,
                bind_lengths,
            });
        }
        self.drawn.capsules[i].as_ref()
    }

    /// Draws side `i`'s capsules over its viewport at `rect` when shown; how many were drawn.
    pub(super) fn capsules_ui(&mut self, ui: &egui::Ui, i: usize, rect: egui::Rect) -> usize {
        if !self.prefs.show[i].capsules {
            self.drawn.capsules_drawn[i] = 0;
            return 0;
        }
        let (joints, camera) = (self.views[i].scene.joints.clone(), self.views[i].camera);
        let Some(cache) = self.capsules_of(i) else {
            return 0;
        };
        let painter = ui.painter_at(rect);
        let eye = camera.eye();
        let mut drawn = 0;
        for j in 0..cache.body.len() {
            let (Some(part), Some((a, b, r))) =
                (cache.body.part[j], cache.body.capsule(j, &joints, 1.0))
            else {
                continue;
            };
            // Bones keep their lengths: the viewport's scale is the axis's over its bind's.
            let scale = a.distance(b) / cache.bind_lengths[j].max(1e-9);
            let side = (b - a).cross(eye - a).normalize_or(Vec3::X) * r * scale;
            let (Some(pa), Some(pb), Some(edge)) = (
                camera.project(a, rect),
                camera.project(b, rect),
                camera.project(a + side, rect),
            ) else {
                continue;
            };
            let width = pa.distance(edge);
            let fill = color(part);
            painter.line_segment([pa, pb], egui::Stroke::new(2.0 * width, fill));
            painter.circle_filled(pa, width, fill);
            painter.circle_filled(pb, width, fill);
            drawn += 1;
        }
        self.drawn.capsules_drawn[i] = drawn;
        drawn
    }
}
