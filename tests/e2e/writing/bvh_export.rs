//! BVH export on the real rigs in assets/: written, read back with our own importer, and
//! compared joint by joint in world space with the clip it came from.

use crate::common::load;
use glam::{Mat4, Quat, Vec3};
use retarget_studio::core::{
    Axis, Clip, Interpolation, JointDef, JointTracks, Pose, Skeleton, Track, Transform, Unit,
    figure_extent,
};
use retarget_studio::io::bvh_export::{BvhExportOptions, BvhExportReport, export_bvh};
use retarget_studio::io::{Asset, ExportProblem, ImportOptions};
use std::path::Path;

fn reload(path: &Path) -> Asset {
    let options = ImportOptions {
        unit: Some(Unit::Centimetre),
        up: Some(Axis::PosY),
    };
    retarget_studio::io::load(path, &options).unwrap_or_else(|e| panic!("re-import: {e}"))
}

struct Exported {
    _dir: tempfile::TempDir,
    report: BvhExportReport,
    text: String,
    back: Asset,
}

fn export(skeleton: &Skeleton, clip: &Clip, options: &BvhExportOptions) -> Exported {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.bvh");
    let report = export_bvh(skeleton, clip, options, &path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(report.bytes, text.len() as u64);
    assert_eq!(report.path, path);
    let back = reload(&path);
    Exported {
        _dir: dir,
        report,
        text,
        back,
    }
}

/// Where the file put joint `j` of the original: the joint of that name, or for a `*_end`
/// marker the End Site of its parent.
fn counterpart(original: &Skeleton, back: &Skeleton, j: usize) -> usize {
    let name = &original.names()[j];
    back.find(name)
        .or_else(|| {
            let parent = original.parents()[j]?;
            back.find(&format!("{}_end", original.names()[parent]))
        })
        .unwrap_or_else(|| panic!("joint '{name}' is missing from the file"))
}

/// The largest world-position error over `frames` (every frame when empty), in metres,
/// divided by `size` (the figure's height).
fn relative_error(
    skeleton: &Skeleton,
    clip: &Clip,
    out: &Exported,
    frames: &[usize],
    size: f32,
) -> f32 {
    let back_skeleton = &out.back.skeletons[0];
    let back_clip = &out.back.clips[0].clip;
    let n = out.report.frames;
    let all: Vec<usize> = (0..n).collect();
    let frames = if frames.is_empty() { &all[..] } else { frames };
    let map: Vec<usize> = (0..skeleton.len())
        .map(|j| counterpart(skeleton, back_skeleton, j))
        .collect();
    let back_step = back_clip.duration_secs() / (n.max(2) - 1) as f32;
    let mut worst = 0.0f32;
    for &k in frames {
        let t = (clip.start_secs() as f64 + k as f64 * out.report.frame_time_secs)
            .min(clip.end_secs() as f64) as f32;
        let mut pose = Pose::rest(skeleton);
        clip.sample(t, &mut pose);
        let expected = pose.world_positions(skeleton);
        let mut back_pose = Pose::rest(back_skeleton);
        back_clip.sample(k as f32 * back_step, &mut back_pose);
        let got = back_pose.world_positions(back_skeleton);
        for (j, &b) in map.iter().enumerate() {
            worst = worst.max(expected[j].distance(got[b]) / size);
        }
    }
    worst
}

/// The rotation columns of the frame lines, from the CHANNELS lines in file order.
fn rotation_columns(text: &str) -> Vec<usize> {
    let mut columns = Vec::new();
    let mut next = 0;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("CHANNELS") {
            for name in rest.split_whitespace().skip(1) {
                if name.ends_with("rotation") {
                    columns.push(next);
                }
                next += 1;
            }
        }
    }
    columns
}

/// The largest change of any Euler channel between consecutive frames, in degrees.
fn largest_euler_step(text: &str) -> f64 {
    let columns = rotation_columns(text);
    let start = text
        .lines()
        .position(|l| l.starts_with("Frame Time:"))
        .unwrap()
        + 1;
    let frames: Vec<Vec<f64>> = text
        .lines()
        .skip(start)
        .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
        .collect();
    let mut worst = 0.0f64;
    for pair in frames.windows(2) {
        for &c in &columns {
            worst = worst.max((pair[1][c] - pair[0][c]).abs());
        }
    }
    worst
}

fn check_asset_clip(rel: &str, clip: &Clip, skeleton: &Skeleton, expect_frames: usize) -> f32 {
    let out = export(skeleton, clip, &BvhExportOptions::default());
    assert_eq!(out.report.frames, expect_frames, "{rel}");
    let back_clip = &out.back.clips[0].clip;
    assert_eq!(back_clip.frame_count(), expect_frames, "{rel}");
    assert_eq!(back_clip.fps(), clip.fps(), "{rel}");
    let height = figure_extent(skeleton, &Pose::rest(skeleton)).height;
    let err = relative_error(skeleton, clip, &out, &[], height);
    println!(
        "{rel} '{}': max error {err:.3e} of the figure height",
        clip.name
    );
    assert!(err < 1e-4, "{rel}: max error {err} of the figure height");
    let step = largest_euler_step(&out.text);
    assert!(step <= 180.0, "{rel}: an Euler channel jumps {step}°");
    err
}

#[test]
fn cmu_walk_round_trips_in_world_space() {
    let asset = load("bvh/02_01.bvh");
    let clip = &asset.clips[0].clip;
    check_asset_clip("02_01", clip, &asset.skeletons[0], 343);
}

/// Keys `from..to` of every track of `clip`, keeping their times (so the part starts late).
fn clip_part(clip: &Clip, from: usize, to: usize) -> Clip {
    fn part<T: retarget_studio::core::clip::Keyframe>(
        track: &Option<Track<T>>,
        from: usize,
        to: usize,
    ) -> Option<Track<T>> {
        let t = track.as_ref()?;
        let times = t.times()[from..to].to_vec();
        let values = (from..to).map(|k| t.value(k)).collect();
        Some(Track::new(times, values, Interpolation::Linear).unwrap())
    }
    let tracks = clip
        .tracks()
        .iter()
        .map(|t| JointTracks {
            translation: part(&t.translation, from, to),
            rotation: part(&t.rotation, from, to),
            scale: part(&t.scale, from, to),
        })
        .collect();
    Clip::new(format!("{} part", clip.name), tracks, clip.fps())
}

#[test]
fn part_of_cmu_jumps_round_trips_in_world_space() {
    let asset = load("bvh/01_01.bvh");
    let part = clip_part(&asset.clips[0].clip, 1500, 1800);
    assert!(part.start_secs() > 12.0);
    check_asset_clip("01_01", &part, &asset.skeletons[0], 300);
}

#[test]
fn robot_dance_with_scaled_turned_armature_round_trips() {
    let asset = load("gltf/RobotExpressive.glb");
    let dance = asset.find_clip("Dance").unwrap();
    let skeleton = &asset.skeletons[dance.skeleton];
    check_asset_clip("RobotExpressive", &dance.clip, skeleton, 81);
}

#[test]
fn cesium_man_z_up_walk_round_trips() {
    let asset = load("gltf/CesiumMan.glb");
    let clip = &asset.clips[0].clip;
    assert!(clip.start_secs() > 0.0, "the clip starts late");
    check_asset_clip("CesiumMan", clip, &asset.skeletons[0], 48);
}

#[test]
fn bvh_round_trip_keeps_names_hierarchy_and_end_sites() {
    let asset = load("bvh/02_01.bvh");
    let s = &asset.skeletons[0];
    let out = export(s, &asset.clips[0].clip, &BvhExportOptions::default());
    let back = &out.back.skeletons[0];
    assert_eq!(back.names(), s.names());
    assert_eq!(back.parents(), s.parents());
    assert_eq!(out.report.joints, 31);
    assert_eq!(out.text.matches("End Site").count(), 7);
    assert_eq!(out.text.matches("JOINT").count(), 30);
    assert!(out.report.notes.is_empty(), "{:?}", out.report.notes);
    // The file's zero pose is the rest pose: offsets are the original ones, in centimetres.
    let k = Unit::CmuAsf.metres() / Unit::Centimetre.metres();
    for (a, b) in s.rest().iter().zip(back.rest()).skip(1) {
        assert!(
            (a.translation * k).abs_diff_eq(b.translation, 1e-4),
            "{} vs {}",
            a.translation * k,
            b.translation
        );
    }
    // The file says how it is laid out.
    assert!(
        out.text
            .contains("CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation")
    );
    assert!(out.text.contains("Frame Time: 0.00833"));
}

#[test]
fn a_chosen_rate_and_unit_resample_the_clip() {
    let asset = load("bvh/02_01.bvh");
    let s = &asset.skeletons[0];
    let clip = &asset.clips[0].clip;
    let options = BvhExportOptions {
        fps: Some(30.0),
        unit: Unit::Metre,
        ..BvhExportOptions::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("walk30.bvh");
    let report = export_bvh(s, clip, &options, &path).unwrap();
    // 2.849886 s at 30 fps is 85.5 frames: 86 steps of 1/30 s, the last one holding the end.
    assert_eq!(report.frames, 87);
    assert!((report.frame_time_secs - 1.0 / 30.0).abs() < 1e-12);
    let back = retarget_studio::io::load(
        &path,
        &ImportOptions {
            unit: Some(Unit::Metre),
            up: Some(Axis::PosY),
        },
    )
    .unwrap();
    assert_eq!(back.clips[0].clip.fps(), Some(30.0));
    assert_eq!(back.clips[0].clip.frame_count(), 87);
    // Hips at frame 10 (t = 1/3 s) are where the original has them, in metres.
    let mut pose = Pose::rest(s);
    clip.sample(10.0 / 30.0, &mut pose);
    let expected = pose.world_positions(s)[0];
    let bs = &back.skeletons[0];
    let mut back_pose = Pose::rest(bs);
    back.clips[0].clip.sample(10.0 / 30.0, &mut back_pose);
    let got = back_pose.world_positions(bs)[0];
    assert!(got.abs_diff_eq(expected, 1e-5), "{got} vs {expected}");
}

#[test]
fn writing_into_a_missing_folder_fails_and_leaves_nothing() {
    let asset = load("bvh/02_01.bvh");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("walk.bvh");
    let err = export_bvh(
        &asset.skeletons[0],
        &asset.clips[0].clip,
        &BvhExportOptions::default(),
        &path,
    )
    .unwrap_err();
    assert!(matches!(err.problem, ExportProblem::Write(_)), "{err}");
    assert!(err.to_string().contains("walk.bvh"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_clip_of_another_skeleton_is_refused() {
    let robot = load("gltf/RobotExpressive.glb");
    let cmu = load("bvh/02_01.bvh");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.bvh");
    let err = export_bvh(
        &robot.skeletons[0],
        &cmu.clips[0].clip,
        &BvhExportOptions::default(),
        &path,
    )
    .unwrap_err();
    assert!(matches!(err.problem, ExportProblem::Invalid(_)), "{err}");
    assert!(!path.exists());
    let zero_rate = BvhExportOptions {
        fps: Some(0.0),
        ..Default::default()
    };
    let err = export_bvh(&cmu.skeletons[0], &cmu.clips[0].clip, &zero_rate, &path).unwrap_err();
    assert!(err.to_string().contains("frame rate"), "{err}");
}

/// A rig no BVH can hold with rotations alone: a turned, non-uniformly scaled container, a
/// non-uniformly scaled joint under a spinning one, and a leaf with animated translation.
fn awkward_rig() -> (Skeleton, Clip) {
    let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
    let mut stretched = t(0.0, 0.4, 0.0);
    stretched.scale = Vec3::new(1.0, 3.0, 0.5);
    let joints = vec![
        JointDef::new("root", None, t(0.0, 1.0, 0.0)),
        JointDef::new("spin", Some(0), t(0.0, 0.2, 0.0)),
        JointDef::new("stretched", Some(1), stretched),
        JointDef::new("arm", Some(2), t(0.3, 0.1, 0.0)),
        JointDef::new("slider", Some(3), t(0.0, 0.2, 0.0)),
        JointDef::new("arm_end", Some(3), t(0.1, 0.0, 0.0)),
    ];
    let container = Mat4::from_scale_rotation_translation(
        Vec3::new(2.0, 1.0, 1.5),
        Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
        Vec3::new(0.5, 0.0, -1.0),
    );
    let skeleton = Skeleton::new("awkward", container, joints).unwrap();
    let times: Vec<f32> = (0..121).map(|k| k as f32 / 30.0).collect();
    let spin: Vec<Quat> = times
        .iter()
        .map(|&t| Quat::from_rotation_y(t * 6.0) * Quat::from_rotation_x((t * 2.0).sin() * 1.6))
        .collect();
    let slide: Vec<Vec3> = times
        .iter()
        .map(|&t| Vec3::new(0.0, 0.2 + 0.1 * t, 0.0))
        .collect();
    let mut tracks = vec![JointTracks::default(); 6];
    tracks[1].rotation = Some(Track::new(times.clone(), spin, Interpolation::Linear).unwrap());
    tracks[4].translation = Some(Track::new(times, slide, Interpolation::Linear).unwrap());
    (skeleton, Clip::new("awkward", tracks, None))
}

#[test]
fn scale_shear_and_animated_translation_stay_exact_through_position_channels() {
    let (skeleton, clip) = awkward_rig();
    let out = export(&skeleton, &clip, &BvhExportOptions::default());
    assert_eq!(out.report.frames, 121);
    // The figure lies along world Z (the container turns it), so measure by its extent.
    let rest = Pose::rest(&skeleton).world_positions(&skeleton);
    let lo = rest.iter().fold(Vec3::INFINITY, |m, p| m.min(*p));
    let hi = rest.iter().fold(Vec3::NEG_INFINITY, |m, p| m.max(*p));
    let size = (hi - lo).length();
    let err = relative_error(&skeleton, &clip, &out, &[], size);
    println!("awkward rig: max error {err:.3e} of the figure height");
    assert!(err < 1e-4, "max error {err}");
    let note = out.report.notes.join("; ");
    for name in ["arm", "slider"] {
        assert!(
            note.contains(name),
            "{name} should have position channels: {note}"
        );
    }
    assert!(!note.contains("spin"), "{note}");
    assert_eq!(
        out.text.matches("End Site").count(),
        2,
        "slider leaf and arm_end"
    );
    let step = largest_euler_step(&out.text);
    assert!(step <= 180.0, "an Euler channel jumps {step}°");
}

/// The same rig gives the same numbers back: a BVH retargeted onto itself is written in its
/// own unit and up axis with its own offsets and path (a quadruped in metres came back
/// turned 90° and in centimetres, 80 heights away from its source in Blender's reading).
#[test]
fn a_bvh_onto_itself_comes_back_in_its_own_unit_axes_and_offsets() {
    use crate::common::asset_path;
    use crate::common::file_variants::bvh_variants::Bvh;
    use crate::common::file_variants::{bvh_scaled, research_dataset_layout, z_up_bvh};
    use retarget_studio::session::{ExportFormat, ExportJob, Session};
    let walk = std::fs::read_to_string(asset_path("bvh/02_01.bvh")).unwrap();
    let metres = Unit::CmuAsf.metres() as f64;
    let variants = [
        ("cmu", walk.clone()),
        ("z-up-metres", bvh_scaled(&z_up_bvh(&walk), metres)),
        (
            "research",
            research_dataset_layout(&walk, 5, glam::DVec3::new(40.0, 0.0, 20.0)),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (label, text) in variants {
        let path = dir.path().join(format!("{label}.bvh"));
        std::fs::write(&path, &text).unwrap();
        let session = Session::automatic(&path, &path, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{label} onto itself: {e}"));
        let out = dir.path().join(format!("{label}_out.bvh"));
        let job = ExportJob {
            format: ExportFormat::Bvh,
            clips: vec![None],
            fps: None,
            out: out.clone(),
            reduce: None,
            root_motion: None,
            extract_root: false,
            add_root: false,
        };
        session.export(&job).unwrap();
        let (a, b) = (
            Bvh::parse(&text),
            Bvh::parse(&std::fs::read_to_string(&out).unwrap()),
        );
        let height = figure_size(&a);
        // Every joint's OFFSET as long as the source file's, by name: the same unit (the
        // retarget may turn a foot and carry its toe, so directions are not compared).
        for n in a.nodes.iter().filter(|n| !n.end_site && n.parent.is_some()) {
            let m = b.nodes.iter().find(|m| m.name == n.name).unwrap();
            assert!(
                (n.offset.length() - m.offset.length()).abs() / height < 1e-3,
                "{label}: {} has OFFSET {} in the source and {} in the output",
                n.name,
                n.offset,
                m.offset
            );
        }
        // The root's path, frame by frame, in the file's own axes and unit.
        let (pa, pb) = (root_path(&a), root_path(&b));
        assert_eq!(pa.len(), pb.len(), "{label}: frames");
        let worst = pa
            .iter()
            .zip(&pb)
            .map(|(x, y)| (*x - *y).length())
            .fold(0.0, f64::max);
        assert!(
            worst / height < 2e-2,
            "{label}: the root strays {:.3} heights",
            worst / height
        );
        // Read back as any reader would: the same unit, up and world joint positions.
        let (src, back) = (
            retarget_studio::io::load(&path, &ImportOptions::default()).unwrap(),
            retarget_studio::io::load(&out, &ImportOptions::default()).unwrap(),
        );
        assert_eq!((src.unit, src.up), (back.unit, back.up), "{label}");
        let (s, t) = (&src.skeletons[0], &back.skeletons[0]);
        let (cs, ct) = (&src.clips[0].clip, &back.clips[0].clip);
        let (mut ps, mut pt) = (Pose::rest(s), Pose::rest(t));
        cs.sample(cs.start_secs(), &mut ps);
        ct.sample(ct.start_secs(), &mut pt);
        let (ws, wt) = (ps.world_positions(s), pt.world_positions(t));
        let size = figure_extent(s, &ps).height;
        for (j, name) in s.names().iter().enumerate() {
            let Some(k) = t.find(name) else { continue };
            assert!(
                // (planting may lower the hips by about a centimetre)
                ws[j].distance(wt[k]) / size < 1e-2,
                "{label}: {name} read back {} from where the source has it",
                ws[j].distance(wt[k])
            );
        }
    }
}

/// The root's world position in each frame of a parsed BVH (OFFSET replaced by positions).
fn root_path(b: &crate::common::file_variants::bvh_variants::Bvh) -> Vec<glam::DVec3> {
    let root = &b.nodes[0];
    b.frames
        .iter()
        .map(|f| {
            let mut p = root.offset;
            for (k, ch) in root.channels.iter().enumerate() {
                if let Some(a) = ["X", "Y", "Z"].iter().position(|a| ch.starts_with(a)) {
                    if ch.ends_with("position") {
                        p[a] = f[k];
                    }
                }
            }
            p
        })
        .collect()
}

/// The sum of the offsets' lengths: a size that does not depend on the axes.
fn figure_size(b: &crate::common::file_variants::bvh_variants::Bvh) -> f64 {
    b.nodes.iter().map(|n| n.offset.length()).sum::<f64>() / 4.0
}
