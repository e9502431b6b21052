//! The two viewports: drawing both characters, picking bones, and turning the selected
//! bone with the gizmo or Alt+drag.

use super::StudioApp;
use crate::app::character_view::CharacterView;
use crate::app::command::Command;
use crate::app::panels::Tab;
use crate::app::viewport::ViewDirection;
use eframe::egui;
use std::path::Path;

impl StudioApp {
    pub(super) fn viewports_ui(&mut self, ui: &mut egui::Ui) {
        let names = self.doc.session.as_ref().map(|s| {
            let name = |p: &Path| {
                p.file_name()
                    .map_or(String::new(), |n| n.to_string_lossy().into_owned())
            };
            [
                format!("Source: {}", name(&s.source.path)),
                format!("Target: {}", name(&s.target.path)),
            ]
        });
        let mut clicked = [None, None];
        let mut hovered = [false, false];
        let mut rotate = None;
        let mut gizmo_turn = None;
        // The gizmo belongs to the pose tools: shown on the selected target bone while the
        // Pose tab is open, so that orbiting elsewhere never grabs a ring by accident.
        let gizmo = match (self.prefs.tab, self.selected) {
            (Tab::Pose, Some(j)) => self.views[1].gizmo_at(j),
            _ => None,
        };
        // The view toggles get a row of their own: beside a long file name they were cut off;
        // the row wraps when the viewports are narrow.
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut self.prefs.overlay, "Target skeleton over the source")
                .on_hover_text("Scaled to the source's height and set on its hips, to compare the poses");
            ui.checkbox(&mut self.prefs.link_cameras, "Link cameras");
            ui.checkbox(&mut self.prefs.follow, "Follow")
                .on_hover_text("The cameras move with the characters' hips, so a walk stays in frame");
            ui.separator();
            ui.label("View");
            for (label, key, direction) in [
                ("Front", "1", ViewDirection::Front),
                ("Side", "3", ViewDirection::Side),
            ] {
                let tip = format!("Both cameras look at the characters from the {} ({key}; Ctrl+{key}: from the opposite one)", label.to_lowercase());
                if ui.button(label).on_hover_text(tip).clicked() {
                    self.look_along(direction);
                }
            }
        });
        let no_clip = self.doc.session.is_some() && self.clip_info().is_none();
        let mut split = None;
        ui.columns(2, |cols| {
            for (i, col) in cols.iter_mut().enumerate() {
                if i == 1 {
                    split = Some(col.max_rect().left());
                }
                let label = names
                    .as_ref()
                    .map_or(["Source", "Target"][i], |n| n[i].as_str());
                let notes = self.import_note_count(i);
                let has_mesh = self.has_mesh(i);
                // One row whatever the width: the toggles in a menu, the name cut to fit,
                // so both viewports start at the same height.
                col.horizontal(|ui| {
                    ui.menu_button("Show", |ui| self.show_toggles_ui(ui, i, has_mesh));
                    self.open_button_ui(ui, i);
                    if notes > 0 {
                        let button = ui
                            .small_button(format!("(!) {notes}"))
                            .on_hover_text("What the reader noticed in this file: click to list");
                        if button.clicked() {
                            self.prompts.notes_open = Some(i);
                            self.prompts.notes_at = Some(button.rect.left_bottom());
                        }
                    }
                    ui.add(egui::Label::new(egui::RichText::new(label).strong()).truncate());
                });
                if self.doc.session.is_none() {
                    self.empty_side_ui(col, i);
                    continue;
                }
                let response = self.views[i].ui(col, if i == 1 { gizmo } else { None });
                if i == 0 && no_clip {
                    still_note_ui(col, response.rect);
                }
                if i == 1 {
                    self.root_path_ui(col, response.rect);
                }
                self.capsules_ui(col, i, response.rect);
                (clicked[i], hovered[i]) = (response.clicked_joint, response.hovered);
                if i == 1
                    && let Some(delta) = response.rotate_drag
                {
                    rotate = Some(delta);
                }
                if i == 1 {
                    gizmo_turn = response.gizmo_turn;
                }
            }
        });
        self.drawn.viewport_split = split;
        if let Some(delta) = rotate {
            self.rotate_selected(delta);
        }
        if let Some(turn) = gizmo_turn {
            self.turn_selected(turn);
        }
        if self.prefs.link_cameras {
            let from = usize::from(hovered[1]);
            let (yaw, pitch) = (self.views[from].camera.yaw, self.views[from].camera.pitch);
            let other = &mut self.views[1 - from].camera;
            other.yaw = yaw;
            other.pitch = pitch;
        }
        if let Some(j) = clicked[1] {
            self.commands.push(Command::SelectTargetJoint(Some(j)));
        }
        if let (Some(s), Some(session)) = (clicked[0], &self.doc.session) {
            let t = session
                .map
                .pairs()
                .iter()
                .find(|p| p.source == s)
                .map(|p| p.target);
            self.commands.push(Command::SelectTargetJoint(t));
        }
        if clicked.iter().any(Option::is_some) {
            // A bone picked in a viewport brings its row into view in the bone map.
            self.prefs.panel.reveal_selected = true;
        }
    }

    /// "Open…" beside a viewport's name: load this side from a file.
    fn open_button_ui(&mut self, ui: &mut egui::Ui, i: usize) {
        let (name, keys, command) = [
            ("Open source", "Ctrl+L", Command::LoadSourceDialog),
            ("Open target", "Ctrl+Shift+L", Command::LoadTargetDialog),
        ][i]
            .clone();
        let button = ui
            .small_button("Open…")
            .on_hover_text(format!("{name}… ({keys}), or drop a file on this viewport"));
        button.widget_info(|| egui::WidgetInfo::labeled(egui::accesskit::Role::Button, true, name));
        if button.clicked() {
            self.commands.push(command);
        }
    }

    /// A viewport with nothing to show yet: what goes here, and a button to open it.
    fn empty_side_ui(&mut self, ui: &mut egui::Ui, i: usize) {
        let rect = ui.available_rect_before_wrap();
        ui.painter()
            .rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
        let (role, what, command) = [
            (
                "source",
                "An animated file: BVH mocap, FBX, glTF/GLB, VRM or VRMA.",
                Command::LoadSourceDialog,
            ),
            (
                "target",
                "A character to animate: FBX, glTF/GLB or VRM.",
                Command::LoadTargetDialog,
            ),
        ][i]
            .clone();
        let loaded = self.doc.loose[i].as_ref().and_then(|p| p.file_name());
        let layout = egui::Layout::top_down(egui::Align::Center);
        ui.scope_builder(egui::UiBuilder::new().max_rect(rect).layout(layout), |ui| {
            ui.add_space(rect.height() * 0.3);
            match loaded {
                Some(name) => {
                    ui.heading(name.to_string_lossy());
                    let other = ["target", "source"][i];
                    ui.label(format!("is the {role}: now open a {other}."));
                }
                None => {
                    ui.heading(format!("No {role} yet"));
                    ui.label(what);
                    ui.add_space(8.0);
                    if ui.button(format!("Open {role}…")).clicked() {
                        self.commands.push(command);
                    }
                    ui.weak("or drop a file here");
                }
            }
        });
        ui.advance_cursor_after_rect(rect);
    }

    /// Side `i`'s own show toggles, beside its name: each viewport shows what it needs.
    fn show_toggles_ui(&mut self, ui: &mut egui::Ui, i: usize, has_mesh: bool) {
        let side = ["Source", "Target"][i];
        let show = &mut self.prefs.show[i];
        let named = |r: egui::Response, name: String, on: bool| {
            let enabled = r.enabled();
            r.widget_info(move || {
                egui::WidgetInfo::selected(egui::accesskit::Role::CheckBox, enabled, on, &name)
            });
        };
        ui.add_enabled_ui(has_mesh, |ui| {
            let mesh = ui.checkbox(&mut show.mesh, "Mesh");
            named(mesh, format!("{side} mesh"), show.mesh);
            let skeleton = ui
                .checkbox(&mut show.skeleton, "Skeleton")
                .on_disabled_hover_text("No mesh on this side: its skeleton is always drawn");
            named(skeleton, format!("{side} skeleton"), show.skeleton);
            let helpers = ui
                .checkbox(&mut show.helpers, "Helpers")
                .on_hover_text("Bones that move no vertex (IK targets, controls)");
            named(helpers, format!("{side} helper bones"), show.helpers);
        });
    }

    /// Whether side `i` has a mesh bound to its skeleton.
    fn has_mesh(&self, i: usize) -> bool {
        self.doc.session.as_ref().is_some_and(|s| {
            let side = [&s.source, &s.target][i];
            side.asset
                .meshes
                .iter()
                .any(|m| m.skeleton == side.skeleton_index)
        })
    }

    /// How many different import notes side `i` has.
    fn import_note_count(&self, i: usize) -> usize {
        self.import_notes(i).len()
    }

    /// What the reader noticed in side `i`'s file (channels it could not import, a unit it
    /// guessed) and textures that would not decode.
    pub fn import_notes(&self, i: usize) -> Vec<String> {
        let Some(session) = &self.doc.session else {
            return Vec::new();
        };
        let side = if i == 0 {
            &session.source
        } else {
            &session.target
        };
        let textures = self.views[i].texture_warnings();
        dedup_notes(side.asset.warnings.iter().chain(textures))
    }

    /// The list behind a side's "(!) N" button, in a window of its own.
    pub(super) fn notes_ui(&mut self, ctx: &egui::Context) {
        let Some(i) = self.prompts.notes_open else {
            return;
        };
        let notes = self.import_notes(i);
        let file = self.doc.session.as_ref().map_or(String::new(), |s| {
            let side = if i == 0 { &s.source } else { &s.target };
            crate::app::names::tidy_path(&side.path)
                .display()
                .to_string()
        });
        let mut open = true;
        let mut window = egui::Window::new("Import notes")
            .open(&mut open)
            .default_width(520.0);
        if let Some(at) = self.prompts.notes_at {
            window = window.default_pos(at + egui::vec2(0.0, 4.0));
        }
        window = window.constrain_to(self.below_menu(ctx));
        window.show(ctx, |ui| {
            ui.label(file);
            ui.separator();
            egui::ScrollArea::vertical()
                .max_height(300.0)
                .show(ui, |ui| {
                    for note in &notes {
                        ui.label(note);
                    }
                });
        });
        if !open || notes.is_empty() {
            self.prompts.notes_open = None;
        }
    }

    /// Alt+drag in the target viewport turns the selected bone's reference offset: sideways
    /// about the camera's up axis, up and down about its right axis.
    pub(super) fn rotate_selected(&mut self, delta: egui::Vec2) {
        if self.selected.is_none() || self.doc.session.is_none() {
            self.status = Some("Select a bone first, then Alt+drag to rotate it.".into());
            return;
        }
        let camera = &self.views[1].camera;
        let view = camera.view_from_world();
        let world_from_view = glam::Quat::from_mat4(&view.inverse()).normalize();
        let (right, up) = (
            world_from_view * glam::Vec3::X,
            world_from_view * glam::Vec3::Y,
        );
        const RADIANS_PER_POINT: f32 = 0.01;
        let turn = glam::Quat::from_axis_angle(up, delta.x * RADIANS_PER_POINT)
            * glam::Quat::from_axis_angle(right, delta.y * RADIANS_PER_POINT);
        self.turn_selected(turn);
    }

    /// Turns the selected target bone by `turn`, a world rotation of the bone *as drawn*
    /// (animated). The edit is a reference-pose offset, so the turn is carried back through
    /// the bone's animated-from-reference rotation: the drawn bone then turns by `turn`.
    pub(super) fn turn_selected(&mut self, turn: glam::Quat) {
        let (Some(joint), Some(session)) = (self.selected, &self.doc.session) else {
            return;
        };
        let side = &session.target;
        let world = side.reference.world_matrices(side.skeleton());
        let drawn = self.views[1]
            .world()
            .get(joint)
            .map_or(glam::Quat::IDENTITY, |m| {
                crate::core::reference::rotation_of(*m)
            });
        let reference = crate::core::reference::rotation_of(world[joint]);
        let to_reference = (reference * drawn.inverse()).normalize();
        let turn_world = (to_reference * turn * to_reference.inverse()).normalize();
        let parent = side.skeleton().parents()[joint].map_or(
            crate::core::reference::rotation_of(side.reference.container),
            |p| crate::core::reference::rotation_of(world[p]),
        );
        let in_parent = (parent.inverse() * turn_world * parent).normalize();
        let rotation = (in_parent * side.bone_offset(joint)).normalize();
        self.commands
            .push(Command::Edit(crate::session::Edit::SetBoneOffset {
                side: crate::session::SideRole::Target,
                joint,
                rotation,
            }));
    }
}

/// Over the source viewport when the source has no animation: it stands at rest, and why.
fn still_note_ui(ui: &mut egui::Ui, viewport: egui::Rect) {
    let rect = egui::Rect::from_min_size(
        viewport.min + egui::vec2(10.0, 10.0),
        egui::vec2((viewport.width() - 20.0).max(40.0), 60.0),
    );
    let text = egui::RichText::new(
        "No animation in this file: both characters stand at rest. Open a source with \
         clips (Open…, Ctrl+L) or drop one here.",
    )
    .color(ui.visuals().warn_fg_color);
    ui.put(rect, egui::Label::new(text).wrap());
}

/// What each scene shows this frame: the selection, the picked chain and the viewport's
/// toggles. A side without a mesh is its skeleton: hiding that would leave it empty.
pub(super) fn dress(
    views: &mut [CharacterView; 2],
    show: [super::Show; 2],
    selected: [Option<usize>; 2],
    chains: [Vec<usize>; 2],
    has_mesh: [bool; 2],
) {
    for (i, (view, chain)) in views.iter_mut().zip(chains).enumerate() {
        let scene = std::sync::Arc::make_mut(&mut view.scene);
        scene.selected_joint = selected[i];
        scene.highlighted_chain = chain;
        scene.show_mesh = show[i].mesh;
        scene.show_skeleton = show[i].skeleton || !has_mesh[i] || !show[i].mesh;
    }
}

/// The notes once each, in first-seen order, a repeated one with its count: one line said
/// 14 times reads as "… (×14)", not as 14 lines.
pub fn dedup_notes<'a>(notes: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for note in notes {
        match seen.iter_mut().find(|(n, _)| *n == note.as_str()) {
            Some((_, count)) => *count += 1,
            None => seen.push((note, 1)),
        }
    }
    seen.into_iter()
        .map(|(n, count)| match count {
            1 => n.to_owned(),
            _ => format!("{n} (×{count})"),
        })
        .collect()
}

/// The meshes bound to `skeleton`: borrowed as they are in the usual one-skeleton file, so
/// the per-frame path copies no vertex data.
pub(super) fn meshes_of(
    asset: &crate::io::Asset,
    skeleton: usize,
) -> std::borrow::Cow<'_, [crate::io::SkinnedMesh]> {
    if asset.meshes.iter().all(|m| m.skeleton == skeleton) {
        return std::borrow::Cow::Borrowed(&asset.meshes);
    }
    std::borrow::Cow::Owned(
        asset
            .meshes
            .iter()
            .filter(|m| m.skeleton == skeleton)
            .cloned()
            .collect(),
    )
}

/// The target's skeleton drawn over the source: scaled to the source's height and moved so
/// its followed joint (the hips) sits on the source's, so the two poses can be compared
/// whatever the two characters' sizes.
pub(super) fn overlay_of(
    target: &CharacterView,
    source: &CharacterView,
    followed: [usize; 2],
) -> crate::app::viewport::SkeletonOverlay {
    let joints = &target.scene.joints;
    let height = |p: &[glam::Vec3]| {
        let (lo, hi) = p.iter().fold((f32::MAX, f32::MIN), |(lo, hi), v| {
            (lo.min(v.y), hi.max(v.y))
        });
        hi - lo
    };
    let (th, sh) = (height(joints), height(&source.scene.joints));
    let scale = if th > 1e-6 && sh > 1e-6 && (sh / th).is_finite() {
        sh / th
    } else {
        1.0
    };
    let anchor_t = joints.get(followed[1]).copied().unwrap_or_default();
    let anchor_s = source
        .scene
        .joints
        .get(followed[0])
        .copied()
        .unwrap_or(anchor_t);
    let place = |v: glam::Vec3| anchor_s + (v - anchor_t) * scale;
    crate::app::viewport::SkeletonOverlay {
        joints: joints.iter().map(|v| place(*v)).collect(),
        bones: target
            .scene
            .bones
            .iter()
            .map(|(a, b)| (place(*a), place(*b)))
            .collect(),
        color: [0.3, 0.8, 1.0, 1.0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::viewport::CharacterScene;
    use glam::Vec3;
    use std::sync::Arc;

    fn view_with(joints: Vec<Vec3>) -> CharacterView {
        let mut view = CharacterView::new(1);
        let bones = vec![(joints[0], joints[1])];
        view.scene = Arc::new(CharacterScene {
            joints,
            bones,
            ..Default::default()
        });
        view
    }

    #[test]
    fn the_overlay_stands_on_the_source_at_its_height() {
        // A target 5 m tall (joints from 5 to 10 m) over a 1.7 m source walking at x = 3.
        let target = view_with(vec![Vec3::new(0.0, 5.0, 0.0), Vec3::new(0.0, 10.0, 0.0)]);
        let mut joints = vec![Vec3::new(3.0, 0.9, 0.0), Vec3::new(3.0, 1.7, 0.0)];
        joints.push(Vec3::new(3.0, 0.0, 0.0));
        let source = view_with(joints);
        let o = overlay_of(&target, &source, [0, 0]);
        assert!(
            o.joints[0].abs_diff_eq(Vec3::new(3.0, 0.9, 0.0), 1e-5),
            "on the hips"
        );
        let height = o.joints[1].y - o.joints[0].y;
        // Its whole height becomes the source's.
        assert!((height - 1.7).abs() < 1e-4, "{height}");
        assert!(o.bones[0].0.abs_diff_eq(o.joints[0], 1e-5));
    }

    #[test]
    fn repeated_notes_are_listed_once_with_a_count() {
        let notes: Vec<String> = ["a", "b", "a", "a", "c"].map(String::from).to_vec();
        assert_eq!(dedup_notes(notes.iter()), ["a (×3)", "b", "c"]);
    }
}
