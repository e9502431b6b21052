//! Planted feet and leg IK on real clips and rigs, judged as an animator would: on
//! the CMU walk and dance, the target's feet slide no more than the source's own (mean and
//! worst contact), stand within 10 mm of where the source's stand, and the knees never flip
//! to the other side of their legs. Without planting, the robot's short thighs and long
//! shins slide its feet 3× the source's.

use crate::common::asset_path;
use crate::common::file_variants::longer_legs;
use glam::Vec3;
use retarget_studio::core::quality::{Report, Thresholds};
use retarget_studio::core::{HumanBone, Pose};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::path::{Path, PathBuf};

fn session(source: &Path, target: &Path, plant: bool) -> Session {
    let mut s = Session::automatic(source, target, &ImportOptions::default()).unwrap();
    s.solve.settings.plant_feet = plant;
    s
}

fn report(s: &Session) -> Report {
    s.quality(None, &Thresholds::default()).unwrap()
}

/// The bundled humanoid targets and the long-legged variant of CesiumMan.
fn targets(dir: &Path) -> Vec<PathBuf> {
    let long = dir.join("CesiumMan_long_legs.glb");
    std::fs::write(
        &long,
        longer_legs(
            &std::fs::read(asset_path("gltf/CesiumMan.glb")).unwrap(),
            1.3,
        ),
    )
    .unwrap();
    vec![
        asset_path("gltf/RobotExpressive.glb"),
        asset_path("gltf/CesiumMan.glb"),
        asset_path("vrm/cryptovoxels.vrm"),
        long,
    ]
}

#[test]
fn planted_feet_slide_no_more_than_the_source_s_and_stand_where_they_stand() {
    let dir = tempfile::tempdir().unwrap();
    for source in ["bvh/02_01.bvh", "bvh/05_06.bvh"] {
        for target in targets(dir.path()) {
            let what = format!("{source} onto {}", target.display());
            let r = report(&session(&asset_path(source), &target, true));
            let skate = r.skate.as_ref().expect("the clips have contacts");
            assert!(
                skate.target.mean_mm <= skate.source.mean_mm
                    && skate.target.max_mm <= skate.source.max_mm,
                "{what}: skate {:.1}/{:.1} mm against the source's {:.1}/{:.1}",
                skate.target.mean_mm,
                skate.target.max_mm,
                skate.source.mean_mm,
                skate.source.max_mm
            );
            let ground = r.ground.as_ref().unwrap();
            let off = ground.target.mean_mm - ground.source.mean_mm;
            assert!(
                off.abs() <= 10.0,
                "{what}: ground {off:+.1} mm off the source's"
            );
            assert!(r.passed, "{what}: {:?}", r.flags);
        }
    }
}

#[test]
fn without_planting_the_robot_slides_its_feet() {
    let (walk, robot) = (
        asset_path("bvh/02_01.bvh"),
        asset_path("gltf/RobotExpressive.glb"),
    );
    let free = report(&session(&walk, &robot, false));
    let planted = report(&session(&walk, &robot, true));
    let (f, p) = (free.skate.unwrap(), planted.skate.unwrap());
    assert!(
        f.target.mean_mm > 2.0 * f.source.mean_mm,
        "free {:.1} mm",
        f.target.mean_mm
    );
    assert!(
        p.target.mean_mm < 0.2 * f.target.mean_mm,
        "planted {:.1} mm",
        p.target.mean_mm
    );
}

/// The knee's bend side: which way the shin turns off the thigh, seen along the hip line.
fn bend_sides(s: &Session, planted: bool) -> Vec<[f32; 2]> {
    let mut s2 = session(&s.source.path, &s.target.path, planted);
    s2.map = s.map.clone();
    let out = s2.retarget_clip(None, None).unwrap();
    let t = s2.target.skeleton();
    let bone = |b: HumanBone| {
        let pair = s2.map.pairs().iter().find(|p| p.bone == Some(b));
        pair.expect("a humanoid leg").target
    };
    let legs = [
        (bone(HumanBone::LeftUpperLeg), bone(HumanBone::LeftLowerLeg)),
        (
            bone(HumanBone::RightUpperLeg),
            bone(HumanBone::RightLowerLeg),
        ),
    ];
    let feet = [bone(HumanBone::LeftFoot), bone(HumanBone::RightFoot)];
    let fps = out.fps().unwrap_or(30.0);
    (0..out.frame_count())
        .map(|f| {
            let mut pose = Pose::rest(t);
            out.sample(out.start_secs() + f as f32 / fps, &mut pose);
            let w = pose.world_positions(t);
            let hip_line: Vec3 = w[legs[0].0] - w[legs[1].0];
            [0, 1].map(|k| {
                let (hip, knee, foot) = (w[legs[k].0], w[legs[k].1], w[feet[k]]);
                (knee - hip).cross(foot - knee).dot(hip_line)
            })
        })
        .collect()
}

#[test]
fn knees_bend_the_way_the_solved_motion_bends_them() {
    let dir = tempfile::tempdir().unwrap();
    let walk = asset_path("bvh/02_01.bvh");
    for target in targets(dir.path()).into_iter().skip(1) {
        let s = session(&walk, &target, true);
        let (free, planted) = (bend_sides(&s, false), bend_sides(&s, true));
        let flips = free
            .iter()
            .zip(&planted)
            .flat_map(|(a, b)| (0..2).map(move |k| (a[k], b[k])))
            .filter(|(a, b)| a * b < 0.0 && a.abs() > 1e-4)
            .count();
        assert_eq!(
            flips,
            0,
            "{}: knees flipped in {flips} leg-frames",
            target.display()
        );
    }
}

/// Reach: the left arm in absolute mode puts its hand where the source's hand is,
/// from the hip point and scaled by the heights, on every frame; the other hand is free.
#[test]
fn a_chain_in_absolute_mode_reaches_the_source_s_hand() {
    use retarget_studio::core::ReferencePose;
    let (walk, vrm) = (
        asset_path("bvh/02_01.bvh"),
        asset_path("vrm/cryptovoxels.vrm"),
    );
    let mut s = session(&walk, &vrm, false);
    let bone = |b: HumanBone| {
        s.map
            .pairs()
            .iter()
            .find(|p| p.bone == Some(b))
            .unwrap()
            .clone()
    };
    let (hand, other) = (bone(HumanBone::LeftHand), bone(HumanBone::RightHand));
    let hips = |j: [usize; 2], w: &[Vec3]| (w[j[0]] + w[j[1]]) * 0.5;
    let legs = |side: fn(&retarget_studio::core::BonePair) -> usize| {
        [HumanBone::LeftUpperLeg, HumanBone::RightUpperLeg].map(|b| side(&bone(b)))
    };
    let (src_legs, tgt_legs) = (legs(|p| p.source), legs(|p| p.target));
    let name = s.target.skeleton().names()[hand.target].clone();
    let height = |sk: &retarget_studio::core::Skeleton, r: &ReferencePose| {
        let w = r.world_matrices(sk);
        let ys = w.iter().map(|m| m.w_axis.y);
        ys.clone().fold(f32::MIN, f32::max) - ys.fold(f32::MAX, f32::min)
    };
    let scale = height(s.target.skeleton(), &s.target.reference)
        / height(s.source.skeleton(), &s.source.reference);
    let gaps = |s: &Session| {
        let out = s.retarget_clip(None, None).unwrap();
        let src = s.source_clip(None).unwrap();
        let (ss, ts) = (s.source.skeleton(), s.target.skeleton());
        let fps = out.fps().unwrap_or(30.0);
        let (mut worst, mut worst_other) = (0.0f32, 0.0f32);
        for f in 0..out.frame_count() {
            let t = out.start_secs() + f as f32 / fps;
            let (mut a, mut b) = (Pose::rest(ss), Pose::rest(ts));
            src.sample(src.start_secs() + f as f32 / fps, &mut a);
            out.sample(t, &mut b);
            let at = |locals: Pose, side: &retarget_studio::session::Side| {
                let container = side.reference.container;
                let w = ReferencePose {
                    locals,
                    container,
                    stance_height: None,
                }
                .world_matrices(side.skeleton());
                w.iter().map(|m| m.w_axis.truncate()).collect::<Vec<_>>()
            };
            let (wa, wb) = (at(a, &s.source), at(b, &s.target));
            let (ha, hb) = (hips(src_legs, &wa), hips(tgt_legs, &wb));
            let want = |p: &retarget_studio::core::BonePair| hb + (wa[p.source] - ha) * scale;
            worst = worst.max(wb[hand.target].distance(want(&hand)));
            worst_other = worst_other.max(wb[other.target].distance(want(&other)));
        }
        (worst, worst_other)
    };
    let (free, other_before) = gaps(&s);
    s.solve.reach.push(name.clone());
    let (reached, other_free) = gaps(&s);
    let h = height(s.target.skeleton(), &s.target.reference);
    println!(
        "reach {name}: {:.4} of the height (free: {:.4})",
        reached / h,
        free / h
    );
    assert!(
        reached < 0.01 * h,
        "{name}: {:.3} of the height from its goal",
        reached / h
    );
    assert!(
        free > 5.0 * reached,
        "without reach the hand goes its own way ({free} vs {reached})"
    );
    assert!(
        (other_free - other_before).abs() < 1e-4 * h,
        "the other hand is left alone"
    );
}

/// Skate per contact of each target foot, by the foot's name.
fn skate_of(r: &Report) -> Vec<(String, f64)> {
    let s = r.skate.as_ref().expect("contacts");
    s.target
        .per_foot
        .iter()
        .map(|f| (f.foot.clone(), f.mean_mm))
        .collect()
}

/// Per leg: a leg left unplanted (IK off) slides as the frame-by-frame solve has it
/// while the other stays planted; and a limit of 0° on a leg's thigh and shin keeps IK
/// within the swing the solve already gave them, so that foot is planted less well while
/// the other is planted as before. Both are saved in the project and come back.
#[test]
fn a_leg_can_be_left_unplanted_and_limits_hold_what_ik_adds() {
    use retarget_studio::core::ik::JointLimit;
    let dir = tempfile::tempdir().unwrap();
    // The VRM with 1.3× legs under CMU 01_01: its feet slide 15.4 mm free, 1.6 planted.
    let long = dir.path().join("vrm_long_legs.glb");
    let vrm = std::fs::read(asset_path("vrm/cryptovoxels.vrm")).unwrap();
    std::fs::write(&long, longer_legs(&vrm, 1.3)).unwrap();
    let cases = [
        (
            "unplanted",
            "bvh/02_01.bvh",
            asset_path("gltf/RobotExpressive.glb"),
        ),
        ("limits", "bvh/01_01.bvh", long),
    ];
    for (case, source, target) in cases {
        let walk = asset_path(source);
        let free = skate_of(&report(&session(&walk, &target, false)));
        let planted = skate_of(&report(&session(&walk, &target, true)));
        let mut s = session(&walk, &target, true);
        let bone = |b: HumanBone| {
            let t = s
                .map
                .pairs()
                .iter()
                .find(|p| p.bone == Some(b))
                .unwrap()
                .target;
            s.target.skeleton().names()[t].clone()
        };
        if case == "unplanted" {
            s.solve.unplanted.push(bone(HumanBone::LeftFoot));
        } else {
            for b in [HumanBone::LeftUpperLeg, HumanBone::LeftLowerLeg] {
                s.solve
                    .limits
                    .push((bone(b), Some(JointLimit::new(0.0, 0.0))));
            }
        }
        let saved = dir.path().join(format!("{case}.ron"));
        s.to_project().save(&saved).unwrap();
        let s = Session::from_project(&saved).unwrap();
        let one = skate_of(&report(&s));
        println!("{case}: free {free:?}, planted {planted:?}, one leg {one:?}");
        assert!(
            free[0].1 > planted[0].1 + 1.0,
            "{case}: planting matters on the left"
        );
        if case == "unplanted" {
            // Left as the frame-by-frame solve has it.
            assert!(
                (one[0].1 - free[0].1).abs() < 0.5,
                "{case}: {one:?} vs free {free:?}"
            );
        } else {
            assert!(
                one[0].1 > planted[0].1 + 0.5,
                "{case}: {one:?} vs {planted:?}"
            );
        }
        // The other leg is planted as before.
        assert!(
            (one[1].1 - planted[1].1).abs() < 0.5,
            "{case}: {one:?} vs {planted:?}"
        );
    }
}

/// The quality strip's rows: skate, ground and reach per frame. The left hand in
/// absolute mode reaches its goal on the VRM, so its row stays clear; on the VRM with arms
/// half as long the scaled goal hangs out of the hand's reach and the row shows where.
#[test]
fn the_strip_shows_skate_ground_and_reach_per_frame() {
    use retarget_studio::core::quality::Measure;
    let dir = tempfile::tempdir().unwrap();
    use crate::common::file_variants::{four_armed::arm_tops, glb::Glb, longer_limbs};
    let short = dir.path().join("vrm_short_arms.glb");
    let vrm = asset_path("vrm/cryptovoxels.vrm");
    let bytes = std::fs::read(&vrm).unwrap();
    let tops = arm_tops(&Glb::parse(&bytes));
    std::fs::write(&short, longer_limbs(&bytes, &tops, 0.5)).unwrap();
    let walk = asset_path("bvh/02_01.bvh");
    let mut missed_frames = Vec::new();
    for target in [vrm, short] {
        let mut s = session(&walk, &target, true);
        let plain = report(&s);
        assert!(
            plain.frame_row(Measure::Reach).is_none(),
            "no reach chain yet"
        );
        for m in [Measure::Skate, Measure::Ground, Measure::Pelvis] {
            let row = plain.frame_row(m).expect("measured per frame");
            assert_eq!(row.len(), plain.frames, "{m:?}");
        }
        let hand = s
            .map
            .pairs()
            .iter()
            .find(|p| p.bone == Some(HumanBone::LeftHand));
        let hand = s.target.skeleton().names()[hand.unwrap().target].clone();
        s.solve.reach.push(hand);
        let r = report(&s);
        let row = r.frame_row(Measure::Reach).expect("a reach row");
        assert_eq!(row.len(), r.frames);
        // The worst row per frame is the strip's overall badness.
        for (i, b) in r.frame_badness.iter().enumerate() {
            let worst = r
                .frame_rows
                .iter()
                .map(|row| row.badness[i])
                .fold(0.0, f32::max);
            assert_eq!(*b, worst, "frame {i}");
        }
        missed_frames.push(row.iter().filter(|&&b| b >= 1.0).count());
    }
    println!("frames where the hand misses its goal: {missed_frames:?}");
    assert_eq!(missed_frames[0], 0, "the VRM's hand reaches its goal");
    assert!(
        missed_frames[1] > 10,
        "short arms cannot: {missed_frames:?}"
    );
}
