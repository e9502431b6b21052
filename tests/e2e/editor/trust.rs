//! Small things that cost a user's trust (egui_kittest): opening files asks nothing on quit,
//! a missing file never drops the good one, the bone map's filter and the source search
//! start empty, Enter picks the one match, an unsaved project exports in no library's
//! folder, and the frame rate is not counted while paused.

use crate::common::asset_path;
use crate::common::editor::{editor_at, editor_launched};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use retarget_studio::app::command::Command;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::{Prefs, StudioApp};
use retarget_studio::app::{Launch, demo_project};
use retarget_studio::session::Edit;

type H = Harness<'static, StudioApp>;

fn two_files() -> H {
    editor_launched(
        Launch {
            source: Some(asset_path("bvh/02_01.bvh")),
            target: Some(asset_path("gltf/CesiumMan.glb")),
            ..Launch::default()
        },
        Tab::BoneMap,
    )
}

#[test]
fn two_files_just_opened_ask_nothing_on_quit_or_new() {
    let mut h = two_files();
    assert!(!h.state().doc.dirty, "nothing to lose yet");
    assert!(!h.state().title().contains('*'), "{}", h.state().title());
    h.state_mut().run(Command::Quit);
    h.run_steps(2);
    assert!(h.query_by_label("Unsaved changes").is_none());
    // An edit is something to lose: then it asks.
    h.state_mut().run(Command::Edit(Edit::ClearMap));
    h.run_steps(1);
    assert!(h.state().doc.dirty);
    h.state_mut().run(Command::New);
    h.run_steps(2);
    h.get_by_label("Unsaved changes");
    assert!(h.state().doc.session.is_some());
}

#[test]
fn a_new_file_onto_a_saved_project_is_an_unsaved_change() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("walk.ron");
    let mut h = editor_at(None, Tab::BoneMap);
    h.state_mut()
        .run(Command::LoadSource(asset_path("bvh/02_01.bvh")));
    h.state_mut().run(Command::SaveAs(project.clone()));
    h.run_steps(1);
    assert!(!h.state().doc.dirty);
    h.state_mut()
        .run(Command::LoadTarget(asset_path("gltf/CesiumMan.glb")));
    h.run_steps(1);
    assert!(
        h.state().doc.dirty,
        "the project on disk still has the old target"
    );
}

#[test]
fn a_missing_file_on_the_command_line_keeps_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("walk_typo.bvh");
    let launch = Launch {
        source: Some(missing),
        target: Some(asset_path("gltf/CesiumMan.glb")),
        ..Launch::default()
    };
    let app = StudioApp::with_launch(launch, Prefs::default());
    let error = app.error.clone().expect("the missing file is named");
    assert!(error.contains("walk_typo.bvh"), "{error}");
    let session = app.doc.session.as_ref().expect("the good file is open");
    assert!(session.target.path.ends_with("CesiumMan.glb"));
    // And the other way round.
    let launch = Launch {
        source: Some(asset_path("bvh/02_01.bvh")),
        target: Some(dir.path().join("hero_typo.glb")),
        ..Launch::default()
    };
    let app = StudioApp::with_launch(launch, Prefs::default());
    assert!(app.error.as_ref().unwrap().contains("hero_typo.glb"));
    let session = app.doc.session.as_ref().unwrap();
    assert!(session.source.path.ends_with("02_01.bvh"));
}

#[test]
fn the_bone_map_filter_belongs_to_one_document() {
    let mut h = editor_at(None, Tab::BoneMap);
    h.state_mut().prefs.panel.map_filter = "hand".into();
    h.run_steps(1);
    // Not kept between runs...
    let saved = ron::to_string(&h.state().prefs).unwrap();
    let next: Prefs = ron::from_str(&saved).unwrap();
    assert_eq!(next.panel.map_filter, "");
    // ... nor into the next project.
    h.state_mut().run(Command::OpenProject(demo_project()));
    h.run_steps(2);
    assert_eq!(h.state().prefs.panel.map_filter, "");
    h.get_by_label_contains("shown");
}

fn open_source_picker(h: &mut H, row: &str) {
    h.get_by_label(&format!("{row} source")).click();
    h.run_steps(2);
}

fn backspaces(h: &mut H, n: usize) {
    for _ in 0..n {
        h.key_press(egui::Key::Backspace);
        h.run_steps(1);
    }
}

#[test]
fn the_source_search_starts_empty_and_enter_picks_the_only_match() {
    let mut h = editor_at(None, Tab::BoneMap);
    let elbow = super::target_joint(&h, "Left elbow");
    open_source_picker(&mut h, "Left elbow");
    h.get_by_label("Search").click();
    h.run_steps(1);
    h.get_by_label("Search").type_text("zzzz");
    h.run_steps(2);
    h.get_by_label("no source joint holds \"zzzz\"");
    assert!(h.query_by_label("PoleTarget.L").is_none());
    // Cleared, the list is whole again.
    backspaces(&mut h, 4);
    h.run_steps(2);
    h.get_by_label("PoleTarget.L");
    h.get_by_label("Search").type_text("poletarget.l");
    h.run_steps(2);
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    let session = super::session(&h);
    let pair = session.map.for_target(elbow).unwrap();
    assert_eq!(
        session.source.skeleton().names()[pair.source],
        "PoleTarget.L"
    );
    // Opened again, the search starts empty (the same text would be another row's).
    open_source_picker(&mut h, "Left elbow");
    let search = h.get_by_label("Search").accesskit_node().value();
    assert_eq!(search.as_deref().unwrap_or(""), "");
}

#[test]
fn the_demo_and_unsaved_projects_export_into_no_library_folder() {
    let assets = asset_path("");
    let h = editor_at(None, Tab::Export);
    let demo = h.state().export_path("glb").unwrap();
    assert!(!demo.starts_with(&assets), "{}", demo.display());
    let h = two_files();
    let unsaved = h.state().export_path("glb").unwrap();
    assert!(!unsaved.starts_with(&assets), "{}", unsaved.display());
    assert!(unsaved.ends_with("02_01_on_CesiumMan.glb"));
}

#[test]
fn the_frame_rate_is_not_counted_while_paused() {
    let mut h = editor_at(None, Tab::BoneMap);
    for _ in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(5));
        h.step();
    }
    assert!(h.state().frames.fps().is_some(), "frames were drawn");
    h.get_by_label("– fps");
}

#[test]
fn a_capture_rate_source_is_offered_the_target_s_rate_and_the_size_is_shown() {
    use retarget_studio::app::panels::FpsChoice;
    // The CMU walk is a 120 fps capture.
    let launch = Launch {
        source: Some(asset_path("bvh/02_01.bvh")),
        target: Some(asset_path("gltf/CesiumMan.glb")),
        ..Launch::default()
    };
    let mut h = editor_launched(launch, Tab::Export);
    h.set_size(egui::vec2(1500.0, 1200.0));
    h.run_steps(2);
    h.get_by_label_contains("keys at 120 fps (≈");
    h.get_by_label_contains("The source runs at 120 fps");
    let offer = h.get_by_label_contains("fps, keys reduced");
    offer.click();
    h.run_steps(2);
    let form = &h.state().prefs.panel.export;
    assert!(form.reduce, "keys reduced");
    assert!(
        matches!(form.fps, FpsChoice::Fixed(24 | 30 | 60)),
        "{:?}",
        form.fps
    );
    assert!(h.query_by_label_contains("The source runs at").is_none());
    h.get_by_label_contains("fewer once reduced");
}
