//! A project whose files moved: the editor asks where each one is (a typed path when no file
//! dialog answers), loads with the new path and marks the project unsaved; the CLI names the
//! missing file and the project.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::command::Command;
use retarget_studio::app::studio::{Prefs, StudioApp};
use retarget_studio::app::{Launch, demo_project};
use retarget_studio::io::project::ProjectFile;
use std::path::{Path, PathBuf};

/// The demo project saved in `dir`, its source pointing at a file that moved away.
fn moved_project(dir: &Path) -> (PathBuf, PathBuf) {
    let mut project = ProjectFile::load(&demo_project()).unwrap();
    let real = project.source.path.clone();
    project.source.path = dir.join("gone/RobotExpressive.glb");
    let path = dir.join("moved.ron");
    project.save(&path).unwrap();
    (path, real)
}

#[test]
fn a_moved_file_is_asked_for_and_the_project_loads_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let (path, real) = moved_project(dir.path());
    let app = StudioApp::with_launch(
        Launch {
            project: Some(path.clone()),
            ..Launch::default()
        },
        Prefs::default(),
    );
    assert!(app.error.is_none(), "not refused: {:?}", app.error);
    assert!(app.prompts.locate.is_some(), "asks for the file");
    let mut h = Harness::new_ui_state(|ui, app: &mut StudioApp| app.ui_contents(ui), app);
    h.set_size(egui::vec2(1400.0, 860.0));
    h.step();
    h.get_by_label_contains("gone/RobotExpressive.glb");

    let field = h.get_by_role(egui::accesskit::Role::TextInput);
    field.focus();
    h.step();
    h.get_by_role(egui::accesskit::Role::TextInput)
        .type_text(dir.path().join("nowhere.glb").to_str().unwrap());
    h.step();
    h.get_by_label("Use this path").click();
    h.step();
    let locate = h.state().prompts.locate.as_ref().expect("still asking");
    assert!(locate.problem.as_ref().unwrap().contains("nowhere.glb"));

    h.state_mut().prompts.locate.as_mut().unwrap().typed = real.display().to_string();
    h.step();
    h.get_by_label("Use this path").click();
    h.run_steps(2);
    let app = h.state();
    assert!(
        app.prompts.locate.is_none() && app.error.is_none(),
        "{:?}",
        app.error
    );
    assert!(app.doc.session.is_some(), "loaded");
    assert!(
        app.doc.dirty && app.title().starts_with("moved.ron*"),
        "{}",
        app.title()
    );
    h.state_mut().run(Command::Save);
    h.step();
    let saved = ProjectFile::load(&path).unwrap();
    assert_eq!(
        std::fs::canonicalize(saved.source.path).unwrap(),
        std::fs::canonicalize(real).unwrap(),
        "the new path is saved"
    );
}

#[test]
fn the_cli_names_the_missing_file_and_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = moved_project(dir.path());
    let out = crate::common::studio()
        .args(["check", "--project"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("moved.ron: cannot open the project"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the source file") && stderr.contains("gone/RobotExpressive.glb"),
        "{stderr}"
    );
    assert!(!stderr.contains("os error"), "{stderr}");
}
