//! Per-leg solve options on real clips, each saved in the project and read back: a
//! leg's pole turns its knee where IK plants it while the other leg keeps the source's
//! bend; a leg's own contact thresholds change its contacts alone; contacts drawn by hand on
//! one clip replace the detected ones there and nowhere else.

use crate::common::walk_onto;
use glam::Vec3;
use retarget_studio::core::contacts::{ContactThresholds, FootContact};
use retarget_studio::core::retarget::{LegOptions, Pole};
use retarget_studio::core::{HumanBone, Pose};
use retarget_studio::session::{Edit, FootContacts, Session};
use std::path::Path;

fn target_of(s: &Session, bone: HumanBone) -> usize {
    let pair = s.map.pairs().iter().find(|p| p.bone == Some(bone));
    pair.expect("a humanoid leg").target
}

/// The session saved and opened again: what a user gets back.
fn reopened(s: &Session, dir: &Path, name: &str) -> Session {
    let path = dir.join(name);
    s.to_project().save(&path).unwrap();
    Session::from_project(&path).unwrap()
}

/// Per frame of the retargeted clip, each leg's knee offset from its hip–foot line (world).
fn knee_offsets(s: &Session) -> Vec<[Vec3; 2]> {
    let out = s.retarget_clip(None, None).unwrap();
    let t = s.target.skeleton();
    let legs = [
        [
            HumanBone::LeftUpperLeg,
            HumanBone::LeftLowerLeg,
            HumanBone::LeftFoot,
        ],
        [
            HumanBone::RightUpperLeg,
            HumanBone::RightLowerLeg,
            HumanBone::RightFoot,
        ],
    ]
    .map(|l| l.map(|b| target_of(s, b)));
    let fps = out.fps().unwrap_or(30.0);
    (0..out.frame_count())
        .map(|f| {
            let mut pose = Pose::rest(t);
            out.sample(out.start_secs() + f as f32 / fps, &mut pose);
            let w = pose.world_positions(t);
            legs.map(|[hip, knee, foot]| {
                let axis = (w[foot] - w[hip]).normalize();
                let d = w[knee] - w[hip];
                d - axis * d.dot(axis)
            })
        })
        .collect()
}

fn contacts_of<'a>(feet: &'a [FootContacts], foot: &str) -> &'a [FootContact] {
    let f = feet
        .iter()
        .find(|f| f.foot == foot)
        .expect("a planted foot");
    &f.contacts
}

#[test]
fn a_leg_s_pole_turns_its_knee_where_it_is_planted_and_the_other_keeps_its_bend() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = walk_onto("gltf/RobotExpressive.glb");
    let before = knee_offsets(&s);
    let left_foot = s.target.skeleton().names()[target_of(&s, HumanBone::LeftFoot)].clone();
    let contacts = s.foot_contacts(None).unwrap();
    let planted: Vec<usize> = contacts_of(&contacts, &left_foot)
        .iter()
        .flat_map(|c| c.start..=c.end)
        .collect();
    assert!(planted.len() > 20, "the walk plants its left foot");
    // The pole: backwards, in the pelvis's frame, from the knee's bend on a planted frame.
    let f = planted[planted.len() / 2];
    let pelvis = target_of(&s, HumanBone::Hips);
    let out = s.retarget_clip(None, None).unwrap();
    let mut pose = Pose::rest(s.target.skeleton());
    out.sample(out.start_secs() + f as f32 / out.fps().unwrap(), &mut pose);
    let pelvis_world = pose.world_matrices(s.target.skeleton())[pelvis];
    let back = pelvis_world
        .inverse()
        .transform_vector3(-before[f][0])
        .normalize();
    let options = LegOptions {
        pole: Pole::Direction(back),
        ..LegOptions::new(&left_foot)
    };
    s.apply_edit(&Edit::SetLegOptions(options.clone())).unwrap();
    let s = reopened(&s, dir.path(), "pole.ron");
    assert_eq!(s.solve.leg(&left_foot), options);
    let after = knee_offsets(&s);
    let turned = planted
        .iter()
        .filter(|&&f| after[f][0].dot(before[f][0]) < 0.0)
        .count();
    println!(
        "left knee turned on {turned} of {} planted frames",
        planted.len()
    );
    assert!(
        turned * 10 >= planted.len() * 9,
        "the left knee bends toward its pole on {turned} of {} planted frames",
        planted.len()
    );
    let kept = before
        .iter()
        .zip(&after)
        .filter(|(b, a)| b[1].length() > 1e-3 && a[1].dot(b[1]) < 0.0)
        .count();
    assert_eq!(kept, 0, "the right knee never turns ({kept} frames did)");
}

#[test]
fn a_leg_s_own_thresholds_change_its_contacts_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = walk_onto("gltf/RobotExpressive.glb");
    let names = s.target.skeleton().names().to_vec();
    let (left, right) = (
        names[target_of(&s, HumanBone::LeftFoot)].clone(),
        names[target_of(&s, HumanBone::RightFoot)].clone(),
    );
    let before = s.foot_contacts(None).unwrap();
    // Contacts of at least a second: the walk's steps are shorter.
    let strict = ContactThresholds {
        min_frames: 10_000,
        ..ContactThresholds::default()
    };
    let options = LegOptions {
        contacts: Some(strict),
        ..LegOptions::new(&left)
    };
    s.apply_edit(&Edit::SetLegOptions(options)).unwrap();
    let s = reopened(&s, dir.path(), "thresholds.ron");
    let after = s.foot_contacts(None).unwrap();
    assert!(!contacts_of(&before, &left).is_empty());
    assert!(contacts_of(&after, &left).is_empty(), "{after:?}");
    assert_eq!(contacts_of(&after, &right), contacts_of(&before, &right));
}

#[test]
fn contacts_drawn_on_a_clip_replace_the_detected_ones_there_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = walk_onto("gltf/CesiumMan.glb");
    let names = s.target.skeleton().names().to_vec();
    let (left, right) = (
        names[target_of(&s, HumanBone::LeftFoot)].clone(),
        names[target_of(&s, HumanBone::RightFoot)].clone(),
    );
    let clip = s.source_clip(None).unwrap();
    let (walk, t0, d) = (clip.name.clone(), clip.start_secs(), clip.duration_secs());
    let detected = s.foot_contacts(None).unwrap();
    assert!(contacts_of(&detected, &left).len() >= 3);
    // Drawn for another clip of the same name's source: nothing changes on this one.
    s.apply_edit(&Edit::SetContacts {
        clip: "another clip".into(),
        foot: left.clone(),
        spans: Some(vec![]),
    })
    .unwrap();
    assert_eq!(s.foot_contacts(None).unwrap(), detected);
    // One contact over the middle fifth of the walk, in place of the detected ones.
    let span = (t0 + 0.4 * d, t0 + 0.6 * d);
    s.apply_edit(&Edit::SetContacts {
        clip: walk.clone(),
        foot: left.clone(),
        spans: Some(vec![span]),
    })
    .unwrap();
    let mut s = reopened(&s, dir.path(), "drawn.ron");
    assert_eq!(s.solve.drawn_contacts(&walk, &left), Some(&[span][..]));
    let drawn = s.foot_contacts(None).unwrap();
    let c = contacts_of(&drawn, &left);
    assert_eq!(c.len(), 1, "{c:?}");
    let frames = s.retarget_clip(None, None).unwrap().frame_count();
    let at = |k: usize| k as f32 / (frames - 1) as f32;
    assert!(
        (at(c[0].start) - 0.4).abs() < 0.01 && (at(c[0].end) - 0.6).abs() < 0.01,
        "{c:?} of {frames} frames"
    );
    assert_eq!(contacts_of(&drawn, &right), contacts_of(&detected, &right));
    // Back to detected.
    s.apply_edit(&Edit::SetContacts {
        clip: walk,
        foot: left,
        spans: None,
    })
    .unwrap();
    assert_eq!(s.foot_contacts(None).unwrap(), detected);
}
