//! Stride or path, per clip: CMU's walk onto legs of other lengths (the KayKit chibi's,
//! under half the source's; CesiumMan's made 1.3× longer; the robot's). By default the path
//! scales by leg length; kept, the target covers the source's metres with its strides
//! warped, and the plants give way before the hips sink past the pelvis limit: on the
//! floor, planted feet sliding no more than the source's own.

use crate::common::file_variants::longer_legs;
use crate::common::{asset_path, positions_at, session};
use retarget_studio::core::quality::{Measure, Thresholds};
use retarget_studio::core::retarget::Stride;
use retarget_studio::session::Session;
use std::path::{Path, PathBuf};

fn targets(dir: &Path) -> Vec<PathBuf> {
    let long = dir.join("CesiumMan_long_legs.glb");
    let bytes = std::fs::read(asset_path("gltf/CesiumMan.glb")).unwrap();
    std::fs::write(&long, longer_legs(&bytes, 1.3)).unwrap();
    vec![
        asset_path("gltf/ik_controls/kaykit_rogue_ik_controls_chibi.glb"),
        long,
        asset_path("gltf/RobotExpressive.glb"),
    ]
}

/// How far the pelvis travels on the ground plane from the first frame to the last, in
/// metres: the source's, and the retarget's.
fn travels(s: &Session) -> (f32, f32) {
    let name = s.source_clip(None).unwrap().name.clone();
    let out = s.retarget_clip(Some(&name), None).unwrap();
    let hips = s
        .map
        .pairs()
        .iter()
        .find(|p| p.bone == Some(retarget_studio::core::HumanBone::Hips))
        .expect("the hips are mapped")
        .clone();
    let travel = |skeleton: &retarget_studio::core::Skeleton,
                  clip: &retarget_studio::core::Clip,
                  joint: usize| {
        let at = positions_at(skeleton, clip, &[0.0, clip.duration_secs()]);
        let (a, b) = (at[0][joint], at[1][joint]);
        glam::Vec2::new(b.x - a.x, b.z - a.z).length()
    };
    let source = travel(
        s.source.skeleton(),
        s.source_clip(None).unwrap(),
        hips.source,
    );
    (source, travel(s.target.skeleton(), &out, hips.target))
}

#[test]
fn a_walk_keeps_its_steps_by_default_and_the_source_s_path_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    for target in targets(dir.path()) {
        let what = format!("02_01 onto {}", target.display());
        let mut s = session(&asset_path("bvh/02_01.bvh"), &target);
        let clip = s.source_clip(None).unwrap().name.clone();
        let (source, scaled) = travels(&s);
        assert!(source > 3.0, "{what}: the walk travels {source} m");
        s.solve.set_stride(&clip, Stride::SourcePath);
        let (_, kept) = travels(&s);
        assert!(
            (kept - source).abs() < 0.01 * source,
            "{what}: the path kept travels {kept:.3} m, the source {source:.3}"
        );
        // The chibi's and the long legs' steps differ from the source's: so does the path.
        if !target.ends_with("RobotExpressive.glb") {
            assert!(
                (scaled - source).abs() > 0.15 * source,
                "{what}: by leg length {scaled:.3} m, the source {source:.3}"
            );
        }
        let r = s.quality(None, &Thresholds::default()).unwrap();
        // On the floor, planted, the hips at the source's height: the stride's own measures.
        // (Direction is not one: kept, a chibi's strides spread its legs 2.2× the source's.)
        for measure in [Measure::Pelvis, Measure::Ground, Measure::Skate] {
            let v = r.verdicts.iter().find(|v| v.measure == measure).unwrap();
            assert!(v.passed, "{what}, path kept: {v:?}");
        }
        let skate = r.skate.as_ref().expect("the walk has contacts");
        assert!(
            skate.target.mean_mm <= skate.source.mean_mm,
            "{what}: skate {:.1} mm against the source's {:.1}",
            skate.target.mean_mm,
            skate.source.mean_mm
        );
    }
}

/// Without the plants giving way, the chibi's hips sink 0.07 leg lengths under the
/// source's to keep the strides the source's path asks of its short legs.
#[test]
fn a_kept_path_never_sinks_the_hips_past_the_pelvis_limit() {
    let target = asset_path("gltf/ik_controls/kaykit_rogue_ik_controls_chibi.glb");
    let mut s = session(&asset_path("bvh/02_01.bvh"), &target);
    let clip = s.source_clip(None).unwrap().name.clone();
    s.solve.set_stride(&clip, Stride::SourcePath);
    let r = s.quality(None, &Thresholds::default()).unwrap();
    assert!(
        r.pelvis.difference.abs() <= 0.03,
        "pelvis {:+.3} leg lengths from the source's",
        r.pelvis.difference
    );
}

#[test]
fn the_stride_is_kept_per_clip_in_the_project() {
    let mut s = session(
        &asset_path("gltf/RobotExpressive.glb"),
        &asset_path("gltf/CesiumMan.glb"),
    );
    s.solve.set_stride("Walking", Stride::SourcePath);
    let back = Session::from_project_file(s.to_project()).unwrap();
    assert_eq!(back.solve.stride("Walking"), Stride::SourcePath);
    assert_eq!(back.solve.stride("Running"), Stride::ScaledByLegs);
}
