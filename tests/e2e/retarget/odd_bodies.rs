//! Humanoid-mapped characters of odd build: a mech whose legs have three segments and whose
//! feet are IK controls under no bone (Quaternius' George), and a tailed, digitigrade kaiju
//! whose arms are named front legs (Mesh2Motion). Both were mapped by chains alone, every
//! pair off by 20° to 50°; labelled, they map and move like the source.

use crate::common::{asset_path, corpus_path, walk_onto_corpus};
use retarget_studio::core::HumanBone;
use retarget_studio::core::quality::Thresholds;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;

const MECH: &str = "creatures/gltf/quaternius_mech_george_robot_3seg_legs_2seg_fingers.glb";
const KAIJU: &str = "sets/gltf/mesh2motion_kaiju_tail_digitigrade_10clips.glb";

/// The target joint `name`'s label and source.
fn pair_of(s: &Session, name: &str) -> (Option<HumanBone>, Option<String>) {
    let t = s.target.skeleton().find(name).expect(name);
    let label = s.target.labels[t].map(|l| l.bone);
    let source = s
        .map
        .for_target(t)
        .map(|p| s.source.skeleton().names()[p.source].clone());
    (label, source)
}

/// Before: no hips (`Body`), so no humanoid; the leg's third segment took the shin's turn
/// again by chain, and the foot was the IK control `Foot.L` under the root.
#[test]
fn a_mech_with_three_segment_legs_maps_its_knee_and_foot_and_moves_like_the_source() {
    let Some(s) = walk_onto_corpus(MECH) else {
        return;
    };
    assert!(s.target.is_humanoid());
    use HumanBone::*;
    assert_eq!(pair_of(&s, "Body").0, Some(Hips));
    assert_eq!(pair_of(&s, "MidLeg.L").0, Some(LeftLowerLeg));
    assert_eq!(pair_of(&s, "FootBack.L").0, Some(LeftFoot));
    assert_eq!(pair_of(&s, "LowerLeg.L"), (None, None), "inside the shin");
    assert_eq!(
        pair_of(&s, "Ring1.L").0,
        Some(LeftRingProximal),
        "PalmR.L is left"
    );
    let clip = s.retarget_clip(None, Some(30.0)).unwrap();
    // The IK control follows the leg's foot.
    let sk = s.target.skeleton();
    let frames = crate::common::world_frames(sk, &clip, 12);
    let (ik, foot) = (sk.find("Foot.L").unwrap(), sk.find("FootBack.L").unwrap());
    let bind = retarget_studio::core::Pose::bind(sk).world_positions(sk);
    let (low, high) = bind.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    let height = high - low;
    // Exactly on it at the keys; between keys the two interpolate apart by millimetres
    // (left at rest it stood metres away).
    for f in &frames {
        let gap = f[ik].distance(f[foot]) / height;
        assert!(gap < 1e-2, "{gap} of the height");
    }
    let report = s.quality(None, &Thresholds::default()).unwrap();
    let direction = report.direction.as_ref().unwrap().mean_deg;
    assert!(direction < 5.0, "direction {direction}°");
}

/// Before: the front legs were no arms (two legs per side claimed the thighs), and the
/// sided pelvis bone above each thigh took the thigh's turn by chain.
#[test]
fn a_kaijus_front_legs_are_its_arms_and_its_leg_girdles_stay_with_the_hips() {
    let Some(s) = walk_onto_corpus(KAIJU) else {
        return;
    };
    assert!(s.target.is_humanoid());
    use HumanBone::*;
    assert_eq!(pair_of(&s, "Front_Leg_Upper_L").0, Some(LeftUpperArm));
    assert_eq!(pair_of(&s, "Front_Leg_Lower_R").0, Some(RightLowerArm));
    assert_eq!(pair_of(&s, "Back_Leg_Upper_L").0, Some(LeftUpperLeg));
    assert_eq!(pair_of(&s, "Back_Leg_Ankle_R").0, Some(RightFoot));
    // CMU's own girdle bone (`LHipJoint`) may drive it; the thigh must not.
    let (label, source) = pair_of(&s, "Back_Leg_Pelvis_L");
    assert_eq!(label, None);
    assert_ne!(source.as_deref(), Some("LeftUpLeg"));
    // 3.7° from this walk (5.7° while the kaiju was sized by its T-pose: see
    // `a_kaiju_is_as_tall_as_it_stands_not_as_its_t_pose`); by chains alone every corpus
    // source was 22° to 44° off.
    let report = s.quality(None, &Thresholds::default()).unwrap();
    let direction = report.direction.as_ref().unwrap().mean_deg;
    assert!(direction < 5.0, "direction {direction}°");
}

/// Laid into the canonical T-pose, the kaiju stands its body up from its 35° lean, unbends
/// its digitigrade legs and swings its tail 2 m under the floor: 4.33 m from tail tip to
/// head, where its bind and every frame of its clips stand 2.0 m. Its sizes are its
/// stance's: measured at 4.33 m, its short arms took the hand-on-chest band of a figure
/// twice its size and were held to its chest through its whole walk (26.7° off on
/// CesiumMan, its feet lifted at half their height).
#[test]
fn a_kaiju_is_as_tall_as_it_stands_not_as_its_t_pose() {
    let Some(kaiju) = corpus_path(KAIJU) else {
        return;
    };
    let cesium = asset_path("gltf/CesiumMan.glb");
    let s = Session::automatic(&kaiju, &cesium, &ImportOptions::default()).unwrap();
    let reference = &s.source.reference;
    let world = reference.world_matrices(s.source.skeleton());
    let ys = world.iter().map(|m| m.w_axis.y);
    let laid = ys.clone().fold(f32::MIN, f32::max) - ys.fold(f32::MAX, f32::min);
    assert!(laid > 4.0, "the T-pose stands it {laid} tall");
    let height = reference.height(&world);
    assert!((height - 2.0).abs() < 0.01, "height {height}");
    let report = s.quality(Some("Walk"), &Thresholds::default()).unwrap();
    let direction = report.direction.as_ref().unwrap().mean_deg;
    assert!(direction < 5.0, "direction {direction}°");
    // As a target, the same.
    let s = walk_onto_corpus(KAIJU).unwrap();
    let height = s.retargeter().unwrap().target_height();
    assert!((height - 2.0).abs() < 0.01, "target height {height}");
}
