use super::*;
use crate::ImportOptions;
use glam::{Mat4, Quat, Vec3};
use retarget_core::{JointDef, JointTracks, Pose, Track, Transform};

fn bundled(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets")
        .join(path)
}

/// World joint positions (metres, +Y up) of `clip` on `s` at `t`.
fn worlds(s: &Skeleton, clip: &Clip, t: f32) -> Vec<Vec3> {
    let mut pose = Pose::rest(s);
    clip.sample(t, &mut pose);
    pose.world_positions(s)
}

/// Writes `clips` of `asset`'s first skeleton, reads the file back with the FBX reader, and
/// returns the largest distance between the joints' world positions, in metres.
fn round_trip(asset: &Asset, clips: &[Clip], options: &FbxExportOptions) -> f32 {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.fbx");
    let report = export_fbx(asset, 0, clips, options, &out).unwrap();
    assert_eq!(report.clips, clips.len());
    let back = crate::load(&out, &ImportOptions::default()).unwrap();
    let s = &asset.skeletons[0];
    let b = &back.skeletons[0];
    assert_eq!(
        b.names(),
        s.names(),
        "same joints, same order, no armature node"
    );
    assert_eq!(back.clips.len(), clips.len(), "one take per clip");
    let mut worst = 0.0f32;
    for (clip, read) in clips.iter().zip(&back.clips) {
        assert_eq!(read.clip.name, clip.name);
        let frames = 12;
        for t in clip.even_times(frames) {
            for (a, b) in worlds(s, clip, t).iter().zip(worlds(b, &read.clip, t)) {
                worst = worst.max(a.distance(b));
            }
        }
    }
    worst
}

/// A two-bone rig under `container`, waving through several whole turns of its root.
fn spinning(container: Mat4) -> (Asset, Clip) {
    let s = Skeleton::new(
        "rig",
        container,
        vec![
            JointDef::new(
                "hips",
                None,
                Transform::from_translation(Vec3::new(0.0, 90.0, 0.0)),
            ),
            JointDef::new(
                "spine",
                Some(0),
                Transform::new(
                    Vec3::new(0.0, 40.0, 2.0),
                    Quat::from_rotation_z(0.2),
                    Vec3::ONE,
                ),
            ),
            JointDef::new(
                "head",
                Some(1),
                Transform::from_translation(Vec3::new(0.0, 30.0, 0.0)),
            ),
        ],
    )
    .unwrap();
    let times: Vec<f32> = (0..=60).map(|k| k as f32 / 30.0).collect();
    let spin = times
        .iter()
        .map(|t| Quat::from_rotation_y(t * 7.0) * Quat::from_rotation_x((t * 3.0).sin()))
        .collect();
    let path = times
        .iter()
        .map(|t| Vec3::new(t * 50.0, 90.0, 0.0))
        .collect();
    let bend = times
        .iter()
        .map(|t| Quat::from_rotation_z(0.2 + t.sin()))
        .collect();
    let tracks = vec![
        JointTracks {
            translation: Some(Track::new(times.clone(), path, Interpolation::Linear).unwrap()),
            rotation: Some(Track::new(times.clone(), spin, Interpolation::Linear).unwrap()),
            scale: None,
        },
        JointTracks {
            rotation: Some(Track::new(times.clone(), bend, Interpolation::Linear).unwrap()),
            ..Default::default()
        },
        JointTracks::default(),
    ];
    let clip = Clip::new("spin", tracks, Some(30.0));
    let asset = Asset {
        path: "rig.glb".into(),
        format: crate::Format::Glb,
        skeletons: vec![s],
        clips: Vec::new(),
        meshes: Vec::new(),
        joint_nodes: Vec::new(),
        unit: Unit::Centimetre,
        unit_source: crate::Provenance::Declared,
        up: Axis::PosY,
        up_source: crate::Provenance::Declared,
        warnings: Vec::new(),
        curve_targets: Vec::new(),
        readings: Default::default(),
    };
    (asset, clip)
}

use retarget_core::Interpolation;

#[test]
fn every_unit_and_up_axis_reads_back_with_the_same_motion() {
    let containers = [
        Mat4::from_scale(Vec3::splat(0.01)),
        Mat4::from_scale_rotation_translation(
            Vec3::splat(0.01),
            Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
            Vec3::new(0.2, 0.0, 0.5),
        ),
    ];
    for container in containers {
        let (asset, clip) = spinning(container);
        for (unit, up) in [
            (Unit::Centimetre, Axis::PosY),
            (Unit::Metre, Axis::PosY),
            (Unit::Centimetre, Axis::PosZ),
            (Unit::Inch, Axis::PosZ),
        ] {
            let options = FbxExportOptions {
                unit,
                up,
                ..FbxExportOptions::as_target(&asset)
            };
            let worst = round_trip(&asset, std::slice::from_ref(&clip), &options);
            assert!(worst < 2e-4, "{container:?} {unit:?} {up:?}: {worst} m");
        }
    }
}

#[test]
fn a_container_with_non_uniform_scale_is_baked_and_said_so() {
    let (asset, clip) = spinning(Mat4::from_scale(Vec3::new(0.01, 0.012, 0.01)));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.fbx");
    let report = export_fbx(
        &asset,
        0,
        &[clip],
        &FbxExportOptions::as_target(&asset),
        &out,
    )
    .unwrap();
    assert!(
        report.notes.iter().any(|n| n.contains("non-uniform scale")),
        "{:?}",
        report.notes
    );
    let back = crate::load(&out, &ImportOptions::default()).unwrap();
    // At rest (no turn under the stretch) the joints are where they were.
    let (s, b) = (&asset.skeletons[0], &back.skeletons[0]);
    for (a, b) in Pose::rest(s)
        .world_positions(s)
        .iter()
        .zip(Pose::rest(b).world_positions(b))
    {
        assert!(a.distance(b) < 1e-4, "{a} vs {b}");
    }
}

#[test]
fn reduced_curves_stay_within_the_tolerance() {
    let (asset, clip) = spinning(Mat4::from_scale(Vec3::splat(0.01)));
    let full = FbxExportOptions::as_target(&asset);
    let reduce = FbxExportOptions {
        reduce: Some(Tolerance {
            degrees: 0.5,
            length: 0.5,
        }),
        ..full
    };
    let dir = tempfile::tempdir().unwrap();
    let a = export_fbx(
        &asset,
        0,
        std::slice::from_ref(&clip),
        &full,
        &dir.path().join("a.fbx"),
    )
    .unwrap();
    let b = export_fbx(
        &asset,
        0,
        std::slice::from_ref(&clip),
        &reduce,
        &dir.path().join("b.fbx"),
    )
    .unwrap();
    assert!(b.keys < a.keys, "{} keys reduced to {}", a.keys, b.keys);
    // Half a degree over ~0.7 m of figure and 5 mm of path: well under 2 cm.
    let worst = round_trip(&asset, std::slice::from_ref(&clip), &reduce);
    assert!(worst < 0.02, "{worst} m");
}

#[test]
fn bundled_targets_read_back_with_the_same_motion() {
    for file in [
        "gltf/CesiumMan.glb",
        "bvh/01_01.bvh",
        "fbx/RobotExpressive.fbx",
        "fbx/maya2019_game_sausage_7500_binary_3stacks.fbx",
    ] {
        let path = bundled(file);
        if !path.exists() {
            continue;
        }
        let asset = crate::load(&path, &ImportOptions::default()).unwrap();
        let clips: Vec<Clip> = asset.clips_of(0).take(2).cloned().collect();
        assert!(!clips.is_empty(), "{file}");
        let height =
            retarget_core::figure_extent(&asset.skeletons[0], &Pose::rest(&asset.skeletons[0]))
                .height;
        let options = FbxExportOptions::as_target(&asset);
        let worst = round_trip(&asset, &clips, &options);
        assert!(
            worst < 1e-4 * height.max(0.1),
            "{file}: {worst} m (height {height})"
        );
    }
}

#[test]
fn an_unwritable_path_is_an_error_naming_it_and_leaves_no_file() {
    let (asset, clip) = spinning(Mat4::IDENTITY);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("no/such/folder/out.fbx");
    let e = export_fbx(
        &asset,
        0,
        &[clip],
        &FbxExportOptions::as_target(&asset),
        &out,
    )
    .unwrap_err();
    assert!(e.to_string().contains("out.fbx"), "{e}");
    assert!(!out.exists());
}

#[test]
fn a_skeleton_deeper_than_readers_take_is_refused_before_writing() {
    let limit = crate::fbx::NODE_DEPTH_LIMIT as usize;
    let joints = (0..limit + 1)
        .map(|j| {
            let parent = j.checked_sub(1);
            JointDef::new(
                format!("j{j}"),
                parent,
                Transform::from_translation(Vec3::Y),
            )
        })
        .collect();
    let (mut asset, _) = spinning(Mat4::IDENTITY);
    asset.skeletons[0] = Skeleton::new("chain", Mat4::IDENTITY, joints).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("deep.fbx");
    let e = export_fbx(&asset, 0, &[], &FbxExportOptions::as_target(&asset), &out).unwrap_err();
    assert!(e.to_string().contains("1025 joints deep"), "{e}");
    assert!(!out.exists());
}
