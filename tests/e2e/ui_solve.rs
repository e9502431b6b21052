//! The Solve tab, the contact bars and the export panel's mirror (#12) through the UI
//! (egui_kittest), on the CMU walk mapped onto CesiumMan: a clip with clear foot contacts.

use egui::Modifiers;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::StudioApp;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::path::{Path, PathBuf};

type H = Harness<'static, StudioApp>;

/// A project of the walk on CesiumMan in `dir`, saved as a user would.
fn walk_project(dir: &Path) -> PathBuf {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let session = Session::automatic(
        &assets.join("bvh/02_01.bvh"),
        &assets.join("gltf/CesiumMan.glb"),
        &ImportOptions::default(),
    )
    .unwrap();
    let path = dir.join("walk.ron");
    session.to_project().save(&path).unwrap();
    path
}

/// The editor on `project` with `tab` shown, paused, its background work done.
fn harness(project: PathBuf, tab: Tab) -> H {
    let mut h = crate::common::editor::editor_on(project, tab);
    settle(&mut h);
    h
}

/// Steps until the quality report and the contacts are for the document as it is.
fn settle(h: &mut H) {
    for _ in 0..3 {
        h.step();
        h.state_mut().wait_for_quality();
        h.state_mut().wait_for_contacts();
    }
    h.run_steps(2);
}

fn plant_feet(h: &H) -> bool {
    h.state().doc.session.as_ref().unwrap().solve.plant_feet
}

#[test]
fn the_solve_tab_turns_planting_off_and_undo_brings_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(walk_project(dir.path()), Tab::Solve);
    assert!(plant_feet(&h));
    assert!(!h.state().doc.dirty);
    let planted = h.state().quality_report().unwrap().frame_badness.clone();
    assert!(!h.state().bars.is_empty(), "the walk's contacts are drawn");

    h.get_by_label("Plant feet").click();
    h.run_steps(2);
    assert!(!plant_feet(&h), "the checkbox turns planting off");
    assert!(h.state().doc.dirty, "an unsaved change");
    assert_eq!(h.state().undo.undo_label(), Some("Solve settings"));
    settle(&mut h);
    assert!(h.state().bars.is_empty(), "no planting, no contacts");
    let free = h.state().quality_report().unwrap().frame_badness.clone();
    assert_ne!(
        planted, free,
        "the quality strip follows the solve settings"
    );

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    assert!(plant_feet(&h), "undo plants the feet again");
    assert!(!h.state().bars.is_empty());
    assert_eq!(h.state().quality_report().unwrap().frame_badness, planted);
}

#[test]
fn the_walk_shows_both_feet_s_contacts_and_a_click_goes_to_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(walk_project(dir.path()), Tab::Quality);
    let bars = h.state().bars.clone();
    let mut feet: Vec<&str> = bars.iter().map(|b| b.foot.as_str()).collect();
    feet.dedup();
    assert_eq!(feet.len(), 2, "{feet:?}");
    for foot in &feet {
        let n = bars.iter().filter(|b| b.foot == *foot).count();
        assert!(n >= 3, "{foot}: {n} contacts");
    }
    let strip = h.state().strip.clone().unwrap();
    for bar in &bars {
        assert!(bar.rect.left() >= strip.rect.left() - 1e-3);
        assert!(bar.rect.right() <= strip.rect.right() + 1e-3);
        assert!(bar.rect.top() >= strip.rect.bottom(), "under the strip");
    }
    let second = bars.iter().filter(|b| b.foot == feet[0]).nth(1).unwrap();
    h.get_by_label(&format!("{} contact 2", feet[0])).click();
    h.run_steps(2);
    let app = h.state();
    let frames = app.contact_bars().unwrap().frames;
    let duration = app.clip_info().unwrap().duration_secs;
    let expected = second.contact.start as f32 / (frames - 1) as f32 * duration;
    assert!(
        (app.playback.time_secs - expected).abs() < 1e-4,
        "{} vs {expected}",
        app.playback.time_secs
    );
    assert!(!app.playback.playing);
}

#[test]
fn the_export_panel_s_mirror_sets_the_solve_flag() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(walk_project(dir.path()), Tab::Export);
    let mirror = |h: &H| h.state().doc.session.as_ref().unwrap().solve.mirror;
    assert!(!mirror(&h));
    h.get_by_label("Mirror left to right").click();
    h.run_steps(2);
    assert!(mirror(&h), "the export panel sets the flag");
    assert!(h.state().doc.dirty);
    // The Solve tab shows the same flag.
    h.state_mut().prefs.tab = Tab::Solve;
    h.run_steps(2);
    h.get_by_label("Mirror").click();
    h.run_steps(2);
    assert!(!mirror(&h), "and the Solve tab clears it");
}
