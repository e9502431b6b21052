//! A body split at the hips: Character Creator 4 hangs the legs from `CC_Base_Pelvis` (the
//! humanoid hips) and the spine from the `CC_Base_Hip` above it. The walk's root motion
//! moved the pelvis alone, and the legs walked away from the torso.

use crate::common::{walk_onto_corpus, world_frames};
use glam::Vec3;
use retarget_studio::core::quality::Thresholds;
use retarget_studio::core::{BonePair, HumanBone, Pose};

const CC4: &str = "sets/gltf/cc4_rl_boneroot_idle_talking_skin_only.glb";

fn height(frame: &[Vec3]) -> f32 {
    let (lo, hi) = frame.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    hi - lo
}

/// Every bone below the top keeps its rest length (as the judge's integrity measures it),
/// the hip–pelvis bone among them, and the toes stay on the feet.
#[test]
fn a_walk_moves_a_body_split_at_the_hips_as_one() {
    let Some(session) = walk_onto_corpus(CC4) else {
        return;
    };
    let s = session.target.skeleton();
    let clip = session.retarget_clip(None, None).unwrap();
    let rest = Pose::bind(s).world_positions(s);
    let h = height(&rest);
    let parents = s.parents();
    let (mut worst, mut at) = (0.0f32, String::new());
    for f in world_frames(s, &clip, 343) {
        for (j, p) in parents.iter().enumerate() {
            let Some(p) = *p else { continue };
            if parents[p].is_none() {
                continue;
            }
            let change = (f[j].distance(f[p]) - rest[j].distance(rest[p])).abs() / h;
            if change > worst {
                (worst, at) = (change, s.names()[j].clone());
            }
        }
    }
    // Before: the pelvis 1.2 heights from the hip, the toes labelled fingers 1.7.
    assert!(worst < 1e-3, "{at} moved {worst:.2e} of the height");
    let limits = Thresholds::default();
    let report = session.quality(None, &limits).unwrap();
    assert!(report.passed, "{:?}", report.flags);
    let direction = report.direction.expect("limbs paired").mean_deg;
    assert!(direction < 5.0, "limb directions {direction:.1}° off");
}

/// A map that keeps the root motion on the pelvis (its hips pair unlabelled, so nothing
/// routes it to the hip): `check` must see the pelvis leave the hip, as Blender's reading
/// does, and not let it stretch as a joint hung from the top.
#[test]
fn check_fails_a_pelvis_that_leaves_the_hip() {
    let Some(mut session) = walk_onto_corpus(CC4) else {
        return;
    };
    let hips = session
        .map
        .pairs()
        .iter()
        .find(|p| p.bone == Some(HumanBone::Hips))
        .cloned()
        .expect("a hips pair");
    let pelvis = session.target.skeleton().find("CC_Base_Pelvis");
    assert_eq!(Some(hips.target), pelvis);
    session.map.insert(BonePair { bone: None, ..hips });
    let report = session.quality(None, &Thresholds::default()).unwrap();
    assert_eq!(report.body.bone.as_deref(), Some("CC_Base_Pelvis"));
    assert!(report.body.max > 0.5, "{:?}", report.body);
    assert!(!report.passed);
}
