//! Mocap whose zero pose is no figure standing upright: its stance is read from the motion.
//! Bandai Namco lays one leg along +X and the other along -X (their mean under the hips);
//! a Y-up zero pose under a Z-up motion lies on its back once the motion is stood up.

use crate::common::{asset_path, corpus_path};
use retarget_studio::core::PoseSource;
use retarget_studio::core::quality::Thresholds;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;

/// The source's reference pose is the motion's first frame, and the retarget onto a
/// standing character passes every measure.
fn stands_from_its_motion(rel: &str) {
    let Some(source) = corpus_path(rel) else {
        return;
    };
    let target = asset_path("vrm/cryptovoxels.vrm");
    let session = Session::automatic(&source, &target, &ImportOptions::default()).unwrap();
    assert!(
        matches!(
            session.source.file.reference,
            PoseSource::Frame { frame: 0, .. }
        ),
        "{:?}",
        session.source.file.reference
    );
    let report = session.quality(None, &Thresholds::default()).unwrap();
    assert!(report.passed, "{:?}", report.flags);
}

/// Before: read standing along +X, its legs 15 times too short, every target 6 leg
/// lengths in the air.
#[test]
fn legs_laid_out_to_either_side_stand_from_the_motion() {
    stands_from_its_motion("sets/bvh/bandai1_walk_proud_001.bvh");
}

/// Before: the zero pose kept lying on its back, the limbs 56° off the source.
#[test]
fn a_zero_pose_along_another_up_stands_from_the_motion() {
    stands_from_its_motion("clips/bvh/pybvh_fingers_metacarpals_mixed_orders_120fps.bvh");
}
