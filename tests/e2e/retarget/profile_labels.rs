//! Automatic humanoid labels (`core::profile::auto_label`) on the real rigs in assets/, and on
//! copies of them renamed to other rigs' conventions or to meaningless names.

use crate::common::renames::{mixamo_name, unreal_name};
use crate::common::{BVH_ASSETS, GLTF_ASSETS, load};
use glam::{Mat4, Quat, Vec3};
use retarget_studio::core::profile::{Label, LabelMethod, auto_label};
use retarget_studio::core::{HumanBone, JointDef, Pose, Skeleton};
use std::collections::HashSet;

/// The first skeleton of an asset, with the humanoid table the importer filled cleared, so
/// that only names and geometry speak.
fn untabled(rel: &str) -> Skeleton {
    let mut s = load(rel).skeletons.swap_remove(0);
    for j in 0..s.len() {
        s.set_humanoid(j, None);
    }
    s
}

fn label(s: &Skeleton) -> Vec<Option<Label>> {
    auto_label(s, &Pose::bind(s))
}

/// A copy of `s` with every joint renamed by `name(index, old name)` and no table.
fn renamed(s: &Skeleton, name: impl Fn(usize, &str) -> String) -> Skeleton {
    let joints = (0..s.len())
        .map(|i| JointDef {
            name: name(i, &s.names()[i]),
            parent: s.parents()[i],
            rest: s.rest()[i],
            bind: s.bind()[i],
            humanoid: None,
        })
        .collect();
    Skeleton::new(s.name.clone(), s.container(), joints).unwrap()
}

/// Name of the joint labelled `bone`.
fn joint_of<'a>(s: &'a Skeleton, labels: &[Option<Label>], bone: HumanBone) -> Option<&'a str> {
    let j = labels
        .iter()
        .position(|l| l.is_some_and(|l| l.bone == bone))?;
    Some(s.names()[j].as_str())
}

fn assert_labels(s: &Skeleton, labels: &[Option<Label>], want: &[(HumanBone, &str)]) {
    for (bone, name) in want {
        assert_eq!(
            joint_of(s, labels, *bone),
            Some(*name),
            "{}: {bone:?}",
            s.name
        );
    }
}

fn assert_unique(what: &str, labels: &[Option<Label>]) {
    let mut seen = HashSet::new();
    for l in labels.iter().flatten() {
        assert!(seen.insert(l.bone), "{what}: {:?} given twice", l.bone);
        assert!((0.0..=1.0).contains(&l.confidence), "{what}: {l:?}");
        assert_ne!(
            l.method,
            LabelMethod::Hand,
            "{what}: auto labels are never by hand"
        );
    }
}

/// hips, spine chain, neck, head, upper/lower arms and legs, hands, feet.
const MAIN: &[HumanBone] = &[
    HumanBone::Hips,
    HumanBone::Spine,
    HumanBone::Chest,
    HumanBone::Neck,
    HumanBone::Head,
    HumanBone::LeftUpperArm,
    HumanBone::LeftLowerArm,
    HumanBone::LeftHand,
    HumanBone::RightUpperArm,
    HumanBone::RightLowerArm,
    HumanBone::RightHand,
    HumanBone::LeftUpperLeg,
    HumanBone::LeftLowerLeg,
    HumanBone::LeftFoot,
    HumanBone::RightUpperLeg,
    HumanBone::RightLowerLeg,
    HumanBone::RightFoot,
];

/// Joint index of each main bone.
fn main_map(labels: &[Option<Label>]) -> Vec<(HumanBone, Option<usize>)> {
    MAIN.iter()
        .map(|&b| {
            (
                b,
                labels.iter().position(|l| l.is_some_and(|l| l.bone == b)),
            )
        })
        .collect()
}

const ROBOT: &str = "gltf/RobotExpressive.glb";

#[test]
fn robot_expressive_blender_names() {
    use HumanBone::*;
    let s = untabled(ROBOT);
    let labels = label(&s);
    assert_unique("robot", &labels);
    assert_labels(
        &s,
        &labels,
        &[
            (Hips, "Hips"),
            (Spine, "Abdomen"),
            (Chest, "Torso"),
            (Neck, "Neck"),
            (Head, "Head"),
            (LeftShoulder, "Shoulder.L"),
            (LeftUpperArm, "UpperArm.L"),
            (LeftLowerArm, "LowerArm.L"),
            (LeftHand, "Palm2.L"),
            (RightShoulder, "Shoulder.R"),
            (RightUpperArm, "UpperArm.R"),
            (RightLowerArm, "LowerArm.R"),
            (RightHand, "Palm2.R"),
            (LeftUpperLeg, "UpperLeg.L"),
            (LeftLowerLeg, "LowerLeg.L"),
            (LeftFoot, "Foot.L"),
            (RightUpperLeg, "UpperLeg.R"),
            (RightLowerLeg, "LowerLeg.R"),
            (RightFoot, "Foot.R"),
            (LeftThumbMetacarpal, "Thumb.L"),
            (LeftThumbProximal, "Thumb2.L"),
            (LeftIndexProximal, "Index.L"),
            (LeftIndexIntermediate, "Index2.L"),
            (RightMiddleProximal, "Middle1.R"),
            (RightRingIntermediate, "Ring2.R"),
        ],
    );
    for helper in [
        "Bone",
        "Body",
        "PoleTarget.L",
        "PoleTarget.R",
        "Palm1.L",
        "Palm3.R",
    ] {
        let j = s.find(helper).unwrap();
        assert_eq!(labels[j], None, "{helper}");
    }
    for (_, j) in main_map(&labels) {
        assert_eq!(labels[j.unwrap()].unwrap().method, LabelMethod::Name);
    }
}

#[test]
fn robot_renamed_to_mixamo_unreal_and_nonsense_gets_the_same_main_bones() {
    let s = untabled(ROBOT);
    let want = main_map(&label(&s));
    assert!(want.iter().all(|(_, j)| j.is_some()), "{want:?}");
    let copies = [
        (
            "mixamo",
            renamed(&s, |_, n| mixamo_name(n)),
            LabelMethod::Name,
        ),
        (
            "unreal",
            renamed(&s, |_, n| unreal_name(n)),
            LabelMethod::Name,
        ),
        (
            "nonsense",
            renamed(&s, |i, _| format!("joint_{i:02}")),
            LabelMethod::Topology,
        ),
    ];
    for (what, copy, method) in copies {
        let labels = label(&copy);
        assert_unique(what, &labels);
        assert_eq!(main_map(&labels), want, "{what}");
        for (bone, j) in main_map(&labels) {
            let l = labels[j.unwrap()].unwrap();
            assert_eq!(l.method, method, "{what}: {bone:?}");
        }
    }
}

#[test]
fn cmu_mocap_names() {
    use HumanBone::*;
    for rel in BVH_ASSETS {
        let s = untabled(rel);
        let labels = label(&s);
        assert_unique(rel, &labels);
        assert_labels(
            &s,
            &labels,
            &[
                (Hips, "Hips"),
                (Spine, "LowerBack"),
                (Chest, "Spine"),
                (UpperChest, "Spine1"),
                (Neck, "Neck"),
                (Head, "Head"),
                (LeftUpperLeg, "LeftUpLeg"),
                (LeftLowerLeg, "LeftLeg"),
                (LeftFoot, "LeftFoot"),
                (LeftToes, "LeftToeBase"),
                (RightUpperLeg, "RightUpLeg"),
                (RightLowerLeg, "RightLeg"),
                (RightFoot, "RightFoot"),
                (LeftShoulder, "LeftShoulder"),
                (LeftUpperArm, "LeftArm"),
                (LeftLowerArm, "LeftForeArm"),
                (LeftHand, "LeftHand"),
                (RightUpperArm, "RightArm"),
                (RightLowerArm, "RightForeArm"),
                (RightHand, "RightHand"),
                (LeftThumbMetacarpal, "LThumb"),
                (RightThumbMetacarpal, "RThumb"),
            ],
        );
        for helper in [
            "LHipJoint",
            "RHipJoint",
            "Neck1",
            "LeftFingerBase",
            "Head_end",
        ] {
            assert_eq!(labels[s.find(helper).unwrap()], None, "{rel}: {helper}");
        }
        assert!(
            labels
                .iter()
                .flatten()
                .all(|l| l.method == LabelMethod::Name)
        );
    }
}

/// World positions of the bind pose.
fn positions(s: &Skeleton) -> Vec<Vec3> {
    Pose::bind(s).world_positions(s)
}

#[test]
fn cesium_man_from_topology_alone() {
    use HumanBone::*;
    let s = untabled("gltf/CesiumMan.glb");
    let labels = label(&s);
    assert_unique("cesium", &labels);
    assert!(
        labels
            .iter()
            .flatten()
            .all(|l| l.method == LabelMethod::Topology)
    );
    assert!(
        labels
            .iter()
            .flatten()
            .all(|l| (0.45..=0.75).contains(&l.confidence))
    );
    // The names, which the labeller could not use, agree.
    assert_labels(
        &s,
        &labels,
        &[
            (Hips, "Skeleton_torso_joint_1"),
            (Head, "Skeleton_neck_joint_2"),
            (LeftUpperLeg, "leg_joint_L_1"),
            (LeftLowerLeg, "leg_joint_L_2"),
            (LeftFoot, "leg_joint_L_3"),
            (RightUpperLeg, "leg_joint_R_1"),
            (RightFoot, "leg_joint_R_3"),
            (LeftUpperArm, "Skeleton_arm_joint_L__4_"),
            (LeftLowerArm, "Skeleton_arm_joint_L__3_"),
            (LeftHand, "Skeleton_arm_joint_L__2_"),
            (RightUpperArm, "Skeleton_arm_joint_R"),
            (RightHand, "Skeleton_arm_joint_R__3_"),
        ],
    );
    // And so does the world: the toes point +Z (glTF facing), so the figure's left is +X.
    let p = positions(&s);
    let at = |b: HumanBone| {
        p[labels
            .iter()
            .position(|l| l.is_some_and(|l| l.bone == b))
            .unwrap()]
    };
    assert!(at(LeftToes).z > at(LeftFoot).z);
    for (l, r) in [
        (LeftUpperLeg, RightUpperLeg),
        (LeftFoot, RightFoot),
        (LeftHand, RightHand),
    ] {
        assert!(at(l).x > at(Hips).x && at(r).x < at(Hips).x, "{l:?} {r:?}");
    }
}

/// Share of the table's bones that `labels` give to the same joint; panics on a left/right
/// swap.
fn table_agreement(what: &str, table: &[Option<HumanBone>], labels: &[Option<Label>]) -> f32 {
    let (mut total, mut same) = (0usize, 0usize);
    for (t, l) in table.iter().zip(labels) {
        let Some(t) = t else { continue };
        total += 1;
        let got = l.map(|l| l.bone);
        same += usize::from(got == Some(*t));
        if let Some(g) = got {
            let swapped = (t.as_str().starts_with("left") && g.as_str().starts_with("right"))
                || (t.as_str().starts_with("right") && g.as_str().starts_with("left"));
            assert!(!swapped, "{what}: table says {t:?}, labelled {g:?}");
        }
    }
    same as f32 / total.max(1) as f32
}

#[test]
fn cryptovoxels_without_its_table_agrees_with_it() {
    let asset = load("vrm/cryptovoxels.vrm");
    let table = asset.skeletons[0].humanoid().to_vec();
    assert!(table.iter().flatten().count() >= 40);
    let s = untabled("vrm/cryptovoxels.vrm");
    let labels = label(&s);
    assert_unique("vrm", &labels);
    let share = table_agreement("vrm names", &table, &labels);
    assert!(share >= 0.9, "names agree on {share}");
    // VRM 0.x faces −Z: geometry alone must still get left and right right.
    let nonsense = renamed(&s, |i, _| format!("joint_{i:02}"));
    let by_shape = label(&nonsense);
    assert_unique("vrm nonsense", &by_shape);
    let share = table_agreement("vrm geometry", &table, &by_shape);
    assert!(share >= 0.45, "geometry agrees on {share}");
    for (i, l) in by_shape.iter().enumerate() {
        if let Some(l) = l {
            // A finger bone the table leaves out (its index distal) may be found by shape.
            let untabled_finger = table[i].is_none()
                && retarget_studio::core::hands::is_digit_bone(l.bone)
                && !table.contains(&Some(l.bone));
            if untabled_finger {
                continue;
            }
            assert_eq!(Some(l.bone), table[i], "{}", s.names()[i]);
        }
    }
    // With the table in place, the table wins.
    let with_table = auto_label(&asset.skeletons[0], &Pose::bind(&asset.skeletons[0]));
    for (t, l) in table.iter().zip(&with_table) {
        if let Some(t) = t {
            let l = l.unwrap();
            assert_eq!(
                (l.bone, l.method, l.confidence),
                (*t, LabelMethod::Table, 1.0)
            );
        }
    }
}

#[test]
fn vrm_animation_names_alone_give_its_table() {
    let asset = load("vrm/three-vrm_test.vrma");
    let table = asset.skeletons[0].humanoid().to_vec();
    let s = untabled("vrm/three-vrm_test.vrma");
    let labels = label(&s);
    assert_unique("vrma", &labels);
    assert_eq!(table_agreement("vrma", &table, &labels), 1.0);
    assert!(
        labels
            .iter()
            .flatten()
            .all(|l| l.method == LabelMethod::Name)
    );
}

#[test]
fn fox_gets_only_weak_labels() {
    let s = untabled("gltf/Fox.glb");
    let labels = label(&s);
    assert_unique("fox", &labels);
    for l in labels.iter().flatten() {
        assert!(l.confidence < 0.5 && l.method == LabelMethod::Name, "{l:?}");
    }
    let nonsense = renamed(&s, |i, _| format!("joint_{i:02}"));
    assert!(label(&nonsense).iter().all(Option::is_none));
}

#[test]
fn every_rig_and_nonsense_copy_labels_each_bone_once() {
    for rel in GLTF_ASSETS.iter().chain(BVH_ASSETS) {
        let asset = load(rel);
        for s in &asset.skeletons {
            assert_unique(rel, &auto_label(s, &Pose::bind(s)));
            assert_unique(rel, &auto_label(s, &Pose::rest(s)));
            let nonsense = renamed(s, |i, _| format!("joint_{i:02}"));
            assert_unique(rel, &label(&nonsense));
        }
    }
}

#[test]
fn geometry_labels_do_not_depend_on_placement_or_units() {
    // Turned about the vertical, scaled ×37 and moved: the facing is read from the figure.
    let place = Mat4::from_scale_rotation_translation(
        Vec3::splat(37.0),
        Quat::from_rotation_y(2.0),
        Vec3::new(5.0, -3.0, 1.0),
    );
    for rel in GLTF_ASSETS.iter().chain(BVH_ASSETS) {
        let s = renamed(&untabled(rel), |i, _| format!("joint_{i:02}"));
        let mut moved = s.clone();
        moved.set_container(place * s.container());
        assert_eq!(label(&s), label(&moved), "{rel}");
    }
}

#[test]
fn robot_in_its_relaxed_rest_pose_keeps_arms_apart_from_legs() {
    // The node rest pose hangs the arms 63° down and forward, hands below the knees; they
    // must not pass for legs.
    let s = renamed(&untabled(ROBOT), |i, _| format!("joint_{i:02}"));
    let bind = main_map(&label(&s));
    let rest = main_map(&auto_label(&s, &Pose::rest(&s)));
    assert_eq!(rest, bind);
}
