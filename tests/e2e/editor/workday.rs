//! The editor for a working day, through the UI (egui_kittest, no GPU): undo back to
//! the saved state, clickable history, honest pose tools, files named on the command line,
//! the dialog's fallback, the per-project export path and its overwrite prompt, per-viewport
//! toggles and the cameras' framing.

use super::{target_container_rotation, worst_limb_angle};
use crate::common::asset_path;
use crate::common::editor::editor_on;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Quat;
use retarget_studio::app::Launch;
use retarget_studio::app::command::Command;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::{Prefs, StudioApp};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::{Edit, Session, SideRole};
use std::path::Path;

type H = Harness<'static, StudioApp>;

/// The editor started as `retarget-studio FILE` would, paused.
fn launched_on(file: &Path, tab: Tab, size: egui::Vec2) -> H {
    let prefs = Prefs {
        tab,
        ..Prefs::default()
    };
    let launch = Launch {
        project: Some(file.to_path_buf()),
        ..Launch::default()
    };
    let mut app = StudioApp::with_launch(launch, prefs);
    app.playback.playing = false;
    app.no_dialogs = true;
    let mut h = Harness::new_ui_state(|ui, app: &mut StudioApp| app.ui_contents(ui), app);
    h.set_size(size);
    h.run_steps(3);
    h
}

fn title(h: &H) -> String {
    h.state().title()
}

/// The open session's target joint named `name`.
fn target_joint(h: &H, name: &str) -> Option<usize> {
    let session = h.state().doc.session.as_ref().unwrap();
    session.target.skeleton().find(name)
}

fn unmap_hips(h: &mut H) {
    let hips = target_joint(h, "Hips").unwrap_or(0);
    h.state_mut().run(Command::Edit(Edit::MapBone {
        target: hips,
        source: None,
    }));
    h.run_steps(1);
}

fn ctrl_z(h: &mut H, shift: bool) {
    let m = if shift {
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT
    } else {
        egui::Modifiers::COMMAND
    };
    h.key_press_modifiers(m, egui::Key::Z);
    h.run_steps(2);
}

#[test]
fn undo_back_to_the_saved_state_clears_the_star() {
    let mut h = editor_on(retarget_studio::app::demo_project(), Tab::BoneMap);
    assert!(!title(&h).contains('*'), "{}", title(&h));
    unmap_hips(&mut h);
    assert!(title(&h).contains('*'), "{}", title(&h));
    ctrl_z(&mut h, false);
    assert!(
        !title(&h).contains('*'),
        "undone to the file: {}",
        title(&h)
    );
    ctrl_z(&mut h, true);
    assert!(title(&h).contains('*'), "redone: {}", title(&h));
    // Saved with the edit in: that is now the file.
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("mine.ron");
    h.state_mut().run(Command::SaveAs(saved.clone()));
    h.run_steps(1);
    assert!(!title(&h).contains('*'), "{}", title(&h));
    ctrl_z(&mut h, false);
    assert!(
        title(&h).contains('*'),
        "undone past the save: {}",
        title(&h)
    );
    ctrl_z(&mut h, true);
    assert!(
        !title(&h).contains('*'),
        "redone to the save: {}",
        title(&h)
    );
}

#[test]
fn a_history_entry_goes_back_to_it_and_a_later_edit_clears_the_status() {
    let mut h = editor_on(retarget_studio::app::demo_project(), Tab::History);
    unmap_hips(&mut h);
    h.state_mut()
        .run(Command::Edit(Edit::SetSolve(Default::default())));
    h.state_mut().run(Command::Edit(Edit::ClearMap));
    h.run_steps(2);
    assert_eq!(h.state().undo.depth(), 3);
    h.get_by_label_contains("  1. ").click();
    h.run_steps(2);
    assert_eq!(
        h.state().undo.depth(),
        1,
        "back to just after the first edit"
    );
    let mapped = h.state().doc.session.as_ref().unwrap().map.len();
    assert!(mapped > 10, "the cleared map is back: {mapped} pairs");
    // The undone entries stay listed: clicking the last one redoes them.
    h.get_by_label_contains("  3. ").click();
    h.run_steps(2);
    assert_eq!(h.state().undo.depth(), 3);
    assert!(h.state().status.is_some());
    h.state_mut().run(Command::Undo);
    assert!(h.state().status.as_deref().unwrap().starts_with("Undid"));
    unmap_hips(&mut h);
    assert_eq!(h.state().status, None, "a later edit clears 'Undid …'");
}

#[test]
fn reset_keeps_the_facing_fix_and_clear_all_edits_is_apart() {
    // The VRM faces -Z: the automatic set-up turns it 180°.
    let auto = Session::automatic(
        &asset_path("bvh/02_01.bvh"),
        &asset_path("vrm/cryptovoxels.vrm"),
        &ImportOptions::default(),
    )
    .unwrap();
    let turned = auto.target.file.container.rotation;
    assert!(turned.angle_between(Quat::IDENTITY) > 3.0, "{turned}");
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("vrm.ron");
    auto.to_project().save(&project).unwrap();
    let mut h = editor_on(project, Tab::Pose);
    h.state_mut().prefs.panel.pose_side_is_source = false;
    h.run_steps(1);
    h.get_by_label("+90° Y").click();
    h.run_steps(2);
    h.get_by_label("Clear all edits").click();
    h.run_steps(2);
    let cleared = worst_limb_angle(h.state());
    assert!(
        target_container_rotation(h.state()).angle_between(Quat::IDENTITY) < 1e-3,
        "cleared: the file's own pose"
    );
    h.get_by_label("Reset").click();
    h.run_steps(2);
    let reset = worst_limb_angle(h.state());
    eprintln!("worst arm angle: {cleared:.1}° cleared, {reset:.2}° reset");
    assert!(
        target_container_rotation(h.state()).angle_between(turned) < 1e-3,
        "Reset turns it to face +Z again"
    );
    assert!(cleared > 90.0, "cleared, it faces backwards: {cleared}");
    assert!(reset < 1.0, "reset is the automatic set-up: {reset}");
    // And Auto-align brings the facing back from a cleared pose too.
    h.get_by_label("Clear all edits").click();
    h.run_steps(2);
    h.get_by_label("Auto-align").click();
    h.run_steps(2);
    assert!(worst_limb_angle(h.state()) < 1.0);
}

#[test]
fn quarter_turns_read_as_typed() {
    let mut h = editor_on(retarget_studio::app::demo_project(), Tab::Pose);
    h.state_mut().prefs.panel.pose_side_is_source = true;
    h.run_steps(1);
    for _ in 0..2 {
        h.get_by_label("+90° Y").click();
        h.run_steps(2);
    }
    let y = h.get_by_label("Y").value().unwrap_or_default();
    assert!(y.starts_with("180"), "two quarter turns read 180: {y}");
    for axis in ["X", "Z"] {
        let v = h.get_by_label(axis).value().unwrap_or_default();
        assert!(
            !v.starts_with('-') && v.starts_with('0'),
            "{axis} reads {v}"
        );
    }
}

#[test]
fn a_file_argument_opens_as_the_source_when_it_moves_and_else_as_the_target() {
    // The robot has a mesh and clips: it is what plays (a Mixamo dance is the same case).
    let robot = asset_path("gltf/RobotExpressive.glb");
    let h = launched_on(&robot, Tab::BoneMap, egui::vec2(1500.0, 900.0));
    assert_eq!(h.state().error, None);
    let s = h.state().doc.session.as_ref().unwrap();
    assert_eq!(s.source.path, robot);
    assert!(
        title(&h).contains("RobotExpressive.glb as the source"),
        "{}",
        title(&h)
    );
    let bvh = asset_path("bvh/02_01.bvh");
    let h = launched_on(&bvh, Tab::BoneMap, egui::vec2(1500.0, 900.0));
    assert_eq!(h.state().error, None);
    assert_eq!(h.state().doc.session.as_ref().unwrap().source.path, bvh);
    assert!(
        title(&h).contains("02_01.bvh as the source"),
        "{}",
        title(&h)
    );
    // A character that does not move is the target.
    let vrm = asset_path("vrm/cryptovoxels.vrm");
    let h = launched_on(&vrm, Tab::BoneMap, egui::vec2(1500.0, 900.0));
    assert_eq!(h.state().doc.session.as_ref().unwrap().target.path, vrm);
    assert!(
        title(&h).contains("cryptovoxels.vrm as the target"),
        "{}",
        title(&h)
    );
}

#[test]
fn without_a_file_dialog_a_typed_path_loads_the_source() {
    let mut h = editor_on(retarget_studio::app::demo_project(), Tab::BoneMap);
    h.state_mut().no_dialogs = true;
    h.state_mut().run(Command::LoadSourceDialog);
    h.run_steps(2);
    assert!(
        h.state().prompts.path_prompt.is_some(),
        "the fallback shows"
    );
    let bvh = asset_path("bvh/02_01.bvh");
    h.get_by_label("Path").type_text(&bvh.display().to_string());
    h.run_steps(1);
    h.get_by_label("OK").click();
    h.run_steps(3);
    assert!(h.state().prompts.path_prompt.is_none());
    assert_eq!(h.state().doc.session.as_ref().unwrap().source.path, bvh);
}

#[test]
fn the_export_path_is_the_projects_own_and_overwriting_asks() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::automatic(
        &asset_path("bvh/02_01.bvh"),
        &asset_path("gltf/RobotExpressive.glb"),
        &ImportOptions::default(),
    )
    .unwrap();
    let project = dir.path().join("walk.ron");
    session.to_project().save(&project).unwrap();
    let mut h = editor_on(project, Tab::Export);
    let expected = dir.path().join("02_01_on_RobotExpressive.glb");
    assert_eq!(
        h.state().prefs.panel.export.path,
        expected.display().to_string()
    );
    // Another project never inherits it.
    h.state_mut()
        .run(Command::OpenProject(retarget_studio::app::demo_project()));
    h.run_steps(2);
    let other = h.state().prefs.panel.export.path.clone();
    assert!(
        other.ends_with("RobotExpressive_on_cryptovoxels.glb") && !other.contains("02_01"),
        "{other}"
    );
    // Writing over a file asks first.
    std::fs::write(&expected, b"old").unwrap();
    h.state_mut().run(Command::Export(expected.clone()));
    h.run_steps(2);
    assert!(!h.state().exporting(), "nothing starts before the answer");
    assert!(h.state().prompts.overwrite.is_some());
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert_eq!(std::fs::read(&expected).unwrap(), b"old");
    h.state_mut().run(Command::Export(expected.clone()));
    h.run_steps(2);
    h.get_by_label("Replace").click();
    h.run_steps(2);
    for _ in 0..500 {
        if !h.state().exporting() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        h.step();
    }
    assert!(std::fs::read(&expected).unwrap().len() > 1000, "replaced");
}

#[test]
fn a_meshless_source_keeps_its_skeleton_and_helper_bones_hide() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::automatic(
        &asset_path("bvh/02_01.bvh"),
        &asset_path("gltf/RobotExpressive.glb"),
        &ImportOptions::default(),
    )
    .unwrap();
    let project = dir.path().join("walk.ron");
    session.to_project().save(&project).unwrap();
    let mut h = editor_on(project, Tab::BoneMap);
    h.state_mut().prefs.show[0].skeleton = false;
    h.state_mut().prefs.show[1].skeleton = false;
    h.run_steps(2);
    assert!(
        h.state().view(0).scene.show_skeleton,
        "the BVH has nothing but its skeleton"
    );
    assert!(
        !h.state().view(1).scene.show_skeleton,
        "the robot's is hidden"
    );
    let hidden = h
        .state()
        .view(1)
        .scene
        .hidden
        .iter()
        .filter(|x| **x)
        .count();
    // The robot's IK root ("Bone", at the origin) and end sites deform nothing.
    let bone = target_joint(&h, "Bone").unwrap();
    assert!(h.state().view(1).scene.is_hidden(bone), "{hidden} hidden");
    assert!(h.state().view(0).scene.hidden.iter().all(|x| !x));
    h.state_mut().prefs.show[1].helpers = true;
    h.run_steps(2);
    assert!(h.state().view(1).scene.hidden.iter().all(|x| !x));
}

/// Every shown joint of side `i` projects inside its viewport.
fn all_in_frame(h: &H, i: usize) -> bool {
    let view = h.state().view(i);
    let rect = view.last_rect;
    view.scene
        .joints
        .iter()
        .enumerate()
        .filter(|(j, _)| !view.scene.is_hidden(*j))
        .all(|(_, p)| {
            view.camera
                .project(*p, rect)
                .is_some_and(|q| rect.contains(q))
        })
}

#[test]
fn both_characters_start_framed_whatever_their_scale_and_size() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = Session::automatic(
        &asset_path("bvh/02_01.bvh"),
        &asset_path("gltf/RobotExpressive.glb"),
        &ImportOptions::default(),
    )
    .unwrap();
    let mut container = session.target.file.container;
    container.scale = 100.0;
    session
        .apply_edit(&Edit::SetContainer {
            side: SideRole::Target,
            container,
        })
        .unwrap();
    let project = dir.path().join("big.ron");
    session.to_project().save(&project).unwrap();
    for file in [retarget_studio::app::demo_project(), project] {
        for size in [egui::vec2(1000.0, 700.0), egui::vec2(1920.0, 1080.0)] {
            let mut h = launched_on(&file, Tab::BoneMap, size);
            h.run_steps(2);
            for i in 0..2 {
                assert!(
                    all_in_frame(&h, i),
                    "{file:?} at {size:?}: side {i} cropped"
                );
            }
            // Collapsing the panel re-frames them (they were not moved by hand).
            h.state_mut().prefs.tools_open = false;
            h.run_steps(3);
            for i in 0..2 {
                assert!(all_in_frame(&h, i), "{file:?} collapsed: side {i} cropped");
            }
        }
    }
}

#[test]
fn f_frames_the_viewport_under_the_mouse_with_linked_cameras() {
    let mut h = launched_on(
        &retarget_studio::app::demo_project(),
        Tab::BoneMap,
        egui::vec2(1500.0, 900.0),
    );
    h.state_mut().prefs.link_cameras = true;
    let rect = h.state().view(1).last_rect;
    // Zoom the target far out of frame with the wheel, then F over it.
    h.event(egui::Event::PointerMoved(rect.center()));
    h.run_steps(1);
    for _ in 0..5 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, 400.0),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
        });
        h.run_steps(1);
    }
    h.run_steps(5);
    assert!(!all_in_frame(&h, 1), "zoomed in past the character");
    h.key_press(egui::Key::F);
    h.run_steps(2);
    assert!(all_in_frame(&h, 1), "F framed the target");
}

#[test]
fn a_wrist_folds_its_fingers_and_the_source_search_has_the_keyboard() {
    let mut h = editor_on(retarget_studio::app::demo_project(), Tab::BoneMap);
    assert!(h.query_by_label("IndexFinger1_L").is_some());
    h.get_by_label("Fold Left wrist").click();
    h.run_steps(2);
    assert!(h.query_by_label("IndexFinger1_L").is_none(), "folded away");
    assert!(h.query_by_label("Left elbow").is_some(), "the rest stays");
    h.get_by_label("Unfold Left wrist").click();
    h.run_steps(2);
    assert!(h.query_by_label("IndexFinger1_L").is_some());
    // The source list opens with its search focused: typing filters at once.
    h.get_by_label("Left elbow source").click();
    h.run_steps(2);
    h.event(egui::Event::Text("Spine".into()));
    h.run_steps(2);
    assert_eq!(h.state().prefs.panel.source_search, "Spine");
}

#[test]
fn f1_and_help_list_every_shortcut() {
    let mut h = editor_on(retarget_studio::app::demo_project(), Tab::BoneMap);
    assert!(h.query_by_label("Show or hide the tool panel").is_none());
    h.key_press(egui::Key::F1);
    h.run_steps(2);
    assert!(h.state().prompts.shortcuts_open);
    for what in [
        "Show or hide the tool panel",
        "Frame both characters",
        "Load source…",
        "Frame the viewport under the mouse",
        "Play or pause",
    ] {
        assert!(h.query_by_label(what).is_some(), "{what} is listed");
    }
    // Ctrl+B frames both cameras again after the user moved one.
    h.state_mut().prompts.shortcuts_open = false;
    h.run_steps(1);
    let framed = h.state().view(1).camera;
    let rect = h.state().view(1).last_rect;
    h.event(egui::Event::PointerMoved(rect.center()));
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, 300.0),
        modifiers: egui::Modifiers::NONE,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
    });
    h.run_steps(5);
    assert!(h.state().view(1).camera.distance < framed.distance * 0.9);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::B);
    h.run_steps(2);
    let again = h.state().view(1).camera.distance;
    assert!(
        (again - framed.distance).abs() < framed.distance * 0.05,
        "{again} vs {}",
        framed.distance
    );
}
