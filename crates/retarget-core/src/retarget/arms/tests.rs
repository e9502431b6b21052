//! A clap and a hand on the hip retargeted onto arms of other lengths: the contacts are kept.

use crate::contacts::{BodyPoint, Hand, Touch};
use crate::retarget::SolveSettings;
use crate::{
    BoneMap, BonePair, Clip, HumanBone, Interpolation, JointDef, JointTracks, Pose,
    RetargetClipOptions, Retargeter, Skeleton, Track, TranslationMode,
};
use glam::{Quat, Vec3};

const L_UPPER: usize = 4;
const L_LOWER: usize = 5;
const L_HAND: usize = 6;
const R_UPPER: usize = 7;
const R_HAND: usize = 9;
const FRAMES: usize = 31;

/// A stick figure 1.65 m tall in a T-pose, its arms (upper arm and forearm) `arm` times
/// the plain length.
fn figure(arm: f32) -> Skeleton {
    let j = |name: &str, parent: Option<usize>, x: f32, y: f32| {
        JointDef::new(
            name,
            parent,
            crate::Transform::from_translation(Vec3::new(x, y, 0.0)),
        )
    };
    Skeleton::new(
        "figure",
        glam::Mat4::IDENTITY,
        vec![
            j("hips", None, 0.0, 1.0),
            j("spine", Some(0), 0.0, 0.2),
            j("chest", Some(1), 0.0, 0.2),
            j("head", Some(2), 0.0, 0.3),
            j("l_upper_arm", Some(2), 0.2, 0.1),
            j("l_lower_arm", Some(4), 0.3 * arm, 0.0),
            j("l_hand", Some(5), 0.25 * arm, 0.0),
            j("r_upper_arm", Some(2), -0.2, 0.1),
            j("r_lower_arm", Some(7), -0.3 * arm, 0.0),
            j("r_hand", Some(8), -0.25 * arm, 0.0),
            j("l_upper_leg", Some(0), 0.1, -0.05),
            j("l_lower_leg", Some(10), 0.0, -0.45),
            j("l_foot", Some(11), 0.0, -0.45),
            j("r_upper_leg", Some(0), -0.1, -0.05),
            j("r_lower_leg", Some(13), 0.0, -0.45),
            j("r_foot", Some(14), 0.0, -0.45),
        ],
    )
    .unwrap()
}

fn map() -> BoneMap {
    use HumanBone::*;
    let bones = [
        Hips,
        Spine,
        Chest,
        Head,
        LeftUpperArm,
        LeftLowerArm,
        LeftHand,
        RightUpperArm,
        RightLowerArm,
        RightHand,
        LeftUpperLeg,
        LeftLowerLeg,
        LeftFoot,
        RightUpperLeg,
        RightLowerLeg,
        RightFoot,
    ];
    let pair = |(j, bone): (usize, &HumanBone)| BonePair {
        bone: Some(*bone),
        translation: match bone {
            Hips => TranslationMode::HipsScaled,
            _ => TranslationMode::None,
        },
        ..BonePair::new(j, j)
    };
    BoneMap::new(bones.iter().enumerate().map(pair).collect())
}

/// A clip of rotation tracks: `turn(joint, frame)` for the joints listed.
fn clip(joints: &[usize], turn: impl Fn(usize, usize) -> Quat) -> Clip {
    let times: Vec<f32> = (0..FRAMES).map(|f| f as f32 / 30.0).collect();
    let mut tracks = vec![JointTracks::default(); 16];
    for &j in joints {
        let keys = (0..FRAMES).map(|f| turn(j, f)).collect();
        let track = Track::new(times.clone(), keys, Interpolation::Linear).unwrap();
        tracks[j].rotation = Some(track);
    }
    Clip::new("clip", tracks, Some(30.0))
}

/// Frames 10..=20 held; eased from and back to `rest` over frames 0..10 and 20..30.
fn held(f: usize, rest: f32, hold: f32) -> f32 {
    let s = match f {
        0..10 => f as f32 / 10.0,
        10..=20 => 1.0,
        _ => (30 - f) as f32 / 10.0,
    };
    rest + (hold - rest) * s
}

/// The arms swing forward until the hands meet 6 cm apart in front of the chest.
fn clap() -> Clip {
    clip(&[L_UPPER, R_UPPER], |j, f| {
        let a = held(f, 60f32, 108f32).to_radians();
        Quat::from_rotation_y(if j == L_UPPER { -a } else { a })
    })
}

/// The left hand comes down onto the hip (10 cm from the hips joint), the elbow bent out.
fn hand_on_hip() -> Clip {
    clip(&[L_UPPER, L_LOWER], |j, f| {
        if j == L_UPPER {
            Quat::from_rotation_z(-held(f, 0.0, 62.7f32).to_radians())
        } else {
            Quat::from_rotation_z(-held(f, 0.0, 79.5f32).to_radians())
        }
    })
}

/// The world positions of every frame of `clip` retargeted from the plain figure onto
/// arms `arm` times as long, hand contacts kept or not, and what the solve reported.
fn retarget(
    clip: &Clip,
    arm: f32,
    keep: bool,
) -> (Vec<Vec<Vec3>>, Vec<crate::contacts::HandContact>) {
    retarget_with(clip, arm, keep, |_| {})
}

/// `retarget`, the retargeter set by `edit` before the clip.
fn retarget_with(
    clip: &Clip,
    arm: f32,
    keep: bool,
    edit: impl Fn(&mut Retargeter),
) -> (Vec<Vec<Vec3>>, Vec<crate::contacts::HandContact>) {
    let (source, target) = (figure(1.0), figure(arm));
    let mut r = crate::retarget::test_rigs::at_rest(&source, &target, &map());
    r.set_solve(SolveSettings {
        plant_feet: false,
        hand_contacts: keep,
        ..SolveSettings::default()
    });
    edit(&mut r);
    let out = r
        .retarget_clip(&source, clip, &target, &RetargetClipOptions::default())
        .unwrap();
    let mut pose = Pose::rest(&target);
    let frames = (0..FRAMES)
        .map(|f| {
            out.clip.sample(f as f32 / 30.0, &mut pose);
            pose.world_positions(&target)
        })
        .collect();
    (frames, out.plant.hand_contacts)
}

fn source_frames(clip: &Clip) -> Vec<Vec<Vec3>> {
    let s = figure(1.0);
    let mut pose = Pose::rest(&s);
    (0..FRAMES)
        .map(|f| {
            clip.sample(f as f32 / 30.0, &mut pose);
            pose.world_positions(&s)
        })
        .collect()
}

/// Over `frames`, the worst |target − source| distance between joints `a` and `b`.
fn worst(
    frames: std::ops::RangeInclusive<usize>,
    target: &[Vec<Vec3>],
    source: &[Vec<Vec3>],
    a: usize,
    b: usize,
) -> f32 {
    frames
        .map(|f| (target[f][a].distance(target[f][b]) - source[f][a].distance(source[f][b])).abs())
        .fold(0.0, f32::max)
}

#[test]
fn a_clap_keeps_the_hands_together_on_longer_and_shorter_arms() {
    let source = source_frames(&clap());
    let apart = source[15][L_HAND].distance(source[15][R_HAND]);
    assert!(
        (apart - 0.06).abs() < 0.005,
        "the source's hands meet 6 cm apart: {apart}"
    );
    for arm in [1.5, 0.7] {
        let (plain, _) = retarget(&clap(), arm, false);
        let (kept, contacts) = retarget(&clap(), arm, true);
        let before = worst(10..=20, &plain, &source, L_HAND, R_HAND);
        let after = worst(10..=20, &kept, &source, L_HAND, R_HAND);
        println!(
            "arms ×{arm}: {:.1} mm → {:.2} mm",
            before * 1e3,
            after * 1e3
        );
        assert!(
            before > 0.04,
            "arms ×{arm}: the hands part by {before} without the pass"
        );
        assert!(after < 1e-3, "arms ×{arm}: the hands stay {after} off");
        let hands: Vec<_> = contacts
            .iter()
            .filter(|c| c.touch == Touch::Hands)
            .collect();
        assert_eq!(hands.len(), 1, "{contacts:?}");
        assert!(hands[0].start <= 10 && hands[0].end >= 20, "{contacts:?}");
        // The arms keep their lengths.
        let length = |p: &[Vec3]| p[L_UPPER].distance(p[L_LOWER]);
        assert!((length(&kept[15]) - length(&plain[15])).abs() < 1e-4);
    }
}

#[test]
fn a_hand_on_the_hip_stays_on_the_hip_on_shorter_arms() {
    let source = source_frames(&hand_on_hip());
    let (plain, _) = retarget(&hand_on_hip(), 0.8, false);
    let (kept, contacts) = retarget(&hand_on_hip(), 0.8, true);
    let touch = Touch::Body {
        hand: Hand::Left,
        body: BodyPoint::Hips,
    };
    // The hand settles at frame 10: it rests from frame 11 (slow enough) to 20.
    let on: Vec<_> = contacts.iter().filter(|c| c.touch == touch).collect();
    assert_eq!(on.len(), 1, "{contacts:?}");
    assert!(on[0].start <= 11 && on[0].end >= 20, "{contacts:?}");
    let frames = on[0].start..=on[0].end;
    let before = worst(frames.clone(), &plain, &source, L_HAND, 0);
    let after = worst(frames, &kept, &source, L_HAND, 0);
    println!(
        "hand on hip, arms ×0.8: {:.1} mm → {:.2} mm",
        before * 1e3,
        after * 1e3
    );
    assert!(before > 0.03 && after < 1e-3, "{before} → {after}");
}

#[test]
fn a_drawn_span_keeps_the_hands_together_where_none_was_found_and_none_lets_them_go() {
    let source = source_frames(&clap());
    let (found, detected) = retarget(&clap(), 1.5, true);
    let hands = |c: &[crate::contacts::HandContact]| {
        (c.iter().filter(|c| c.touch == Touch::Hands))
            .map(|c| (c.start, c.end))
            .collect::<Vec<_>>()
    };
    assert!(hands(&detected).iter().all(|&(s, _)| s > 5), "{detected:?}");
    // Drawn over frames 3..=27: the hands keep the source's offset there too.
    let (drawn, contacts) = retarget_with(&clap(), 1.5, true, |r| {
        r.set_hand_spans(Touch::Hands, Some(vec![(3.0 / 30.0, 27.0 / 30.0)]))
    });
    assert_eq!(hands(&contacts), [(3, 27)]);
    let before = worst(4..=6, &found, &source, L_HAND, R_HAND);
    let after = worst(4..=6, &drawn, &source, L_HAND, R_HAND);
    println!(
        "frames 4-6, detected {:.1} mm → drawn {:.2} mm",
        before * 1e3,
        after * 1e3
    );
    assert!(before > 0.01 && after < 1e-3, "{before} → {after}");
    // No span drawn: the hands go their own ways, as without the pass.
    let (gone, contacts) = retarget_with(&clap(), 1.5, true, |r| {
        r.set_hand_spans(Touch::Hands, Some(Vec::new()))
    });
    assert!(hands(&contacts).is_empty(), "{contacts:?}");
    let apart = worst(10..=20, &gone, &source, L_HAND, R_HAND);
    assert!(apart > 0.04, "the hands part by {apart}");
}

/// Both hands on one rifle, one before the other (0.22 m apart, the left hand 0.19 m
/// further forward), raised from below the chest to above it through the clip.
fn rifle() -> Clip {
    clip(&[L_UPPER, R_UPPER], |j, f| {
        let pitch = (f as f32 / (FRAMES - 1) as f32 - 0.5) * 1.2;
        let yaw = if j == L_UPPER {
            -100f32.to_radians()
        } else {
            140f32.to_radians()
        };
        Quat::from_rotation_x(pitch) * Quat::from_rotation_y(yaw)
    })
}

#[test]
fn a_rifle_held_apart_keeps_its_length_on_longer_and_shorter_arms() {
    let source = source_frames(&rifle());
    let apart = source[15][L_HAND].distance(source[15][R_HAND]);
    assert!(
        (apart - 0.22).abs() < 0.01,
        "the hands 0.22 m apart: {apart}"
    );
    for arm in [1.5, 0.7] {
        let (plain, _) = retarget(&rifle(), arm, false);
        let (kept, contacts) = retarget(&rifle(), arm, true);
        let prop: Vec<_> = contacts.iter().filter(|c| c.touch == Touch::Prop).collect();
        assert_eq!(prop.len(), 1, "{contacts:?}");
        assert!(prop[0].start <= 2 && prop[0].end >= 28, "{contacts:?}");
        assert!(
            contacts.iter().all(|c| c.touch == Touch::Prop),
            "{contacts:?}"
        );
        let before = worst(3..=27, &plain, &source, L_HAND, R_HAND);
        let after = worst(3..=27, &kept, &source, L_HAND, R_HAND);
        println!(
            "rifle, arms ×{arm}: {:.1} mm → {:.2} mm",
            before * 1e3,
            after * 1e3
        );
        assert!(
            before > 0.04 && after < 1e-3,
            "arms ×{arm}: {before} → {after}"
        );
    }
}
