//! The curve list (a section of the Bone map tab) and the morphs the viewports play: a
//! source curve `Joy` matched to the target's expression `happy` by name, dropped through
//! its combo and brought back by Ctrl+Z, and the target's drawn vertex moved by the morph's
//! offset × the curve's weight. The demo's files get synthetic curves and morphs put into
//! the open session, so the test does not wait on the importers.

use super::{ctrl, harness_on, session};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::panels::curves::NONE;
use retarget_studio::app::studio::StudioApp;
use retarget_studio::app::viewport::skinning::skin_primitive_into;
use retarget_studio::core::curve_map::CurvePair;
use retarget_studio::core::{Curve, Interpolation, Track};
use retarget_studio::io::{CurveTarget, MorphBind, MorphDelta};
use retarget_studio::session::Side;

/// How far the `happy` morph moves the first vertex of the target's first mesh.
const OFFSET: Vec3 = Vec3::new(0.0, 0.05, 0.02);

/// Takes every curve off the source's clips (the demo's importer may read some).
fn without_source_curves(h: &mut Harness<'static, StudioApp>) {
    let app = h.state_mut();
    let s = app.doc.session.as_mut().unwrap();
    for ac in &mut s.source.asset.clips {
        ac.clip = ac.clip.clone().with_curves(Vec::new());
    }
    app.doc.revision += 1;
    h.run_steps(2);
}

/// The source's current clip gets a curve `Joy`, the only one of the source's clips (0 at its
/// start, 1 from a quarter of the way on); each side's first mesh a morph moving its first
/// vertex by [`OFFSET`], played by the source's weight `Joy` and the target's expression
/// `happy`. With `target_weights` false the target has no weights.
fn with_curves(h: &mut Harness<'static, StudioApp>, target_weights: bool) {
    without_source_curves(h);
    let app = h.state_mut();
    let name = session_clip_name(app);
    let s = app.doc.session.as_mut().unwrap();
    let skeleton = s.source.skeleton_index;
    let ac = s
        .source
        .asset
        .clips
        .iter_mut()
        .find(|c| c.skeleton == skeleton && c.clip.name == name)
        .unwrap();
    let (start, end) = (ac.clip.start_secs(), ac.clip.end_secs());
    let track = Track::new(
        vec![start, start + (end - start) / 4.0, end],
        vec![0.0, 1.0, 1.0],
        Interpolation::Linear,
    )
    .unwrap();
    ac.clip = ac.clip.clone().with_curves(vec![Curve::new("Joy", track)]);
    // The source plays its own curve on a morph of its own, named as the curve.
    one_morph(&mut s.source, Some("Joy"));
    one_morph(&mut s.target, target_weights.then_some("happy"));
    app.doc.revision += 1;
    h.run_steps(2);
}

/// Takes every morph and weight off `side`'s asset, then (with a `name`) gives the first
/// primitive of its first drawn mesh a morph moving its first vertex by [`OFFSET`], and a
/// weight `name` that plays it.
fn one_morph(side: &mut Side, name: Option<&str>) {
    let mesh = first_mesh(side);
    let asset = &mut side.asset;
    for m in &mut asset.meshes {
        m.morph_weights.clear();
        for p in &mut m.primitives {
            p.morphs.clear();
        }
    }
    asset.curve_targets.clear();
    let Some(name) = name else { return };
    let m = &mut asset.meshes[mesh];
    for p in &mut m.primitives {
        let mut positions = vec![Vec3::ZERO; p.positions.len()];
        positions[0] = OFFSET;
        p.morphs = vec![MorphDelta {
            positions,
            normals: Vec::new(),
        }];
    }
    m.morph_weights = vec![0.0];
    asset.curve_targets = vec![CurveTarget {
        name: name.into(),
        expression: true,
        binds: vec![MorphBind {
            mesh,
            morph: 0,
            node: None,
            weight: 1.0,
        }],
    }];
}

fn session_clip_name(app: &StudioApp) -> String {
    let s = app.doc.session.as_ref().unwrap();
    s.source_clip(app.clip.as_deref()).unwrap().name.clone()
}

/// The first mesh on the side's skeleton: drawn first, its first primitive at draw 0.
fn first_mesh(side: &Side) -> usize {
    let k = side.skeleton_index;
    side.asset
        .meshes
        .iter()
        .position(|m| m.skeleton == k)
        .expect("the demo's characters have meshes")
}

fn go_to_frame(h: &mut Harness<'static, StudioApp>, frame: usize) {
    let app = h.state_mut();
    let info = app.clip_info().unwrap();
    app.playback.set_frame(frame, &info);
    h.run_steps(2);
}

/// `Joy`'s weight at the time shown.
fn joy_now(app: &StudioApp) -> f32 {
    let s = app.doc.session.as_ref().unwrap();
    let clip = s.source_clip(app.clip.as_deref()).unwrap();
    let joy = clip.curves().iter().find(|c| c.name == "Joy").unwrap();
    joy.sample(clip.start_secs() + app.playback.time_secs)
}

/// The first vertex of `side`'s (0 source, 1 target) first mesh as its viewport drew it, and
/// where skinning puts it moved by `shift` from its rest place, under the pose drawn.
fn drawn_vertex(app: &StudioApp, side: usize, shift: Vec3) -> (Vec3, Vec3) {
    let s = app.doc.session.as_ref().unwrap();
    let side_data = [&s.source, &s.target][side];
    let mesh = &side_data.asset.meshes[first_mesh(side_data)];
    let view = app.view(side);
    let mut prim = mesh.primitives[0].clone();
    prim.morphs.clear();
    prim.positions[0] += shift;
    let (mut pos, mut nrm) = (Vec::new(), Vec::new());
    skin_primitive_into(
        &prim,
        &mesh.inverse_bind,
        view.world(),
        &[],
        &mut pos,
        &mut nrm,
    );
    (view.scene.meshes[0].positions[0], pos[0])
}

fn joy_pair(h: &Harness<'static, StudioApp>) -> CurvePair {
    let (map, problems) = session(h).curve_map();
    assert!(problems.is_empty(), "{problems:?}");
    map.pairs()[0].clone()
}

#[test]
fn a_curve_matched_by_name_plays_the_targets_morph_and_dropping_it_undoes() {
    let mut h = harness_on(None, Tab::BoneMap);
    with_curves(&mut h, true);

    // (a) The list shows Joy → happy, matched by name, with the section open.
    assert_eq!(
        joy_pair(&h),
        CurvePair {
            source: "Joy".into(),
            target: Some("happy".into()),
            manual: false
        }
    );
    // The section starts closed; a click on its title opens it.
    assert!(h.query_by_label("Joy target weight").is_none());
    h.get_by_label("Curves (1)").click();
    h.run_steps(2);
    let combo = h.get_by_label("Joy target weight");
    assert_eq!(combo.value().as_deref(), Some("happy"));
    h.get_by_label("automatic");

    // (c) Where Joy is 1, the target's vertex is moved by the whole offset (through the
    // pose's skinning); at the clip's start (Joy 0) it stands where the mesh has it.
    let info = h.state().clip_info().unwrap();
    let frames = info.duration_secs * info.fps;
    go_to_frame(&mut h, (frames * 0.6) as usize);
    assert_eq!(joy_now(h.state()), 1.0);
    let (drawn, morphed) = drawn_vertex(h.state(), 1, OFFSET);
    let (_, rest) = drawn_vertex(h.state(), 1, Vec3::ZERO);
    assert!(drawn.abs_diff_eq(morphed, 1e-5), "{drawn} vs {morphed}");
    assert!(
        drawn.distance(rest) > OFFSET.length() * 0.1,
        "the morph moved the vertex: {drawn} vs {rest}"
    );
    // The source's mesh plays the curve on its own morph of that name.
    let (drawn, morphed) = drawn_vertex(h.state(), 0, OFFSET);
    assert!(
        drawn.abs_diff_eq(morphed, 1e-5),
        "source: {drawn} vs {morphed}"
    );
    go_to_frame(&mut h, 0);
    assert_eq!(joy_now(h.state()), 0.0);
    let (drawn, rest) = drawn_vertex(h.state(), 1, Vec3::ZERO);
    assert!(drawn.abs_diff_eq(rest, 1e-5), "{drawn} vs {rest}");
    // Part way up, part of the offset.
    go_to_frame(&mut h, (frames / 8.0) as usize);
    let w = joy_now(h.state());
    assert!(w > 0.0 && w < 1.0, "{w}");
    let (drawn, morphed) = drawn_vertex(h.state(), 1, OFFSET * w);
    assert!(drawn.abs_diff_eq(morphed, 1e-5), "{drawn} vs {morphed}");

    // (b) "— none —" drops the curve (one edit, by hand) and the vertex goes back.
    h.get_by_label("Joy target weight").click();
    h.run_steps(2);
    h.get_by_label(NONE).click();
    h.run_steps(2);
    assert_eq!(
        joy_pair(&h),
        CurvePair {
            source: "Joy".into(),
            target: None,
            manual: true
        }
    );
    assert_eq!(
        h.get_by_label("Joy target weight").value().as_deref(),
        Some(NONE)
    );
    h.get_by_label("by hand");
    assert_eq!(h.state().undo.undo_label(), Some("Curve Joy dropped"));
    assert!(h.state().doc.dirty);
    let (drawn, rest) = drawn_vertex(h.state(), 1, Vec3::ZERO);
    assert!(drawn.abs_diff_eq(rest, 1e-5), "dropped: {drawn} vs {rest}");

    // Ctrl+Z brings happy back, matched by name again, and the morph with it.
    ctrl(&mut h, egui::Key::Z, false);
    assert_eq!(joy_pair(&h).target.as_deref(), Some("happy"));
    assert!(!joy_pair(&h).manual);
    assert_eq!(
        h.get_by_label("Joy target weight").value().as_deref(),
        Some("happy")
    );
    let (drawn, morphed) = drawn_vertex(h.state(), 1, OFFSET * w);
    assert!(
        drawn.abs_diff_eq(morphed, 1e-5),
        "undone: {drawn} vs {morphed}"
    );
}

#[test]
fn the_list_says_when_there_are_no_curves_and_when_the_target_has_no_weights() {
    let mut h = harness_on(None, Tab::BoneMap);
    without_source_curves(&mut h);
    // Closed while there is nothing to list; opened, one line says so.
    assert!(h.query_by_label("Source curve").is_none());
    h.get_by_label("Curves (0)").click();
    h.run_steps(2);
    h.get_by_label("The source's clips have no curves (morph weights or expressions).");
    with_curves(&mut h, false);
    // Still open, now on the curve.
    h.get_by_label("Curves (1)");
    h.get_by_label(
        "The target has no morph targets or expressions: the source's curves will be dropped.",
    );
    assert!(
        h.query_by_label("Joy target weight").is_none(),
        "nothing to pick"
    );
    h.get_by_label("unmatched");
}

/// The drawn position of vertex `v` of primitive `p` of the target mesh `mesh`, found in
/// draw order: the meshes of the target's skeleton, primitive after primitive.
fn drawn_target_vertex(app: &StudioApp, (mesh, p, v): (usize, usize, usize)) -> Vec3 {
    let s = app.doc.session.as_ref().unwrap();
    let k = s.target.skeleton_index;
    let before: usize = s.target.asset.meshes[..mesh]
        .iter()
        .filter(|m| m.skeleton == k)
        .map(|m| m.primitives.len())
        .sum();
    app.view(1).scene.meshes[before + p].positions[v]
}

#[test]
fn a_vrma_expression_plays_on_a_vrm_characters_face() {
    // Real files: three-vrm's VRMA (its `happy` is 1 at 1.5 s) onto the robot made a VRM
    // 1.0 whose `happy` expression binds its face's `Sad` morph.
    let dir = tempfile::tempdir().unwrap();
    let robot = std::fs::read(crate::common::asset_path("gltf/RobotExpressive.glb")).unwrap();
    let vrm = dir.path().join("robot.vrm");
    std::fs::write(&vrm, crate::common::file_variants::robot_as_vrm(&robot)).unwrap();
    let launch = retarget_studio::app::Launch {
        source: Some(crate::common::asset_path("vrm/three-vrm_test.vrma")),
        target: Some(vrm),
        ..Default::default()
    };
    let mut h = crate::common::editor::editor_launched(launch, Tab::BoneMap);
    // The vertex the morph moves most (the face's first primitive has all-zero targets).
    let (at, offset) = {
        let t = &session(&h).target;
        let happy = t
            .asset
            .curve_targets
            .iter()
            .find(|c| c.name == "happy")
            .unwrap();
        let bind = happy.binds[0];
        let prims = &t.asset.meshes[bind.mesh].primitives;
        let (p, v, d) = prims
            .iter()
            .enumerate()
            .flat_map(|(p, prim)| {
                let d = &prim.morphs[bind.morph].positions;
                d.iter().enumerate().map(move |(v, d)| (p, v, d.length()))
            })
            .max_by(|a, b| a.2.total_cmp(&b.2))
            .unwrap();
        ((bind.mesh, p, v), d)
    };
    assert!(offset > 0.0);
    h.get_by_label("Curves (3)").click();
    h.run_steps(2);
    assert_eq!(
        h.get_by_label("happy target weight").value().as_deref(),
        Some("happy")
    );
    let fps = h.state().clip_info().unwrap().fps;
    go_to_frame(&mut h, (1.5 * fps).round() as usize);
    let smiling = drawn_target_vertex(h.state(), at);
    // The same frame with `happy` dropped: the face at rest.
    h.state_mut()
        .run(retarget_studio::app::command::Command::Edit(
            retarget_studio::session::Edit::SetCurve {
                source: "happy".into(),
                target: None,
            },
        ));
    h.run_steps(2);
    let still = drawn_target_vertex(h.state(), at);
    let moved = smiling.distance(still);
    assert!(
        moved > 0.1 * offset,
        "the face moved {moved} (morph offset {offset})"
    );
}
