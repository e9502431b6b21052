//! The viewports' fixed views, the follow camera, the Quality tab and the quality strip
//! under the timeline, through the UI (egui_kittest, no GPU).

use crate::common::asset_path;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use retarget_studio::app::Launch;
use retarget_studio::app::command::Command;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::{Prefs, StudioApp};
use retarget_studio::core::HumanBone;

/// The demo, paused, on `tab`.
fn harness(tab: Tab) -> Harness<'static, StudioApp> {
    let prefs = Prefs {
        tab,
        ..Prefs::default()
    };
    let mut app = StudioApp::with_launch(Launch::default(), prefs);
    app.playback.playing = false;
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = Harness::new_ui_state(|ui, app: &mut StudioApp| app.ui_contents(ui), app);
    h.set_size(egui::vec2(1500.0, 900.0));
    h.run_steps(2);
    h
}

/// Both viewports' cameras look along `expected` (horizontally; the fixed views look down a
/// little).
fn assert_looking_along(h: &Harness<'static, StudioApp>, expected: Vec3, what: &str) {
    for side in 0..2 {
        let forward = h.state().view(side).camera.forward();
        assert!(
            forward.dot(expected) > 0.98,
            "{what}: viewport {side} looks along {forward}, not {expected}"
        );
    }
}

#[test]
fn view_keys_and_buttons_turn_both_cameras() {
    let mut h = harness(Tab::BoneMap);
    let start = h.state().view(1).camera.forward();
    assert!(
        start.dot(-Vec3::Z) < 0.95 && start.dot(-Vec3::X) < 0.95,
        "the default view is three-quarter: {start}"
    );
    h.key_press(egui::Key::Num3);
    h.run_steps(2);
    assert_looking_along(&h, -Vec3::X, "3 (side)");
    h.key_press(egui::Key::Num1);
    h.run_steps(2);
    assert_looking_along(&h, -Vec3::Z, "1 (front)");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num1);
    h.run_steps(2);
    assert_looking_along(&h, Vec3::Z, "Ctrl+1 (back)");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num3);
    h.run_steps(2);
    assert_looking_along(&h, Vec3::X, "Ctrl+3 (other side)");
    h.get_by_label("Side").click();
    h.run_steps(2);
    assert_looking_along(&h, -Vec3::X, "the Side button");
    h.get_by_label("Front").click();
    h.run_steps(2);
    assert_looking_along(&h, -Vec3::Z, "the Front button");
    // The camera still frames the character: it looks at it from outside it.
    let camera = h.state().view(1).camera;
    assert!(camera.distance > 0.5, "{camera:?}");
}

#[test]
fn a_typed_digit_does_not_turn_the_view() {
    let mut h = harness(Tab::BoneMap);
    let before = h.state().view(1).camera.forward();
    h.get_by_label("Filter").click();
    h.run_steps(1);
    h.get_by_label("Filter").type_text("3");
    h.run_steps(2);
    assert_eq!(h.state().view(1).camera.forward(), before);
}

/// Side `side`'s hips as drawn, in world space.
fn hips(app: &StudioApp, side: usize) -> Vec3 {
    let session = app.doc.session.as_ref().unwrap();
    let pair = session
        .map
        .pairs()
        .iter()
        .find(|p| p.bone == Some(HumanBone::Hips))
        .unwrap();
    let joint = [pair.source, pair.target][side];
    app.view(side).world()[joint].w_axis.truncate()
}

/// Each viewport's camera target and its character's hips.
fn targets_and_hips(app: &StudioApp) -> [(Vec3, Vec3); 2] {
    [0, 1].map(|side| (app.view(side).camera.target, hips(app, side)))
}

fn go_to_frame(h: &mut Harness<'static, StudioApp>, frame: usize) {
    let info = h.state().clip_info().unwrap();
    h.state_mut().playback.set_frame(frame, &info);
    h.run_steps(2);
}

#[test]
fn the_follow_camera_moves_with_the_hips_and_stays_when_off() {
    let mut h = harness(Tab::BoneMap);
    // CMU's walk onto the demo's VRM character: the hips travel metres.
    h.state_mut()
        .run(Command::LoadSource(asset_path("bvh/02_01.bvh")));
    h.state_mut().playback.playing = false;
    h.run_steps(3);
    // The background work the load starts (contacts, quality) rebuilds the live retarget
    // when it lands: let it land before the frames are compared (a loaded machine once
    // compared a pose from before it with one from after).
    h.state_mut().wait_for_contacts();
    h.state_mut().wait_for_quality();
    h.run_steps(2);
    assert!(h.state().error.is_none(), "{:?}", h.state().error);
    assert!(h.state().prefs.follow, "following is on by default");
    go_to_frame(&mut h, 10);
    let before = targets_and_hips(h.state());
    go_to_frame(&mut h, 200);
    let after = targets_and_hips(h.state());
    // Both cameras follow their own character.
    for side in 0..2 {
        let ((target0, hips0), (target1, hips1)) = (before[side], after[side]);
        let walked = Vec3::new(hips1.x - hips0.x, 0.0, hips1.z - hips0.z);
        assert!(
            walked.length() > 0.5,
            "side {side}: the walk moves the hips: {walked}"
        );
        assert!(
            (target1 - target0).abs_diff_eq(walked, 1e-3 * walked.length()),
            "side {side}: the view target moves as the hips do, sideways only: {} against {walked}",
            target1 - target0
        );
    }

    h.get_by_label("Follow").click();
    h.run_steps(1);
    assert!(!h.state().prefs.follow);
    let still = h.state().view(1).camera.target;
    go_to_frame(&mut h, 20);
    assert_eq!(
        h.state().view(1).camera.target,
        still,
        "with Follow off the camera stays"
    );
}

#[test]
fn the_quality_tab_shows_a_row_per_measure_with_pass_or_fail() {
    let mut h = harness(Tab::Quality);
    h.state_mut().wait_for_quality();
    h.run_steps(2);
    let report = h
        .state()
        .quality_report()
        .expect("the demo gets a report")
        .clone();
    assert!(!report.verdicts.is_empty());
    for v in &report.verdicts {
        h.get_by_label(v.measure.label());
    }
    let verdict_words = h.query_all_by_label("PASS").count() + h.query_all_by_label("FAIL").count();
    // One per row, and the overall verdict at the top.
    assert_eq!(verdict_words, report.verdicts.len() + 1);
    h.get_by_label("Flags, worst first");
    h.get_by_label("Bones that change length most (body)");
    if report.ground.is_none() {
        h.get_by_label(retarget_studio::core::quality::NO_PLANTED_FOOT);
    }
    // Not recomputed every frame: with nothing changed, nothing runs.
    h.run_steps(3);
    assert!(!h.state().quality_busy());
}

#[test]
fn the_quality_tab_says_when_no_contacts_were_found() {
    const NO_CONTACTS: &str = retarget_studio::core::quality::NO_PLANTED_FOOT;
    let mut h = harness(Tab::Quality);
    h.state_mut().wait_for_quality();
    h.run_steps(2);
    // The Dance plants its feet: ground and skate are judged.
    assert!(h.state().quality_report().unwrap().ground.is_some());
    assert!(h.query_by_label(NO_CONTACTS).is_none());
    // The robot's Running never keeps a foot low and slow for 3 frames.
    h.state_mut().run(Command::SelectClip("Running".into()));
    h.run_steps(1);
    h.state_mut().wait_for_quality();
    h.run_steps(2);
    let report = h.state().quality_report().unwrap();
    assert!(report.ground.is_none() && report.skate.is_none());
    h.get_by_label(NO_CONTACTS);
    h.get_by_label("Clip: Running");
}

#[test]
fn the_strip_has_a_slice_per_frame_and_follows_edits() {
    let mut h = harness(Tab::BoneMap);
    h.state_mut().wait_for_quality();
    go_to_frame(&mut h, 30);
    let app = h.state();
    let report = app.quality_report().unwrap();
    let strip = app
        .drawn
        .strip
        .as_ref()
        .expect("a strip under the timeline");
    assert_eq!(strip.cells.len(), report.frame_badness.len());
    let frames = app.clip_info().unwrap().frame_count();
    assert!(
        strip.cells.len().abs_diff(frames) <= 1,
        "{} slices for {frames} frames",
        strip.cells.len()
    );
    // The marker is at frame 30, over slice 30.
    assert!(strip.cells[30].x.contains(strip.marker_x), "{strip:?}");
    assert!(
        strip
            .rect
            .contains(egui::pos2(strip.marker_x, strip.rect.center().y))
    );
    // Bad frames are red, the others are not.
    let red = retarget_studio::app::timeline::quality_strip::badness_color(1.0);
    for &f in &report.bad_frames {
        assert_eq!(strip.cells[f].color, red, "frame {f}");
    }

    // An edit makes a new report, computed in the background, then shown.
    let before = h.state().doc.revision;
    h.state_mut().doc.touch();
    h.run_steps(1);
    h.state_mut().wait_for_quality();
    h.run_steps(2);
    assert!(h.state().doc.revision > before);
    assert!(!h.state().quality_busy());
    assert_eq!(
        h.state().drawn.strip.as_ref().unwrap().cells.len(),
        h.state().quality_report().unwrap().frame_badness.len()
    );
}

#[test]
fn a_click_on_the_strip_goes_to_that_frame() {
    let mut h = harness(Tab::BoneMap);
    h.state_mut().wait_for_quality();
    h.run_steps(2);
    let (cell, y) = {
        let strip = h.state().drawn.strip.as_ref().unwrap();
        let cell = strip.cells[strip.cells.len() / 2];
        (cell, strip.rect.center().y)
    };
    let at = egui::pos2(cell.x.center(), y);
    h.event(egui::Event::PointerMoved(at));
    h.event(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
    h.event(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.run_steps(2);
    let info = h.state().clip_info().unwrap();
    let frame = h.state().playback.frame(&info);
    assert!(
        frame.abs_diff(cell.frame) <= 1,
        "went to {frame}, not {}",
        cell.frame
    );
}

/// The lowest drawn point of side `side`'s character (its mesh, or its joints without one)
/// above its floor, in character heights.
fn lowest_above_floor(app: &StudioApp, side: usize) -> f32 {
    let scene = &app.view(side).scene;
    let floor = scene.floor.expect("a floor under the character");
    let (lo, hi) = scene.bounds().unwrap();
    let joints = scene.meshes.is_empty().then_some(&scene.joints);
    let lowest = scene
        .meshes
        .iter()
        .flat_map(|m| m.positions.iter())
        .chain(joints.into_iter().flatten())
        .map(|p| p.y)
        .fold(f32::INFINITY, f32::min);
    (lowest - floor) / (hi.y - lo.y)
}

/// The lowest and highest of `heights`.
fn range(heights: &[f32]) -> (f32, f32) {
    heights
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &y| {
            (lo.min(y), hi.max(y))
        })
}

#[test]
fn the_floor_is_where_the_walk_puts_the_feet() {
    // RobotExpressive is left out: its rigid, toe-less feet follow the human ankle's roll
    // and dig into the floor by up to a tenth of its height (the solver's business; the
    // floor shows it, which is the point).
    let mut h = harness(Tab::BoneMap);
    for target in ["gltf/CesiumMan.glb", "vrm/cryptovoxels.vrm"] {
        h.state_mut().run(Command::LoadTarget(asset_path(target)));
        h.state_mut()
            .run(Command::LoadSource(asset_path("bvh/02_01.bvh")));
        h.state_mut().playback.playing = false;
        h.run_steps(2);
        assert!(h.state().error.is_none(), "{:?}", h.state().error);
        let frames = h.state().clip_info().unwrap().frame_count();
        let (mut source, mut target_soles) = (Vec::new(), Vec::new());
        for f in (0..frames).step_by(4) {
            go_to_frame(&mut h, f);
            source.push(lowest_above_floor(h.state(), 0));
            target_soles.push(lowest_above_floor(h.state(), 1));
        }
        // The mocap's lowest point over the clip is its floor.
        let (lo, hi) = range(&source);
        assert!(
            lo.abs() < 0.005 && hi < 0.06,
            "{target}: source {lo:+.4}..{hi:+.4}"
        );
        // A walk always has a foot down: the soles reach the floor and stay near it (CMU's
        // floor drifts by some 4 % of the height over this clip; the retarget carries it).
        let (lo, hi) = range(&target_soles);
        eprintln!("{target}: soles {lo:+.4}..{hi:+.4} heights above the floor");
        assert!(
            lo > -0.05 && lo < 0.005,
            "{target}: lowest sole {lo:+.4} heights"
        );
        assert!(hi < 0.05, "{target}: both feet {hi:+.4} heights up at once");
    }
}

/// View ▸ Target body capsules draws the target's capsules over its viewport (the demo's
/// VRoid figure: torso, thighs, arms and hands), and only the target's.
#[test]
fn view_shows_the_target_s_body_capsules_on_demand() {
    let mut h = harness(Tab::BoneMap);
    assert_eq!(h.state().drawn.capsules_drawn, [0, 0], "off by default");
    // The menu bar's View (the viewports' row has a "View" label too).
    let menu = h
        .get_all_by_label("View")
        .min_by(|a, b| a.rect().top().total_cmp(&b.rect().top()));
    menu.unwrap().click();
    h.run_steps(2);
    h.get_by_label("Target body capsules").click();
    h.run_steps(3);
    assert!(h.state().prefs.show[1].capsules);
    let drawn = h.state().drawn.capsules_drawn;
    assert_eq!(drawn[0], 0, "the source's stay hidden");
    // Hips, spine, chest; two thighs; two upper arms, forearms and hands.
    assert_eq!(drawn[1], 11, "{drawn:?}");
}
