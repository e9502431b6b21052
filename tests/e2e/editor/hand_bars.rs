//! The hand contact bars under the timeline (egui_kittest): CMU's walk with both hands on
//! one grip, mapped onto CesiumMan, shows one "hands together" bar over the whole clip; a
//! click on it goes to its start; the Solve tab's Hand contacts switch takes it away.

use super::session;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::StudioApp;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::path::{Path, PathBuf};

type H = Harness<'static, StudioApp>;

/// A project of the grip walk on CesiumMan in `dir`.
fn grip_project(dir: &Path) -> PathBuf {
    let source = crate::common::file_variants::grip_walk(dir);
    let target = crate::common::asset_path("gltf/CesiumMan.glb");
    let s = Session::automatic(&source, &target, &ImportOptions::default()).unwrap();
    let path = dir.join("grip.ron");
    s.to_project().save(&path).unwrap();
    path
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

#[test]
fn the_hands_grip_shows_as_a_bar_that_the_solve_tab_turns_off() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = crate::common::editor::editor_on(grip_project(dir.path()), Tab::Solve);
    settle(&mut h);
    let bars = h.state().contact_bars().expect("contacts found").clone();
    assert_eq!(bars.hands.len(), 1, "{:?}", bars.hands);
    assert_eq!(bars.hands[0].foot, "hands together");
    let held = bars.hands[0].contacts[0];
    assert_eq!(
        (held.start, held.end + 1),
        (0, bars.frames),
        "the whole walk"
    );

    let info = h.state().clip_info().unwrap();
    h.state_mut().playback.set_frame(100, &info);
    h.run_steps(2);
    h.get_by_label("hands together contact 1").click();
    h.run_steps(2);
    assert_eq!(
        h.state().playback.time_secs,
        0.0,
        "the click goes to its start"
    );

    h.get_by_label("Hand contacts").click();
    settle(&mut h);
    assert!(!session(&h).solve.settings.hand_contacts);
    let bars = h.state().contact_bars().unwrap();
    assert!(bars.hands.is_empty(), "no hand contacts kept, no bars");
    assert!(h.query_by_label("hands together contact 1").is_none());
}
