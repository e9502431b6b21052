//! A skin bound before some joints were moved (Maya's Kenney character: each index finger's
//! first joint bound 0.139 from the hand, rigged and keyed at 0.096): the retarget keeps the
//! bones the rig has, as every reader of the file shows them, and `check` holds the output
//! to them whatever the reference pose says.

use crate::common::{asset_path, corpus_path, session};
use retarget_studio::core::quality::{Measure, Thresholds};
use retarget_studio::core::{Clip, Interpolation, Pose, Track};

const KENNEY: &str = "sets/fbx/ufbx_maya_kenney_character_7700_binary.fbx";

/// The length of `joint`'s bone to its parent at the clip's first frame, over the height.
fn first_frame_length(s: &retarget_studio::core::Skeleton, clip: &Clip, joint: usize) -> f32 {
    let mut pose = Pose::rest(s);
    clip.sample(clip.start_secs(), &mut pose);
    let world = pose.world_positions(s);
    let parent = s.parents()[joint].unwrap();
    world[joint].distance(world[parent])
}

#[test]
fn a_finger_moved_after_binding_keeps_the_rigs_length() {
    let Some(target) = corpus_path(KENNEY) else {
        return;
    };
    let session = session(&asset_path("bvh/02_01.bvh"), &target);
    let s = session.target.skeleton();
    let finger = s.find("LeftHandIndex1").unwrap();
    let rest = Pose::rest(s).world_positions(s);
    let bind = Pose::bind(s).world_positions(s);
    let hand = s.parents()[finger].unwrap();
    let (rig, bound) = (
        rest[finger].distance(rest[hand]),
        bind[finger].distance(bind[hand]),
    );
    // The file as it is: the bind says another length than the rig.
    assert!((bound - rig).abs() > 0.3 * rig, "rig {rig}, bound {bound}");
    let out = session.retarget_clip(None, None).unwrap();
    let got = first_frame_length(s, &out, finger);
    assert!((got - rig).abs() < 1e-4 * rig.max(1.0), "{got} for {rig}");
    let name = session.source_clip(None).unwrap().name.clone();
    let report = session
        .quality_of(&name, &out, &Thresholds::default())
        .unwrap();
    assert!(report.body.max < 1e-3, "body {}", report.body.max);

    // The same output with the finger at its bind length: check fails it on the body, as
    // Blender's reading of the target does, though the bind pose has that length.
    let mut tracks = out.tracks().to_vec();
    let bound_offset = Pose::bind(s).translations[finger];
    let held = Track::new(
        vec![out.start_secs()],
        vec![bound_offset],
        Interpolation::Linear,
    );
    tracks[finger].translation = Some(held.unwrap());
    let stale = Clip::new(out.name.clone(), tracks, out.fps());
    let report = session
        .quality_of(&name, &stale, &Thresholds::default())
        .unwrap();
    let body = report.verdicts.iter().find(|v| v.measure == Measure::Body);
    assert!(!body.unwrap().passed, "body {}", report.body.max);
    assert_eq!(report.body.bone.as_deref(), Some("LeftHandIndex1"));
}
