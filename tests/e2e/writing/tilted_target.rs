//! A VRM whose armature was rotated when it was written: its whole rest lies tilted 57° in
//! the file's world (+Y up, as every glTF). The session stands it up to solve; its output was
//! written tilted back, so the walk went on 57° off the vertical under Blender's reading.

use crate::common::{key_times, walk_onto_corpus};
use glam::Vec3;
use retarget_studio::core::Pose;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::{ExportFormat, ExportJob};

const TILTED: &str = "sets/vrm/armature_transform.vrm";

/// Hips to head stands along +Y at every key of the output, and the feet come down to the
/// height the file's rest gives its lowest foot.
#[test]
fn a_character_tilted_in_its_file_walks_upright_on_its_rest_floor() {
    let Some(session) = walk_onto_corpus(TILTED) else {
        return;
    };
    let target = session.target.path.clone();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("walk.glb");
    let format = ExportFormat::from_path(&out, false).unwrap();
    session.export(&ExportJob::to(format, &out)).unwrap();

    let rest_asset = retarget_studio::io::load(&target, &ImportOptions::default()).unwrap();
    let s = &rest_asset.skeletons[0];
    let rest = Pose::rest(s).world_positions(s);
    let joint = |name: &str| s.find(name).unwrap_or_else(|| panic!("{name}"));
    let (hips, head) = (joint("hips"), joint("head"));
    let feet = [joint("foot.L"), joint("foot.R")];
    let tilt = (rest[head] - rest[hips])
        .angle_between(Vec3::Y)
        .to_degrees();
    assert!(tilt > 45.0, "the file's rest lies tilted ({tilt:.0}°)");
    let floor = feet.iter().map(|&f| rest[f].y).fold(f32::MAX, f32::min);

    let asset = retarget_studio::io::load(&out, &ImportOptions::default()).unwrap();
    let s = &asset.skeletons[asset.clips[0].skeleton];
    let joint = |name: &str| s.find(name).unwrap_or_else(|| panic!("{name}"));
    let (hips, head) = (joint("hips"), joint("head"));
    let feet = [joint("foot.L"), joint("foot.R")];
    let clip = &asset.clips[0].clip;
    let mut lowest = f32::MAX;
    for t in key_times(clip) {
        let mut pose = Pose::rest(s);
        clip.sample(t, &mut pose);
        let at = pose.world_positions(s);
        let off = (at[head] - at[hips]).angle_between(Vec3::Y).to_degrees();
        // Before: 50–60° at every frame.
        assert!(
            off < 25.0,
            "hips to head {off:.0}° off the vertical at {t:.2} s"
        );
        lowest = feet.iter().map(|&f| at[f].y).fold(lowest, f32::min);
    }
    let height = rest.iter().map(|p| p.distance(rest[0])).fold(0.0, f32::max);
    assert!(
        (lowest - floor).abs() < 0.03 * height,
        "the feet come down to {lowest:.3}, the rest's floor is {floor:.3}"
    );
}

/// `check` measures the output as it is written, stood up, on the rest's floor: it measured
/// the solved clip in the file's tilted world, where the hips' height is no height (this
/// walk: pelvis -1.82 leg lengths and no planted foot found; Neuron's +0.18, where judge,
/// reading the written file, found -0.04).
#[test]
fn check_measures_a_character_tilted_in_its_file_as_it_is_written() {
    let Some(session) = walk_onto_corpus(TILTED) else {
        return;
    };
    let limits = retarget_studio::core::quality::Thresholds::default();
    let report = session.quality(None, &limits).unwrap();
    let pelvis = report.pelvis.difference;
    assert!(pelvis.abs() < 0.05, "pelvis {pelvis:+.3} leg lengths");
    let ground = report.ground.as_ref().expect("a walk has planted frames");
    let float = ground.target.mean_mm - ground.source.mean_mm;
    assert!(float.abs() < 25.0, "ground {float:+.1} mm");
    assert!(report.passed, "{:?}", report.verdicts);
}
