//! The editor when a pair goes wrong (egui_kittest): the Quality tab names the likeliest
//! cause and offers its fix as one undoable edit, the bone map shows the rows it means, the
//! Skeleton tab's Reading section says how each file was read and takes another reading,
//! and F frames while playing.

use crate::common::asset_path;
use crate::common::corpus::corpus_path;
use crate::common::editor::editor_launched;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::Launch;
use retarget_studio::app::command::Command;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::StudioApp;
use retarget_studio::core::{HumanBone, Unit};
use retarget_studio::session::Edit;

type H = Harness<'static, StudioApp>;

fn walk_on_cesium(tab: Tab) -> H {
    editor_launched(
        Launch {
            source: Some(asset_path("bvh/02_01.bvh")),
            target: Some(asset_path("gltf/CesiumMan.glb")),
            ..Launch::default()
        },
        tab,
    )
}

/// The edits of the frames before applied, and the report for them in.
fn settled(h: &mut H) {
    h.run_steps(2);
    h.state_mut().wait_for_quality();
    h.run_steps(2);
}

/// The left foot mapped from the left hand (a toe named like a finger, in the wild): the
/// Quality tab says so in words, "Show rows" shows that row alone in the bone map, and the
/// fix is one edit that passes again and undoes by name.
#[test]
fn the_quality_tab_names_the_cause_shows_its_rows_and_fixes_it() {
    let mut h = walk_on_cesium(Tab::Quality);
    let (foot, hand) = {
        let s = h.state().doc.session.as_ref().unwrap();
        let foot = s.target.labelled_joint(HumanBone::LeftFoot).unwrap();
        (foot, s.source.labelled_joint(HumanBone::LeftHand))
    };
    h.state_mut().run(Command::Edit(Edit::MapBone {
        target: foot,
        source: hand,
    }));
    settled(&mut h);
    assert!(!h.state().quality_report().unwrap().passed);
    h.get_by_label("Likeliest causes");
    let words = "1 joint takes the motion of another body part";
    let cause = h.query_all_by_label_contains(words).count();
    assert_eq!(cause, 1, "one cause names the foot");

    h.get_by_label("Show rows").click();
    h.run_steps(2);
    assert_eq!(h.state().prefs.tab, Tab::BoneMap);
    assert_eq!(h.state().selected, Some(foot));
    h.get_by_label("Showing the 1 row a cause in Quality names");
    h.get_by_label("Show all rows").click();
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("a cause in Quality names")
            .is_none()
    );

    h.state_mut().prefs.tab = Tab::Quality;
    h.run_steps(1);
    h.get_by_label("Map it from the source joint of its name")
        .click();
    settled(&mut h);
    let s = h.state().doc.session.as_ref().unwrap();
    let own = s.source.labelled_joint(HumanBone::LeftFoot);
    assert_eq!(s.map.for_target(foot).map(|p| p.source), own);
    let report = h.state().quality_report().unwrap();
    assert!(report.passed, "{}", report.to_text());
    assert!(h.query_by_label("Likeliest causes").is_none());
    assert_eq!(h.state().undo.undo_label(), Some("Remap 1 joint"));
}

/// The Reading section names each side's unit and up with how they were read; picking
/// another unit for the BVH reads it again (undoable, saved in the project).
#[test]
fn the_reading_section_says_how_each_file_was_read_and_takes_another() {
    let mut h = walk_on_cesium(Tab::Skeleton);
    h.get_by_label("Reading: source (02_01.bvh): cmu, +Y up");
    // A declared reading is folded away; open it.
    h.get_by_label("Reading: target (CesiumMan.glb): m, +Y up")
        .click();
    h.run_steps(2);
    assert!(h.query_all_by_label_contains("(detected)").count() >= 1);
    assert!(h.query_all_by_label_contains("(declared)").count() >= 2);
    h.get_by_label("Source unit").click();
    h.run_steps(2);
    h.get_by_label("cm").click();
    settled(&mut h);
    let s = h.state().doc.session.as_ref().unwrap();
    assert_eq!(s.source.file.unit, Some(Unit::Centimetre));
    assert_eq!(s.to_project().source.unit, Some(Unit::Centimetre));
    assert!(h.state().doc.dirty);
    h.state_mut().run(Command::Undo);
    h.run_steps(1);
    let s = h.state().doc.session.as_ref().unwrap();
    assert_eq!(s.source.file.unit, None);
}

/// The target's skin on joints the map leaves still is shown as the problem it is.
#[test]
fn a_skin_on_joints_left_still_is_shown() {
    let mut h = walk_on_cesium(Tab::Skeleton);
    assert!(h.query_by_label_contains("the map leaves still").is_none());
    h.state_mut().run(Command::Edit(Edit::ClearMap));
    let leg = {
        let s = h.state().doc.session.as_ref().unwrap();
        let t = s.target.labelled_joint(HumanBone::LeftUpperLeg).unwrap();
        (t, s.source.labelled_joint(HumanBone::LeftUpperLeg))
    };
    h.state_mut().run(Command::Edit(Edit::MapBone {
        target: leg.0,
        source: leg.1,
    }));
    h.run_steps(2);
    h.get_by_label_contains("the map leaves still");
}

/// F frames the viewport under the mouse while the clip plays, as it does paused.
#[test]
fn f_frames_the_view_while_playing() {
    let mut h = walk_on_cesium(Tab::BoneMap);
    settled(&mut h);
    let rect = h.state().view(1).last_rect;
    h.event(egui::Event::PointerMoved(rect.center()));
    h.state_mut().playback.playing = true;
    h.run_steps(2);
    // Zoomed far out: F must bring it back.
    for _ in 0..20 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Line,
            delta: egui::vec2(0.0, -10.0),
            modifiers: egui::Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
        });
        h.run_steps(1);
    }
    let far = h.state().view(1).camera.distance;
    h.key_press(egui::Key::F);
    h.run_steps(2);
    let framed = h.state().view(1).camera.distance;
    assert!(
        framed < 0.5 * far,
        "F framed while playing: {far} → {framed}"
    );
    assert!(h.state().playback.playing);
}

/// A real pair from the corpus that fails with the defaults, walked to passing as a user
/// would: GDQuest's mannequin (UE names) onto a VRoid character, whose hands the automatic
/// map fills from the neighbouring fingers (`LeftHandPinky1 ← index_01.l`). The Quality tab
/// names it; one click maps the rows by their names; the report passes, and the export is
/// written for Blender's reading (`RETARGET_STUDIO_WALK_OUT` keeps it).
#[test]
fn a_failing_corpus_pair_passes_after_the_fix_the_quality_tab_offers() {
    let (Some(source), Some(target)) = (
        corpus_path("sets/gltf/gdquest_mannequiny_ue_names.glb"),
        corpus_path("characters/gltf/vroid_talkinghead_blender_converted_arkit.glb"),
    ) else {
        return;
    };
    let mut h = editor_launched(
        Launch {
            source: Some(source),
            target: Some(target),
            ..Launch::default()
        },
        Tab::Quality,
    );
    settled(&mut h);
    let report = h.state().quality_report().unwrap().clone();
    assert!(!report.passed, "{}", report.to_text());
    let fix = "Map them from the source joint of their names";
    h.get_by_label_contains("joints take a neighbouring joint's motion");
    h.get_by_label(fix).click();
    settled(&mut h);
    let report = h.state().quality_report().unwrap().clone();
    assert!(report.passed, "{}", report.to_text());
    let out = std::env::var_os("RETARGET_STUDIO_WALK_OUT").map(std::path::PathBuf::from);
    let dir = tempfile::tempdir().unwrap();
    let out = out.unwrap_or_else(|| dir.path().join("walked.glb"));
    let session = h.state().doc.session.as_ref().unwrap();
    let job = retarget_studio::session::ExportJob::to(
        retarget_studio::session::ExportFormat::GlbWithCharacter,
        &out,
    );
    session.export(&job).unwrap();
    assert!(std::fs::metadata(&out).unwrap().len() > 0);
}
