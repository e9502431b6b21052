//! The `map` and `retarget` commands end to end on real files.

use crate::common::{asset_path, cli};
use glam::Vec3;
use retarget_studio::core::{Clip, Pose, Skeleton};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::path::Path;

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn world_frames(s: &Skeleton, clip: &Clip) -> Vec<Vec<Vec3>> {
    let n = clip.frame_count();
    let times: Vec<f32> = (0..n)
        .map(|k| clip.start_secs() + clip.duration_secs() * k as f32 / (n - 1).max(1) as f32)
        .collect();
    crate::common::positions_at(s, clip, &times)
}

#[test]
fn retarget_to_glb_reimports_to_the_in_memory_result() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("walk_robot.glb");
    let (src, tgt) = (
        asset_path("bvh/02_01.bvh"),
        asset_path("gltf/RobotExpressive.glb"),
    );
    let o = cli(&[
        "retarget",
        "--source",
        p(&src),
        "--target",
        p(&tgt),
        "--out",
        p(&out),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("wrote") && stdout.contains("1 clip(s)"),
        "{stdout}"
    );
    if let Ok(keep) = std::env::var("RETARGET_EXPORT_DIR") {
        std::fs::copy(&out, Path::new(&keep).join("walk_robot.glb")).unwrap();
    }

    let session = Session::automatic(&src, &tgt, &ImportOptions::default()).unwrap();
    let expected = session.retarget_clip(None, None).unwrap();
    let written = retarget_studio::io::load(&out, &ImportOptions::default()).unwrap();
    assert_eq!(
        written.clips.len(),
        1,
        "the target's own clips are replaced"
    );
    assert_eq!(
        written.meshes.len(),
        session.target.asset.meshes.len(),
        "the robot's meshes are kept"
    );
    let skel = &written.skeletons[0];
    let a = world_frames(session.target.skeleton(), &expected);
    let b = world_frames(skel, &written.clips[0].clip);
    let worst = a
        .iter()
        .zip(&b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| p.distance(*q)))
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-5 * 3.0, "exported vs in-memory: {worst} m");
}

#[test]
fn map_writes_a_project_that_retarget_reuses() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("walk.ron");
    let (src, tgt) = (
        asset_path("bvh/05_06.bvh"),
        asset_path("vrm/cryptovoxels.vrm"),
    );
    let o = cli(&[
        "map",
        "--source",
        p(&src),
        "--target",
        p(&tgt),
        "--out",
        p(&project),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains("Left arm") && table.contains("LeftArm") && table.contains("leftUpperArm"),
        "{table}"
    );
    assert!(table.contains("target joints mapped"), "{table}");

    let from_project = Session::from_project(&project).unwrap();
    let automatic = Session::automatic(&src, &tgt, &ImportOptions::default()).unwrap();
    assert_eq!(from_project.map, automatic.map);
    let a = from_project.retarget_clip(None, Some(30.0)).unwrap();
    let b = automatic.retarget_clip(None, Some(30.0)).unwrap();
    assert_eq!(a, b, "the saved project reproduces the automatic result");

    let bvh = dir.path().join("dance.bvh");
    let o = cli(&[
        "retarget",
        "--project",
        p(&project),
        "--out",
        p(&bvh),
        "--fps",
        "30",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let back = retarget_studio::io::load(&bvh, &ImportOptions::default()).unwrap();
    assert_eq!(back.clips[0].clip.fps(), Some(30.0));
}

#[test]
fn all_clips_and_animation_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("robot_on_vrm.glb");
    let (src, tgt) = (
        asset_path("gltf/RobotExpressive.glb"),
        asset_path("vrm/cryptovoxels.vrm"),
    );
    let o = cli(&[
        "retarget",
        "--source",
        p(&src),
        "--all-clips",
        "--target",
        p(&tgt),
        "--out",
        p(&out),
        "--animation-only",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let back = retarget_studio::io::load(&out, &ImportOptions::default()).unwrap();
    assert_eq!(back.clips.len(), 14);
    assert!(back.meshes.is_empty());
    if let Ok(keep) = std::env::var("RETARGET_EXPORT_DIR") {
        std::fs::copy(&out, Path::new(&keep).join("robot_on_vrm.glb")).unwrap();
    }
}

#[test]
fn bad_requests_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.glb");
    let (bvh, robot) = (
        asset_path("bvh/02_01.bvh"),
        asset_path("gltf/RobotExpressive.glb"),
    );
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "retarget",
                "--source",
                p(&bvh),
                "--clip",
                "Moonwalk",
                "--target",
                p(&robot),
                "--out",
                p(&out),
            ],
            "Moonwalk",
        ),
        (
            vec![
                "retarget",
                "--source",
                p(&bvh),
                "--target",
                p(&robot),
                "--out",
                "/tmp/x.obj",
            ],
            ".glb, .vrm (a VRM target), .fbx or .bvh",
        ),
        (
            vec![
                "map",
                "--source",
                "/nope/missing.bvh",
                "--target",
                p(&robot),
            ],
            "missing.bvh",
        ),
    ];
    for (args, needle) in cases {
        let o = cli(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
    }
    assert!(!out.exists(), "nothing written on failure");
}

#[test]
fn key_reduction_keeps_the_motion_within_tolerance_and_in_place_stays_put() {
    use retarget_studio::session::{ExportFormat, ExportJob, KeyReduction};
    let dir = tempfile::tempdir().unwrap();
    let (src, tgt) = (
        asset_path("bvh/02_01.bvh"),
        asset_path("gltf/RobotExpressive.glb"),
    );
    let session = Session::automatic(&src, &tgt, &ImportOptions::default()).unwrap();
    let job = |out: &str, reduce, root_motion| ExportJob {
        format: ExportFormat::GlbWithCharacter,
        clips: vec![None],
        fps: None,
        out: dir.path().join(out),
        reduce,
        root_motion,
        extract_root: false,
        add_root: false,
    };
    let full = session.export(&job("full.glb", None, None)).unwrap();
    let small = session
        .export(&job("small.glb", Some(KeyReduction::default()), None))
        .unwrap();
    let (before, after) = small.reduced.unwrap();
    eprintln!("key reduction at 0.1° / 0.5 mm: {before} -> {after}");
    assert_eq!(before, full.keys);
    // At least 40 % of the keys go (the robot's fingers, mapped along CMU's finger chains,
    // carry mocap noise that the tolerance keeps).
    assert!(after * 10 < before * 6, "{before} -> {after}");
    let load = |name: &str| {
        retarget_studio::io::load(&dir.path().join(name), &ImportOptions::default()).unwrap()
    };
    let (a, b) = (load("full.glb"), load("small.glb"));
    let fa = world_frames(&a.skeletons[0], &a.clips[0].clip);
    let fb = world_frames(&b.skeletons[0], &a.clips[0].clip);
    assert_eq!(fa, fb, "same skeleton");
    // Sample the reduced clip at the full clip's key times. Each joint may move by what the
    // tolerance allows along its root path: every joint above it turned by up to 0.1° (moving
    // it by that angle times their distance) and shifted by up to 0.5 mm.
    let tolerance = KeyReduction::default();
    let skeleton = &b.skeletons[0];
    let clip_b = &b.clips[0].clip;
    let n = a.clips[0].clip.frame_count();
    let (mut worst, mut worst_share) = (0.0f32, 0.0f32);
    for (k, frame) in fa.iter().enumerate() {
        let t = clip_b.start_secs() + a.clips[0].clip.duration_secs() * k as f32 / (n - 1) as f32;
        let mut pose = Pose::rest(skeleton);
        clip_b.sample(t, &mut pose);
        let p = pose.world_positions(skeleton);
        for (j, (x, y)) in frame.iter().zip(&p).enumerate() {
            let mut allowed = 0.0;
            let mut at = Some(j);
            while let Some(a) = at {
                allowed += tolerance.degrees.to_radians() * frame[j].distance(frame[a])
                    + tolerance.millimetres / 1000.0;
                at = skeleton.parents()[a];
            }
            let error = x.distance(*y);
            worst = worst.max(error);
            // A little over for second-order terms and float noise.
            worst_share = worst_share.max(error / (allowed * 1.01 + 1e-5));
        }
    }
    eprintln!("worst joint error {worst} m, {worst_share:.2} of its tolerance");
    assert!(
        worst_share <= 1.0,
        "reduced keys stay within the tolerance along each root path: {worst_share:.2}"
    );

    session
        .export(&job(
            "in_place.glb",
            None,
            Some(retarget_studio::core::TranslationMode::InPlace),
        ))
        .unwrap();
    let still = load("in_place.glb");
    let s = &still.skeletons[0];
    let hips = s.find("Hips").unwrap();
    // In place, the hip point (between the upper legs) stays over its spot; the pelvis
    // still turns, and the robot's spine-start `Hips` turns with it.
    let (l, r) = (s.find("UpperLeg.L").unwrap(), s.find("UpperLeg.R").unwrap());
    let frames = world_frames(s, &still.clips[0].clip);
    let hip_point = |f: &[Vec3]| (f[l] + f[r]) * 0.5;
    let drift = frames
        .iter()
        .map(|f| {
            let d = hip_point(f) - hip_point(&frames[0]);
            Vec3::new(d.x, 0.0, d.z).length()
        })
        .fold(0.0f32, f32::max);
    let walked = world_frames(&a.skeletons[0], &a.clips[0].clip);
    let moved = (walked.last().unwrap()[hips] - walked[0][hips]).length();
    assert!(moved > 0.5, "the walk moves the hips {moved} m");
    assert!(
        drift < 1e-4,
        "in place the hips stay over their spot: {drift} m"
    );
}

/// `retarget --mirror`: the written walk is the plain one mirrored, read back from the
/// file: the left foot walks where the right foot walked, reflected across the body's plane.
#[test]
fn retarget_mirror_writes_the_walk_mirrored() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, mirrored) = (
        dir.path().join("plain.glb"),
        dir.path().join("mirrored.glb"),
    );
    let walk = asset_path("bvh/02_01.bvh");
    let man = asset_path("gltf/CesiumMan.glb");
    for (out, extra) in [(&plain, None), (&mirrored, Some("--mirror"))] {
        let mut args = vec![
            "retarget",
            "--source",
            p(&walk),
            "--target",
            p(&man),
            "--out",
            p(out),
        ];
        args.extend(extra);
        let o = cli(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let read = |path: &Path| retarget_studio::io::load(path, &ImportOptions::default()).unwrap();
    let (a, b) = (read(&plain), read(&mirrored));
    let s = &a.skeletons[0];
    let (fa, fb) = (
        world_frames(s, &a.clips.last().unwrap().clip),
        world_frames(&b.skeletons[0], &b.clips.last().unwrap().clip),
    );
    let foot = |name: &str| s.names().iter().position(|n| n == name).unwrap();
    let (left, right) = (foot("leg_joint_L_5"), foot("leg_joint_R_5"));
    let mut worst = 0.0f32;
    for (x, y) in fa.iter().zip(&fb) {
        let reflected = Vec3::new(-x[right].x, x[right].y, x[right].z);
        worst = worst.max(y[left].distance(reflected));
    }
    // CesiumMan's feet stand 14 cm apart, 1.5 cm off centre: within 5 cm of the mirror image.
    assert!(
        worst < 0.05,
        "the left foot is {worst} m off the right foot's mirror image"
    );
}

#[test]
fn a_glb_onto_a_character_without_meshes_is_written_as_its_skeleton_and_clips() {
    // A HumanIK character of bones only, in FBX: it has no meshes and no glTF nodes to put
    // a clip on. The GLB is its skeleton and the clip, with a note, not a refusal.
    let Some(target) =
        crate::common::corpus_path("characters/fbx/maya_humanik_character1_zero_scale_toe.fbx")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("walk.glb");
    let source = crate::common::asset_path("bvh/02_01.bvh");
    let printed = crate::common::cli_ok(&[
        "retarget",
        "--source",
        source.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(printed.contains("has no meshes"), "{printed}");
    let doc = gltf::Gltf::open(&out).unwrap();
    assert_eq!(doc.animations().count(), 1);
    assert!(doc.nodes().count() >= 60, "{} nodes", doc.nodes().count());
}
