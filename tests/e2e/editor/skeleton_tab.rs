//! The Skeleton tab through the UI (egui_kittest, no GPU), on Fox.glb onto itself: a target
//! chain picked in the list lights up in both viewports, its source chain overridden in the
//! combo box re-pairs its joints, a tag edited is kept by the project, and undo brings each
//! change back. Under Xvfb, the screenshot of the tab shows the picked chain in its colour.

use super::session;
use egui::Modifiers;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::panels::skeleton::joints_text;
use retarget_studio::app::studio::StudioApp;
use retarget_studio::core::chains::Depth;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::{Session, SideRole};
use std::path::PathBuf;

/// Fox onto Fox, saved as a project in `dir`, opened paused on the Skeleton tab.
fn fox_harness(dir: &std::path::Path) -> Harness<'static, StudioApp> {
    let fox = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/gltf/Fox.glb");
    let project = dir.join("fox.ron");
    Session::automatic(&fox, &fox, &ImportOptions::default())
        .unwrap()
        .to_project()
        .save(&project)
        .unwrap();
    crate::common::editor::editor_on(project, Tab::Skeleton)
}

/// The index and name of the chain holding joint `joint` on `side`.
fn chain_named(h: &Harness<'static, StudioApp>, side: SideRole, joint: &str) -> (usize, String) {
    let s = session(h);
    let side = match side {
        SideRole::Source => &s.source,
        SideRole::Target => &s.target,
    };
    let i = side
        .chains
        .chain_of(side.skeleton().find(joint).unwrap())
        .unwrap();
    (i, side.chains.names()[i].clone())
}

fn source_of(h: &Harness<'static, StudioApp>, target: &str) -> String {
    let s = session(h);
    let t = s.target.skeleton().find(target).unwrap();
    let p = s.map.for_target(t).expect("mapped");
    s.source.skeleton().names()[p.source].clone()
}

/// Picks the target chain `name` in the list (the target list comes first; the source list
/// has a row of the same name).
fn pick_target_chain(h: &mut Harness<'static, StudioApp>, name: &str) {
    h.get_all_by_label(name).next().unwrap().click();
    h.run_steps(2);
}

#[test]
fn overriding_a_hind_legs_source_in_the_skeleton_tab_repairs_it_and_undo_restores_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = fox_harness(dir.path());
    let (hind, hind_name) = chain_named(&h, SideRole::Target, "b_LeftLeg01_015");
    let (front, front_name) = chain_named(&h, SideRole::Source, "b_LeftUpperArm_09");
    let before = session(&h).map.clone();
    assert_eq!(session(&h).chain_source(hind), Some(hind));

    pick_target_chain(&mut h, &hind_name);
    let hind_joints = session(&h).target.chains.chains[hind].joints.clone();
    assert_eq!(h.state().prefs.panel.chain, Some((SideRole::Target, hind)));
    assert_eq!(
        h.state().view(1).scene.highlighted_chain,
        hind_joints,
        "the picked chain lights up in the target viewport"
    );
    assert_eq!(
        h.state().view(0).scene.highlighted_chain,
        hind_joints,
        "and the source chain driving it in the source viewport (one rig on both sides)"
    );

    h.get_by_label(&format!("{hind_name} source chain")).click();
    h.run_steps(2);
    let item = {
        let s = session(&h);
        let arm = &s.source.chains.chains[front].joints;
        format!(
            "{front_name}: {}",
            joints_text(s.source.skeleton().names(), arm)
        )
    };
    h.get_by_label(&item).click();
    h.run_steps(2);

    // Four hind-leg joints along the three of the front leg, ends to ends.
    assert_eq!(source_of(&h, "b_LeftLeg01_015"), "b_LeftUpperArm_09");
    assert_eq!(source_of(&h, "b_LeftFoot02_018"), "b_LeftHand_011");
    assert_eq!(session(&h).chain_source(hind), Some(front));
    assert_eq!(
        source_of(&h, "b_RightLeg01_019"),
        "b_RightLeg01_019",
        "the other legs keep their sources"
    );
    assert_eq!(
        h.state().undo.undo_label(),
        Some(format!("Map chain {front_name} -> {hind_name}").as_str())
    );
    assert!(h.state().doc.dirty);
    let arm = session(&h).source.chains.chains[front].joints.clone();
    assert_eq!(
        h.state().view(0).scene.highlighted_chain,
        arm,
        "the source viewport now lights up the front leg"
    );

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(session(&h).map, before, "Ctrl+Z restores the map");
    assert_eq!(source_of(&h, "b_LeftFoot02_018"), "b_LeftFoot02_018");
}

#[test]
fn a_tag_edited_in_the_skeleton_tab_is_kept_by_the_project_and_undone() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = fox_harness(dir.path());
    let (hind, hind_name) = chain_named(&h, SideRole::Target, "b_LeftLeg01_015");
    let original = session(&h).target.chains.clone();
    pick_target_chain(&mut h, &hind_name);
    // Whatever the build said, set the depth to "back", or to "front" if it said back.
    let was = original.chains[hind].tags.depth;
    let (word, depth) = if was == Depth::Back {
        ("front", Depth::Front)
    } else {
        ("back", Depth::Back)
    };
    h.get_by_label("Chain depth").click();
    h.run_steps(2);
    h.get_by_label(word).click();
    h.run_steps(2);
    let edited = session(&h).target.chains.clone();
    assert_eq!(edited.chains[hind].tags.depth, depth);
    assert_eq!(edited.chains.len(), original.chains.len());
    let saved = Session::from_project_file(session(&h).to_project()).unwrap();
    assert_eq!(
        saved.target.chains, edited,
        "the project keeps the edited tag"
    );

    h.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    h.run_steps(2);
    assert_eq!(session(&h).target.chains, original, "Ctrl+Z restores it");
}

#[test]
fn the_skeleton_tab_screenshot_shows_the_picked_leg_in_magenta() {
    use super::screenshot::{count, screenshot_with, viewport_area};
    let dir = tempfile::tempdir().unwrap();
    let fox = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/gltf/Fox.glb");
    let project = dir.path().join("fox.ron");
    Session::automatic(&fox, &fox, &ImportOptions::default())
        .unwrap()
        .to_project()
        .save(&project)
        .unwrap();
    // CHAIN_COLOR (linear 1.0, 0.15, 0.75) as drawn: pink-magenta, apart from the fox's
    // orange, the yellow skeleton and the cyan selected joint.
    let magenta = |p: [u8; 4]| p[0] > 190 && p[1] < 150 && p[2] > 150 && p[0] > p[1] + 90;
    let args = ["--frame", "0", "--tab", "skeleton"];
    let plain = screenshot_with(Some(&project), &args, "skeleton_none.png");
    let picked = screenshot_with(
        Some(&project),
        &[&args[..], &["--select", "b_LeftLeg01_015"]].concat(),
        "skeleton_leg.png",
    );
    // Both viewports lie left of the tool panel (where the two meet depends on the panel's
    // width, so the two are counted together).
    let (central, y0, y1) = viewport_area(&picked);
    let (before, after) = (
        count(&plain, 0, central, y0, y1, magenta),
        count(&picked, 0, central, y0, y1, magenta),
    );
    eprintln!("magenta pixels: {before} with nothing picked, {after} with the left hind leg");
    assert!(before < 20, "{before}");
    assert!(
        after > 150,
        "the picked leg lights up: {after} magenta pixels"
    );
}
