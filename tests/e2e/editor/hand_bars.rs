//! The hand contact bars under the timeline (egui_kittest): CMU's walk with both hands on
//! one grip, mapped onto CesiumMan, shows one "hands together" bar over the whole clip; a
//! click on it goes to its start; the Solve tab's Hand contacts switch takes it away. Its
//! end dragged earlier draws the touch's contacts by hand (undoable, saved in the project).

use super::{ctrl, drag_along, session, settle};
use eframe::egui;
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

/// The hand contacts drawn for `touch` on the current clip, if any.
fn drawn(h: &H, touch: &str) -> Option<Vec<(f32, f32)>> {
    let clip = h.state().clip_info().unwrap().name;
    let spans = session(h).solve.drawn_hand_contacts(&clip, touch);
    spans.map(<[_]>::to_vec)
}

#[test]
fn dragging_the_grip_s_end_redraws_it_and_undo_gives_the_detected_one_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = crate::common::editor::editor_on(grip_project(dir.path()), Tab::Quality);
    settle(&mut h);
    let touch = "hands together";
    let before = h.state().drawn.hand_bars.clone();
    assert_eq!(before.len(), 1, "{before:?}");
    let bar = &before[0];
    assert_eq!(bar.foot, touch);
    assert_eq!(drawn(&h, touch), None, "detected");
    // The bar's right end, dragged twenty frames earlier.
    let frame_width = bar.rect.width() / bar.contact.frames() as f32;
    let from = egui::pos2(bar.rect.right() - 1.0, bar.rect.center().y);
    let to = from - egui::vec2(20.0 * frame_width, 0.0);
    let path: Vec<_> = (0..=4).map(|k| from.lerp(to, k as f32 / 4.0)).collect();
    drag_along(
        &mut h,
        &[&[from], &path[..]].concat(),
        egui::Modifiers::NONE,
    );
    h.run_steps(2);
    assert!(h.state().doc.dirty, "an unsaved change");
    assert_eq!(
        h.state().undo.undo_label(),
        Some(format!("Contacts of {touch}").as_str())
    );
    let spans = drawn(&h, touch).expect("the grip is drawn now");
    assert_eq!(spans.len(), 1, "{spans:?}");
    settle(&mut h);
    let after = h.state().drawn.hand_bars.clone();
    assert_eq!(after.len(), 1, "{after:?}");
    let moved = after[0].contact;
    println!("{:?} -> {moved:?}", bar.contact);
    assert_eq!(moved.start, bar.contact.start);
    assert!(
        (bar.contact.end as i64 - moved.end as i64 - 20).abs() <= 1,
        "{:?} -> {moved:?}",
        bar.contact
    );
    assert!(after[0].rect.right() < bar.rect.right() - 10.0 * frame_width);

    ctrl(&mut h, egui::Key::Z, false);
    settle(&mut h);
    assert_eq!(drawn(&h, touch), None, "undo: nothing drawn");
    let back: Vec<_> = h
        .state()
        .drawn
        .hand_bars
        .iter()
        .map(|b| b.contact)
        .collect();
    assert_eq!(back, [bar.contact], "the detected grip again");
}

#[test]
fn a_touch_drawn_empty_holds_nothing_keeps_its_row_and_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let path = grip_project(dir.path());
    let mut s = Session::from_project(&path).unwrap();
    let clip = s.source_clip(None).unwrap().name.clone();
    let label = s
        .apply_edit(&retarget_studio::session::Edit::SetHandContacts {
            clip: clip.clone(),
            touch: "hands together".into(),
            spans: Some(Vec::new()),
        })
        .unwrap();
    assert_eq!(label, "Contacts of hands together");
    let (_, hands) = s.solve_contacts(None).unwrap();
    assert_eq!(hands.len(), 1, "{hands:?}");
    assert_eq!(hands[0].foot, "hands together");
    assert!(hands[0].contacts.is_empty(), "the row stays, empty");
    // Saved and read back, the project keeps it.
    s.to_project().save(&path).unwrap();
    let back = Session::from_project(&path).unwrap();
    let drawn = back.solve.drawn_hand_contacts(&clip, "hands together");
    assert_eq!(drawn, Some(&[][..]));
}
