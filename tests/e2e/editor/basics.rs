//! Editor UI tests with egui_kittest: no GPU, no display. The viewports' paint callbacks are
//! simply not drawn; everything else runs as in the window.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::command::Command;
use retarget_studio::app::studio::{Prefs, StudioApp};
use retarget_studio::app::{Launch, demo_project};
use std::time::Duration;

fn harness() -> Harness<'static, StudioApp> {
    let app = StudioApp::with_launch(Launch::default(), Prefs::default());
    assert!(app.error.is_none(), "the demo opens: {:?}", app.error);
    let mut h = Harness::new_ui_state(|ui, app: &mut StudioApp| app.ui_contents(ui), app);
    h.set_size(egui::vec2(1400.0, 860.0));
    h.step();
    h
}

fn steps_with_time(h: &mut Harness<'static, StudioApp>, n: usize) {
    for _ in 0..n {
        std::thread::sleep(Duration::from_millis(15));
        h.step();
    }
}

#[test]
fn the_demo_opens_playing() {
    let h = harness();
    let app = h.state();
    assert!(app.playback.playing, "a first-time user sees it move");
    assert_eq!(app.clip.as_deref(), Some("Dance"));
    assert!(app.title().starts_with("demo.ron — "), "{}", app.title());
}

#[test]
fn play_pause_changes_the_time() {
    let mut h = harness();
    h.get_by_label("Pause").click();
    h.step();
    assert!(!h.state().playback.playing);
    let paused_at = h.state().playback.time_secs;
    steps_with_time(&mut h, 4);
    assert_eq!(
        h.state().playback.time_secs,
        paused_at,
        "paused time stands still"
    );
    h.get_by_label("Play").click();
    steps_with_time(&mut h, 6);
    assert!(
        h.state().playback.time_secs > paused_at,
        "playing moves the time"
    );
    h.key_press(egui::Key::Space);
    h.step();
    assert!(!h.state().playback.playing, "Space pauses");
}

#[test]
fn stepping_moves_exactly_one_frame() {
    let mut h = harness();
    h.key_press(egui::Key::Space);
    h.step();
    let info = h.state().clip_info().unwrap();
    h.state_mut().playback.set_frame(10, &info);
    h.key_press(egui::Key::ArrowRight);
    h.step();
    assert_eq!(h.state().playback.frame(&info), 11);
    h.key_press(egui::Key::ArrowLeft);
    h.step();
    h.key_press(egui::Key::ArrowLeft);
    h.step();
    assert_eq!(h.state().playback.frame(&info), 9);
    h.get_by_label(">").click();
    h.step();
    assert_eq!(
        h.state().playback.frame(&info),
        10,
        "the next-frame button steps too"
    );
    h.key_press(egui::Key::End);
    h.step();
    assert_eq!(h.state().playback.frame(&info), info.frame_count() - 1);
    h.key_press(egui::Key::Home);
    h.step();
    assert_eq!(h.state().playback.frame(&info), 0);
}

#[test]
fn a_broken_project_shows_an_error_and_keeps_the_old_one() {
    let mut h = harness();
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.ron");
    std::fs::write(&broken, "(version: 1, source: (path: ").unwrap();
    h.state_mut().run(Command::OpenProject(broken.clone()));
    h.run_steps(2);
    let app = h.state();
    let error = app.error.clone().expect("an error is shown");
    assert!(error.contains("broken.ron"), "{error}");
    assert!(app.doc.session.is_some(), "the demo is still open");
    assert_eq!(
        app.doc.project_path.as_deref(),
        Some(demo_project().as_path())
    );
    h.get_by_label("OK").click();
    h.step();
    assert!(h.state().error.is_none());

    let missing_char = dir.path().join("missing.ron");
    std::fs::write(
        &missing_char,
        r#"(version: 1, source: (path: "nope.bvh"), target: (path: "gone.glb"))"#,
    )
    .unwrap();
    h.state_mut().run(Command::OpenProject(missing_char));
    h.run_steps(2);
    // Moved files are asked for (editor/moved_files.rs); cancelling says which.
    let locate = h
        .state()
        .prompts
        .locate
        .as_ref()
        .expect("asks where the file went");
    assert!(locate.missing.path.ends_with("nope.bvh"));
    assert!(h.state().doc.session.is_some());
    h.get_by_label("Cancel").click();
    h.step();
    assert!(h.state().error.as_ref().unwrap().contains("nope.bvh"));
    assert!(h.state().doc.session.is_some());
}

#[test]
fn dirty_flag_title_and_the_unsaved_prompt() {
    let mut h = harness();
    assert!(!h.state().title().contains('*'));
    h.state_mut().doc.touch();
    h.step();
    assert!(
        h.state().title().starts_with("demo.ron* "),
        "{}",
        h.state().title()
    );

    // New over unsaved changes asks first; Cancel keeps everything.
    h.state_mut().run(Command::New);
    h.run_steps(2);
    h.get_by_label("Unsaved changes");
    h.get_by_label("Cancel").click();
    h.step();
    assert!(h.state().doc.session.is_some());
    assert!(h.state().doc.dirty);

    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("mine.ron");
    h.state_mut().run(Command::SaveAs(saved.clone()));
    h.step();
    assert!(saved.exists());
    assert_eq!(h.state().title(), "mine.ron — Retarget Studio");
    assert!(h.state().status.as_ref().unwrap().contains("Saved"));

    // Saved: New goes through without asking.
    h.state_mut().run(Command::New);
    h.step();
    assert!(h.state().doc.session.is_none());
    assert_eq!(h.state().title(), "no project — Retarget Studio");
}

#[test]
fn clicking_a_bone_map_row_selects_the_bone() {
    let mut h = harness();
    h.get_by_role_and_label(egui::accesskit::Role::Label, "Left elbow")
        .click();
    h.step();
    let app = h.state();
    let session = app.doc.session.as_ref().unwrap();
    let selected = app.selected.expect("a row click selects");
    assert_eq!(session.target.skeleton().names()[selected], "Left elbow");
}
