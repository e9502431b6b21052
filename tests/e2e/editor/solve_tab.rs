//! The Solve tab, the contact bars and the export panel's mirror through the UI
//! (egui_kittest), on the CMU walk mapped onto CesiumMan: a clip with clear foot contacts.

use super::{session, settle};
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

fn plant_feet(h: &H) -> bool {
    session(h).solve.settings.plant_feet
}

#[test]
fn the_solve_tab_turns_planting_off_and_undo_brings_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(walk_project(dir.path()), Tab::Solve);
    assert!(plant_feet(&h));
    assert!(!h.state().doc.dirty);
    let planted = h.state().quality_report().unwrap().frame_badness.clone();
    assert!(
        !h.state().drawn.bars.is_empty(),
        "the walk's contacts are drawn"
    );

    h.get_by_label("Plant feet").click();
    h.run_steps(2);
    assert!(!plant_feet(&h), "the checkbox turns planting off");
    assert!(h.state().doc.dirty, "an unsaved change");
    assert_eq!(h.state().undo.undo_label(), Some("Solve settings"));
    settle(&mut h);
    assert!(h.state().drawn.bars.is_empty(), "no planting, no contacts");
    let free = h.state().quality_report().unwrap().frame_badness.clone();
    assert_ne!(
        planted, free,
        "the quality strip follows the solve settings"
    );

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    assert!(plant_feet(&h), "undo plants the feet again");
    assert!(!h.state().drawn.bars.is_empty());
    assert_eq!(h.state().quality_report().unwrap().frame_badness, planted);
}

#[test]
fn the_walk_shows_both_feet_s_contacts_and_a_click_goes_to_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(walk_project(dir.path()), Tab::Quality);
    let bars = h.state().drawn.bars.clone();
    let mut feet: Vec<&str> = bars.iter().map(|b| b.foot.as_str()).collect();
    feet.dedup();
    assert_eq!(feet.len(), 2, "{feet:?}");
    for foot in &feet {
        let n = bars.iter().filter(|b| b.foot == *foot).count();
        assert!(n >= 3, "{foot}: {n} contacts");
    }
    let strip = h.state().drawn.strip.clone().unwrap();
    // Under the strip, the feet's own rows: the walk has contacts, and nothing reaches;
    // and the penetration row every humanoid pair has.
    use retarget_studio::core::quality::Measure;
    let rows: Vec<Measure> = strip.rows.iter().map(|r| r.0).collect();
    assert_eq!(
        rows,
        [Measure::Skate, Measure::Ground, Measure::Penetration]
    );
    for bar in &bars {
        assert!(bar.rect.left() >= strip.rect.left() - 1e-3);
        assert!(bar.rect.right() <= strip.rect.right() + 1e-3);
        assert!(bar.rect.top() >= strip.rect.bottom(), "under the strip");
        assert!(bar.rect.top() >= strip.rows[1].1.bottom(), "and its rows");
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
    let mirror = |h: &H| session(h).solve.settings.mirror;
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

/// Presses the primary button at `from`, moves to `to` over a few frames, lets go.
fn drag(h: &mut H, from: egui::Pos2, to: egui::Pos2) {
    let button = |pos, pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: Modifiers::NONE,
    };
    h.event(egui::Event::PointerMoved(from));
    h.step();
    h.event(button(from, true));
    h.step();
    for k in 1..=4 {
        h.event(egui::Event::PointerMoved(from.lerp(to, k as f32 / 4.0)));
        h.step();
    }
    h.event(button(to, false));
    h.step();
}

fn drawn(h: &H, foot: &str) -> Option<Vec<(f32, f32)>> {
    let session = session(h);
    let clip = h.state().clip_info().unwrap().name;
    session.solve.drawn_contacts(&clip, foot).map(<[_]>::to_vec)
}

#[test]
fn dragging_a_contact_s_end_redraws_it_and_undo_gives_the_detected_ones_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(walk_project(dir.path()), Tab::Quality);
    let bars = h.state().drawn.bars.clone();
    let foot = bars[0].foot.clone();
    let before: Vec<_> = bars.iter().filter(|b| b.foot == foot).cloned().collect();
    let frames = h.state().contact_bars().unwrap().frames;
    let bar = &before[1];
    let frame_width = bar.rect.width() / (bar.contact.frames() as f32);
    // The bar's right end, dragged five frames later.
    let from = egui::pos2(bar.rect.right() - 1.0, bar.rect.center().y);
    let to = from + egui::vec2(5.0 * frame_width, 0.0);
    drag(&mut h, from, to);
    h.run_steps(2);
    assert!(h.state().doc.dirty, "an unsaved change");
    assert_eq!(
        h.state().undo.undo_label(),
        Some(format!("Contacts of {foot}").as_str())
    );
    let spans = drawn(&h, &foot).expect("the foot's contacts are drawn now");
    assert_eq!(spans.len(), before.len());
    settle(&mut h);
    let after: Vec<_> = h
        .state()
        .drawn
        .bars
        .iter()
        .filter(|b| b.foot == foot)
        .cloned()
        .collect();
    let moved = after[1].contact;
    println!("{:?} -> {moved:?} of {frames}", bar.contact);
    assert_eq!(moved.start, bar.contact.start);
    assert!(
        (moved.end as i64 - bar.contact.end as i64 - 5).abs() <= 1,
        "{:?} -> {moved:?}",
        bar.contact
    );
    // The other contacts are kept as they were.
    assert_eq!(after[0].contact, before[0].contact);

    // A double-click on the lane's empty start adds a contact there.
    let lane_y = bar.rect.center().y;
    let strip = h.state().drawn.strip.clone().unwrap();
    let empty = (0..frames)
        .find(|&k| {
            !after
                .iter()
                .any(|b| b.contact.start <= k + 4 && k <= b.contact.end + 4)
        })
        .expect("a gap between contacts");
    let x = strip.rect.left() + strip.rect.width() * empty as f32 / (frames - 1) as f32;
    h.event(egui::Event::PointerMoved(egui::pos2(x, lane_y)));
    h.step();
    // Both clicks within one frame: the harness steps a quarter second per event.
    let click = |pressed| egui::Event::PointerButton {
        pos: egui::pos2(x, lane_y),
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: Modifiers::NONE,
    };
    h.input_mut()
        .events
        .extend([click(true), click(false), click(true), click(false)]);
    h.step();
    h.run_steps(2);
    settle(&mut h);
    let added: Vec<_> = h
        .state()
        .drawn
        .bars
        .iter()
        .filter(|b| b.foot == foot)
        .cloned()
        .collect();
    assert_eq!(added.len(), after.len() + 1, "{added:?}");

    // Undo twice: the detected contacts again, and nothing drawn.
    for _ in 0..2 {
        h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
        h.run_steps(1);
    }
    settle(&mut h);
    assert_eq!(drawn(&h, &foot), None);
    let back: Vec<_> = h
        .state()
        .drawn
        .bars
        .iter()
        .filter(|b| b.foot == foot)
        .map(|b| b.contact)
        .collect();
    assert_eq!(back, before.iter().map(|b| b.contact).collect::<Vec<_>>());
}

#[test]
fn the_solve_tab_sets_a_leg_s_ik_pole_and_a_limb_s_reach_with_undo() {
    use retarget_studio::core::retarget::Pole;
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(walk_project(dir.path()), Tab::Solve);
    let feet = session(&h).planted_feet().unwrap();
    assert_eq!(feet.len(), 2);
    // A leg's IK switch.
    assert_eq!(h.get_all_by_label("IK").count(), 2, "one switch per leg");
    h.get_all_by_label("IK").next().unwrap().click();
    h.run_steps(2);
    assert_eq!(session(&h).solve.unplanted, vec![feet[0].clone()]);
    assert_eq!(
        h.state().undo.undo_label(),
        Some(format!("Plant {} off", feet[0]).as_str())
    );
    // Its pole: backward, in the pelvis's frame.
    h.get_all_by_label("Pole").next().unwrap().click();
    h.run_steps(2);
    h.get_by_label("Backward").click();
    h.run_steps(2);
    let forward = session(&h).pelvis_forward().unwrap();
    match session(&h).solve.leg(&feet[0]).pole {
        Pole::Direction(d) => assert!(d.dot(forward) < -0.999, "{d} vs {forward}"),
        other => panic!("the pole is {other:?}"),
    }
    // A limb's reach.
    h.get_by_label("Reach").click();
    h.run_steps(2);
    let arm = h.get_all_by_label_contains("grasper").next().unwrap();
    arm.click();
    h.run_steps(2);
    assert_eq!(session(&h).solve.reach.len(), 1, "one limb reaches");
    // Undo all three, one at a time.
    for _ in 0..3 {
        h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
        h.run_steps(1);
    }
    let s = session(&h);
    assert!(s.solve.unplanted.is_empty() && s.solve.reach.is_empty() && s.solve.legs.is_empty());
    assert!(!h.state().doc.dirty, "undone back to the saved project");
}

#[test]
fn the_mirror_plane_can_be_set_to_a_world_axis_and_the_path_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(walk_project(dir.path()), Tab::Solve);
    let plane = |h: &H| session(h).solve.settings.mirror_plane;
    assert!(
        h.query_by_label("Mirror plane").is_none(),
        "shown once mirroring is on"
    );
    h.get_by_label("Mirror").click();
    h.run_steps(2);
    h.get_by_label("Mirror plane").click();
    h.run_steps(2);
    h.get_by_label("X").click();
    h.run_steps(2);
    assert_eq!(plane(&h).axis, Some(glam::Vec3::X));
    h.get_by_label("Mirror the path").click();
    h.run_steps(2);
    assert!(!plane(&h).hips_translation);
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(1);
    assert!(plane(&h).hips_translation, "undo brings the path rule back");
}

/// The Solve tab lists a rig's twist bones with their shares; a key on a share's slider is
/// one edit, and undo takes it back.
#[test]
fn the_solve_tab_sets_a_twist_bone_s_share_with_undo() {
    use crate::common::file_variants::twist::{TwistLayout, twist_bones};
    let dir = tempfile::tempdir().unwrap();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let plain = std::fs::read(assets.join("gltf/CesiumMan.glb")).unwrap();
    let (variant, twists) = twist_bones(&plain, TwistLayout::Beside);
    let target = dir.path().join("twist.glb");
    std::fs::write(&target, variant).unwrap();
    let opened = Session::automatic(
        &assets.join("bvh/02_01.bvh"),
        &target,
        &ImportOptions::default(),
    )
    .unwrap();
    let project = dir.path().join("twist.ron");
    opened.to_project().save(&project).unwrap();
    let mut h = harness(project, Tab::Solve);
    h.get_by_label("Twist bones").click();
    h.run_steps(2);
    let bone = &twists[0].name;
    h.get_by_role_and_label(egui::accesskit::Role::Slider, bone)
        .focus();
    h.run_steps(1);
    h.key_press(egui::Key::ArrowLeft);
    h.run_steps(2);
    let set = session(&h).solve.twists.clone();
    assert_eq!(set.len(), 1, "one share set: {set:?}");
    assert_eq!(&set[0].0, bone);
    assert!(set[0].1 < twists[0].along, "{set:?}");
    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(1);
    assert!(session(&h).solve.twists.is_empty());
}

/// The walk's clip keeps the source's path from the Solve tab: per clip, undoable, and the
/// quality strip follows it (the warped strides lower CesiumMan's hips a little).
#[test]
fn the_solve_tab_keeps_the_source_s_path_for_the_clip_with_undo() {
    use retarget_studio::core::retarget::Stride;
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(walk_project(dir.path()), Tab::Solve);
    let clip = session(&h).source_clip(None).unwrap().name.clone();
    let stride = |h: &H| session(h).solve.stride(&clip);
    assert_eq!(stride(&h), Stride::ScaledByLegs);
    let scaled = h.state().quality_report().unwrap().pelvis.clone();

    h.get_by_label("Keep the source's path (this clip)").click();
    h.run_steps(2);
    assert_eq!(stride(&h), Stride::SourcePath);
    assert!(h.state().doc.dirty, "an unsaved change");
    assert_eq!(
        h.state().undo.undo_label(),
        Some(format!("{clip}: {}", Stride::SourcePath.label()).as_str())
    );
    settle(&mut h);
    let kept = h.state().quality_report().unwrap().pelvis.clone();
    assert_ne!(scaled, kept, "the report follows the stride");

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    settle(&mut h);
    assert_eq!(
        stride(&h),
        Stride::ScaledByLegs,
        "undo scales the path again"
    );
    assert_eq!(h.state().quality_report().unwrap().pelvis, scaled);
}

/// The target viewport shows what an export writes: its feet planted on the source's
/// contacts (the view used to show the frame-by-frame solve, whose feet the planting then
/// moved only in the file), here with the walk's path kept, where the plants move the feet
/// most.
#[test]
fn the_target_viewport_shows_the_planted_feet_an_export_writes() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(walk_project(dir.path()), Tab::Solve);
    let clip = session(&h).source_clip(None).unwrap().name.clone();
    h.get_by_label("Keep the source's path (this clip)").click();
    settle(&mut h);
    let info = h.state().clip_info().unwrap();
    let s = session(&h);
    let exported = s.retarget_clip(Some(&clip), None).unwrap();
    let tgt = s.target.skeleton().clone();
    let tgt = &tgt;
    let height = {
        let rest = retarget_studio::core::Pose::rest(tgt).world_positions(tgt);
        let ys = rest.iter().map(|p| p.y);
        ys.clone().fold(f32::MIN, f32::max) - ys.fold(f32::MAX, f32::min)
    };
    let mut farthest_unplanted = 0.0f32;
    for frame in (0..info.frame_count()).step_by(40) {
        h.state_mut().playback.set_frame(frame, &info);
        h.run_steps(2);
        let time = h.state().playback.time_secs;
        let want = &crate::common::positions_at(tgt, &exported, &[exported.start_secs() + time])[0];
        let drawn = &h.state().view(1).scene.joints;
        let worst = want
            .iter()
            .zip(drawn)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0f32, f32::max);
        assert!(
            worst < 1e-4 * height,
            "frame {frame}: the view is {worst} m from the export"
        );
        let unplanted = super::target_pose(h.state()).world_positions(tgt);
        let off = unplanted.iter().zip(want).map(|(a, b)| a.distance(*b));
        farthest_unplanted = farthest_unplanted.max(off.fold(0.0, f32::max));
    }
    assert!(
        farthest_unplanted > 0.01 * height,
        "the planting moves the feet: {farthest_unplanted} m"
    );
}

/// The penetration row under the strip: with the keep-out pass off, CMU's arms go into
/// CesiumMan's torso, and a click on the row goes to the worst frame; with it on (the
/// Solve tab's checkbox), no frame breaks the limit.
#[test]
fn the_penetration_row_goes_to_its_worst_frame_and_keep_out_clears_it() {
    use retarget_studio::core::quality::Measure;
    let dir = tempfile::tempdir().unwrap();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let mut s = Session::automatic(
        &assets.join("bvh/02_01.bvh"),
        &assets.join("gltf/CesiumMan.glb"),
        &ImportOptions::default(),
    )
    .unwrap();
    s.solve.settings.keep_out = false;
    let path = dir.path().join("arms_in.ron");
    s.to_project().save(&path).unwrap();
    let mut h = harness(path, Tab::Solve);
    let report = h.state().quality_report().unwrap().clone();
    let row = report.frame_row(Measure::Penetration).unwrap().to_vec();
    let bad = row.iter().filter(|&&b| b >= 1.0).count();
    assert!(bad > 0, "the arms go in with the pass off");
    let worst = report.penetration.as_ref().unwrap();
    h.get_by_label("penetration row").click();
    h.run_steps(2);
    let app = h.state();
    let duration = app.clip_info().unwrap().duration_secs;
    let first_worst = row.iter().position(|&b| b >= 1.0).unwrap();
    let at = app.playback.time_secs / duration * (row.len() - 1) as f32;
    assert!(
        row[at.round() as usize] >= 1.0 && at.round() as usize >= first_worst,
        "the click lands on a frame past the limit: {at} ({:?})",
        worst.target.worst_frame
    );
    assert!(!app.playback.playing);
    h.get_by_label("Keep limbs out of the body").click();
    settle(&mut h);
    assert!(
        session(&h).solve.settings.keep_out,
        "the checkbox turns it on"
    );
    let row = h
        .state()
        .quality_report()
        .unwrap()
        .frame_row(Measure::Penetration)
        .unwrap()
        .to_vec();
    assert!(
        row.iter().all(|&b| b <= 1.0),
        "no frame past the limit with it on"
    );
}
