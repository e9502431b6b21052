//! The editor never loses work: a panic in a job (made by the test hook) is shown in words
//! and leaves the project and its edits; unsaved edits are autosaved to a recovery file,
//! which the next start offers to restore. Autosave writes to a temp folder, never to the
//! user's data folder.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::command::Command;
use retarget_studio::app::document::autosave::AutosaveConfig;
use retarget_studio::app::guard::Job;
use retarget_studio::app::studio::{Prefs, StudioApp};
use retarget_studio::app::{Launch, demo_project};
use retarget_studio::session::Edit;
use std::path::Path;
use std::time::Duration;

type H = Harness<'static, StudioApp>;

fn harness(recovery: Option<&Path>) -> H {
    let launch = Launch {
        recovery: recovery.map(|dir| AutosaveConfig {
            dir: dir.to_path_buf(),
            interval: Duration::ZERO,
        }),
        ..Launch::default()
    };
    let mut app = StudioApp::with_launch(launch, Prefs::default());
    app.playback.playing = false;
    assert!(app.error.is_none(), "the demo opens: {:?}", app.error);
    let mut h = Harness::new_ui_state(|ui, app: &mut StudioApp| app.ui_contents(ui), app);
    h.set_size(egui::vec2(1400.0, 860.0));
    h.step();
    h
}

/// Unmaps the first mapped target joint: an edit to find again after a restore.
fn unmap_one(h: &mut H) -> String {
    let session = h.state().doc.session.as_ref().unwrap();
    let target = session.map.pairs()[0].target;
    let name = session.target.skeleton().names()[target].clone();
    h.state_mut().run(Command::Edit(Edit::MapBone {
        target,
        source: None,
    }));
    h.step();
    assert!(h.state().doc.dirty);
    name
}

fn maps_target(app: &StudioApp, name: &str) -> bool {
    let project = app.doc.project().unwrap();
    project.map.iter().any(|p| p.target == name)
}

fn error_of(h: &H) -> String {
    h.state().error.clone().unwrap_or_default()
}

#[test]
fn a_panicking_export_leaves_the_project_and_its_edits() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.glb");
    let mut h = harness(None);
    let unmapped = unmap_one(&mut h);
    h.state_mut().inject_panic = Some(Job::Export);
    h.state_mut().run(Command::Export(out.clone()));
    for _ in 0..500 {
        if !h.state().exporting() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
        h.step();
    }
    assert!(!h.state().exporting(), "the export ended");
    h.run_steps(2);
    let error = error_of(&h);
    assert!(
        error.contains("The export stopped on an internal error"),
        "{error}"
    );
    h.get_by_label_contains("The export stopped");
    assert!(!out.exists(), "nothing written");
    let app = h.state();
    assert!(
        app.doc.dirty && app.undo.undo_label().is_some(),
        "the edit stays"
    );
    assert!(!maps_target(app, &unmapped), "and so does its effect");
}

#[test]
fn panicking_loads_edits_and_retargets_are_shown_and_survived() {
    let mut h = harness(None);
    let title = h.state().title();
    h.state_mut().inject_panic = Some(Job::Load);
    h.state_mut().run(Command::OpenProject(demo_project()));
    h.run_steps(2);
    assert!(error_of(&h).contains("Loading stopped"), "{}", error_of(&h));
    assert_eq!(h.state().title(), title, "the open project stays");
    h.get_by_label("OK").click();
    h.step();

    h.state_mut().inject_panic = Some(Job::Edit);
    h.state_mut().run(Command::Edit(Edit::ClearMap));
    h.step();
    assert!(
        error_of(&h).contains("The change stopped"),
        "{}",
        error_of(&h)
    );
    assert!(
        !h.state().doc.dirty,
        "the failed change left nothing behind"
    );
    assert!(!h.state().doc.session.as_ref().unwrap().map.is_empty());
    h.state_mut().error = None;

    h.state_mut().inject_panic = Some(Job::Retarget);
    let unmapped = unmap_one(&mut h);
    assert!(
        error_of(&h).contains("live retarget stopped"),
        "{}",
        error_of(&h)
    );
    h.state_mut().error = None;
    h.run_steps(3);
    assert!(h.state().error.is_none(), "reported once, not every frame");
    assert!(!maps_target(h.state(), &unmapped), "the edit stays");
    h.state_mut().run(Command::Undo);
    h.run_steps(2);
    assert!(
        h.state().error.is_none(),
        "the next revision retargets again"
    );
}

#[test]
fn autosave_writes_only_unsaved_work_and_the_next_start_restores_it() {
    let dir = tempfile::tempdir().unwrap();
    let recovery = dir.path().join("recovery");
    let files = || {
        std::fs::read_dir(&recovery)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.path().extension().is_some_and(|x| x == "ron"))
                    .count()
            })
            .unwrap_or(0)
    };
    let mut first = harness(Some(&recovery));
    first.run_steps(2);
    assert_eq!(files(), 0, "nothing unsaved, nothing written");
    let unmapped = unmap_one(&mut first);
    first.step();
    assert_eq!(files(), 1, "unsaved edits are autosaved");

    let running = harness(Some(&recovery));
    assert!(
        running.state().prompts.recoveries.is_empty(),
        "a window still open is not a crash"
    );
    drop(running);
    // The first window dies without closing (as in a crash): its file stays.
    drop(first);
    assert_eq!(files(), 1);

    let mut next = harness(Some(&recovery));
    assert_eq!(
        next.state().prompts.recoveries.len(),
        1,
        "offered after the crash"
    );
    next.get_by_label("Restore unsaved work?");
    next.get_by_label("Restore").click();
    next.run_steps(2);
    let app = next.state();
    assert!(
        app.prompts.recoveries.is_empty() && app.error.is_none(),
        "{:?}",
        app.error
    );
    assert!(app.doc.dirty, "restored work is unsaved");
    assert!(app.title().starts_with("demo.ron*"), "{}", app.title());
    assert!(!maps_target(app, &unmapped), "the edit is back");
    assert_eq!(
        files(),
        1,
        "the crashed window's file went; this one's own is written"
    );
    let dir_of_saves = tempfile::tempdir().unwrap();
    next.state_mut()
        .run(Command::SaveAs(dir_of_saves.path().join("saved.ron")));
    next.step();
    assert_eq!(files(), 0, "saved: nothing to recover");
}

#[test]
fn a_discarded_recovery_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = harness(Some(dir.path()));
    unmap_one(&mut first);
    first.step();
    drop(first);
    let mut next = harness(Some(dir.path()));
    next.get_by_label("Discard").click();
    next.step();
    assert!(next.state().prompts.recoveries.is_empty());
    assert!(!next.state().doc.dirty, "the demo as it was");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
