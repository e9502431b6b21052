//! Curves carried through: a VRMA's `happy` expression onto the robot's face morphs, chosen
//! in the curve map, written as a GLB `weights` channel and as FBX blend-shape animation,
//! and read back with the same weights; what cannot be carried is said, naming the curves.

use crate::common::asset_path;
use retarget_studio::core::Clip;
use retarget_studio::core::curve_map::CurvePair;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::{Edit, ExportFormat, ExportJob, Session};
use std::path::Path;

fn vrma_onto(target: &str) -> Session {
    let source = asset_path("vrm/three-vrm_test.vrma");
    Session::automatic(&source, &asset_path(target), &ImportOptions::default()).unwrap()
}

fn export(session: &Session, out: &Path, format: ExportFormat) -> Vec<String> {
    session.export(&ExportJob::to(format, out)).unwrap().notes
}

fn curve<'c>(clip: &'c Clip, name: &str) -> &'c retarget_studio::core::Curve {
    clip.curves()
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no curve '{name}' in {:?}", clip.curves()))
}

#[test]
fn a_vrma_expression_drives_the_robots_face_in_glb_and_fbx() {
    let mut session = vrma_onto("gltf/RobotExpressive.glb");
    assert_eq!(
        session.source_curve_names(),
        ["happy", "lookAt.yaw", "lookAt.pitch"]
    );
    assert_eq!(session.target_curve_names(), ["Angry", "Surprised", "Sad"]);
    let (map, _) = session.curve_map();
    assert_eq!(map.target_of("happy"), None, "the robot has no 'happy'");
    let dir = tempfile::tempdir().unwrap();
    let notes = export(
        &session,
        &dir.path().join("none.glb"),
        ExportFormat::GlbWithCharacter,
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("dropped") && n.contains("'happy'")),
        "{notes:?}"
    );

    session
        .apply_edit(&Edit::SetCurve {
            source: "happy".into(),
            target: Some("Sad".into()),
        })
        .unwrap();
    let happy = curve(session.source_clip(None).unwrap(), "happy").clone();
    let times: Vec<f32> = happy.track.times().to_vec();
    assert!(
        times.len() > 1 && happy.track.values().iter().any(|v| *v > 0.5),
        "{happy:?}"
    );
    for (file, format) in [
        ("sad.glb", ExportFormat::GlbWithCharacter),
        ("sad.fbx", ExportFormat::Fbx(Default::default())),
    ] {
        let out = dir.path().join(file);
        export(&session, &out, format);
        let back = retarget_studio::io::load(&out, &ImportOptions::default()).unwrap();
        let clip = &back.clips[0].clip;
        let sad = curve(clip, "Sad");
        for &t in &times {
            let (want, got) = (happy.sample(t), sad.sample(t));
            assert!(
                (want - got).abs() < 1e-4,
                "{file} at {t} s: {got} for {want}"
            );
        }
        if let Some(angry) = clip.curves().iter().find(|c| c.name == "Angry") {
            assert!(
                angry.track.values().iter().all(|v| *v == 0.0),
                "{file}: untouched"
            );
        }
    }
}

#[test]
fn the_curve_map_is_saved_and_a_choice_of_a_missing_weight_is_reported() {
    let mut session = vrma_onto("gltf/RobotExpressive.glb");
    session
        .apply_edit(&Edit::SetCurve {
            source: "happy".into(),
            target: Some("Surprised".into()),
        })
        .unwrap();
    let mut project = session.to_project();
    assert_eq!(
        project.curves,
        [CurvePair {
            source: "happy".into(),
            target: Some("Surprised".into()),
            manual: true,
        }]
    );
    let reopened = Session::from_project_file(project.clone()).unwrap();
    assert_eq!(reopened.curve_map().0.target_of("happy"), Some("Surprised"));
    // Undo brings the automatic map back.
    let before = vrma_onto("gltf/RobotExpressive.glb").edit_state();
    session.restore(before).unwrap();
    assert_eq!(session.curve_map().0.target_of("happy"), None);

    project.curves[0].target = Some("Grin".into());
    let stale = Session::from_project_file(project).unwrap();
    let (_, problems) = stale.curve_map();
    assert!(
        problems.iter().any(|p| p.contains("'Grin'")),
        "{problems:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let notes = export(
        &stale,
        &dir.path().join("x.glb"),
        ExportFormat::GlbWithCharacter,
    );
    assert!(notes.iter().any(|n| n.contains("'Grin'")), "{notes:?}");
}

#[test]
fn a_target_without_morphs_drops_the_curves_naming_them() {
    let session = vrma_onto("gltf/CesiumMan.glb");
    let dir = tempfile::tempdir().unwrap();
    let notes = export(
        &session,
        &dir.path().join("x.glb"),
        ExportFormat::GlbWithCharacter,
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("no morph targets") && n.contains("'happy'")),
        "{notes:?}"
    );
}

#[test]
fn the_command_line_chooses_a_curve_and_the_glb_has_its_weights_channel() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("happy.glb");
    let source = asset_path("vrm/three-vrm_test.vrma");
    let robot = asset_path("gltf/RobotExpressive.glb");
    let text = crate::common::cli_ok(&[
        "retarget",
        "--source",
        source.to_str().unwrap(),
        "--target",
        robot.to_str().unwrap(),
        "--curve",
        "happy=Sad",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!text.contains("'happy'"), "happy is carried: {text}");
    let back = retarget_studio::io::load(&out, &ImportOptions::default()).unwrap();
    assert!(back.clips[0].clip.curves().iter().any(|c| c.name == "Sad"));
    let bad = crate::common::cli(&["retarget", "--curve", "happy", "--out", "x.glb"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("SOURCE=TARGET"));
}

#[test]
fn a_vrma_expression_plays_the_same_expression_on_a_vrm_character() {
    let dir = tempfile::tempdir().unwrap();
    let robot = std::fs::read(asset_path("gltf/RobotExpressive.glb")).unwrap();
    let vrm = dir.path().join("robot.vrm");
    std::fs::write(&vrm, crate::common::file_variants::robot_as_vrm(&robot)).unwrap();
    let source = asset_path("vrm/three-vrm_test.vrma");
    let session = Session::automatic(&source, &vrm, &ImportOptions::default()).unwrap();
    let targets = session.target_curve_names();
    for name in ["happy", "sad", "shock"] {
        assert!(targets.iter().any(|t| t == name), "{name} in {targets:?}");
    }
    assert_eq!(
        session.curve_map().0.target_of("happy"),
        Some("happy"),
        "by name"
    );
    let out = dir.path().join("happy.vrm");
    let text = crate::common::cli_ok(&[
        "retarget",
        "--source",
        source.to_str().unwrap(),
        "--target",
        vrm.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(text.contains("happy.vrm"), "{text}");
    let back = retarget_studio::io::load(&out, &ImportOptions::default()).unwrap();
    assert!(
        back.curve_targets
            .iter()
            .any(|t| t.expression && t.name == "happy"),
        "the VRM's expressions are kept"
    );
    // The VRMA's gaze turns to the character's left (90° at 2.5 s): `lookLeft` (on `Angry`)
    // takes it, at 1 by 90°, and `lookRight` stays 0.
    let yaw = curve(session.source_clip(None).unwrap(), "lookAt.yaw").clone();
    let angry = curve(&back.clips[0].clip, "Angry");
    for &t in yaw.track.times() {
        let want = (yaw.sample(t) / 90.0).clamp(0.0, 1.0);
        assert!((angry.sample(t) - want).abs() < 1e-4, "lookLeft at {t} s");
    }
    assert!(yaw.sample(2.5) > 80.0, "the clip looks left");
    // `happy` binds the face's `Sad` morph: its weights channel carries the expression.
    let happy = curve(session.source_clip(None).unwrap(), "happy").clone();
    let sad = curve(&back.clips[0].clip, "Sad");
    for &t in happy.track.times() {
        assert!((happy.sample(t) - sad.sample(t)).abs() < 1e-4, "at {t} s");
    }
}

#[test]
fn an_fbx_targets_blend_shapes_become_the_glbs_morph_targets_and_play_the_curve() {
    let mut session = vrma_onto("fbx/RobotExpressive.fbx");
    assert_eq!(session.target_curve_names(), ["Angry", "Surprised", "Sad"]);
    session
        .apply_edit(&Edit::SetCurve {
            source: "happy".into(),
            target: Some("Sad".into()),
        })
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("robot.glb");
    let notes = export(&session, &out, ExportFormat::GlbWithCharacter);
    assert!(
        notes.iter().any(|n| n.contains("morph targets")),
        "{notes:?}"
    );
    let back = retarget_studio::io::load(&out, &ImportOptions::default()).unwrap();
    let names: Vec<&str> = back.curve_targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["Angry", "Surprised", "Sad"],
        "named as the FBX's channels"
    );
    let happy = curve(session.source_clip(None).unwrap(), "happy").clone();
    let sad = curve(&back.clips[0].clip, "Sad");
    for &t in happy.track.times() {
        assert!((happy.sample(t) - sad.sample(t)).abs() < 1e-4, "at {t} s");
    }
    // The shapes themselves: the same offsets as the FBX's, vertex for vertex.
    let fbx = &session.target.asset;
    let (a, b) = (&fbx.meshes, &back.meshes);
    assert_eq!(a.len(), b.len());
    for (ma, mb) in a.iter().zip(b) {
        for (pa, pb) in ma.primitives.iter().zip(&mb.primitives) {
            assert_eq!(pa.morphs.len(), pb.morphs.len(), "{}", ma.name);
            for (da, db) in pa.morphs.iter().zip(&pb.morphs) {
                for (x, y) in da.positions.iter().zip(&db.positions) {
                    assert!(x.distance(*y) < 1e-5, "{}: {x} vs {y}", ma.name);
                }
            }
        }
    }
}

#[test]
fn a_vrm_output_needs_a_vrm_target() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("robot.vrm");
    let source = asset_path("bvh/02_01.bvh");
    let robot = asset_path("gltf/RobotExpressive.glb");
    let o = crate::common::cli(&[
        "retarget",
        "--source",
        source.to_str().unwrap(),
        "--target",
        robot.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("needs a VRM target"),
        "{err}"
    );
    assert!(!out.exists());
}
