//! GLB export on the real rigs: clips written back onto their own characters, the skeleton
//! alone, what is kept, what is repaired, and what fails cleanly.
//!
//! Set RETARGET_EXPORT_DIR to keep the written files (CI runs the Khronos validator on
//! them); otherwise they go to a temp folder.

use crate::common::{asset_path, load};
use glam::{Quat, Vec3};
use retarget_studio::core::{Clip, Interpolation, JointTracks, Pose, Skeleton, Track};
use retarget_studio::io::gltf_export::{ExportReport, GlbContent, GlbExportOptions, export_glb};
use retarget_studio::io::{Asset, ExportProblem, ImportOptions};
use std::path::{Path, PathBuf};

const CHARACTERS: &[&str] = &[
    "gltf/RobotExpressive.glb",
    "gltf/Fox.glb",
    "gltf/CesiumMan.glb",
];

/// The output folder; the temp dir (if any) lives as long as this value.
struct OutDir {
    path: PathBuf,
    _tmp: Option<tempfile::TempDir>,
}

fn out_dir() -> OutDir {
    match std::env::var_os("RETARGET_EXPORT_DIR") {
        Some(dir) => {
            let path = PathBuf::from(dir);
            std::fs::create_dir_all(&path).unwrap();
            OutDir { path, _tmp: None }
        }
        None => {
            let tmp = tempfile::tempdir().unwrap();
            OutDir {
                path: tmp.path().to_path_buf(),
                _tmp: Some(tmp),
            }
        }
    }
}

fn stem(rel: &str) -> &str {
    Path::new(rel).file_stem().unwrap().to_str().unwrap()
}

fn options(content: GlbContent) -> GlbExportOptions {
    GlbExportOptions {
        content,
        keep_existing_animations: false,
    }
}

fn export(
    rel: &str,
    asset: &Asset,
    clips: &[Clip],
    opts: GlbExportOptions,
    out: &Path,
) -> ExportReport {
    export_glb(&asset_path(rel), asset, 0, clips, &opts, out)
        .unwrap_or_else(|e| panic!("{rel} should export: {e}"))
}

fn reload(path: &Path) -> Asset {
    retarget_studio::io::load(path, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("the written file should load: {e}"))
}

/// The diagonal of the rest pose's bounding box: what "relative to the figure" means.
fn figure_size(s: &Skeleton) -> f32 {
    let p = Pose::rest(s).world_positions(s);
    let lo = p.iter().fold(Vec3::INFINITY, |a, b| a.min(*b));
    let hi = p.iter().fold(Vec3::NEG_INFINITY, |a, b| a.max(*b));
    (hi - lo).length()
}

/// World joint positions of `clip_a` on `a` and `clip_b` on `b` agree at every key time of
/// `clip_a`; `map[j]` is the joint of `b` that is joint `j` of `a`.
fn assert_same_motion(
    label: &str,
    (a, clip_a): (&Skeleton, &Clip),
    (b, clip_b): (&Skeleton, &Clip),
    map: &[usize],
) {
    let tolerance = 1e-5 * figure_size(a);
    let (mut pose_a, mut pose_b) = (Pose::rest(a), Pose::rest(b));
    let times = crate::common::key_times(clip_a);
    assert!(!times.is_empty(), "{label}: no keys");
    for t in times {
        clip_a.sample(t, &mut pose_a);
        clip_b.sample(t, &mut pose_b);
        let (pa, pb) = (pose_a.world_positions(a), pose_b.world_positions(b));
        for (j, &k) in map.iter().enumerate() {
            let err = pa[j].distance(pb[k]);
            assert!(
                err <= tolerance,
                "{label} at {t} s: joint '{}' is {err} away (tolerance {tolerance})",
                a.names()[j]
            );
        }
    }
}

fn by_name(a: &Skeleton, b: &Skeleton) -> Vec<usize> {
    a.names()
        .iter()
        .map(|n| {
            b.find(n)
                .unwrap_or_else(|| panic!("joint '{n}' is missing"))
        })
        .collect()
}

/// The written file, re-imported, moves every joint as `clips` move the original's.
fn assert_written_clips_match(label: &str, original: &Asset, clips: &[Clip], out: &Path) {
    let back = reload(out);
    let (s, b) = (&original.skeletons[0], &back.skeletons[0]);
    assert_eq!(b.names(), s.names(), "{label}");
    let identity: Vec<usize> = (0..s.len()).collect();
    for clip in clips {
        let written = &back.find_clip(&clip.name).unwrap().clip;
        let label = format!("{label} '{}'", clip.name);
        assert_same_motion(&label, (s, clip), (b, written), &identity);
    }
}

/// Counts of what a character is made of, read straight from the file.
fn contents(path: &Path) -> [usize; 6] {
    let doc = gltf::Gltf::open(path).unwrap().document;
    [
        doc.nodes().len(),
        doc.meshes().len(),
        doc.materials().len(),
        doc.skins().len(),
        doc.textures().len(),
        doc.images().len(),
    ]
}

#[test]
fn own_clips_written_back_move_the_joints_the_same_way() {
    let dir = out_dir();
    for rel in CHARACTERS {
        let asset = load(rel);
        let clips: Vec<Clip> = asset.clips_of(0).cloned().collect();
        let out = dir.path.join(format!("{}.with_character.glb", stem(rel)));
        let report = export(
            rel,
            &asset,
            &clips,
            options(GlbContent::WithCharacter),
            &out,
        );
        assert_eq!(report.clips, clips.len(), "{rel}");
        assert!(report.keys > 0 && report.bytes > 0, "{rel}: {report:?}");
        assert_eq!(report.bytes, std::fs::metadata(&out).unwrap().len());
        assert_eq!(
            contents(&asset_path(rel)),
            contents(&out),
            "{rel}: contents"
        );

        let back = reload(&out);
        assert_eq!(back.clips.len(), clips.len(), "{rel}: old clips dropped");
        assert_written_clips_match(rel, &asset, &clips, &out);
    }
}

#[test]
fn robot_skin_weights_are_repaired_and_reported() {
    let dir = out_dir();
    let rel = "gltf/RobotExpressive.glb";
    let asset = load(rel);
    let clip = asset.find_clip("Wave").unwrap().clip.clone();
    let out = dir.path.join("RobotExpressive.wave.glb");
    let report = export(
        rel,
        &asset,
        &[clip],
        options(GlbContent::WithCharacter),
        &out,
    );
    assert!(report.repaired_vertices > 0, "{report:?}");
    assert!(
        report.notes.iter().any(|n| n.contains("skin weights")),
        "{:?}",
        report.notes
    );
    // Every vertex of the written file sums to one within float32 rounding.
    let (doc, buffers, _) = gltf::import(&out).unwrap();
    for prim in doc
        .meshes()
        .flat_map(|m| m.primitives().collect::<Vec<_>>())
    {
        let reader = prim.reader(|b| Some(&buffers[b.index()]));
        if let Some(w) = reader.read_weights(0) {
            for v in w.into_f32() {
                let sum: f32 = v.iter().sum();
                assert!((sum - 1.0).abs() < 1e-6, "weights {v:?}");
            }
        }
    }
    // The source's 14 animations are gone, the one clip is there, the rest of the file is
    // smaller for it.
    assert_eq!(doc.animations().count(), 1);
    assert!(report.bytes < std::fs::metadata(asset_path(rel)).unwrap().len());
}

#[test]
fn animation_only_rebuilds_the_skeleton_and_its_clips() {
    let dir = out_dir();
    for rel in CHARACTERS.iter().chain(&["bvh/02_01.bvh"]) {
        let asset = load(rel);
        let clips: Vec<Clip> = asset.clips_of(0).cloned().collect();
        let out = dir.path.join(format!("{}.animation_only.glb", stem(rel)));
        let report = export(
            rel,
            &asset,
            &clips,
            options(GlbContent::AnimationOnly),
            &out,
        );
        assert_eq!(report.clips, clips.len());

        let back = reload(&out);
        assert!(back.meshes.is_empty(), "{rel}: no mesh");
        assert_eq!(back.skeletons.len(), 1, "{rel}");
        let (s, b) = (&asset.skeletons[0], &back.skeletons[0]);
        assert_eq!(b.len(), s.len(), "{rel}");
        let map = by_name(s, b);
        let tolerance = 1e-5 * figure_size(s);
        for (which, pa, pb) in [
            ("rest", Pose::rest(s), Pose::rest(b)),
            ("bind", Pose::bind(s), Pose::bind(b)),
        ] {
            let (wa, wb) = (pa.world_positions(s), pb.world_positions(b));
            for (j, &k) in map.iter().enumerate() {
                let err = wa[j].distance(wb[k]);
                assert!(err <= tolerance, "{rel} {which}: '{}' {err}", s.names()[j]);
            }
        }
        let names: Vec<_> = back.clips.iter().map(|c| c.clip.name.as_str()).collect();
        let expected: Vec<_> = clips.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, expected, "{rel}");
        for clip in &clips {
            let written = &back.find_clip(&clip.name).unwrap().clip;
            let label = format!("{rel} '{}' (animation only)", clip.name);
            assert_same_motion(&label, (s, clip), (b, written), &map);
        }
    }
}

/// A clip on cryptovoxels (which has none) with one track of each interpolation.
fn synthetic_clip(s: &Skeleton) -> Clip {
    let mut tracks = vec![JointTracks::default(); s.len()];
    let times = vec![0.0, 0.5, 1.25];
    let q = |x: f32, y: f32| Quat::from_euler(glam::EulerRot::XYZ, x, y, 0.0);
    let tangent = |k: f32| Quat::from_xyzw(0.1 * k, -0.05, 0.02 * k, 0.0);
    let head = s.find("Head").unwrap();
    tracks[head].rotation = Some(
        Track::new(
            times.clone(),
            vec![q(0.0, 0.0), q(0.3, 0.1), q(-0.2, 0.4)],
            Interpolation::Linear,
        )
        .unwrap(),
    );
    let arm = s.find("Left arm").unwrap();
    let cubic: Vec<Quat> = (0..3)
        .flat_map(|k| {
            [
                tangent(k as f32),
                q(0.2 * k as f32, -0.3),
                tangent(-(k as f32)),
            ]
        })
        .collect();
    tracks[arm].rotation =
        Some(Track::new(times.clone(), cubic, Interpolation::CubicSpline).unwrap());
    let hips = s.find("Hips").unwrap();
    let base = s.rest()[hips].translation;
    let steps = vec![base, base + Vec3::Y * 0.1, base - Vec3::X * 0.05];
    tracks[hips].translation = Some(Track::new(times, steps, Interpolation::Step).unwrap());
    let spine = s.find("Spine").unwrap();
    tracks[spine].scale = Some(
        Track::new(
            vec![0.25, 1.0],
            vec![Vec3::ONE, Vec3::splat(1.1)],
            Interpolation::Linear,
        )
        .unwrap(),
    );
    Clip::new("Synthetic", tracks, None)
}

#[test]
fn every_interpolation_and_cubic_tangents_survive_on_a_vrm() {
    let dir = out_dir();
    let rel = "vrm/cryptovoxels.vrm";
    let asset = load(rel);
    let s = &asset.skeletons[0];
    let clip = synthetic_clip(s);
    let out = dir.path.join("cryptovoxels.synthetic.glb");
    let report = export(
        rel,
        &asset,
        std::slice::from_ref(&clip),
        options(GlbContent::WithCharacter),
        &out,
    );
    assert_eq!((report.clips, report.keys), (1, 11));
    // The VRM extension (humanoid table, materials) travels along.
    let doc = gltf::Gltf::open(&out).unwrap().document;
    assert!(doc.extensions_used().any(|e| e == "VRM"));
    assert_eq!(contents(&asset_path(rel)), contents(&out));

    let back = reload(&out);
    let written = &back.find_clip("Synthetic").unwrap().clip;
    for (a, b) in clip.tracks().iter().zip(written.tracks()) {
        match (&a.rotation, &b.rotation) {
            (Some(a), Some(b)) => {
                assert_eq!(
                    (a.interpolation(), a.times()),
                    (b.interpolation(), b.times())
                );
                for (x, y) in a.values().iter().zip(b.values()) {
                    assert!(x.abs_diff_eq(*y, 1e-6), "{x} vs {y}");
                }
            }
            (None, None) => {}
            _ => panic!("a rotation track was lost or made up"),
        }
        assert_eq!(a.translation, b.translation);
        assert_eq!(a.scale, b.scale);
    }
    assert_written_clips_match("cryptovoxels", &asset, std::slice::from_ref(&clip), &out);
}

#[test]
fn keys_gltf_forbids_are_adjusted_and_reported() {
    let dir = out_dir();
    let rel = "gltf/Fox.glb";
    let asset = load(rel);
    let s = &asset.skeletons[0];
    let mut tracks = vec![JointTracks::default(); s.len()];
    // Negative times, a repeated time (a jump) and a one-key cubic track.
    tracks[1].translation = Some(
        Track::new(
            vec![-0.5, 0.0, 0.0, 1.0],
            vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
            Interpolation::Linear,
        )
        .unwrap(),
    );
    tracks[2].rotation = Some(
        Track::new(
            vec![0.25],
            vec![Quat::IDENTITY, Quat::from_rotation_y(0.5), Quat::IDENTITY],
            Interpolation::CubicSpline,
        )
        .unwrap(),
    );
    let empty = Clip::new("Empty", vec![JointTracks::default(); s.len()], None);
    let clips = [Clip::new("Odd", tracks, None), empty];
    let out = dir.path.join("Fox.odd_keys.glb");
    let report = export(
        rel,
        &asset,
        &clips,
        options(GlbContent::WithCharacter),
        &out,
    );
    assert_eq!(report.clips, 1, "the empty clip is left out");
    let notes = report.notes.join("\n");
    for word in ["shifted", "moved up", "STEP", "no tracks"] {
        assert!(notes.contains(word), "'{word}' missing from:\n{notes}");
    }
    let back = reload(&out);
    let odd = &back.find_clip("Odd").unwrap().clip;
    let t = odd.tracks()[1].translation.as_ref().unwrap();
    assert_eq!(t.times()[0], 0.0);
    assert!(t.times().windows(2).all(|w| w[1] > w[0]), "{:?}", t.times());
    let r = odd.tracks()[2].rotation.as_ref().unwrap();
    assert_eq!(r.interpolation(), Interpolation::Step);
    assert!(r.value(0).abs_diff_eq(Quat::from_rotation_y(0.5), 1e-6));
}

#[test]
fn existing_animations_are_kept_when_asked() {
    let dir = out_dir();
    let rel = "gltf/Fox.glb";
    let asset = load(rel);
    let mut walk = asset.find_clip("Walk").unwrap().clip.clone();
    walk.name = "Walk again".into();
    let out = dir.path.join("Fox.kept.glb");
    let opts = GlbExportOptions {
        content: GlbContent::WithCharacter,
        keep_existing_animations: true,
    };
    export(rel, &asset, &[walk], opts, &out);
    let names: Vec<String> = reload(&out)
        .clips
        .into_iter()
        .map(|c| c.clip.name)
        .collect();
    assert_eq!(names, ["Survey", "Walk", "Run", "Walk again"]);
}

#[test]
fn a_missing_folder_fails_naming_the_path_and_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let rel = "gltf/CesiumMan.glb";
    let asset = load(rel);
    let clips: Vec<Clip> = asset.clips_of(0).cloned().collect();
    let out = tmp.path().join("no such folder").join("out.glb");
    for content in [GlbContent::WithCharacter, GlbContent::AnimationOnly] {
        let err = export_glb(&asset_path(rel), &asset, 0, &clips, &options(content), &out)
            .expect_err("the folder does not exist");
        assert!(matches!(err.problem, ExportProblem::Write(_)), "{err}");
        assert!(err.to_string().contains("no such folder"), "{err}");
        assert!(!out.exists() && !out.parent().unwrap().exists());
    }
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn a_missing_source_file_gives_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("Fox.glb");
    std::fs::copy(asset_path("gltf/Fox.glb"), &copy).unwrap();
    let asset = reload(&copy);
    std::fs::remove_file(&copy).unwrap();
    let out = tmp.path().join("out.glb");
    let clips: Vec<Clip> = asset.clips_of(0).cloned().collect();
    let opts = options(GlbContent::WithCharacter);
    let err = export_glb(&copy, &asset, 0, &clips, &opts, &out).unwrap_err();
    assert!(matches!(err.problem, ExportProblem::Source(_)), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("Fox.glb") && text.contains("re-read"),
        "{text}"
    );
    assert!(!out.exists());

    // Another character in its place is refused rather than animated at random nodes.
    std::fs::copy(asset_path("gltf/CesiumMan.glb"), &copy).unwrap();
    let err = export_glb(&copy, &asset, 0, &clips, &opts, &out).unwrap_err();
    assert!(err.to_string().contains("changed"), "{err}");
    assert!(!out.exists());
}

#[test]
fn bad_requests_are_errors_not_panics() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.glb");
    let fox = load("gltf/Fox.glb");
    let path = asset_path("gltf/Fox.glb");
    let opts = options(GlbContent::WithCharacter);
    // A clip made for another skeleton.
    let robot = load("gltf/RobotExpressive.glb");
    let alien = robot.find_clip("Wave").unwrap().clip.clone();
    let err = export_glb(&path, &fox, 0, &[alien], &opts, &out).unwrap_err();
    assert!(err.to_string().contains("'Wave'"), "{err}");
    // No such skeleton.
    assert!(export_glb(&path, &fox, 3, &[], &opts, &out).is_err());
    // A BVH figure has no character to write.
    let bvh = load("bvh/02_01.bvh");
    let err = export_glb(&asset_path("bvh/02_01.bvh"), &bvh, 0, &[], &opts, &out).unwrap_err();
    assert!(err.to_string().contains("AnimationOnly"), "{err}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

mod document;
