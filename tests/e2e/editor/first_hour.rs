//! A new user's first hour (egui_kittest): files from the command line land on the side they
//! belong to, an empty editor says what to open, a source without animation still shows both
//! characters, the shown frame follows the scrubber, windows keep off the menu bar, and bone
//! names read without their namespace.

use crate::common::asset_path;
use crate::common::editor::editor_launched;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::Launch;
use retarget_studio::app::command::Command;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::StudioApp;
use std::path::PathBuf;

type H = Harness<'static, StudioApp>;

fn launched(project: Option<PathBuf>, source: Option<&str>, target: Option<&str>) -> H {
    editor_launched(
        Launch {
            project,
            source: source.map(asset_path),
            target: target.map(asset_path),
            ..Launch::default()
        },
        Tab::BoneMap,
    )
}

/// The editor on a project `name`.ron of `source` onto `target` (bundled assets), mapped
/// automatically and saved in a folder of its own as a user would: the folder, the project
/// and the editor.
fn editor_on_saved(name: &str, source: &str, target: &str) -> (tempfile::TempDir, PathBuf, H) {
    let dir = tempfile::tempdir().unwrap();
    let project = saved_project(dir.path(), name, source, target);
    let h = launched(Some(project.clone()), None, None);
    (dir, project, h)
}

fn saved_project(dir: &std::path::Path, name: &str, source: &str, target: &str) -> PathBuf {
    let session = retarget_studio::session::Session::automatic(
        &asset_path(source),
        &asset_path(target),
        &retarget_studio::io::ImportOptions::default(),
    )
    .unwrap();
    let project = dir.join(format!("{name}.ron"));
    session.to_project().save(&project).unwrap();
    project
}

fn sides(h: &H) -> (PathBuf, PathBuf) {
    let s = h.state().doc.session.as_ref().expect("a session");
    (s.source.path.clone(), s.target.path.clone())
}

#[test]
fn two_files_open_as_source_and_target_in_a_new_project() {
    let h = launched(None, Some("bvh/02_01.bvh"), Some("vrm/cryptovoxels.vrm"));
    assert_eq!(
        sides(&h),
        (
            asset_path("bvh/02_01.bvh"),
            asset_path("vrm/cryptovoxels.vrm")
        )
    );
    assert_eq!(h.state().doc.project_path, None, "a new, untitled project");
    // One side named: the demo keeps its other side, and is not written over.
    let h = launched(None, None, Some("gltf/CesiumMan.glb"));
    assert_eq!(sides(&h).1, asset_path("gltf/CesiumMan.glb"));
    assert_eq!(h.state().doc.project_path, None, "never the bundled demo");
}

#[test]
fn an_animated_file_with_a_mesh_opens_as_the_source() {
    // CesiumMan has a skinned mesh and a walk: it is what plays, not the demo's robot.
    let mut h = launched(Some(asset_path("gltf/CesiumMan.glb")), None, None);
    assert_eq!(sides(&h).0, asset_path("gltf/CesiumMan.glb"));
    let status = h.state().status.clone().unwrap_or_default();
    assert!(status.contains("as the source"), "{status}");
    // A character without animation is a target.
    let h2 = launched(Some(asset_path("vrm/cryptovoxels.vrm")), None, None);
    assert_eq!(sides(&h2).1, asset_path("vrm/cryptovoxels.vrm"));
    // After Swap sides the status no longer says how a file was opened (swapped onto a
    // target with clips: the robot).
    h.state_mut()
        .run(Command::LoadTarget(asset_path("gltf/RobotExpressive.glb")));
    h.state_mut().status = Some("Opened RobotExpressive.glb as the target".into());
    h.state_mut().run(Command::SwapSides);
    h.run_steps(2);
    assert_eq!(sides(&h).1, asset_path("gltf/CesiumMan.glb"));
    let status = h.state().status.clone().unwrap_or_default();
    assert!(!status.contains("Opened"), "stale: {status}");
    assert!(status.contains("Swapped"), "{status}");
}

#[test]
fn a_source_without_animation_shows_both_at_rest_and_keeps_the_project() {
    let (dir, project, mut h) =
        editor_on_saved("walk", "bvh/02_01.bvh", "gltf/RobotExpressive.glb");
    h.state_mut()
        .run(Command::LoadSource(asset_path("vrm/cryptovoxels.vrm")));
    h.run_steps(3);
    let app = h.state();
    assert!(app.error.is_none(), "{:?}", app.error);
    assert!(app.clip_info().is_none(), "no clip to play");
    for side in 0..2 {
        assert!(
            !app.view(side).scene.joints.is_empty(),
            "viewport {side} is blank"
        );
    }
    h.get_by_label_contains("No animation in this file");
    // Still the project it was, changed; its exports still go beside it.
    let app = h.state();
    assert_eq!(app.doc.project_path.as_deref(), Some(project.as_path()));
    assert!(app.title().starts_with("walk.ron*"), "{}", app.title());
    assert_eq!(
        app.export_path("glb").unwrap().parent(),
        Some(dir.path()),
        "the export folder"
    );
}

#[test]
fn a_failed_export_leaves_no_exporting_status() {
    let mut h = launched(None, None, None);
    let out = PathBuf::from("/nonexistent-folder-for-a-test/walk.glb");
    h.state_mut().run(Command::Export(out));
    for _ in 0..600 {
        h.step();
        if !h.state().exporting() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(!h.state().exporting());
    let app = h.state();
    assert!(
        app.error
            .as_deref()
            .is_some_and(|e| e.contains("Export failed"))
    );
    let status = app.status.clone().unwrap_or_default();
    assert!(!status.contains("Exporting"), "stale: {status}");
}

#[test]
fn an_empty_editor_says_what_to_open_and_takes_one_side_at_a_time() {
    let mut h = launched(None, None, None);
    h.state_mut().run(Command::New);
    h.run_steps(2);
    h.get_by_label("No source yet");
    h.get_by_label("No target yet");
    // Each viewport's own Open button, also on the empty state.
    h.state_mut().no_dialogs = true;
    h.get_by_label("Open source").click();
    h.run_steps(2);
    assert!(
        h.state().prompts.path_prompt.is_some(),
        "the Open button asks for a source"
    );
    h.state_mut()
        .run(Command::LoadSource(asset_path("bvh/02_01.bvh")));
    h.run_steps(2);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    h.get_by_label("02_01.bvh");
    h.state_mut()
        .run(Command::LoadTarget(asset_path("gltf/CesiumMan.glb")));
    h.run_steps(2);
    assert_eq!(
        sides(&h),
        (
            asset_path("bvh/02_01.bvh"),
            asset_path("gltf/CesiumMan.glb")
        )
    );
    // The loaded editor keeps an Open button on each viewport.
    h.get_by_label("Open source");
    h.get_by_label("Open target");
}

/// A file as the window system drops it.
#[derive(Debug)]
struct DroppedPath(PathBuf);

impl egui::DroppedFile for DroppedPath {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn a_file_dropped_on_the_target_viewport_is_the_target() {
    let mut h = launched(None, None, None);
    h.run_steps(2);
    let split = h.state().drawn.viewport_split.expect("two viewports");
    // Left of the window's middle (the tool panel takes the right), right of the split.
    let x = split + 20.0;
    assert!(x < 1500.0 / 2.0, "the case the old rule got wrong: {x}");
    h.event(egui::Event::PointerMoved(egui::pos2(x, 400.0)));
    let file = DroppedPath(asset_path("gltf/CesiumMan.glb"));
    h.input_mut().dropped_files.push(std::sync::Arc::new(file));
    h.run_steps(3);
    assert_eq!(sides(&h).1, asset_path("gltf/CesiumMan.glb"));
}

#[test]
fn scrubbing_while_paused_shows_the_frame_under_the_handle_at_once() {
    let mut h = launched(None, None, None);
    let scrub = h.get_by_label("scrub").rect();
    let at = |f: f32| egui::pos2(scrub.left() + scrub.width() * f, scrub.center().y);
    h.event(egui::Event::PointerMoved(at(0.1)));
    h.step();
    h.event(egui::Event::PointerButton {
        pos: at(0.1),
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
    for f in [0.3, 0.5, 0.7] {
        h.event(egui::Event::PointerMoved(at(f)));
        // One frame: what it draws is where the handle is.
        h.step();
        let app = h.state();
        assert!(!app.playback.playing);
        assert!(app.playback.time_secs > 0.0);
        assert_eq!(app.drawn.posed_at, Some(app.playback.time_secs), "at {f}");
    }
}

#[test]
fn windows_open_below_the_menu_bar_and_help_has_the_guide() {
    let mut h = launched(None, None, None);
    let top = |h: &H, label: &str| {
        h.query_all_by_label(label)
            .map(|n| n.rect().top())
            .fold(f32::MAX, f32::min)
    };
    let menu_bottom = h.get_by_label("File").rect().bottom();
    h.get_by_label("Help").click();
    h.run();
    // A menu item's label ends with its keys (none here).
    h.get_by_label("User guide ").click();
    h.run();
    h.get_by_label("The tool tabs");
    let guide = top(&h, "User guide");
    assert!(guide > menu_bottom, "{guide} ≤ {menu_bottom}");
    h.key_press(egui::Key::F1);
    h.run();
    let title = top(&h, "Keyboard shortcuts");
    assert!(
        title > menu_bottom,
        "the window's title at {title} covers the menu bar (to {menu_bottom})"
    );
}

#[test]
fn the_timeline_shows_the_frame_rate() {
    let mut h = launched(None, None, None);
    h.run_steps(5);
    assert!(
        h.query_by_label_contains(" fps").is_some(),
        "a frame-rate readout"
    );
}

/// The robot with Mixamo's names (`mixamorig:LeftUpLeg`), written to `dir`.
fn mixamo_robot(dir: &std::path::Path) -> PathBuf {
    use crate::common::file_variants::glb::Glb;
    use crate::common::file_variants::labels::{Convention, rename_joints};
    let mut glb = Glb::parse(&std::fs::read(asset_path("gltf/RobotExpressive.glb")).unwrap());
    rename_joints(&mut glb, Convention::Mixamo);
    let path = dir.join("mixamo_robot.glb");
    std::fs::write(&path, glb.to_bytes()).unwrap();
    path
}

#[test]
fn bone_names_show_without_their_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let source = mixamo_robot(dir.path());
    let mut h = editor_launched(
        Launch {
            source: Some(source),
            target: Some(asset_path("gltf/CesiumMan.glb")),
            ..Launch::default()
        },
        Tab::BoneMap,
    );
    h.set_size(egui::vec2(1920.0, 1080.0));
    h.run_steps(3);
    let session = h.state().doc.session.as_ref().unwrap();
    let (src, tgt) = (session.source.skeleton(), session.target.skeleton());
    let pair = session
        .map
        .pairs()
        .iter()
        .find(|p| src.names()[p.source] == "mixamorig:LeftUpLeg")
        .expect("the left thigh is mapped");
    let row = format!("{} source", tgt.names()[pair.target]);
    // The source column shows the joint by its own name; files keep the full one.
    let combo = h.get_by_label(&row);
    assert_eq!(combo.value().as_deref(), Some("LeftUpLeg"), "{row}");
}

#[test]
fn a_narrower_window_narrows_the_tool_panel_first() {
    let mut h = launched(None, None, None);
    h.set_size(egui::vec2(1920.0, 1080.0));
    h.run_steps(2);
    // The panel at its default share of a 1920 px window.
    h.state_mut().reset_layout();
    h.run_steps(3);
    let wide_panel = h.state().tools_width();
    assert!(wide_panel > 500.0, "{wide_panel}");
    for width in [1700.0, 1400.0, 1200.0, 1000.0] {
        h.set_size(egui::vec2(width, 700.0));
        h.run_steps(2);
    }
    let panel = h.state().tools_width();
    let viewport = h.state().view(0).last_rect.width();
    // Before: the panel kept 540 and each viewport got 220.
    assert!(panel < 320.0, "the panel kept {panel} of 1000");
    assert!(viewport > 320.0, "a viewport got {viewport}");
}

#[test]
fn bones_the_map_pairs_are_never_hidden_as_helpers() {
    // KayKit's IK controls move no vertex: helpers, hidden by default.
    let mut h = launched(
        None,
        None,
        Some("gltf/ik_controls/kaykit_rogue_ik_controls_chibi.glb"),
    );
    h.run_steps(2);
    let skeleton = h
        .state()
        .doc
        .session
        .as_ref()
        .unwrap()
        .target
        .skeleton()
        .clone();
    let control = skeleton.find("IK-foot.l").expect("an IK control");
    assert!(
        h.state().view(1).scene.hidden[control],
        "an unmapped control is a helper"
    );
    // Mapped by hand onto the source's left foot, it is a bone of the retarget: shown.
    let source = h.state().doc.session.as_ref().unwrap();
    let foot = source
        .source
        .skeleton()
        .names()
        .iter()
        .position(|n| n.contains("FootL") || n == "FootL");
    let foot = foot.unwrap_or(1);
    h.state_mut()
        .run(Command::Edit(retarget_studio::session::Edit::MapBone {
            target: control,
            source: Some(foot),
        }));
    h.run_steps(3);
    assert!(
        !h.state().view(1).scene.hidden[control],
        "a mapped bone is hidden"
    );
}

#[test]
fn import_notes_open_under_their_button_with_a_tidy_path() {
    // A project saved elsewhere names the fox (whose size the reader notes) by `../..` steps.
    let (_dir, _, mut h) = editor_on_saved("fox", "gltf/Fox.glb", "vrm/cryptovoxels.vrm");
    let source = sides(&h).0;
    assert!(
        source.to_string_lossy().contains(".."),
        "{}",
        source.display()
    );
    // The source's `(!) N` button (the bone map's status cells say `(!)` alone).
    let notes = |n: &egui_kittest::Node<'_>| {
        use egui_kittest::kittest::NodeT;
        n.accesskit_node()
            .label()
            .and_then(|l| l.strip_prefix("(!) ").map(|c| c.parse::<usize>().is_ok()))
            .unwrap_or(false)
    };
    let button = h
        .query_all_by_label_contains("(!) ")
        .find(notes)
        .expect("the source's notes button");
    let below = button.rect().left_bottom();
    button.click();
    h.run();
    let shown = std::fs::canonicalize(&source)
        .unwrap()
        .display()
        .to_string();
    let label = h.get_by_label(&shown);
    let title = h.get_by_label("Import notes").rect();
    assert!(
        (title.top() - below.y).abs() < 60.0 && (title.left() - below.x).abs() < 60.0,
        "the window at {:?} is far from its button at {below:?}",
        title.min
    );
    assert!(label.rect().top() > title.top());
}

#[test]
fn extracting_root_motion_draws_the_pelvis_path_on_the_floor() {
    let (_dir, _, mut h) = editor_on_saved("walk", "bvh/02_01.bvh", "gltf/RobotExpressive.glb");
    assert!(h.state().drawn.root_path.is_none(), "no path unless asked");
    h.state_mut().prefs.panel.export.extract_root = true;
    h.run_steps(2);
    let (_, path) = h.state().drawn.root_path.clone().expect("a path");
    assert!(path.len() >= 100, "{} points", path.len());
    let travel = (path[path.len() - 1] - path[0]).length();
    assert!(travel > 2.0, "the walk's path is {travel} long");
    assert!(
        path.iter().all(|p| (p.y - path[0].y).abs() < 1e-6),
        "on the floor"
    );
    h.state_mut().prefs.panel.export.extract_root = false;
    h.run_steps(2);
    assert!(h.state().drawn.root_path.is_none());
}
