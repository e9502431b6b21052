//! Root motion: which joint moves, and where.

use super::*;
use crate::reference::{ContainerEdit, ReferencePose};
use crate::{JointDef, Retargeter, Transform};

fn joint(name: &str, parent: Option<usize>, t: Vec3) -> JointDef {
    JointDef::new(name, parent, Transform::new(t, Quat::IDENTITY, Vec3::ONE))
}

/// A stick figure: root, pelvis with a spine-start `hips` and two legs of `leg` length,
/// standing with its pelvis at `pelvis_y` (0 for a BVH whose root OFFSET is 0).
fn figure(leg: f32, pelvis_y: f32, legs_under_hips: bool) -> Skeleton {
    let legs_parent = if legs_under_hips { 2 } else { 1 };
    Skeleton::new(
        "figure",
        Mat4::IDENTITY,
        vec![
            joint("root", None, Vec3::ZERO),
            joint("body", Some(0), Vec3::new(0.0, pelvis_y, 0.0)),
            joint("hips", Some(1), Vec3::new(0.0, 0.1, 0.0)),
            joint("spine", Some(2), Vec3::new(0.0, 0.3, 0.0)),
            joint("l_leg", Some(legs_parent), Vec3::new(0.1, -0.1, 0.0)),
            joint("l_knee", Some(4), Vec3::new(0.0, -leg / 2.0, 0.0)),
            joint("l_foot", Some(5), Vec3::new(0.0, -leg / 2.0, 0.0)),
            joint("r_leg", Some(legs_parent), Vec3::new(-0.1, -0.1, 0.0)),
            joint("r_knee", Some(7), Vec3::new(0.0, -leg / 2.0, 0.0)),
            joint("r_foot", Some(8), Vec3::new(0.0, -leg / 2.0, 0.0)),
        ],
    )
    .unwrap()
}

fn map() -> BoneMap {
    use HumanBone::*;
    let bones = [
        (2, Hips),
        (3, Spine),
        (4, LeftUpperLeg),
        (5, LeftLowerLeg),
        (6, LeftFoot),
        (7, RightUpperLeg),
        (8, RightLowerLeg),
        (9, RightFoot),
    ];
    BoneMap::new(
        bones
            .iter()
            .map(|&(j, bone)| BonePair {
                bone: Some(bone),
                translation: if bone == Hips {
                    TranslationMode::HipsScaled
                } else {
                    TranslationMode::None
                },
                ..BonePair::new(j, j)
            })
            .collect(),
    )
}

#[test]
fn the_translation_goes_to_the_joint_that_carries_the_legs() {
    let robot = figure(0.8, 0.9, false);
    let routed = route_to_pelvis(&map(), &robot, &robot);
    let body = routed.for_target(1).expect("body takes the hips' motion");
    assert_eq!(body.translation, TranslationMode::HipsScaled);
    assert_eq!(
        routed.for_target(2).unwrap().translation,
        TranslationMode::None
    );
    let plain = figure(0.8, 0.9, true);
    assert_eq!(route_to_pelvis(&map(), &plain, &plain), map());
    assert_eq!(common_ancestor(&robot, &[2, 4, 7]), Some(1));
}

/// Root, an unlabelled `body`, the humanoid `hips` and `spine` (from `spine_parent`) and two
/// legs from `legs_parent`. Character Creator's split: legs from the hips (its
/// `CC_Base_Pelvis`), the spine from the body above (`CC_Base_Hip`).
fn layout(spine_parent: usize, legs_parent: usize) -> Skeleton {
    let leg = 0.8;
    Skeleton::new(
        "layout",
        Mat4::IDENTITY,
        vec![
            joint("root", None, Vec3::ZERO),
            joint("body", Some(0), Vec3::new(0.0, 0.9, 0.0)),
            joint("hips", Some(1), Vec3::ZERO),
            joint("spine", Some(spine_parent), Vec3::new(0.0, 0.1, 0.0)),
            joint("l_thigh", Some(legs_parent), Vec3::new(0.1, -0.05, 0.0)),
            joint("l_calf", Some(4), Vec3::new(0.0, -leg / 2.0, 0.0)),
            joint("l_foot", Some(5), Vec3::new(0.0, -leg / 2.0, 0.0)),
            joint("r_thigh", Some(legs_parent), Vec3::new(-0.1, -0.05, 0.0)),
            joint("r_calf", Some(7), Vec3::new(0.0, -leg / 2.0, 0.0)),
            joint("r_foot", Some(8), Vec3::new(0.0, -leg / 2.0, 0.0)),
        ],
    )
    .unwrap()
}

fn split_at_hips() -> Skeleton {
    layout(1, 2)
}

/// The root solve of `map` routed on `s` onto itself.
fn root_solve(s: &Skeleton) -> RootSolve {
    let routed = route_to_pelvis(&map(), s, s);
    let world = Pose::rest(s).world_matrices(s);
    let pair = routed
        .pairs()
        .iter()
        .find(|p| p.translation == TranslationMode::HipsScaled)
        .unwrap();
    RootSolve::new(pair, &routed, (s, &world), (s, &world))
}

/// The hip line turns the humanoid hips that carry the legs, wherever the motion goes:
/// Character Creator's pelvis under the hip that moves, but not the spine that Unity's
/// Ethan hangs its legs from.
#[test]
fn the_hip_line_turns_the_hips_that_carry_the_legs() {
    let turned = |s: &Skeleton| {
        let r = root_solve(s);
        (r.pelvis(), r.hip_carrier())
    };
    assert_eq!(turned(&split_at_hips()), (1, 2));
    assert_eq!(turned(&layout(2, 3)), (2, 2), "legs from the spine");
    assert_eq!(turned(&layout(2, 1)), (1, 1), "legs from the body");
    assert_eq!(turned(&layout(2, 2)), (2, 2));
}

#[test]
fn the_translation_goes_to_the_joint_that_carries_legs_and_spine() {
    let cc = split_at_hips();
    let routed = route_to_pelvis(&map(), &cc, &cc);
    let hip = routed
        .for_target(1)
        .expect("the hip takes the hips' motion");
    assert_eq!(hip.translation, TranslationMode::HipsScaled);
    assert_eq!((hip.source, hip.bone), (1, Some(HumanBone::Hips)));
    let pelvis = routed.for_target(2).unwrap();
    assert_eq!(
        (pelvis.source, pelvis.translation),
        (2, TranslationMode::None),
        "the pelvis keeps the hips' turn, not their translation"
    );
    // A source split so onto a target that is not: its hips still turn the target's.
    let plain = figure(0.8, 0.9, true);
    assert_eq!(route_to_pelvis(&map(), &cc, &plain), map());
    // A plain source onto the split target: its hips move and turn the target's hip.
    let hip = route_to_pelvis(&map(), &plain, &cc).for_target(1).cloned();
    assert_eq!(
        hip.map(|p| (p.source, p.translation)),
        Some((2, TranslationMode::HipsScaled))
    );
}

/// A source whose rest pose sits with the pelvis at 0 (a BVH root OFFSET of 0) and whose
/// motion stands it at its leg height: the target's feet land on its own floor.
#[test]
fn the_floor_comes_from_the_motion_not_the_rest_pose() {
    let source = figure(0.8, 0.0, true);
    let target = figure(1.6, 1.7, true);
    let mut r = crate::retarget::test_rigs::at_rest(&source, &target, &map());
    let mut pose = crate::Pose::rest(&source);
    // The clip stands the figure on y = 0: its feet, 0.9 below the pelvis, at 0.
    pose.translations[1] = Vec3::new(0.0, 0.9, 0.0);
    let clip = crate::Clip::new(
        "stand",
        (0..source.len())
            .map(|j| crate::JointTracks {
                translation: (j == 1).then(|| {
                    crate::Track::new(
                        vec![0.0, 1.0],
                        vec![pose.translations[1]; 2],
                        crate::Interpolation::Linear,
                    )
                    .unwrap()
                }),
                rotation: None,
                scale: None,
            })
            .collect(),
        Some(1.0),
    );
    r.fit_clip(&source, &clip);
    let mut out = crate::Pose::rest(&target);
    crate::retarget::test_rigs::solve(&r, &pose, &mut out);
    let feet = out.world_positions(&target);
    let own = crate::Pose::rest(&target).world_positions(&target);
    assert!(
        (feet[6].y - own[6].y).abs() < 1e-4,
        "foot at {} not {}",
        feet[6].y,
        own[6].y
    );
}

/// One body on both sides, every joint copying its translation, the upper legs keyed
/// away from the pelvis (a stag's gallop keys its hind shoulders): the pelvis is placed
/// for the hip point as the pose puts it, not as the rest does, and the output is the
/// source's pose. Placed for the rest's hip point, the body sank by the legs' lift.
#[test]
fn keyed_hip_joints_leave_the_pelvis_where_the_source_has_it() {
    let rig = figure(0.8, 0.9, false);
    let reference = ReferencePose::new(
        &rig,
        crate::Pose::rest(&rig),
        &ContainerEdit::default(),
        &[],
    );
    let copies = BoneMap::new(
        map()
            .pairs()
            .iter()
            .map(|p| BonePair {
                translation: match p.translation {
                    TranslationMode::None => TranslationMode::Copy,
                    t => t,
                },
                ..p.clone()
            })
            .collect(),
    );
    let map = route_to_pelvis(&copies, &rig, &rig);
    let mut r = Retargeter::new(&rig, &reference, &rig, &reference, &map).unwrap();
    r.set_same_rig(true);
    let mut pose = crate::Pose::rest(&rig);
    pose.translations[1] += Vec3::new(0.02, 0.1, -0.03);
    pose.translations[4] += Vec3::new(0.0, 0.06, 0.01);
    pose.translations[7] += Vec3::new(0.0, 0.06, 0.01);
    pose.rotations[1] = Quat::from_rotation_y(0.3);
    let mut out = crate::Pose::rest(&rig);
    crate::retarget::test_rigs::solve(&r, &pose, &mut out);
    let (want, got) = (pose.world_positions(&rig), out.world_positions(&rig));
    for (j, (a, b)) in want.iter().zip(&got).enumerate() {
        assert!(a.distance(*b) < 1e-5, "joint {j}: {b} not {a}");
    }
}
