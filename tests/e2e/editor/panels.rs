//! The export panel, the history tab, swapping sides and the import notes through the UI
//! (egui_kittest).

use super::harness_on;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::command::Command;
use retarget_studio::app::panels::Tab;
use retarget_studio::io::ImportOptions;
use std::path::Path;

/// Clicks Export clips and waits for the export to finish.
fn export_and_wait(h: &mut egui_kittest::Harness<'_, retarget_studio::app::StudioApp>) {
    h.get_by_label("Export clips").click();
    h.run_steps(2);
    for _ in 0..200 {
        if !h.state().exporting() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
}

#[test]
fn export_panel_writes_a_file_that_reimports() {
    let mut h = harness_on(None, Tab::Export);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dance_on_vrm.glb");
    h.state_mut().prefs.panel.export.path = out.display().to_string();
    h.run_steps(1);
    export_and_wait(&mut h);
    assert!(
        out.exists(),
        "status: {:?} error: {:?}",
        h.state().status,
        h.state().error
    );
    assert!(
        h.state()
            .status
            .as_ref()
            .unwrap()
            .contains("dance_on_vrm.glb")
    );
    let back = retarget_studio::io::load(Path::new(&out), &ImportOptions::default()).unwrap();
    assert_eq!(back.clips.len(), 1);
    assert_eq!(back.clips[0].clip.name, "Dance");
    assert!(!back.meshes.is_empty(), "the VRM's mesh is kept");
}

#[test]
fn export_panel_offers_fbx_in_centimetres_z_up() {
    let mut h = harness_on(None, Tab::Export);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dance_on_vrm.glb");
    h.state_mut().prefs.panel.export.path = out.display().to_string();
    h.run_steps(1);
    h.get_by_label("FBX: the target character with the clips")
        .click();
    h.run_steps(1);
    h.get_by_label("cm").click();
    h.get_by_label("Z").click();
    h.run_steps(1);
    export_and_wait(&mut h);
    let fbx = out.with_extension("fbx");
    assert!(
        fbx.exists(),
        "status: {:?} error: {:?}",
        h.state().status,
        h.state().error
    );
    let back = retarget_studio::io::load(&fbx, &ImportOptions::default()).unwrap();
    assert_eq!(back.unit, retarget_studio::core::Unit::Centimetre);
    assert_eq!(back.up, retarget_studio::core::Axis::PosZ);
    assert_eq!(back.clips[0].clip.name, "Dance");
    assert!(!back.meshes.is_empty(), "the VRM's mesh is in the FBX");
}

#[test]
fn history_tab_lists_edits() {
    let mut h = harness_on(None, Tab::History);
    h.state_mut()
        .run(Command::Edit(retarget_studio::session::Edit::MatchHeights));
    h.run_steps(2);
    h.get_by_label("  1. Match heights");
    h.get_by_label("Undo").click();
    h.run_steps(2);
    assert_eq!(h.state().undo.redo_label(), Some("Match heights"));
}

#[test]
fn swap_sides_needs_a_target_with_clips() {
    let mut h = harness_on(None, Tab::BoneMap);
    h.get_by_label("Swap sides").click();
    h.run_steps(3);
    let error = h
        .state()
        .error
        .clone()
        .expect("the VRM has no clip to play");
    assert!(error.contains("no clip"), "{error}");
    assert!(
        h.state()
            .doc
            .session
            .as_ref()
            .unwrap()
            .source
            .path
            .ends_with("RobotExpressive.glb"),
        "nothing changed"
    );
}

#[test]
fn import_notes_of_a_side_are_listed_on_request() {
    let fox = retarget_studio::app::Launch {
        source: Some(crate::common::asset_path("gltf/Fox.glb")),
        ..Default::default()
    };
    let mut h = crate::common::editor::editor_launched(fox, Tab::BoneMap);
    // The fox is 60 units tall in a file whose units are metres: the reader says so (and
    // the demo's VRM, facing -Z, was turned: one note each side).
    assert_eq!(h.state().import_notes(0).len(), 1);
    assert_eq!(h.state().import_notes(1).len(), 1);
    assert!(h.query_by_label("Import notes").is_none());
    // The source's button is the first (its viewport is on the left).
    h.query_all_by_label("(!) 1").next().unwrap().click();
    h.run_steps(2);
    let note = h.state().import_notes(0)[0].clone();
    assert!(note.contains("60.725 units tall"), "{note}");
    h.get_by_label(&note);
    let path = h.state().doc.session.as_ref().unwrap().source.path.clone();
    h.get_by_label(&path.display().to_string()); // the window names the file
}
