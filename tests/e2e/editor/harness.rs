//! What the editor tests share: a harness on a project at a tab, keys, selection, drags.

use egui::Modifiers;
use egui_kittest::Harness;
use glam::Quat;
use retarget_studio::app::command::Command;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::StudioApp;
use retarget_studio::core::retarget::PoseScratch;
use retarget_studio::core::{HumanBone, Pose};
use retarget_studio::session::Session;
use std::path::PathBuf;

pub(super) fn harness_on(project: Option<PathBuf>, tab: Tab) -> Harness<'static, StudioApp> {
    crate::common::editor::editor_at(project, tab)
}

/// The target's local pose at the current time, retargeted from scratch.
pub(super) fn target_pose(app: &StudioApp) -> Pose {
    let session = app.doc.session.as_ref().unwrap();
    let clip = session.source_clip(app.clip.as_deref()).unwrap();
    let mut src = Pose::rest(session.source.skeleton());
    clip.sample(clip.start_secs() + app.playback.time_secs, &mut src);
    let mut out = Pose::rest(session.target.skeleton());
    let r = session.retargeter().unwrap();
    r.retarget_pose(&src, &mut out, &mut PoseScratch::new(&r));
    out
}

pub(super) fn ctrl(h: &mut Harness<'static, StudioApp>, key: egui::Key, shift: bool) {
    let m = if shift {
        Modifiers::COMMAND | Modifiers::SHIFT
    } else {
        Modifiers::COMMAND
    };
    h.key_press_modifiers(m, key);
    h.run_steps(2);
}

/// The target's container rotation, as the pose tools edit it.
pub(super) fn target_container_rotation(app: &StudioApp) -> Quat {
    app.doc
        .session
        .as_ref()
        .unwrap()
        .target
        .file
        .container
        .rotation
}

/// The open session.
pub(super) fn session<'a>(h: &'a Harness<'static, StudioApp>) -> &'a Session {
    h.state().doc.session.as_ref().unwrap()
}

/// Target joint `name`'s index in the open session.
pub(super) fn target_joint(h: &Harness<'static, StudioApp>, name: &str) -> usize {
    session(h).target.skeleton().find(name).unwrap()
}

/// Selects a target bone by name, as a click on it would; returns its index.
pub(super) fn select_target(h: &mut Harness<'static, StudioApp>, name: &str) -> usize {
    let joint = target_joint(h, name);
    h.state_mut().run(Command::SelectTargetJoint(Some(joint)));
    joint
}

/// The largest angle between source and target reference directions over the arms.
pub(super) fn worst_limb_angle(app: &StudioApp) -> f32 {
    let s = app.doc.session.as_ref().unwrap();
    let limbs = [
        HumanBone::LeftUpperArm,
        HumanBone::RightUpperArm,
        HumanBone::LeftLowerArm,
        HumanBone::RightLowerArm,
    ];
    s.reference_agreement()
        .iter()
        .filter(|(t, _)| {
            s.map
                .for_target(*t)
                .and_then(|p| p.bone)
                .is_some_and(|b| limbs.contains(&b))
        })
        .map(|(_, a)| *a)
        .fold(0.0, f32::max)
}

/// Presses the primary button at the path's start, moves through it a frame a point, and
/// lets go at its end, holding `modifiers` throughout.
pub(super) fn drag_along(
    h: &mut Harness<'static, StudioApp>,
    path: &[egui::Pos2],
    modifiers: Modifiers,
) {
    let button = |pos, pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers,
    };
    h.event(egui::Event::ModifiersChanged(modifiers));
    h.event(egui::Event::PointerMoved(path[0]));
    h.event(button(path[0], true));
    h.step();
    for p in &path[1..] {
        h.event(egui::Event::PointerMoved(*p));
        h.step();
    }
    h.event(button(path[path.len() - 1], false));
    h.step();
    h.event(egui::Event::ModifiersChanged(Modifiers::NONE));
}

/// Steps until the quality report and the contacts are for the document as it is.
pub(super) fn settle(h: &mut Harness<'static, StudioApp>) {
    for _ in 0..3 {
        h.step();
        h.state_mut().wait_for_quality();
        h.state_mut().wait_for_contacts();
    }
    h.run_steps(2);
}
