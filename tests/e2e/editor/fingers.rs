//! The Fingers section of the Bone map tab: closed at first, each finger both hands have with
//! its curl on the source and on the target at the frame the viewports show, read-only, and
//! following the frame as the robot's ThumbsUp closes its fist.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::Launch;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::StudioApp;
use retarget_studio::core::hands::Digit;
use retarget_studio::session::FingerCurl;

fn curls(h: &Harness<'static, StudioApp>) -> Vec<FingerCurl> {
    let app = h.state();
    let s = app.doc.session.as_ref().unwrap();
    s.finger_curls(app.view(0).world(), app.view(1).world())
}

fn go_to_frame(h: &mut Harness<'static, StudioApp>, frame: usize) {
    let app = h.state_mut();
    let info = app.clip_info().unwrap();
    app.playback.set_frame(frame, &info);
    h.run_steps(2);
}

fn right_index(curls: &[FingerCurl]) -> (f32, f32) {
    let c = curls
        .iter()
        .find(|c| !c.left && c.digit == Digit::Index)
        .expect("the right index on both sides");
    (c.source_deg.unwrap(), c.target_deg.unwrap())
}

#[test]
fn the_fingers_section_shows_each_curl_at_the_frame_shown() {
    let launch = Launch {
        source: Some(crate::common::asset_path("gltf/RobotExpressive.glb")),
        target: Some(crate::common::asset_path("vrm/cryptovoxels.vrm")),
        ..Default::default()
    };
    let mut h = crate::common::editor::editor_launched(launch, Tab::BoneMap);
    h.state_mut().clip = Some("ThumbsUp".into());
    h.run_steps(2);
    go_to_frame(&mut h, 0);
    let at_start = curls(&h);
    // Thumb, index, middle and ring on each hand (the robot has no little finger).
    assert_eq!(at_start.len(), 8, "{at_start:?}");
    assert!(h.query_by_label("left index").is_none(), "closed at first");
    h.get_by_label("Fingers (8)").click();
    h.run_steps(2);
    h.get_by_label("left index");
    let (s0, t0) = right_index(&at_start);
    // The right fist closes under the thumb: its index curls on both sides (60.6° → 98.6° on
    // the robot), and the section shows the new figures.
    go_to_frame(&mut h, 20);
    let (s1, t1) = right_index(&curls(&h));
    println!("right index curl: source {s0:.1}° → {s1:.1}°, target {t0:.1}° → {t1:.1}°");
    assert!(s1 - s0 > 20.0 && t1 - t0 > 20.0);
    for shown in [s1, t1] {
        let text = format!("{shown:.0}°");
        assert!(
            !h.query_all_by_label(&text).collect::<Vec<_>>().is_empty(),
            "{text} shown"
        );
    }
}
