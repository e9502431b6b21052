//! The pose tools through the UI (egui_kittest): the container's rotation, automatic
//! alignment, and a bone turned by Alt-drag or by a gizmo ring.

use super::{
    ctrl, drag_along, harness_on, select_target, target_container_rotation, worst_limb_angle,
};
use crate::common::asset_path;
use egui::Modifiers;
use egui_kittest::kittest::Queryable;
use glam::Quat;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::StudioApp;
use retarget_studio::core::HumanBone;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::{Session, SideRole};

#[test]
fn container_rotation_turns_the_target() {
    let mut h = harness_on(None, Tab::Pose);
    h.state_mut().prefs.panel.pose_side_is_source = false;
    h.run_steps(1);
    let before = target_container_rotation(h.state());
    let head_before = head_position(h.state());
    h.get_by_label("+90° Y").click();
    h.run_steps(2);
    let after = target_container_rotation(h.state());
    let turn = after * before.inverse();
    assert!(
        turn.abs_diff_eq(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2), 1e-5)
            || turn.abs_diff_eq(-Quat::from_rotation_y(std::f32::consts::FRAC_PI_2), 1e-5)
    );
    let head_after = head_position(h.state());
    let expected = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2) * head_before;
    assert!(
        head_after.abs_diff_eq(expected, 1e-4),
        "{head_after} vs {expected}"
    );
    assert_eq!(h.state().undo.undo_label(), Some("Target container"));
}

fn head_position(app: &StudioApp) -> glam::Vec3 {
    let t = &app.doc.session.as_ref().unwrap().target;
    let head = t.skeleton().find_humanoid(HumanBone::Head).unwrap();
    t.reference.world_matrices(t.skeleton())[head]
        .w_axis
        .truncate()
}

#[test]
fn auto_align_reduces_the_worst_bone_angle() {
    // CesiumMan stands in an A-pose; the CMU mocap's reference is a T-pose.
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("cesium.ron");
    let session = Session::automatic(
        &asset_path("bvh/02_01.bvh"),
        &asset_path("gltf/CesiumMan.glb"),
        &ImportOptions::default(),
    )
    .unwrap();
    session.to_project().save(&project).unwrap();
    let mut h = harness_on(Some(project), Tab::Pose);
    h.state_mut().prefs.panel.pose_side_is_source = false;
    h.run_steps(1);
    h.get_by_label("Clear all edits").click();
    h.run_steps(2);
    let reset = worst_limb_angle(h.state());
    h.get_by_label("Auto-align").click();
    h.run_steps(2);
    let aligned = worst_limb_angle(h.state());
    eprintln!("worst arm angle: {reset:.1}° after reset, {aligned:.2}° after auto-align");
    assert!(reset > 15.0, "an A-pose against a T-pose: {reset}");
    assert!(aligned < 1.0, "{aligned}");
    ctrl(&mut h, egui::Key::Z, false);
    assert!(
        (worst_limb_angle(h.state()) - reset).abs() < 1e-3,
        "undo brings the A-pose back"
    );
    let side = &h.state().doc.session.as_ref().unwrap().target;
    assert!(matches!(side.role, SideRole::Target));
}

#[test]
fn alt_drag_in_the_target_viewport_rotates_the_selected_bone() {
    let mut h = harness_on(None, Tab::Pose);
    select_target(&mut h, "Left elbow");
    h.run_steps(1);
    let offset = |app: &StudioApp| {
        let t = &app.doc.session.as_ref().unwrap().target;
        t.file
            .bone_offsets
            .iter()
            .find(|(n, _)| n == "Left elbow")
            .map(|(_, q)| *q)
    };
    let before = offset(h.state()).unwrap_or(Quat::IDENTITY);
    let (from, to) = (egui::pos2(700.0, 400.0), egui::pos2(760.0, 380.0));
    let path: Vec<egui::Pos2> = (0..=6)
        .map(|k| from + (to - from) * (k as f32 / 6.0))
        .collect();
    drag_along(&mut h, &path, Modifiers::ALT);
    let after = offset(h.state()).expect("the drag set an offset");
    assert!(
        after.angle_between(before).to_degrees() > 10.0,
        "the elbow turned"
    );
    assert_eq!(h.state().undo.undo_label(), Some("Rotate Left elbow"));
    assert_eq!(
        h.state().undo.history().count(),
        1,
        "one drag is one undo step"
    );
}

#[test]
fn dragging_a_gizmo_ring_turns_the_drawn_bone_about_that_ring() {
    use retarget_studio::app::viewport::gizmo;
    let mut h = harness_on(None, Tab::Pose);
    let elbow = select_target(&mut h, "Left elbow");
    h.run_steps(2);
    let view = h.state().view(1);
    let (camera, rect) = (view.camera, view.last_rect);
    let placement = view.gizmo_at(elbow).expect("the elbow is drawn");
    let before = Quat::from_mat4(&view.world()[elbow]).normalize();
    for axis in 0..3 {
        let ring = gizmo::ring_points(&placement, &camera, rect, axis).unwrap();
        assert!(
            ring.iter().all(|p| rect.contains(*p)),
            "ring {axis} is inside the target viewport"
        );
    }
    // Grab the X ring where it moves most on screen; drag along it by half its radius
    // (70 points), in steps: half a radian, about the elbow's own X axis.
    let ring = gizmo::ring_points(&placement, &camera, rect, 0).unwrap();
    let k = (0..ring.len() - 1)
        .max_by(|&a, &b| {
            let d = |k: usize| ring[k].distance(ring[k + 1]);
            d(a).total_cmp(&d(b))
        })
        .unwrap();
    let along = (ring[k + 1] - ring[k]).normalized();
    let path: Vec<egui::Pos2> = (0..=10).map(|i| ring[k] + along * 3.5 * i as f32).collect();
    drag_along(&mut h, &path, Modifiers::NONE);
    h.run_steps(1);
    let app = h.state();
    assert_eq!(
        app.view(1).camera,
        camera,
        "the camera stays while a ring is held"
    );
    assert_eq!(app.undo.undo_label(), Some("Rotate Left elbow"));
    assert_eq!(app.undo.history().count(), 1, "one drag is one undo step");
    let after = Quat::from_mat4(&app.view(1).world()[elbow]).normalize();
    let (turn_axis, turn_angle) = (after * before.inverse()).to_axis_angle();
    let ring_axis = gizmo::ring_axis(&placement, 0);
    assert!(
        (turn_angle - 0.5).abs() < 0.08,
        "the drawn elbow turned {:.1} degrees",
        turn_angle.to_degrees()
    );
    assert!(
        turn_axis.dot(ring_axis) > 0.99,
        "about {turn_axis}, the ring's axis is {ring_axis}"
    );
}
