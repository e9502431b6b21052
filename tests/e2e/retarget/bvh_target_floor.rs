//! A BVH target stands where its own motion stands: in the output, as our BVH writer writes
//! it and our reader reads it back, its ankles come down to the floor of its own clip,
//! whatever its root OFFSET (0 as CMU, hip height), up axis, zero pose (LAFAN1-like) or unit;
//! and `check` measures the output against that floor. Before, the floor came from the zero
//! pose, which put CMU's 01_01 about 90 cm underground, and `check` did not see it.

use crate::common::asset_path;
use crate::common::file_variants::{
    bvh_scaled, degenerate_zero_pose, root_offset_at_hips, z_up_bvh,
};
use retarget_studio::core::floor::frame_times;
use retarget_studio::core::quality::{Measure, Report, Thresholds};
use retarget_studio::core::{Clip, Pose, RetargetClipOptions, Track};
use retarget_studio::io::{Asset, ImportOptions};
use retarget_studio::session::{ExportFormat, ExportJob, Session};
use std::path::{Path, PathBuf};

const TARGET: &str = "bvh/01_01.bvh";
/// 01_01's lowest ankle over its walk, in metres, as Blender reads it (`pose-dump --scale
/// 0.056444`): 6.50 cm above y = 0. Its zero pose's ankles hang about 90 cm below that.
const BLENDER_ANKLE_FLOOR: f32 = 0.06503;
const ANKLES: [&str; 2] = ["LeftFoot", "RightFoot"];
const TOES: [&str; 2] = ["LeftToeBase", "RightToeBase"];
/// How far the output's lowest ankle may be from the target's own: the legs differ from
/// the source's, so the planted ankle does not come down to the millimetre (the ground
/// measure's limit).
const FLOOR_TOLERANCE: f32 = 0.025;

/// 01_01 as written by other tools: (label, file text).
fn target_variants() -> Vec<(&'static str, String)> {
    let cmu = std::fs::read_to_string(asset_path(TARGET)).unwrap();
    vec![
        ("cmu, root OFFSET 0", cmu.clone()),
        ("root OFFSET at hip height", root_offset_at_hips(&cmu)),
        ("Z up", z_up_bvh(&cmu)),
        ("zero pose along +X", degenerate_zero_pose(&cmu, 5)),
        ("metres", bvh_scaled(&cmu, 0.0254 / 0.45)),
        ("centimetres", bvh_scaled(&cmu, 2.54 / 0.45)),
    ]
}

/// The lowest height `joints` reach over every frame of the asset's first clip, metres.
fn lowest(asset: &Asset, joints: &[&str]) -> f32 {
    let s = &asset.skeletons[0];
    let clip = asset.clips_of(0).next().expect("a clip");
    let ids: Vec<usize> = joints.iter().map(|n| s.find(n).expect(n)).collect();
    let rest = Pose::rest(s);
    let mut low = f32::INFINITY;
    for t in frame_times(clip) {
        let mut pose = rest.clone();
        clip.sample(t, &mut pose);
        let world = pose.world_positions(s);
        low = ids.iter().map(|&j| world[j].y).fold(low, f32::min);
    }
    low
}

/// Retargets `clip` of `source` onto `target`, writes it as BVH and reads it back.
fn retarget_to_bvh(source: &Path, clip: Option<&str>, target: &Path, out: &Path) -> Session {
    let session = Session::automatic(source, target, &ImportOptions::default()).unwrap();
    let job = ExportJob {
        format: ExportFormat::Bvh,
        clips: vec![clip.map(str::to_owned)],
        fps: None,
        out: out.to_path_buf(),
        reduce: None,
        root_motion: None,
        extract_root: false,
        add_root: false,
    };
    session.export(&job).unwrap();
    session
}

/// Our writer's BVH (in the target's own unit and axes) as our reader reads it.
fn read_back(path: &Path, target: &Asset) -> Asset {
    let options = ImportOptions {
        unit: Some(target.unit),
        up: Some(target.up),
    };
    retarget_studio::io::load(path, &options).unwrap()
}

fn passed(report: &Report, measure: Measure) -> bool {
    report
        .verdicts
        .iter()
        .all(|v| v.measure != measure || v.passed)
}

#[test]
fn every_bvh_target_variant_stands_on_its_own_floor_and_check_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let sources: [(PathBuf, Option<&str>); 2] = [
        (asset_path("bvh/02_01.bvh"), None),
        (asset_path("gltf/RobotExpressive.glb"), Some("Walking")),
    ];
    let mut wrong = Vec::new();
    for (k, (label, text)) in target_variants().into_iter().enumerate() {
        let target = dir.path().join(format!("target{k}.bvh"));
        std::fs::write(&target, text).unwrap();
        let own = retarget_studio::io::load(&target, &ImportOptions::default()).unwrap();
        let own_floor = lowest(&own, &ANKLES);
        // The variant is the same walk: Blender's floor, in metres and Y up.
        assert!(
            (own_floor - BLENDER_ANKLE_FLOOR).abs() < 2e-3,
            "{label}: our reader puts 01_01's ankles at {own_floor} m"
        );
        for (s, (source, clip)) in sources.iter().enumerate() {
            let out = dir.path().join(format!("out{k}_{s}.bvh"));
            let session = retarget_to_bvh(source, *clip, &target, &out);
            let back = read_back(&out, &own);
            let (ankle, toe) = (lowest(&back, &ANKLES), lowest(&back, &TOES));
            let case = format!("{} onto 01_01 [{label}]", source.display());
            if (ankle - own_floor).abs() > FLOOR_TOLERANCE || toe < -0.01 {
                wrong.push(format!(
                    "{case}: lowest ankle {ankle:.3} m, toe {toe:.3} m; its own ankles {own_floor:.3} m"
                ));
            }
            match session.quality(*clip, &Thresholds::default()) {
                Ok(report) => {
                    for m in [Measure::Ground, Measure::Pelvis] {
                        if !passed(&report, m) {
                            wrong.push(format!("{case}: check fails {}", m.label()));
                        }
                    }
                }
                Err(e) => wrong.push(format!("{case}: check cannot measure: {e}")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn check_passes_01_01_onto_itself() {
    let out = crate::common::studio()
        .args(["check", "--source"])
        .arg(asset_path(TARGET))
        .arg("--target")
        .arg(asset_path(TARGET))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for measure in ["same rig", "pelvis", "ground"] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(measure) && l.contains("PASS")),
            "{measure} passes:\n{text}"
        );
    }
}

/// The output lowered by `drop` metres (its root's keys moved down in the file's units).
fn lowered(session: &Session, clip: &Clip, drop: f32) -> Clip {
    let t = session.target.skeleton();
    let root = (0..t.len()).find(|&j| t.parents()[j].is_none()).unwrap();
    let down = t
        .container()
        .inverse()
        .transform_vector3(glam::Vec3::new(0.0, -drop, 0.0));
    let mut tracks = clip.tracks().to_vec();
    let moved = tracks[root].translation.as_ref().unwrap();
    let values = moved.values().iter().map(|v| *v + down).collect();
    let track = Track::new(moved.times().to_vec(), values, moved.interpolation()).unwrap();
    tracks[root].translation = Some(track);
    Clip::new(clip.name.clone(), tracks, clip.fps())
}

/// `check` alone, whatever floor the retarget took: 02_01 retargeted with the target's floor
/// set by hand to Blender's, so its ankles come down to 01_01's own floor, passes ground and
/// pelvis; the same walk sunk to where the zero pose would stand it (CMU's ankles a leg
/// length under the root OFFSET), as the retarget used to write it, fails both.
#[test]
fn check_measures_a_bvh_target_against_its_own_walks_floor() {
    let session = Session::automatic(
        &asset_path("bvh/02_01.bvh"),
        &asset_path(TARGET),
        &ImportOptions::default(),
    )
    .unwrap();
    let clip = session.source_clip(None).unwrap();
    let mut r = session.retargeter().unwrap();
    r.set_target_floor(BLENDER_ANKLE_FLOOR);
    let (s, t) = (session.source.skeleton(), session.target.skeleton());
    let options = RetargetClipOptions { fps: None };
    let output = r.retarget_clip(s, clip, t, &options).unwrap().clip;
    let limits = Thresholds::default();
    let on_floor = session.quality_of(&clip.name, &output, &limits).unwrap();
    assert!(passed(&on_floor, Measure::Ground), "{:?}", on_floor.ground);
    assert!(passed(&on_floor, Measure::Pelvis), "{:?}", on_floor.pelvis);
    let zero = Pose::rest(t).world_positions(t);
    let zero_floor = ANKLES
        .iter()
        .map(|n| zero[t.find(n).unwrap()].y)
        .fold(f32::INFINITY, f32::min);
    let sunk = lowered(&session, &output, BLENDER_ANKLE_FLOOR - zero_floor);
    let report = session.quality_of(&clip.name, &sunk, &limits).unwrap();
    assert!(!passed(&report, Measure::Ground), "{:?}", report.ground);
    assert!(!passed(&report, Measure::Pelvis), "{:?}", report.pelvis);
}
